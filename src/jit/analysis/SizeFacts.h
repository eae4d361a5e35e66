//===- DivisibilityFacts.h - what a kernel's sizes are known to divide -*- C++ -*-===//
//
// Masks, alignment checks and synchronous fallbacks exist for sizes that are not whole
// tiles or whole 16-byte pieces. A size known at compile time answers that directly; a
// dynamic one can still be known to divide through an Assumption, e.g.
// `Assumption(eq(M % BLOCK_M, 0))`, which the runtime checks at every launch.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_SIZEFACTS_H
#define WAVE_JIT_ANALYSIS_SIZEFACTS_H

#include "dialect/WaveDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace wave::jit {

// Whether the kernel sets `dim`'s size at run time (wave.set_symbol): then only the size
// it is launched with is known, as a bound.
bool isSetAtRunTime(mlir::func::FuncOp kernel, llvm::StringRef dim);

// Whether the size of `dim` is known to be a multiple of `factor`: never for a size set
// at run time; else where its value in wave.hyperparameters is, or an assumption of the
// kernel reads `dim mod c == 0` (or `0 == dim mod c`) with c a multiple of `factor` once
// the hyperparameters are substituted.
bool isKnownMultiple(mlir::func::FuncOp kernel, llvm::StringRef dim, int64_t factor);

// Whether the size of `dim` is known to be at most `bound`: its value in
// wave.hyperparameters is, or an assumption bounds it (`dim <= c`, `dim < c`, `c >= dim`,
// `c > dim`, with c a constant once the hyperparameters are substituted).
bool isKnownAtMost(mlir::func::FuncOp kernel, llvm::StringRef dim, int64_t bound);

}  // namespace wave::jit

#endif
