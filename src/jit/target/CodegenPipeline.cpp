#include "target/CodegenPipeline.h"

#include "mlir/IR/Verifier.h"

namespace wave::jit {

mlir::FailureOr<mlir::gpu::GPUModuleOp> runCodegenPipeline(mlir::ModuleOp module, const CodegenPipelineOptions& options,
                                                           llvm::function_ref<void(mlir::OpPassManager&)> addPasses) {
  mlir::PassManager pm(module.getContext());
  if (options.timing) pm.enableTiming(*options.timing);
  if (!options.dumpDir.empty()) {
    module.getContext()->disableMultithreading();  // IR printing needs one thread
    pm.enableIRPrintingToFileTree([](mlir::Pass*, mlir::Operation*) { return false; },
                                  [](mlir::Pass*, mlir::Operation*) { return true; }, /*printModuleScope=*/true,
                                  /*printAfterOnlyOnChange=*/true, /*printAfterOnlyOnFailure=*/false, options.dumpDir);
  }
  pm.enableVerifier(options.verifyEachPass);
  addPasses(pm);
  if (mlir::failed(pm.run(module)) || (!options.verifyEachPass && mlir::failed(mlir::verify(module))))
    return mlir::failure();
  mlir::gpu::GPUModuleOp gpuModule;
  module.walk([&](mlir::gpu::GPUModuleOp m) { gpuModule = m; });
  if (!gpuModule) {
    module.emitError("expected a gpu.module to compile");
    return mlir::failure();
  }
  return gpuModule;
}

}  // namespace wave::jit
