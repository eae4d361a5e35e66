//===- InferIndex.cpp - each thread's index sequence, from the constraints -===//

#include "analysis/MMAAnchors.h"
#include "analysis/ThreadLayout.h"
#include "transforms/Passes.h"

#include "mlir/IR/AffineMap.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEINFERINDEX
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// The dims of the value an op produces or the memory it accesses.
SmallVector<StringRef> dimsOf(Operation* op) {
  if (auto read = dyn_cast<dialect::ReadOp>(op)) return read.getMemory().getType().getDimNames();
  if (auto write = dyn_cast<dialect::WriteOp>(op)) return write.getMemory().getType().getDimNames();
  if (op->getNumResults() == 1)
    if (auto tensor = dyn_cast<dialect::TensorType>(op->getResult(0).getType())) return tensor.getDimNames();
  return {};
}

struct WaveInferIndexPass : impl::WaveInferIndexBase<WaveInferIndexPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (kernel.isExternal() || !kernel->hasAttr("wave.constraints")) return;  // declarations have no body
    // MMA kernels place each thread's elements by the MMA layout table; their lowering
    // applies it (analysis/MMALayout).
    if (computesWithMMA(kernel)) return;
    // Kernels with distributed layouts (wave-assign-layouts) are placed by them.
    auto hasLayout = [](Type t) {
      auto tensor = dyn_cast<dialect::TensorType>(t);
      return tensor && tensor.getLayout();
    };
    if (kernel.walk([&](Operation* op) {
              return llvm::any_of(op->getResultTypes(), hasLayout) ? WalkResult::interrupt() : WalkResult::advance();
            })
            .wasInterrupted())
      return;
    auto dims = iterationDims(kernel);
    if (failed(dims)) return signalPassFailure();
    unsigned bits = 8;
    kernel.walk([&](dialect::WriteOp w) {
      bits = std::max(bits, w.getMemory().getType().getElementType().getIntOrFloatBitWidth());
    });
    auto layout = inferThreadLayout(kernel, *dims, bits);
    if (failed(layout)) return signalPassFailure();
    kernel->setAttr("wave.thread_layout", *layout);

    MLIRContext* ctx = &getContext();
    SmallVector<StringAttr> symbols = indexSymbols(ctx);
    SmallVector<AffineExpr> start = runStart(*layout);
    Builder b(ctx);
    kernel.walk([&](Operation* op) {
      SmallVector<StringRef> opDims = dimsOf(op);
      if (opDims.empty()) return;
      SmallVector<NamedAttribute> index;
      for (StringRef d : opDims) {
        auto it = llvm::find(*dims, d);
        if (it == dims->end()) continue;  // rejected by the lowering, with the op's location
        AffineMap map = AffineMap::get(0, symbols.size(), start[it - dims->begin()]);
        index.push_back(b.getNamedAttr(d, dialect::ExprAttr::get(ctx, symbols, map, dialect::ExprKind::value)));
      }
      op->setAttr("wave.index", b.getDictionaryAttr(index));
    });
  }
};

}  // namespace
}  // namespace wave::jit
