//===- SharedBlocks.h - the dynamic shared memory's blocks and live spans -*- C++ -*-===//
//
// The lowerings carve a gpu.func's dynamic shared memory into views at constant byte
// offsets: loops' tiles (and their stages), operands staged before a loop, a layout
// conversion's scratch. A block is a maximal set of those views whose byte ranges
// overlap, with the span of the function's top-level ops that use it. Blocks whose spans
// are disjoint are never live at once (two loops in a row, each with its own tiles), so
// they may share bytes: wave-pack-shared-memory overlaps them, and
// wave-pipeline-shared-copies counts only the bytes live during a loop when it sizes the
// loop's stages.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TRANSFORMS_SHAREDBLOCKS_H
#define WAVE_JIT_TRANSFORMS_SHAREDBLOCKS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace wave::jit::shared_blocks {

inline constexpr int64_t kTwoWorkgroupsBytes = 113 * 1024;  // two workgroups per SM on Hopper
inline constexpr int64_t kMaxSharedBytes = 227 * 1024;      // what one workgroup may have

struct SharedBlock {
  int64_t offset = 0, bytes = 0;  // the bytes its views cover, from the dynamic memory's start
  unsigned first = 0, last = 0;   // the top-level ops (in the function's body) that use it
  llvm::SmallVector<mlir::memref::ViewOp> views;
  bool liveAt(unsigned index) const { return first <= index && index <= last; }
  bool liveWith(const SharedBlock& other) const { return first <= other.last && other.first <= last; }
};

// The blocks of `func`'s dynamic shared memory by offset; nothing where its body is not
// one block or a view of the dynamic memory has no constant offset or static shape.
std::optional<llvm::SmallVector<SharedBlock>> sharedBlocks(mlir::gpu::GPUFuncOp func);

// The position in `func`'s body of the top-level op holding `op`.
unsigned topLevelIndex(mlir::gpu::GPUFuncOp func, mlir::Operation* op);

// The bytes of the blocks live at top-level op `index`.
int64_t liveBytes(llvm::ArrayRef<SharedBlock> blocks, unsigned index);

}  // namespace wave::jit::shared_blocks

#endif
