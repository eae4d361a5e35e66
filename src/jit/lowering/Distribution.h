//===- Distribution.h - who computes which elements ------------*- C++ -*-===//
//
// The thread layout of a memory-bound kernel, derived from its constraints and symbol
// values: the grid, the block, and for each thread the run of contiguous elements it
// handles at each step. This is the "index sequence" the seeds derive from constraints,
// for kernels whose ops all share one iteration space.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_DISTRIBUTION_H
#define WAVE_JIT_LOWERING_DISTRIBUTION_H

#include <array>
#include <string>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

namespace wave::jit {

struct Distribution {
  llvm::SmallVector<std::string> dims;   // the iteration space, outermost first
  llvm::SmallVector<int64_t> sizes;      // each dim's size
  llvm::SmallVector<int64_t> blockTile;  // elements of each dim per workgroup
  llvm::SmallVector<int64_t> waveTile;   // elements of each dim per wave
  llvm::SmallVector<int> gridAxis;       // the grid axis a dim is split over, or -1
  int64_t threadsPerWave = 32;
  int64_t elementsPerThread = 1;         // contiguous, along the innermost dim
  int64_t steps = 1;                     // vectors per thread
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};

  int64_t wavesPerBlock() const { return block[0] / threadsPerWave; }
  int64_t waveElements() const;
  // Whether dim `d` may run past its size in the last tile (then accesses are masked).
  bool mayOverrun(size_t d) const { return sizes[d] % blockTile[d] != 0; }

  // The layout of `kernel` over `iterationDims` (the written tensor's dims), for elements of
  // `elementBits`. Emits a diagnostic on `kernel` and fails when a size or tile is unknown
  // or the tiles do not nest.
  static mlir::FailureOr<Distribution> compute(mlir::func::FuncOp kernel,
                                               llvm::ArrayRef<llvm::StringRef> iterationDims,
                                               unsigned elementBits);
};

}  // namespace wave::jit

#endif
