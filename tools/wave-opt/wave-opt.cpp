//===- wave-opt.cpp - mlir-opt with the wave dialect ----------------------===//
//
// Parses, verifies, transforms and prints `wave` IR: for lit tests, and for kernels
// exported with a WAVE_DUMP_IR-style option, edited by hand and fed back.
//
//===----------------------------------------------------------------------===//

#include "dialect/WaveDialect.h"
#include "lowering/Passes.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  registry.insert<wave::dialect::WaveDialect, mlir::affine::AffineDialect, mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::gpu::GPUDialect, mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::nvgpu::NVGPUDialect, mlir::NVVM::NVVMDialect, mlir::LLVM::LLVMDialect, mlir::scf::SCFDialect,
                  mlir::vector::VectorDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  wave::jit::registerWaveTransformsPasses();
  wave::jit::registerWaveLoweringPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "wave optimizer driver\n", registry));
}
