//===- ThreadLayout.h - who computes which elements ------------*- C++ -*-===//
//
// Index analysis for kernels whose ops share one iteration space (the written tensor's
// dims): the split of that space over workgroups, waves and threads that the constraints
// state (#wave.thread_layout), and the index sequence it gives each thread: the first
// element of its run of contiguous elements along each dim, at each of its steps.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_THREADLAYOUT_H
#define WAVE_JIT_ANALYSIS_THREADLAYOUT_H

#include "dialect/WaveDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"

namespace wave::jit {

// The symbols a thread's index is written over, in the order of `indexSymbols()`.
namespace thread_symbol {
inline constexpr llvm::StringLiteral step = "_STEP";      // the thread's step, 0 .. steps-1
inline constexpr llvm::StringLiteral thread = "_T0";      // thread in the workgroup
inline constexpr llvm::StringLiteral workgroup[3] = {"_WG0", "_WG1", "_WG2"};
}  // namespace thread_symbol

// The value of a constraint's tile of `dim` ("workgroup", "wave" or "tiling"), from the
// kernel's wave.hyperparameters. Emits a diagnostic naming the symbols without a value,
// or a tile that is not positive, and fails.
mlir::FailureOr<int64_t> tileSize(mlir::func::FuncOp kernel, dialect::ExprAttr tile, llvm::StringRef dim,
                                  llvm::StringRef constraint);

// The iteration space of a memory-bound kernel: the dims of the tensors it writes (all
// writes must agree). Emits a diagnostic and fails otherwise.
mlir::FailureOr<llvm::SmallVector<llvm::StringRef>> iterationDims(mlir::func::FuncOp kernel);

// The layout of `kernel` over `dims` for elements of `elementBits`: runs of up to 16
// bytes per thread, as wide as the innermost wave tile allows. Tile sizes must be known
// (from wave.hyperparameters); dim sizes may be dynamic. Emits a diagnostic on `kernel`
// and fails when a tile is unknown or the tiles do not nest.
mlir::FailureOr<dialect::ThreadLayoutAttr> inferThreadLayout(mlir::func::FuncOp kernel,
                                                             llvm::ArrayRef<llvm::StringRef> dims,
                                                             unsigned elementBits);

// Elements of the iteration space one wave covers.
int64_t waveElements(dialect::ThreadLayoutAttr layout);

// Symbol names of the affine symbols s0, s1, ... in the expressions below.
llvm::SmallVector<mlir::StringAttr> indexSymbols(mlir::MLIRContext* ctx);

// Per dim of the layout: the first element of the thread's run.
llvm::SmallVector<mlir::AffineExpr> runStart(dialect::ThreadLayoutAttr layout);

// The run's offset in its wave's tile (row-major): the thread has work while it is below
// waveElements(layout).
mlir::AffineExpr runOffset(dialect::ThreadLayoutAttr layout);

}  // namespace wave::jit

#endif
