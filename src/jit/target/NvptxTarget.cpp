#include "target/NvptxTarget.h"

#include "target/CodegenPipeline.h"
#include "target/LlvmToPtx.h"
#include "lowering/Passes.h"
#include "transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

namespace wave::jit {

void registerNvptxTarget(mlir::DialectRegistry& registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

// The gpu.module alone goes to NVVM (the module around it holds nothing else): the few
// passes that take apart what the conversion to LLVM cannot, then that conversion in one
// pass over every dialect left (arith, cf, memref, vector, math, gpu, nvvm). Upstream's
// buildLowerToNVVMPassPipeline also converts a host side this module lacks and cleans up
// between its conversions, which LLVM's optimizer does anyway: it took twice as long.
void addNvvmPipeline(mlir::OpPassManager& pm, const NvptxOptions& /*options*/) {
  mlir::OpPassManager& gpu = pm.nest<mlir::gpu::GPUModuleOp>();
  // An index-typed `vector.create_mask` left to the combined conversion stays half converted
  // (an unrealized cast LLVM cannot translate); lowering vector ops first avoids it.
  gpu.addPass(mlir::createConvertVectorToLLVMPass());
  gpu.addPass(mlir::createConvertNVGPUToNVVMPass());  // mma.sync, ldmatrix, cp.async
  gpu.addPass(mlir::createSCFToControlFlowPass());
  gpu.addPass(createWaveExpandStridedViews());  // views, subviews, collapses
  gpu.addPass(mlir::createLowerAffinePass());  // what expanding the metadata made
  gpu.addPass(mlir::createConvertGpuOpsToNVVMOps());
  gpu.addPass(mlir::createConvertNVVMToLLVMPass());  // wgmma and the other PTX-string ops
  gpu.addPass(mlir::createReconcileUnrealizedCastsPass());
  gpu.addPass(createWavePredicateAsyncCopies());  // masked cp.async: a predicate, not a byte count
}

// The tensor maps a kernel takes (its last parameters, `wave.tensor_maps` on the function)
// go by value, as CUDA's `const __grid_constant__ CUtensorMap`: a 128-byte, 64-byte
// aligned parameter whose address the copies take in place (no local copy). gpu.func
// cannot state this (its lowering drops byval), so it is set on the LLVM function.
void passTensorMapsByValue(mlir::gpu::GPUModuleOp module) {
  module.walk([](mlir::LLVM::LLVMFuncOp func) {
    auto maps = func->getAttrOfType<mlir::ArrayAttr>("wave.tensor_maps");
    if (!maps) return;
    mlir::MLIRContext* ctx = func.getContext();
    mlir::Builder b(ctx);
    const unsigned first = func.getNumArguments() - maps.size();
    for (unsigned i = first; i < func.getNumArguments(); ++i) {
      func.setArgAttr(i, mlir::LLVM::LLVMDialect::getByValAttrName(),
                      mlir::TypeAttr::get(mlir::LLVM::LLVMArrayType::get(b.getI8Type(), 128)));
      func.setArgAttr(i, mlir::LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64));
      func.setArgAttr(i, mlir::NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
    }
    func->removeAttr("wave.tensor_maps");
  });
}

mlir::FailureOr<std::string> compileToPtx(mlir::ModuleOp module, const NvptxOptions& options) {
  mlir::FailureOr<mlir::gpu::GPUModuleOp> lowered =
      runCodegenPipeline(module, {options.verifyEachPass, options.timing, options.dumpDir},
                         [&](mlir::OpPassManager& pm) { addNvvmPipeline(pm, options); });
  if (mlir::failed(lowered)) return mlir::failure();
  mlir::gpu::GPUModuleOp gpuModule = *lowered;
  passTensorMapsByValue(gpuModule);
  // The dynamic shared memory starts 1024-byte aligned: swizzled tiles (wgmma's) must
  // start at their swizzle's period, and the lowering places them at offsets so aligned.
  // The dynamic array (no elements) is external, so that PTX declares it `.extern` and it
  // lies after the static shared variables (mbarriers) instead of at their offset 0.
  gpuModule.walk([](mlir::LLVM::GlobalOp global) {
    auto array = mlir::dyn_cast<mlir::LLVM::LLVMArrayType>(global.getType());
    if (global.getAddrSpace() != 3 || !array || array.getNumElements() != 0) return;
    global.setAlignment(std::max<uint64_t>(global.getAlignment().value_or(1), 1024));
    global.setLinkage(mlir::LLVM::Linkage::External);
  });
  return translateToPtx(gpuModule, {.chip = options.chip,
                                    .features = options.features,
                                    .passes = options.llvmPasses,
                                    .dumpDir = options.dumpDir,
                                    .timing = options.timing});
}

}  // namespace wave::jit
