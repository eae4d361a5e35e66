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

// Whether a wave constraint splits the dim an iterate walks: each wave takes part of
// every tile of the loop.
bool splitsLoopAcrossWaves(func::FuncOp kernel) {
  llvm::StringSet<> waveSplit;
  for (Attribute c : kernel->getAttrOfType<ArrayAttr>("wave.constraints"))
    if (auto w = dyn_cast<dialect::WaveConstraintAttr>(c)) waveSplit.insert(w.getDim().getValue());
  return kernel
      .walk([&](dialect::IterateOp loop) {
        return waveSplit.contains(loop.getDim()) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

struct WaveSelectLoweringPass : impl::WaveSelectLoweringBase<WaveSelectLoweringPass> {
  using WaveSelectLoweringBase::WaveSelectLoweringBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (kernel.isExternal() || !kernel->hasAttr("wave.constraints")) return;  // declarations have no body
    // The attention lowering is the one kernel-shaped lowering left; `legacy` also keeps
    // memory-bound kernels on the index-sequence emitter. In `automatic` it keeps only
    // attention whose waves split the keys (decode).
    const bool attention = isAttentionKernel(kernel);
    bool shaped = false;
    if (mode == "legacy")
      shaped = attention || !computesWithMMA(kernel);
    else if (mode == "automatic")
      shaped = attention && splitsLoopAcrossWaves(kernel) && matchesAttentionShape(kernel);
    else if (mode != "layouts") {
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
