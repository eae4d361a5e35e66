//===- SelectLowering.cpp - which middle end takes each kernel -------------===//

#include "analysis/MMAAnchors.h"
#include "lowering/LowerAttentionKernel.h"
#include "lowering/Passes.h"

#include "llvm/ADT/StringSet.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVESELECTLOWERING
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

struct WaveSelectLoweringPass : impl::WaveSelectLoweringBase<WaveSelectLoweringPass> {
  using WaveSelectLoweringBase::WaveSelectLoweringBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (kernel.isExternal() || !kernel->hasAttr("wave.constraints")) return;  // declarations have no body
    // The attention lowering is the one kernel-shaped lowering left, with memory-bound
    // kernels on the index-sequence emitter, in `legacy` only (for comparisons).
    bool shaped = false;
    if (mode == "legacy")
      shaped = isAttentionKernel(kernel) || !computesWithMMA(kernel);
    else if (mode != "automatic" && mode != "layouts") {
      kernel.emitError("expected wave-select-lowering mode automatic, layouts or legacy, but found '") << mode << "'";
      return signalPassFailure();
    }
    // Only the layout pipeline lowers print.
    const bool prints = kernel.walk([](dialect::PrintOp) { return WalkResult::interrupt(); }).wasInterrupted();
    if (shaped && !prints) kernel->setAttr("wave.shape_lowering", UnitAttr::get(&getContext()));
  }
};

}  // namespace
}  // namespace wave::jit
