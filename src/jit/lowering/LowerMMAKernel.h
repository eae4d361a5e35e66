//===- LowerMMAKernel.h - GEMM-shaped kernels on tensor cores --*- C++ -*-===//

#ifndef WAVE_JIT_LOWERING_LOWERMMAKERNEL_H
#define WAVE_JIT_LOWERING_LOWERMMAKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace wave::jit {

// Whether `kernel` computes with wave.mma (and so lowers through emitMMAKernel).
bool isMMAKernel(mlir::func::FuncOp kernel);

// Whether emitMMAKernel can lower `kernel` (checked without diagnostics).
bool matchesGemmShape(mlir::func::FuncOp kernel);

// Builds the gpu.func of a GEMM-shaped kernel (see LowerMMAKernel.cpp) in `module`, or
// emits a diagnostic at the op it cannot lower and fails.
mlir::LogicalResult emitMMAKernel(mlir::func::FuncOp kernel, mlir::gpu::GPUModuleOp module);

}  // namespace wave::jit

#endif
