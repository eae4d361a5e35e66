// wave::jit::compile_to_ptx: trace graph -> wave IR -> upstream GPU IR -> PTX.
#include "dialect/WaveDialect.h"
#include "import/FirstError.h"
#include "import/ImportKernel.h"
#include "lowering/Passes.h"
#include "target/NvptxTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "wave/jit.hpp"

namespace wave::jit {
namespace {

// The PTX ISA version each target needs at least.
std::string ptxFeatures(const std::string& chip, const std::string& kernel) {
  if (chip == "sm_80") return "+ptx70";
  if (chip == "sm_90" || chip == "sm_90a") return "+ptx80";
  throw Error(kernel, "compile", "", 0,
              "target: " + expected_found("sm_80, sm_90 or sm_90a", "'" + chip + "'"));
}

}  // namespace

PtxKernel compile_to_ptx(const graph::KernelGraph& kernel, const CompileOptions& options,
                         const std::string& target) {
  const NvptxOptions nvptx{.chip = target, .features = ptxFeatures(target, kernel.name)};
  mlir::DialectRegistry registry;
  registry.insert<dialect::WaveDialect>();
  registerNvptxTarget(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadDialect<dialect::WaveDialect, mlir::func::FuncDialect>();
  FirstError first(&ctx);

  mlir::OwningOpRef<mlir::ModuleOp> module = importKernel(ctx, kernel, options);
  if (mlir::failed(mlir::verify(*module)))
    throw first.error(kernel.name, "import", "the traced kernel does not verify");

  mlir::PassManager lowering(&ctx);
  lowering.addPass(createWaveLowerToGPU());
  lowering.addPass(mlir::createCanonicalizerPass());
  lowering.addPass(mlir::createCSEPass());
  if (mlir::failed(lowering.run(*module)))
    throw first.error(kernel.name, "lowering", "cannot lower the kernel to GPU code");

  PtxKernel result;
  module->walk([&](mlir::gpu::GPUFuncOp f) {
    result.entry = f.getName().str();
    if (auto grid = f.getKnownGridSizeAttr())
      for (int i = 0; i < 3; ++i) result.grid[i] = static_cast<unsigned>(grid[i]);
    if (auto block = f.getKnownBlockSizeAttr())
      for (int i = 0; i < 3; ++i) result.block[i] = static_cast<unsigned>(block[i]);
  });
  auto ptx = compileToPtx(*module, nvptx);
  if (mlir::failed(ptx)) throw first.error(kernel.name, "codegen", "cannot compile the GPU code to PTX");
  result.ptx = std::move(*ptx);
  return result;
}

}  // namespace wave::jit
