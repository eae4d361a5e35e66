//===- Passes.h - analyses and transforms on the wave dialect ---*- C++ -*-===//

#ifndef WAVE_JIT_TRANSFORMS_PASSES_H
#define WAVE_JIT_TRANSFORMS_PASSES_H

#include "dialect/WaveDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace wave::jit {

#define GEN_PASS_DECL
#include "transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "transforms/Passes.h.inc"

}  // namespace wave::jit

#endif
