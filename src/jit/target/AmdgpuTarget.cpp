#include "target/AmdgpuTarget.h"

#include "target/CodegenPipeline.h"

#include "lowering/Passes.h"
#include "transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToAMDGPU/ArithToAMDGPU.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"

namespace wave::jit {

namespace {

// The gpu.module alone goes to ROCDL, as on the NVIDIA path: math as the AMDGPU back
// end's instructions and the grid's size from the kernel's arguments (no device library),
// arithmetic on f8 in f32 between conversions (LLVM has no f8 types), the conversions to
// and from f8 as the chip's (saturating, as NVIDIA's .satfinite), then the conversion of
// every dialect left (arith, cf, memref, vector, gpu).
void addRocdlPipeline(mlir::OpPassManager& pm, const AmdgpuOptions& options) {
  mlir::OpPassManager& gpu = pm.nest<mlir::gpu::GPUModuleOp>();
  gpu.addPass(createWaveExpandMathForAMDGPU());
  gpu.addPass(createWaveLowerGridDimsForAMDGPU());
  mlir::arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3FN", "f8E5M2"};
  emulate.targetTypeStr = "f32";
  gpu.addPass(mlir::arith::createArithEmulateUnsupportedFloats(emulate));
  mlir::ArithToAMDGPUConversionPassOptions f8;
  f8.chipset = options.chip;
  f8.saturateFP8Truncf = true;
  gpu.addPass(mlir::createArithToAMDGPUConversionPass(f8));
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
  mlir::FailureOr<mlir::gpu::GPUModuleOp> lowered =
      runCodegenPipeline(module, {options.verifyEachPass, options.timing, options.dumpDir},
                         [&](mlir::OpPassManager& pm) { addRocdlPipeline(pm, options); });
  if (mlir::failed(lowered)) return mlir::failure();
  mlir::gpu::GPUModuleOp gpuModule = *lowered;
  return translateToHsaco(gpuModule, {.chip = options.chip, .dumpDir = options.dumpDir, .timing = options.timing});
}

}  // namespace wave::jit
