// #wave.layout builders, enumerated: Hopper wgmma warpgroup accumulators, AMD MFMA
// accumulators on waves of 64, mma.sync accumulators over a grid of waves, and the slice
// and permutation derived from them. Each must hold every element of its tile exactly once
// (slices: in every thread that held its row), and the queries the distribution asks
// (register runs, register permutations) must answer as the hardware layouts imply.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "analysis/DistributedLayout.h"
#include "analysis/LayoutPicture.h"

#include "mlir/IR/MLIRContext.h"

using namespace wave;
using jit::LayoutAttr;

namespace {

// How many (register, lane, wave) points hold each tile position.
std::map<llvm::SmallVector<int64_t>, int> holders(LayoutAttr layout) {
  std::map<llvm::SmallVector<int64_t>, int> count;
  for (int64_t w = 0; w < layout.getNumWaves(); ++w)
    for (int64_t l = 0; l < layout.getNumLanes(); ++l)
      for (int64_t r = 0; r < layout.getNumRegisters(); ++r) ++count[jit::layoutPosition(layout, r, l, w)];
  return count;
}

// Whether `layout` holds each position of a rows x cols tile exactly once.
void checkCoversOnce(LayoutAttr layout, int64_t rows, int64_t cols) {
  const auto count = holders(layout);
  CHECK(static_cast<int64_t>(count.size()) == rows * cols);
  for (const auto& [position, n] : count) {
    REQUIRE(position.size() == 2);
    CHECK(position[0] >= 0);
    CHECK(position[0] < rows);
    CHECK(position[1] >= 0);
    CHECK(position[1] < cols);
    CHECK(n == 1);
  }
}

struct Context {
  mlir::MLIRContext ctx;
  Context() { ctx.loadDialect<dialect::WaveDialect>(); }
};

}  // namespace

TEST_CASE("wgmma m64nNk16 accumulators: warpgroups hold the workgroup tile once", "[layout]") {
  Context c;
  auto mma = jit::getMMALayout(&c.ctx, dialect::MMAKind::f32_16x8x16_f16);
  REQUIRE(succeeded(mma));
  for (int64_t n : {8, 64, 256}) {
    INFO("one warpgroup, N = " << n);
    LayoutAttr acc = jit::warpgroupLayout(&c.ctx, mma->c, 32, {4}, {1, 64, n / 8, 8, true, 0, 0});
    CHECK(acc.getNumRegisters() == n / 2);  // N/8 chunks of two rows of a pair
    checkCoversOnce(acc, 64, n);
    // Each lane's pairs are adjacent columns: runs of two along N for the stores.
    for (const jit::RegisterRun& run : jit::registerRuns(acc, 1, 8)) CHECK(run.length == 2);
    // Warp q holds rows 16q .. 16q + 15.
    for (int64_t q = 0; q < 4; ++q)
      for (int64_t lane = 0; lane < 32; ++lane) CHECK(jit::layoutPosition(acc, 0, lane, q)[0] / 16 == q);
  }
  // Two warpgroups over 2 x 4 waves, splitting 256 rows (two strips each) or, with 64 rows,
  // 128 columns.
  LayoutAttr rows = jit::warpgroupLayout(&c.ctx, mma->c, 32, {2, 4}, {2, 64, 16, 8, true, 128, 0});
  checkCoversOnce(rows, 256, 128);
  CHECK(jit::layoutPosition(rows, 0, 0, 4)[0] == 128);  // wave 4: warpgroup 1's first row
  CHECK(jit::layoutPosition(rows, 64, 0, 1)[0] == 80);  // strip 1 of warp 1: 64 + 16
  LayoutAttr cols = jit::warpgroupLayout(&c.ctx, mma->c, 32, {8}, {1, 64, 8, 8, true, 0, 64});
  checkCoversOnce(cols, 64, 128);
  CHECK(jit::layoutPosition(cols, 0, 0, 5)[1] == 64);  // wave 5: warpgroup 1's first column
}

TEST_CASE("MFMA accumulators on waves of 64: 16x16x16 and 32x32x8", "[layout]") {
  Context c;
  LayoutAttr small = jit::mfmaAccumulatorLayout(&c.ctx, 16), large = jit::mfmaAccumulatorLayout(&c.ctx, 32);
  CHECK(small.getNumLanes() == 64);
  CHECK(small.getNumRegisters() == 4);
  checkCoversOnce(small, 16, 16);
  CHECK(large.getNumLanes() == 64);
  CHECK(large.getNumRegisters() == 16);
  checkCoversOnce(large, 32, 32);
  // A lane's registers run down a column: no runs along the rows' dim (columns), runs of
  // four along the columns' (rows).
  for (const jit::RegisterRun& run : jit::registerRuns(small, 1, 8)) CHECK(run.length == 1);
  for (const jit::RegisterRun& run : jit::registerRuns(large, 0, 8)) CHECK(run.length == 4);
}

