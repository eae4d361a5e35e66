//===- AffineBounds.h - affine expressions simplified by their inputs' ranges -*- C++ -*-===//
//
// A thread's lane and wave indices lie in [0, lanes) and [0, waves): a digit like
// `(wave floordiv 2) mod 2` of four waves needs no `mod`, and `lane floordiv 32` is 0. The
// lowering knows these ranges where it builds an address; simplifying there spares the
// integer range analysis that would otherwise find them over the whole kernel.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_AFFINEBOUNDS_H
#define WAVE_JIT_ANALYSIS_AFFINEBOUNDS_H

#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <utility>

namespace wave::jit {

// `e` with dim i known to lie in [0, extents[i]): each floordiv by a constant whose
// operand's values all share one quotient becomes that quotient, and each mod whose
// operand's values all lie in one block becomes the operand less the block's start.
// Symbols, and dims past `extents`, are unbounded.
mlir::AffineExpr simplifyWithinBounds(mlir::AffineExpr e, llvm::ArrayRef<int64_t> extents);

// The smallest and largest values `e` takes over those dims (none where unbounded).
std::optional<std::pair<int64_t, int64_t>> rangeWithinBounds(mlir::AffineExpr e, llvm::ArrayRef<int64_t> extents);

// The terms of a sum (an expression that is no sum is its one term).
llvm::SmallVector<mlir::AffineExpr> additiveTerms(mlir::AffineExpr e);

}  // namespace wave::jit

#endif
