//===- SelectLowering.cpp - which middle end takes each kernel -------------===//

#include "lowering/LowerAttentionKernel.h"
#include "lowering/LowerMMAKernel.h"
#include "lowering/Passes.h"

#include "dialect/WaveDialect.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVESELECTLOWERING
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

// Whether a loop of `kernel` reduces (as attention's online softmax does): such kernels
// have not run through the layout pipeline on a GPU yet, so `automatic` keeps them on the
// attention lowering, whose diagnostics name what it cannot lower.
bool reducesInLoop(func::FuncOp kernel) {
  return kernel
      .walk([](Operation* op) {
        return isa<dialect::ReduceMaxOp, dialect::ReduceSumOp>(op) && op->getParentOfType<dialect::IterateOp>()
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct WaveSelectLoweringPass : impl::WaveSelectLoweringBase<WaveSelectLoweringPass> {
  using WaveSelectLoweringBase::WaveSelectLoweringBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (!kernel->hasAttr("wave.constraints")) return;
    bool shaped = false;
    if (mode == "legacy")
      shaped = true;
    else if (mode == "automatic")
      shaped = isAttentionKernel(kernel) ? matchesAttentionShape(kernel) || reducesInLoop(kernel)
                                         : matchesGemmShape(kernel);
    else if (mode != "layouts") {
      kernel.emitError("expected wave-select-lowering mode automatic, layouts or legacy, but found '") << mode << "'";
      return signalPassFailure();
    }
    if (shaped) kernel->setAttr("wave.shape_lowering", UnitAttr::get(&getContext()));
  }
};

}  // namespace
}  // namespace wave::jit
