//===- SharedCopies.h - a loop's TMA copies, for its two schedules -*- C++ -*-===//
//
// Internal to wave-pipeline-shared-copies: what the software-pipelined schedule
// (PipelineSharedCopies.cpp) and the warp-specialized one (SpecializeWarps.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TRANSFORMS_SHAREDCOPIES_H
#define WAVE_JIT_TRANSFORMS_SHAREDCOPIES_H

#include "transforms/WarpgroupMma.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SetVector.h"

namespace wave::jit::shared_copies {

inline constexpr int64_t kRegistersPerSM = 64 * 1024;  // 32-bit registers

// The function attribute holding its dynamic shared memory's size in bytes, and its
// growth by `bytes` where a tile gains copies.
inline constexpr llvm::StringLiteral kSharedMemoryBytesAttr = "wave.shared_memory_bytes";
void growSharedMemory(mlir::gpu::GPUFuncOp func, int64_t bytes);

// Whether `v` is a memref in shared (workgroup) memory.
bool isShared(mlir::Value v);

// A loop's TMA copies (wave.tma_copy's lowering) into one tile: the copies of its boxes
// and the mbarrier they complete on, armed with the tile's bytes and waited on in the body.
struct TensorCopy {
  mlir::Value barrier;                     // an mbarrier group, made before the loop
  llvm::SmallVector<mlir::Operation*> issue;  // its arming and the copies, in order
  mlir::nvgpu::MBarrierTryWaitParityOp wait;
  mlir::memref::ViewOp tile;
};

// The loop's trip (analysis/TileLoop.h's workgroupTrip, counted on across a persistent
// grid's tiles) mod stages: which copy of a tile iteration iv uses.
mlir::Value stageIndex(mlir::OpBuilder& b, mlir::Location loc, mlir::scf::ForOp loop, int stages);

// (workgroupTrip / stages) mod 2, as i1: the parity of the phase an iteration's stage is in.
mlir::Value roundParity(mlir::OpBuilder& b, mlir::Location loc, mlir::scf::ForOp loop, int stages);

// Ops of `body` (top level) that `roots` depend on through their operands.
llvm::SetVector<mlir::Operation*> sliceIn(mlir::Block* body, llvm::ArrayRef<mlir::Operation*> roots);

// The tile a TMA copy's destination (a box: a subview of the tile, shaped) lies in; none
// where it is not a view of the dynamic shared memory.
mlir::memref::ViewOp tileOfBox(mlir::Value dst);

// A filled tile: a view of the dynamic shared memory at a constant offset and static
// shape, used only inside `loop` and overlapping no other view.
struct Tile {
  mlir::memref::ViewOp view;
  int64_t offset, bytes;
};
mlir::FailureOr<Tile> tileOf(mlir::scf::ForOp loop, mlir::memref::ViewOp view);

// Gives `tile` `count` copies side by side from its offset (views after it move up by the
// growth, rounded up to `viewAlignment` so that they keep theirs; returned); each use reads
// the copy whose index `copyIndex` builds at it.
int64_t multiBuffer(Tile tile, int count, int64_t viewAlignment,
                    llvm::function_ref<mlir::Value(mlir::OpBuilder&, mlir::Location)> copyIndex);

// Makes the mbarrier group `barrier` (of one) `count` mbarriers, each initialized beside
// the first's initialization outside `scope`.
void growBarrierGroup(mlir::Value barrier, int count, mlir::Operation* scope);

// Gives `copy`'s mbarrier group one mbarrier per stage (each initialized beside the
// first) and makes the body wait on its stage's for the parity of its round.
void barrierPerStage(mlir::scf::ForOp loop, TensorCopy& copy, int stages);

// Whether `loop` can be split between a producer warpgroup and the function's threads
// (see specializeWarps); the reason it cannot otherwise.
mlir::LogicalResult canSpecializeWarps(mlir::scf::ForOp loop, llvm::ArrayRef<TensorCopy> copies);

// The workgroups per SM a warp-specialized function is built for: two where one computing
// warpgroup needing `registersNeeded` registers per thread fits twice beside a producer
// warpgroup's 40 (setmaxnreg moves the rest to them), else one.
int specializedWorkgroupsPerSM(int64_t consumers, int64_t registersNeeded);

// Splits the function around `loop` (its tiles multi-buffered `stages` times, its copies'
// barriers one per stage) between the function's threads, which compute, and a new
// producer warpgroup, which issues the copies; `perSM` workgroups share an SM.
// `batchInFlight`: each iteration's wgmma batch is waited for in the next one, so the
// stage it reads is released only there. `spareBytes`: the shared memory left, where a
// persistent grid's per-tile copies (attention's Q) may get a second buffer.
mlir::LogicalResult specializeWarps(mlir::scf::ForOp loop, llvm::ArrayRef<TensorCopy> copies, int stages,
                                    bool batchInFlight, int perSM, int64_t spareBytes);

}  // namespace wave::jit::shared_copies

#endif
