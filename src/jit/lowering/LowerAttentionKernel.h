//===- LowerAttentionKernel.h - attention-shaped kernels on tensor cores -*- C++ -*-===//

#ifndef WAVE_JIT_LOWERING_LOWERATTENTIONKERNEL_H
#define WAVE_JIT_LOWERING_LOWERATTENTIONKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace wave::jit {

// Whether `kernel` chains two wave.mma in one loop (and so lowers through
// emitAttentionKernel).
bool isAttentionKernel(mlir::func::FuncOp kernel);

// Whether emitAttentionKernel can lower `kernel` (tried in a scratch module, without
// diagnostics).
bool matchesAttentionShape(mlir::func::FuncOp kernel);

// Builds the gpu.func of an attention-shaped kernel (see LowerAttentionKernel.cpp) in
// `module`, or emits a diagnostic at the op it cannot lower and fails.
mlir::LogicalResult emitAttentionKernel(mlir::func::FuncOp kernel, mlir::gpu::GPUModuleOp module);

}  // namespace wave::jit

#endif
