//===- ConsumerThreads.h - the computing threads of a specialized kernel -*- C++ -*-===//

#ifndef WAVE_JIT_TRANSFORMS_CONSUMERTHREADS_H
#define WAVE_JIT_TRANSFORMS_CONSUMERTHREADS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"

namespace wave::jit {

// On the `scf.if` that splits a warp-specialized function (wave-pipeline-shared-copies):
// how many threads, from 0, run its then-region, the computing one; the rest are producers.
inline constexpr llvm::StringLiteral kConsumerThreadsAttr = "wave.consumer_threads";

// The barrier the computing threads of a warp-specialized function sync on: a named one
// (id 1; gpu.barrier's is 0) of `threads` threads.
inline void createConsumerBarrier(mlir::OpBuilder& b, mlir::Location loc, int64_t threads) {
  mlir::Value id = mlir::arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  mlir::Value count = mlir::arith::ConstantIntOp::create(b, loc, b.getI32Type(), threads);
  mlir::NVVM::BarrierOp::create(b, loc, mlir::Type(), id, count, mlir::NVVM::BarrierReductionAttr(), mlir::Value());
}

// A specialized function's mbarriers are initialized before the split, and every thread
// sees them after the barrier that follows the last initialization. Of the ops of `block`
// before `end`: that last initialization and its publishing barrier; failure where either
// is missing.
struct MBarrierSetUp {
  mlir::nvgpu::MBarrierInitOp lastInit;
  mlir::gpu::BarrierOp published;
};

inline mlir::FailureOr<MBarrierSetUp> mbarrierSetUp(mlir::Block& block, mlir::Block::iterator end) {
  MBarrierSetUp setUp;
  for (mlir::Operation& op : llvm::make_range(block.begin(), end))
    if (auto init = llvm::dyn_cast<mlir::nvgpu::MBarrierInitOp>(op)) setUp.lastInit = init;
  if (!setUp.lastInit) return mlir::failure();
  for (auto op = std::next(setUp.lastInit->getIterator()); op != end && !setUp.published; ++op)
    setUp.published = llvm::dyn_cast<mlir::gpu::BarrierOp>(*op);
  if (!setUp.published) return mlir::failure();
  return setUp;
}

}  // namespace wave::jit

#endif
