// wave::jit::layout_pictures: the layouts wave-assign-layouts gives a kernel's values,
// drawn (analysis/LayoutPicture).
#include "analysis/LayoutPicture.h"
#include "dialect/WaveDialect.h"
#include "import/FirstError.h"
#include "import/ImportKernel.h"
#include "lowering/Passes.h"
#include "runtime/TargetOfOptions.h"
#include "target/CompileModule.h"
#include "target/TargetKernelChecks.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "wave/jit.hpp"

namespace wave::jit {

std::vector<LayoutPicture> layout_pictures(const graph::KernelGraph& kernel, const CompileOptions& given) {
  const CompileOptions options = withTarget(given);
  mlir::MLIRContext ctx;
  FirstError first(&ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module = importVerified(ctx, kernel, options, first);
  // The middle end's passes up to the layouts, as compile_to_ptx runs them.
  mlir::PassManager pm(&ctx);
  pm.addNestedPass<mlir::func::FuncOp>(createWaveHoistInvariantReads());
  pm.addNestedPass<mlir::func::FuncOp>(createWaveSkipMaskedTiles());
  // (The tiles the target's compile makes: contraction-innermost on AMD.)
  const bool amd = targetNamed(options.target, kernel.name).vendor == Vendor::amd;
  pm.addNestedPass<mlir::func::FuncOp>(createWavePromoteShared({.contractionInnermost = amd}));
  pm.addNestedPass<mlir::func::FuncOp>(createWaveAssignLayouts());
  if (mlir::failed(pm.run(*module))) throw first.error(kernel.name, "layouts", "cannot assign layouts");
  std::vector<LayoutPicture> pictures;
  module->walk([&](mlir::Operation* op) {
    for (mlir::Value v : op->getResults()) {
      auto type = llvm::dyn_cast<dialect::TensorType>(v.getType());
      if (!type || !type.getLayout()) continue;
      std::string value = op->getName().getStringRef().str();
      if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(op->getLoc()))
        value += " at " + loc.getFilename().str() + ":" + std::to_string(loc.getLine());
      std::string dims;
      for (llvm::StringRef d : type.getDimNames()) dims += (dims.empty() ? "" : ", ") + d.str();
      value += " [" + dims + "]";
      pictures.push_back({value, layoutSvg(type.getLayout(), type.getDimNames(), value)});
    }
  });
  return pictures;
}

}  // namespace wave::jit
