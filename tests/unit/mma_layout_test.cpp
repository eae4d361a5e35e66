// The MMA layout table against what the instructions need: every tile element held by
// exactly one (lane, register element), and each register's elements (two 16-bit or four
// 8-bit ones) adjacent in a row (so one 32-bit load fills a register).
#include <catch2/catch.hpp>

#include <set>

#include "analysis/MMALayout.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

using namespace wave;

namespace {

void checkOperand(const jit::MMAOperandLayout& op, int64_t lanes) {
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t lane = 0; lane < lanes; ++lane)
    for (int64_t e = 0; e < op.elementsPerLane(); ++e) {
      llvm::SmallVector<int64_t> rc = op.map.compose({lane, e});
      REQUIRE(rc.size() == 2);
      CHECK(rc[0] >= 0);
      CHECK(rc[0] < op.rows);
      CHECK(rc[1] >= 0);
      CHECK(rc[1] < op.cols);
      CHECK(seen.insert({rc[0], rc[1]}).second);
      if (e % op.registers[1] != 0) {
        llvm::SmallVector<int64_t> prev = op.map.compose({lane, e - 1});
        CHECK(prev[0] == rc[0]);
        CHECK(prev[1] + 1 == rc[1]);
      }
    }
  CHECK(static_cast<int64_t>(seen.size()) == op.rows * op.cols);
}

}  // namespace

TEST_CASE("mma.sync m16n8k16 and m16n8k32 layouts cover each tile once, in 32-bit registers", "[mma][layout]") {
  mlir::MLIRContext ctx;
  ctx.loadDialect<dialect::WaveDialect>();
  for (auto kind : {dialect::MMAKind::f32_16x8x16_f16, dialect::MMAKind::f32_16x8x16_bf16,
                    dialect::MMAKind::f16_16x8x16_f16, dialect::MMAKind::f32_16x8x32_f8e4m3,
                    dialect::MMAKind::f32_16x8x32_f8e5m2, dialect::MMAKind::i32_16x8x32_i8}) {
    INFO(dialect::stringifyMMAKind(kind).str());
    auto layout = jit::getMMALayout(&ctx, kind);
    REQUIRE(mlir::succeeded(layout));
    CHECK(layout->a.rows == layout->m);
    CHECK(layout->a.cols == layout->k);
    CHECK(layout->b.rows == layout->n);
    CHECK(layout->c.cols == layout->n);
    checkOperand(layout->a, layout->lanes);
    checkOperand(layout->b, layout->lanes);
    checkOperand(layout->c, layout->lanes);
  }
  // Lane 5 is in group 1, place 1: A's first register holds row 1, columns 2 and 3.
  auto f16 = jit::getMMALayout(&ctx, dialect::MMAKind::f32_16x8x16_f16);
  CHECK(f16->a.map.compose({5, 0}) == llvm::SmallVector<int64_t>{1, 2});
  CHECK(f16->a.map.compose({5, 7}) == llvm::SmallVector<int64_t>{9, 11});
  CHECK(f16->c.map.compose({31, 3}) == llvm::SmallVector<int64_t>{15, 7});
  // f8: A's registers hold four bytes; lane 5's first holds row 1, columns 4-7, its last
  // row 9, columns 20-23 (PTX ISA, m16n8k32 A fragment).
  auto f8 = jit::getMMALayout(&ctx, dialect::MMAKind::f32_16x8x32_f8e4m3);
  CHECK(f8->k == 32);
  CHECK(f8->a.map.compose({5, 0}) == llvm::SmallVector<int64_t>{1, 4});
  CHECK(f8->a.map.compose({5, 15}) == llvm::SmallVector<int64_t>{9, 23});
  CHECK(f8->b.map.compose({5, 7}) == llvm::SmallVector<int64_t>{1, 23});
  // s8 (m16n8k32 .s8): f8's fragments, i32 accumulators where f32 ones are.
  auto s8 = jit::getMMALayout(&ctx, dialect::MMAKind::i32_16x8x32_i8);
  CHECK(s8->inputType.isInteger(8));
  CHECK(s8->accType.isInteger(32));
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t e = 0; e < 16; ++e) CHECK(s8->a.map.compose({lane, e}) == f8->a.map.compose({lane, e}));
  CHECK(s8->c.map.compose({31, 3}) == llvm::SmallVector<int64_t>{15, 7});
}

