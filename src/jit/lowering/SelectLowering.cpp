//===- SelectLowering.cpp - which middle end takes each kernel -------------===//

#include "lowering/LowerAttentionKernel.h"
#include "lowering/LowerMMAKernel.h"
#include "lowering/Passes.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVESELECTLOWERING
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

struct WaveSelectLoweringPass : impl::WaveSelectLoweringBase<WaveSelectLoweringPass> {
  using WaveSelectLoweringBase::WaveSelectLoweringBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (!kernel->hasAttr("wave.constraints")) return;
    bool shaped = false;
    if (mode == "legacy")
      shaped = true;
    else if (mode == "automatic")
      shaped = isAttentionKernel(kernel) ? matchesAttentionShape(kernel) : matchesGemmShape(kernel);
    else if (mode != "layouts") {
      kernel.emitError("expected wave-select-lowering mode automatic, layouts or legacy, but found '") << mode << "'";
      return signalPassFailure();
    }
    if (shaped) kernel->setAttr("wave.shape_lowering", UnitAttr::get(&getContext()));
  }
};

}  // namespace
}  // namespace wave::jit
