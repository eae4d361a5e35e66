#include "analysis/MMALayout.h"

namespace wave::jit {

using namespace mlir;

namespace {

// AMD CDNA's MFMA on a wave of 64 (v_mfma_f32_16x16x16f16, v_mfma_f32_32x32x8f16, and
// CDNA3's bf16 forms, whose operands sit in the same places, and its i8 and f8 forms,
// eight elements of K a lane): the lanes form 64/m groups of `m` (= n); a lane's place
// in its group picks its row of A (column of B, column of C), its group the run of
// consecutive elements along K it holds (A, B). C: lane l holds column l % m, rows in runs
// of 4: group g's run starts at 4g within each band of 8 rows (32 x 32: four bands, 16
// registers; 16 x 16: one band of 16 rows, 4 registers).
MMALayout mfmaLayout(MLIRContext* ctx, dialect::MMAKind kind) {
  dialect::MMAShape shape = dialect::getMMAShape(ctx, kind);
  // Each lane holds a run of k / groups elements along K: four of 16 bits, eight of 8.
  const int64_t m = shape.m, k = shape.k, groups = 64 / m, run = k / groups;
  MMALayout l{kind, m, shape.n, k, 64, shape.operandType, shape.accumulatorType, {}, {}, {}};
  AffineExpr lane = getAffineDimExpr(0, ctx), e = getAffineDimExpr(1, ctx);
  AffineExpr place = lane % m, group = lane.floorDiv(m);
  auto map = [&](AffineExpr row, AffineExpr col) { return AffineMap::get(2, 0, {row, col}, ctx); };
  l.a = {m, k, {1, run}, map(place, group * run + e)};
  l.b = {shape.n, k, {1, run}, map(place, group * run + e)};
  const int64_t accumulators = m * shape.n / 64;
  l.c = {m, shape.n, {accumulators / 4, 4}, map(e.floorDiv(4) * (4 * groups) + group * 4 + e % 4, place)};
  return l;
}

}  // namespace

FailureOr<MMALayout> getMMALayout(MLIRContext* ctx, dialect::MMAKind kind) {
  using dialect::MMAKind;
  if (dialect::isMfma(kind)) return mfmaLayout(ctx, kind);
  const bool eightBit = kind == MMAKind::f32_16x8x32_f8e4m3 || kind == MMAKind::f32_16x8x32_f8e5m2 ||
                        kind == MMAKind::i32_16x8x32_i8;
  if (kind != MMAKind::f32_16x8x16_f16 && kind != MMAKind::f32_16x8x16_bf16 && kind != MMAKind::f16_16x8x16_f16 &&
      !eightBit)
    return failure();
  dialect::MMAShape shape = dialect::getMMAShape(ctx, kind);
  // mma.sync.m16n8k16 (16-bit) and m16n8k32 (8-bit) hold the same 32-bit registers: lanes
  // form 8 groups of 4; a lane's group picks its row (A, C) or column (B), its place in
  // the group a run of `run` elements (one register) along the other dim.
  const int64_t run = eightBit ? 4 : 2, k = eightBit ? 32 : 16, half = k / 2;
  MMALayout l{kind, 16, 8, k, 32, shape.operandType, shape.accumulatorType, {}, {}, {}};
  AffineExpr lane = getAffineDimExpr(0, ctx), e = getAffineDimExpr(1, ctx);
  AffineExpr group = lane.floorDiv(4), inGroup = lane % 4;
  auto map = [&](AffineExpr row, AffineExpr col) { return AffineMap::get(2, 0, {row, col}, ctx); };
  auto rows = [&](AffineExpr row, AffineExpr col) { return AffineMap::get(1, 0, {row, col}, ctx); };
  // A: 16 x k, four registers: rows g and g+8, columns run*t and run*t + k/2.
  // ldmatrix.x4 (8 rows of 16 bytes each): lanes 0-15 address rows 0-15 at column 0,
  // lanes 16-31 at column k/2.
  l.a = {16, k, {4, run},
         map(group + e.floorDiv(run) % 2 * 8, inGroup * run + e % run + e.floorDiv(2 * run) * half),
         rows(lane % 16, lane.floorDiv(16) * half), 4};
  // B: 8 (n) x k, two registers: row g, columns run*t and run*t + k/2.
  // ldmatrix.x2: lanes 0-7 address rows 0-7 at column 0, lanes 8-15 at column k/2 (lanes
  // 16-31 repeat them: their addresses are read but unused).
  l.b = {8, k, {2, run}, map(group, inGroup * run + e % run + e.floorDiv(run) * half),
         rows(lane % 8, lane.floorDiv(8) % 2 * half), 2};
  // C: 16 x 8, two registers of two: rows g and g+8, columns 2t (+0, +1).
  l.c = {16, 8, {2, 2}, map(group + e.floorDiv(2) * 8, inGroup * 2 + e % 2)};
  return l;
}

}  // namespace wave::jit
