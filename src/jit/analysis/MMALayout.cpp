#include "analysis/MMALayout.h"

namespace wave::jit {

using namespace mlir;

FailureOr<MMALayout> getMMALayout(MLIRContext* ctx, dialect::MMAKind kind) {
  using dialect::MMAKind;
  if (kind != MMAKind::f32_16x8x16_f16 && kind != MMAKind::f32_16x8x16_bf16 && kind != MMAKind::f16_16x8x16_f16)
    return failure();
  dialect::MMAShape shape = dialect::getMMAShape(ctx, kind);
  MMALayout l{kind, 16, 8, 16, 32, shape.operandType, shape.accumulatorType, {}, {}, {}};
  // mma.sync.m16n8k16: lanes form 8 groups of 4; a lane's group picks its row (A, C) or
  // column (B), its place in the group a pair of adjacent elements along the other dim.
  AffineExpr lane = getAffineDimExpr(0, ctx), e = getAffineDimExpr(1, ctx);
  AffineExpr group = lane.floorDiv(4), inGroup = lane % 4;
  auto map = [&](AffineExpr row, AffineExpr col) { return AffineMap::get(2, 0, {row, col}, ctx); };
  auto rows = [&](AffineExpr row, AffineExpr col) { return AffineMap::get(1, 0, {row, col}, ctx); };
  // A: 16 x 16, four registers of two: rows g and g+8, columns 2t and 2t+8 (+0, +1).
  // ldmatrix.x4: lanes 0-15 address rows 0-15 at column 0, lanes 16-31 at column 8.
  l.a = {16, 16, {4, 2}, map(group + e.floorDiv(2) % 2 * 8, inGroup * 2 + e % 2 + e.floorDiv(4) * 8),
         rows(lane % 16, lane.floorDiv(16) * 8), 4};
  // B: 8 (n) x 16 (k), two registers of two: row g, columns 2t and 2t+8 (+0, +1).
  // ldmatrix.x2: lanes 0-7 address rows 0-7 at column 0, lanes 8-15 at column 8 (lanes
  // 16-31 repeat them: their addresses are read but unused).
  l.b = {8, 16, {2, 2}, map(group, inGroup * 2 + e % 2 + e.floorDiv(2) * 8), rows(lane % 8, lane.floorDiv(8) % 2 * 8), 2};
  // C: 16 x 8, two registers of two: rows g and g+8, columns 2t (+0, +1).
  l.c = {16, 8, {2, 2}, map(group + e.floorDiv(2) * 8, inGroup * 2 + e % 2)};
  return l;
}

}  // namespace wave::jit
