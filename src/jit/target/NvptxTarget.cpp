#include "target/NvptxTarget.h"

#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/TargetSelect.h"

namespace wave::jit {

void registerNvptxTarget(mlir::DialectRegistry& registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

mlir::FailureOr<std::string> compileToPtx(mlir::ModuleOp module, const NvptxOptions& options) {
  static const bool initialized = [] {
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    return true;
  }();
  (void)initialized;

  mlir::gpu::GPUToNVVMPipelineOptions pipeline;
  pipeline.cubinChip = options.chip;
  pipeline.cubinFeatures = options.features;
  pipeline.cubinFormat = "isa";  // PTX text: the driver assembles it for the exact GPU
  pipeline.optLevel = options.optLevel;
  // Kernel parameters are memref descriptors (pointer, pointer, offset, sizes, strides),
  // so dims can be dynamic; CompiledKernel fills them.
  pipeline.kernelUseBarePtrCallConv = false;

  mlir::PassManager pm(module.getContext());
  if (options.timing) pm.enableTiming(*options.timing);
  if (!options.dumpDir.empty()) {
    module.getContext()->disableMultithreading();  // IR printing needs one thread
    pm.enableIRPrintingToFileTree([](mlir::Pass*, mlir::Operation*) { return false; },
                                  [](mlir::Pass*, mlir::Operation*) { return true; }, /*printModuleScope=*/true,
                                  /*printAfterOnlyOnChange=*/true, /*printAfterOnlyOnFailure=*/false, options.dumpDir);
  }
  // The NVVM pipeline leaves an index-typed `vector.create_mask` half converted (an
  // unrealized cast LLVM cannot translate); lowering vector ops first avoids it.
  pm.addNestedPass<mlir::gpu::GPUModuleOp>(mlir::createConvertVectorToLLVMPass());
  mlir::gpu::buildLowerToNVVMPassPipeline(pm, pipeline);
  if (mlir::failed(pm.run(module))) return mlir::failure();

  std::string ptx;
  module.walk([&](mlir::gpu::BinaryOp binary) {
    for (mlir::Attribute object : binary.getObjects())
      if (auto obj = llvm::dyn_cast<mlir::gpu::ObjectAttr>(object)) ptx = obj.getObject().str();
  });
  if (ptx.empty()) {
    module.emitError("the NVVM pipeline produced no gpu.binary");
    return mlir::failure();
  }
  return ptx;
}

}  // namespace wave::jit
