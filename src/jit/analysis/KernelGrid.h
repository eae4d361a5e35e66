//===- KernelGrid.h - how a kernel's constraints split its dims ------*- C++ -*-===//
//
// The distribution every layout of a kernel shares: per dim, the workgroup tile and the
// grid axis it goes over, the wave tile, and the grid of waves in a workgroup; read once
// from the constraints and wave.hyperparameters.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_KERNELGRID_H
#define WAVE_JIT_ANALYSIS_KERNELGRID_H

#include "analysis/DistributedLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace wave::jit {

struct DimTiling {
  int64_t blockTile = 0;  // elements of the dim a workgroup owns (a loop's: one trip's)
  int64_t waveTile = 0;   // elements of it a wave owns
  int gridAxis = -1;      // the grid axis over its workgroup tiles; -1: one workgroup tile
  bool loop = false;      // walked by an iterate, a TilingConstraint's tile at a time
  // A loop's dim that a WorkgroupConstraint also splits (split-K): the elements each
  // workgroup along gridAxis walks, a multiple of blockTile; 0 where not split.
  int64_t splitTile = 0;
  // A dim a DeviceConstraint splits over the GPUs: the elements of this rank's slice,
  // which its workgroups cover, and where the slice starts (0 where not split).
  int64_t rankSlice = 0;
  int64_t rankOffset = 0;
  // The elements between the starts of consecutive workgroups along gridAxis.
  int64_t gridStep() const { return splitTile ? splitTile : blockTile; }
};

struct KernelGrid {
  llvm::MapVector<llvm::StringRef, DimTiling> dims;  // every dim of the kernel's tensors
  WaveGrid waves;
  int64_t threads() const { return waves.count() * waves.lanes; }
  // A dim's tiling; a dim the kernel lacks (kernelGrid rejects loops over one) has none.
  const DimTiling& tiling(llvm::StringRef dim) const {
    static const DimTiling none;
    auto it = dims.find(dim);
    return it == dims.end() ? none : it->second;
  }
};

// The grid of `kernel` over every dim its arguments and values have. A dim with a
// TilingConstraint is held a loop tile at a time; one without a workgroup or tiling
// constraint is one tile, so its size must be known. Emits a diagnostic on
// the kernel and fails when a tile is unknown, does not divide, or the workgroup has more
// than 1024 threads.
mlir::FailureOr<KernelGrid> kernelGrid(mlir::func::FuncOp kernel);

// Per dim a DeviceConstraint splits over the GPUs: the elements of this rank's slice
// (the constraint's tile) and where it starts (RANK * tile). Emits a diagnostic and fails
// where the dim's size or RANK is unknown, the tile does not divide the size, or RANK is
// not below the rank count.
struct RankSlice {
  int64_t size = 0, offset = 0;
};
mlir::FailureOr<llvm::StringMap<RankSlice>> rankSlices(mlir::func::FuncOp kernel);

// The same without diagnostics, for the schedules that run before wave-assign-layouts:
// a kernel whose grid is wrong is diagnosed once, there. Declarations and functions
// without constraints (no kernels) have none.
mlir::FailureOr<KernelGrid> kernelGridQuietly(mlir::func::FuncOp kernel);

}  // namespace wave::jit

#endif