// ldmatrix gives lane L, in register r, the 32 bits at (row L/4, byte 4(L%4)) of matrix r,
// whose row i lane 8r+i addresses; that must be where the fragment map puts it.
TEST_CASE("ldmatrix addresses reproduce the A and B fragment layouts", "[mma][layout]") {
  mlir::MLIRContext ctx;
  ctx.loadDialect<dialect::WaveDialect>();
  for (auto kind : {dialect::MMAKind::f32_16x8x16_f16, dialect::MMAKind::f32_16x8x32_f8e4m3}) {
    INFO(dialect::stringifyMMAKind(kind).str());
    auto layout = jit::getMMALayout(&ctx, kind);
    REQUIRE(mlir::succeeded(layout));
    for (const jit::MMAOperandLayout* op : {&layout->a, &layout->b}) {
      REQUIRE(op->ldmatrixTiles == op->registers[0]);
      const int64_t run = op->registers[1];  // elements per 32-bit register
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t r = 0; r < op->ldmatrixTiles; ++r) {
          llvm::SmallVector<int64_t> rowStart = op->ldmatrix.compose({8 * r + lane / 4});
          llvm::SmallVector<int64_t> expected = op->map.compose({lane, run * r});
          CHECK(rowStart[0] == expected[0]);
          CHECK(rowStart[1] + run * (lane % 4) == expected[1]);
        }
    }
  }
}

namespace {

// Every (lane, register element) of a wave of 64 against `documented`, and each tile
// element held once.
template <class Documented>
void checkAgainst(const jit::MMAOperandLayout& op, Documented documented) {
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t lane = 0; lane < 64; ++lane)
    for (int64_t e = 0; e < op.elementsPerLane(); ++e) {
      INFO("lane " << lane << ", element " << e);
      const std::pair<int64_t, int64_t> want = documented(lane, e);
      CHECK(op.map.compose({lane, e}) == llvm::SmallVector<int64_t>{want.first, want.second});
      CHECK(seen.insert(want).second);
    }
  CHECK(static_cast<int64_t>(seen.size()) == op.rows * op.cols);
}

}  // namespace

