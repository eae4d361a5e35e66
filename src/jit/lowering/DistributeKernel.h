//===- DistributeKernel.h - kernels with layouts -> gpu.func ---------*- C++ -*-===//
//
// The distribution of a kernel whose values carry #wave.layout (after
// wave-assign-layouts): one lowering per op, from its operands' and result's layouts, to
// per-thread vector code in a gpu.func.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_DISTRIBUTEKERNEL_H
#define WAVE_JIT_LOWERING_DISTRIBUTEKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace wave::jit {

// The first op of `kernel` with a tensor result that has no layout (none after
// wave-assign-layouts); null where there is none.
mlir::Operation* firstWithoutLayout(mlir::func::FuncOp kernel);

// Builds `kernel`'s gpu.func at the end of `module`, `persistent`ly or one workgroup per
// tile, in clusters of `clusterSize` workgroups where they share loop copies (see
// wave-lower-to-gpu); emits a diagnostic at the op it cannot lower and fails.
mlir::LogicalResult emitDistributedKernel(mlir::func::FuncOp kernel, mlir::gpu::GPUModuleOp module,
                                          bool persistent = false, int clusterSize = 1,
                                          bool vectorAtomics = false);

}  // namespace wave::jit

#endif