TEST_CASE("mma.sync accumulators over 2 x 2 waves cover the workgroup tile once", "[layout]") {
  Context c;
  auto mma = jit::getMMALayout(&c.ctx, dialect::MMAKind::f32_16x8x16_f16);
  REQUIRE(mlir::succeeded(mma));
  // Waves of 32 x 32 (2 x 4 instruction tiles) in a 64 x 64 workgroup tile.
  LayoutAttr acc = jit::mmaLayout(&c.ctx, mma->c, 32, 2, 4, {2, 2}, 0, 1);
  checkCoversOnce(acc, 64, 64);
  // The slice without M (a bias over N): each thread keeps its columns, and every thread
  // that holds a column of the accumulator holds that column in the slice.
  LayoutAttr bias = jit::sliceLayout(acc, 0);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t l = 0; l < 32; ++l) {
      std::set<int64_t> columns, sliced;
      for (int64_t r = 0; r < acc.getNumRegisters(); ++r) columns.insert(jit::layoutPosition(acc, r, l, w)[1]);
      for (int64_t r = 0; r < bias.getNumRegisters(); ++r) sliced.insert(jit::layoutPosition(bias, r, l, w)[0]);
      CHECK(columns == sliced);
    }
  // The same layout with its dims swapped holds the transposed tile; converting between a
  // layout and itself permuted is no register permutation, but between equals it is the
  // identity.
  LayoutAttr transposed = jit::permuteLayout(acc, {1, 0});
  checkCoversOnce(transposed, 64, 64);
  auto same = jit::registerPermutation(acc, acc);
  REQUIRE(same.has_value());
  for (int64_t r = 0; r < acc.getNumRegisters(); ++r) CHECK((*same)[r] == r);
}

TEST_CASE("an accumulator pair is an A operand: the chained-GEMM register reuse", "[layout]") {
  Context c;
  auto mma = jit::getMMALayout(&c.ctx, dialect::MMAKind::f32_16x8x16_f16);
  REQUIRE(mlir::succeeded(mma));
  // One wave, 16 x 16: two 16 x 8 accumulator tiles side by side, and one 16 x 16 A tile.
  LayoutAttr acc = jit::mmaLayout(&c.ctx, mma->c, 32, 1, 2, {}, -1, -1);
  LayoutAttr a = jit::mmaLayout(&c.ctx, mma->a, 32, 1, 1, {}, -1, -1);
  auto permutation = jit::registerPermutation(acc, a);
  REQUIRE(permutation.has_value());
  // A's halves: rows g and g+8 of columns 2t (tile 0), then of 2t + 8 (tile 1).
  CHECK(*permutation == llvm::SmallVector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("first holders: the threads that print a replicated value hold each element once", "[layout][print]") {
  Context c;
  auto mma = jit::getMMALayout(&c.ctx, dialect::MMAKind::f32_16x8x16_f16);
  REQUIRE(mlir::succeeded(mma));
  LayoutAttr acc = jit::mmaLayout(&c.ctx, mma->c, 32, 2, 4, {2, 2}, 0, 1);
  // The accumulator holds each element once: every thread prints all its registers.
  auto all = jit::firstHolders(acc);
  REQUIRE(mlir::succeeded(all));
  for (const jit::FirstHolders& h : *all) CHECK((!h.none && h.mask == 0 && h.value == 0));
  // A bias over N sliced from it is held by 8 lanes of each wave column and both wave
  // rows: the first holders hold each of the 64 columns exactly once.
  LayoutAttr bias = jit::sliceLayout(acc, 0);
  auto first = jit::firstHolders(bias);
  REQUIRE(mlir::succeeded(first));
  std::map<int64_t, int> printed;
  for (int64_t t = 0; t < 128; ++t)
    for (int64_t r = 0; r < bias.getNumRegisters(); ++r) {
      const jit::FirstHolders& h = (*first)[r];
      if (!h.none && (t & h.mask) == h.value) ++printed[jit::layoutPosition(bias, r, t % 32, t / 32)[0]];
    }
  CHECK(printed.size() == 64);
  for (const auto& [column, n] : printed) CHECK(n == 1);
}

TEST_CASE("a layout's picture names the thread and register of each element", "[layout][pictures]") {
  Context c;
  auto mma = jit::getMMALayout(&c.ctx, dialect::MMAKind::f32_16x8x16_f16);
  REQUIRE(mlir::succeeded(mma));
  // One m16n8 accumulator tile: lane 4 q + p holds row q and q + 8, columns 2p and 2p + 1.
  LayoutAttr acc = jit::mmaLayout(&c.ctx, mma->c, 32, 1, 1, {}, -1, -1);
  const std::string svg = jit::layoutSvg(acc, {"M", "N"}, "acc");
  auto cell = [&](int row, int col) {
    const std::string key = "data-pos=\"" + std::to_string(row) + "," + std::to_string(col) + "\"";
    const auto at = svg.find(key);
    REQUIRE(at != std::string::npos);
    return svg.substr(at, svg.find("</g>", at) - at);
  };
  CHECK_THAT(cell(0, 0), Catch::Contains(">t0<"));
  CHECK_THAT(cell(0, 2), Catch::Contains(">t1<"));
  CHECK_THAT(cell(1, 0), Catch::Contains(">t4<"));
  CHECK_THAT(cell(9, 7), Catch::Contains(">t7<"));
  CHECK_THAT(cell(8, 0), Catch::Contains(">t0<"));
  // Lane 0's four registers: (0, 0), (0, 1), (8, 0), (8, 1), each a different register.
  std::set<std::string> registers;
  for (auto [row, col] : {std::pair{0, 0}, {0, 1}, {8, 0}, {8, 1}}) {
    const std::string text = cell(row, col);
    const auto r = text.find(">r");
    registers.insert(text.substr(r, text.find('<', r) - r));
  }
  CHECK(registers.size() == 4);
  int cells = 0;
  for (auto at = svg.find("data-pos"); at != std::string::npos; at = svg.find("data-pos", at + 1)) ++cells;
  CHECK(cells == 16 * 8);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("+1") == std::string::npos);  // nothing held twice
}