TEST_CASE("MFMA layouts are the instructions' documented ones, on waves of 64", "[mma][layout][amdgpu]") {
  mlir::MLIRContext ctx;
  ctx.loadDialect<dialect::WaveDialect>();
  // v_mfma_f32_16x16x16f16 (CDNA3 ISA, the matrix instruction calculator's tables): A[i][k]
  // in lane i + 16 * (k / 4), element k % 4; B[k][j] (held as B^T, n x k) in lane
  // j + 16 * (k / 4), element k % 4; D[i][j] in lane j + 16 * (i / 4), element i % 4.
  auto small = jit::getMMALayout(&ctx, dialect::MMAKind::f32_16x16x16_f16);
  REQUIRE(mlir::succeeded(small));
  CHECK(small->lanes == 64);
  CHECK(small->a.elementsPerLane() == 4);
  CHECK(small->c.elementsPerLane() == 4);
  checkAgainst(small->a, [](int64_t lane, int64_t e) { return std::pair{lane % 16, lane / 16 * 4 + e}; });
  checkAgainst(small->b, [](int64_t lane, int64_t e) { return std::pair{lane % 16, lane / 16 * 4 + e}; });
  checkAgainst(small->c, [](int64_t lane, int64_t e) { return std::pair{lane / 16 * 4 + e, lane % 16}; });
  // v_mfma_f32_32x32x8f16: A[i][k] in lane i + 32 * (k / 4), element k % 4; B likewise by
  // column; D[i][j] in lane j + 32 * ((i / 4) % 2), element 4 * (i / 8) + i % 4.
  auto large = jit::getMMALayout(&ctx, dialect::MMAKind::f32_32x32x8_f16);
  REQUIRE(mlir::succeeded(large));
  CHECK(large->c.elementsPerLane() == 16);
  checkAgainst(large->a, [](int64_t lane, int64_t e) { return std::pair{lane % 32, lane / 32 * 4 + e}; });
  checkAgainst(large->b, [](int64_t lane, int64_t e) { return std::pair{lane % 32, lane / 32 * 4 + e}; });
  checkAgainst(large->c, [](int64_t lane, int64_t e) { return std::pair{e / 4 * 8 + lane / 32 * 4 + e % 4, lane % 32}; });
  // CDNA3's bf16 forms (v_mfma_f32_16x16x16_bf16, v_mfma_f32_32x32x8_bf16) hold their
  // operands and results where the f16 forms do, on bf16 operands.
  auto smallBf16 = jit::getMMALayout(&ctx, dialect::MMAKind::f32_16x16x16_bf16);
  REQUIRE(mlir::succeeded(smallBf16));
  CHECK(smallBf16->inputType.isBF16());
  CHECK(smallBf16->accType.isF32());
  checkAgainst(smallBf16->a, [](int64_t lane, int64_t e) { return std::pair{lane % 16, lane / 16 * 4 + e}; });
  checkAgainst(smallBf16->b, [](int64_t lane, int64_t e) { return std::pair{lane % 16, lane / 16 * 4 + e}; });
  checkAgainst(smallBf16->c, [](int64_t lane, int64_t e) { return std::pair{lane / 16 * 4 + e, lane % 16}; });
  auto largeBf16 = jit::getMMALayout(&ctx, dialect::MMAKind::f32_32x32x8_bf16);
  REQUIRE(mlir::succeeded(largeBf16));
  CHECK(largeBf16->inputType.isBF16());
  CHECK(largeBf16->c.elementsPerLane() == 16);
  checkAgainst(largeBf16->a, [](int64_t lane, int64_t e) { return std::pair{lane % 32, lane / 32 * 4 + e}; });
  checkAgainst(largeBf16->b, [](int64_t lane, int64_t e) { return std::pair{lane % 32, lane / 32 * 4 + e}; });
  checkAgainst(largeBf16->c,
               [](int64_t lane, int64_t e) { return std::pair{e / 4 * 8 + lane / 32 * 4 + e % 4, lane % 32}; });
  // CDNA3's i8 forms take eight bytes of K per lane (a 64-bit operand):
  // v_mfma_i32_16x16x32_i8: A[i][k] in lane i + 16 * (k / 8), element k % 8; D as the
  // f32 forms' 16x16, in i32.
  auto smallI8 = jit::getMMALayout(&ctx, dialect::MMAKind::i32_16x16x32_i8);
  REQUIRE(mlir::succeeded(smallI8));
  CHECK(smallI8->inputType.isInteger(8));
  CHECK(smallI8->accType.isInteger(32));
  CHECK(smallI8->a.elementsPerLane() == 8);
  checkAgainst(smallI8->a, [](int64_t lane, int64_t e) { return std::pair{lane % 16, lane / 16 * 8 + e}; });
  checkAgainst(smallI8->b, [](int64_t lane, int64_t e) { return std::pair{lane % 16, lane / 16 * 8 + e}; });
  checkAgainst(smallI8->c, [](int64_t lane, int64_t e) { return std::pair{lane / 16 * 4 + e, lane % 16}; });
  // v_mfma_i32_32x32x16_i8: A[i][k] in lane i + 32 * (k / 8), element k % 8; D as 32x32x8's.
  auto largeI8 = jit::getMMALayout(&ctx, dialect::MMAKind::i32_32x32x16_i8);
  REQUIRE(mlir::succeeded(largeI8));
  CHECK(largeI8->a.elementsPerLane() == 8);
  CHECK(largeI8->c.elementsPerLane() == 16);
  checkAgainst(largeI8->a, [](int64_t lane, int64_t e) { return std::pair{lane % 32, lane / 32 * 8 + e}; });
  checkAgainst(largeI8->b, [](int64_t lane, int64_t e) { return std::pair{lane % 32, lane / 32 * 8 + e}; });
  checkAgainst(largeI8->c,
               [](int64_t lane, int64_t e) { return std::pair{e / 4 * 8 + lane / 32 * 4 + e % 4, lane % 32}; });
  // Its f8 forms (v_mfma_f32_16x16x32_fp8_fp8, _32x32x16_, and the bf8 ones) take A and B
  // as the i8 forms do, eight bytes of K per lane, and leave D as the f32 forms' do; so do
  // CDNA4's, the same instructions on the OCP encodings.
  for (auto kind : {dialect::MMAKind::f32_16x16x32_f8e4m3fnuz, dialect::MMAKind::f32_16x16x32_f8e5m2fnuz,
                    dialect::MMAKind::f32_16x16x32_f8e4m3, dialect::MMAKind::f32_16x16x32_f8e5m2}) {
    auto small = jit::getMMALayout(&ctx, kind);
    REQUIRE(mlir::succeeded(small));
    CHECK(small->accType.isF32());
    CHECK(small->a.elementsPerLane() == 8);
    checkAgainst(small->a, [](int64_t lane, int64_t e) { return std::pair{lane % 16, lane / 16 * 8 + e}; });
    checkAgainst(small->b, [](int64_t lane, int64_t e) { return std::pair{lane % 16, lane / 16 * 8 + e}; });
    checkAgainst(small->c, [](int64_t lane, int64_t e) { return std::pair{lane / 16 * 4 + e, lane % 16}; });
  }
  for (auto kind : {dialect::MMAKind::f32_32x32x16_f8e4m3fnuz, dialect::MMAKind::f32_32x32x16_f8e5m2fnuz,
                    dialect::MMAKind::f32_32x32x16_f8e4m3, dialect::MMAKind::f32_32x32x16_f8e5m2}) {
    auto large = jit::getMMALayout(&ctx, kind);
    REQUIRE(mlir::succeeded(large));
    CHECK(large->c.elementsPerLane() == 16);
    checkAgainst(large->a, [](int64_t lane, int64_t e) { return std::pair{lane % 32, lane / 32 * 8 + e}; });
    checkAgainst(large->b, [](int64_t lane, int64_t e) { return std::pair{lane % 32, lane / 32 * 8 + e}; });
    checkAgainst(large->c,
                 [](int64_t lane, int64_t e) { return std::pair{e / 4 * 8 + lane / 32 * 4 + e % 4, lane % 32}; });
  }
  CHECK(mlir::isa<mlir::Float8E4M3FNUZType>(jit::getMMALayout(&ctx, dialect::MMAKind::f32_16x16x32_f8e4m3fnuz)->inputType));
  CHECK(mlir::isa<mlir::Float8E5M2FNUZType>(jit::getMMALayout(&ctx, dialect::MMAKind::f32_32x32x16_f8e5m2fnuz)->inputType));
  CHECK(mlir::isa<mlir::Float8E4M3FNType>(jit::getMMALayout(&ctx, dialect::MMAKind::f32_16x16x32_f8e4m3)->inputType));
  CHECK(mlir::isa<mlir::Float8E5M2Type>(jit::getMMALayout(&ctx, dialect::MMAKind::f32_32x32x16_f8e5m2)->inputType));
}
