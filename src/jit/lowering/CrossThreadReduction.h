//===- CrossThreadReduction.h - combining values across lanes -------*- C++ -*-===//
//
// The pieces a reduction over threads is built from: the reduction's identity, one
// combining step, a vector's elements reduced to a scalar, and a butterfly of shuffles
// that leaves every lane of an aligned group of lanes holding the group's result.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_CROSSTHREADREDUCTION_H
#define WAVE_JIT_LOWERING_CROSSTHREADREDUCTION_H

#include "mlir/IR/Builders.h"

namespace wave::jit {

enum class ReductionKind { max, min, sum };

// The type a reduction or scan of `element`s accumulates in: f32 for narrower floats, else
// the element type.
mlir::Type accumulationType(mlir::Type element);

// -inf (the smallest integer) for max, +inf (the largest) for min, 0 for sum, of `type`.
mlir::Value reductionIdentity(mlir::OpBuilder& b, mlir::Location loc, ReductionKind kind, mlir::Type type);

// `a` and `b` combined: maximumf / maxsi, minimumf / minsi, or addf / addi. Works on scalars and vectors.
mlir::Value combine(mlir::OpBuilder& b, mlir::Location loc, ReductionKind kind, mlir::Value a, mlir::Value c);

// `values` (one or more) combined as a balanced tree: a chain of n - 1 dependent steps
// becomes log2(n) deep, so a thread's partial result is not one long latency chain.
mlir::Value combineTree(mlir::OpBuilder& b, mlir::Location loc, ReductionKind kind, llvm::ArrayRef<mlir::Value> values);

// The elements of a 1-D vector reduced to one scalar.
mlir::Value reduceElements(mlir::OpBuilder& b, mlir::Location loc, ReductionKind kind, mlir::Value vector);

// XOR shuffles over offsets 1, 2, .. lanes/2: afterwards each lane holds the result of its
// group of `lanes` lanes (groups aligned to `lanes`, a power of two up to `waveSize`).
// `scalar` must be 32 bits wide.
mlir::Value reduceAcrossLanes(mlir::OpBuilder& b, mlir::Location loc, ReductionKind kind, mlir::Value scalar,
                              int64_t lanes, int64_t waveSize);

}  // namespace wave::jit

#endif
