//===- NarrowIndexExpr.h - bounded index arithmetic in 32 bits -*- C++ -*-===//
//
// A mask's indices (a padded convolution's input row and column per tap) are small and
// built from value positions, which are never negative: computed as `index` they cost
// 64-bit instructions and floor-division sign fix-ups on every copy of every trip. Where
// the ranges prove each intermediate fits in 31 bits, the expression is built in i32 with
// unsigned division and remainder wherever the dividend is non-negative.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_NARROWINDEXEXPR_H
#define WAVE_JIT_LOWERING_NARROWINDEXEXPR_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace wave::jit {

// Whether `e`, with dim k in [0, extents[k]) (an extent of 0: unbounded), and each of its
// subexpressions stay within +-2^30 (room for positions a partial tile carries past
// its extent).
bool fitsNarrow(mlir::AffineExpr e, llvm::ArrayRef<int64_t> extents);

// Whether `e` holds a floordiv, ceildiv or mod (what 32 bits spare the most).
bool dividesOrWraps(mlir::AffineExpr e);

// `e` over `variables` (index values, dim k bound to variables[k]) as i32 ops; `e` must
// fit (fitsNarrow). The sum's terms are added loop-invariant ones first, so that the
// invariant part is hoisted out of the enclosing loop whole.
mlir::Value buildNarrowExpr(mlir::OpBuilder& b, mlir::Location loc, mlir::AffineExpr e, mlir::ValueRange variables,
                            llvm::ArrayRef<int64_t> extents);

}  // namespace wave::jit

#endif
