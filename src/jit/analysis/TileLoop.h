//===- TileLoop.h - a persistent grid's loop over workgroup tiles -*- C++ -*-===//
//
// Under CompileOptions::persistent the distribution wraps a kernel's body in a loop over
// its workgroup tiles (`wave.tile_loop`). mbarrier phases then carry on from one tile to
// the next: a loop in the body that waits on mbarriers counts its trips from those the
// workgroup ran in earlier tiles, which the tile loop carries as an iteration argument
// (`wave.trip_base` on the loop names which). The distribution writes these attributes;
// the pipelining and warp specialization read them.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_TILELOOP_H
#define WAVE_JIT_ANALYSIS_TILELOOP_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace wave::jit {

inline constexpr llvm::StringLiteral kTileLoopAttr = "wave.tile_loop";
inline constexpr llvm::StringLiteral kTripBaseAttr = "wave.trip_base";

// The tile loop `loop` lies directly in, or null.
mlir::scf::ForOp enclosingTileLoop(mlir::scf::ForOp loop);

// The trips of `loop` the workgroup ran in earlier tiles: the tile loop's iteration
// argument `wave.trip_base` names; null where `loop` has none (it starts from trip 0).
mlir::Value tripsInEarlierTiles(mlir::scf::ForOp loop);

// (iv - lb) / step: the trip's number in this run of `loop`, from 0.
mlir::Value localTrip(mlir::OpBuilder& b, mlir::Location loc, mlir::scf::ForOp loop);

// The trip's number counted over the workgroup's life: localTrip, plus the trips of
// earlier tiles where `loop` has them.
mlir::Value workgroupTrip(mlir::OpBuilder& b, mlir::Location loc, mlir::scf::ForOp loop);

// A hint to each mbarrier try_wait on a phase: how long (ns) one try may suspend the
// thread before it tries again.
inline constexpr int64_t kMBarrierWaitTicks = 10'000'000;

// The low bit of the index `count` as an i1: the parity of an mbarrier phase that
// completes once per count.
mlir::Value parityOf(mlir::OpBuilder& b, mlir::Location loc, mlir::Value count);

// ceil((ub - lb) / step) for a positive step: how many trips `loop` runs.
mlir::Value tripCount(mlir::OpBuilder& b, mlir::Location loc, mlir::scf::ForOp loop);

}  // namespace wave::jit

#endif
