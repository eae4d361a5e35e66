#include "target/AmdgpuTarget.h"

#include "lowering/Passes.h"
#include "transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

namespace wave::jit {

namespace {

// The gpu.module alone goes to ROCDL, as on the NVIDIA path: math as the AMDGPU back
// end's instructions (no device library), then the conversion of every dialect left
// (arith, cf, memref, vector, gpu).
void addRocdlPipeline(mlir::OpPassManager& pm, const AmdgpuOptions& options) {
  mlir::OpPassManager& gpu = pm.nest<mlir::gpu::GPUModuleOp>();
  gpu.addPass(createWaveExpandMathForAMDGPU());
  gpu.addPass(mlir::createConvertVectorToLLVMPass());
  gpu.addPass(mlir::createSCFToControlFlowPass());
  gpu.addPass(createWaveExpandStridedViews());
  gpu.addPass(mlir::createLowerAffinePass());
  mlir::ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = options.chip;
  rocdl.runtime = mlir::gpu::amd::Runtime::HIP;
  gpu.addPass(mlir::createConvertGpuOpsToROCDLOps(rocdl));
  gpu.addPass(mlir::createReconcileUnrealizedCastsPass());
}

}  // namespace

mlir::FailureOr<Hsaco> compileToHsaco(mlir::ModuleOp module, const AmdgpuOptions& options) {
  mlir::PassManager pm(module.getContext());
  if (options.timing) pm.enableTiming(*options.timing);
  if (!options.dumpDir.empty()) {
    module.getContext()->disableMultithreading();  // IR printing needs one thread
    pm.enableIRPrintingToFileTree([](mlir::Pass*, mlir::Operation*) { return false; },
                                  [](mlir::Pass*, mlir::Operation*) { return true; }, /*printModuleScope=*/true,
                                  /*printAfterOnlyOnChange=*/true, /*printAfterOnlyOnFailure=*/false, options.dumpDir);
  }
  pm.enableVerifier(options.verifyEachPass);
  addRocdlPipeline(pm, options);
  if (mlir::failed(pm.run(module)) || (!options.verifyEachPass && mlir::failed(mlir::verify(module))))
    return mlir::failure();
  mlir::gpu::GPUModuleOp gpuModule;
  module.walk([&](mlir::gpu::GPUModuleOp m) { gpuModule = m; });
  if (!gpuModule) {
    module.emitError("expected a gpu.module to compile to HSACO");
    return mlir::failure();
  }
  return translateToHsaco(gpuModule, {.chip = options.chip, .dumpDir = options.dumpDir, .timing = options.timing});
}

}  // namespace wave::jit
