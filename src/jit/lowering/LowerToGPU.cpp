//===- LowerToGPU.cpp - wave kernels with layouts -> gpu.func --------------===//
//
// The pass around the distribution: a gpu.module for the kernels, one gpu.func per
// kernel from its layouts (lowering/DistributeKernel), the func.func erased.
//
//===----------------------------------------------------------------------===//

#include "dialect/WaveDialect.h"
#include "lowering/DistributeKernel.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVELOWERTOGPU
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

struct WaveLowerToGPUPass : impl::WaveLowerToGPUBase<WaveLowerToGPUPass> {
  using WaveLowerToGPUBase::WaveLowerToGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    module.walk([&](func::FuncOp f) {
      if (!f.isExternal() && f->hasAttr("wave.constraints")) kernels.push_back(f);
    });
    if (kernels.empty()) return;
    if (const int size = clusterSize; size != 1 && size != 2 && size != 4) {
      kernels.front().emitError("expected cluster_size 1, 2 or 4, but found ") << size;
      return signalPassFailure();
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "wave_kernels");
    for (func::FuncOp kernel : kernels) {
      if (Operation* op = firstWithoutLayout(kernel)) {
        op->emitOpError("expected a layout on its result (from wave-assign-layouts), but found none");
        return signalPassFailure();
      }
      if (failed(emitDistributedKernel(kernel, gpuModule,
                                           {.persistent = persistent,
                                            .streamK = streamK,
                                            .clusterSize = clusterSize,
                                            .tileCounter = tileCounter,
                                            .vectorAtomics = vectorAtomics,
                                            .systemAtomics = systemAtomics,
                                            .ptxTanh = ptxTanh,
                                            .wavePriority = wavePriority,
                                            .branchOnOverrunningTiles = overrunBranches,
                                            .bufferAccesses = bufferAccesses,
                                            .deviceScope = deviceScope}))) return signalPassFailure();
      kernel.erase();
    }
  }
};

}  // namespace
}  // namespace wave::jit
