//===- SplitLoopAcrossWaves.cpp - waves fold their parts of a loop apart ----===//
//
// Decode attention's waves split every key tile. Combining their row maxima, sums and
// outputs in every tile costs a round trip through shared memory and barriers per tile,
// and an mma over the keys that each wave repeats whole; folding apart and combining once
// after the loop costs one round trip in all. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "analysis/CarriedFolds.h"
#include "analysis/KernelGrid.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <map>

namespace wave::jit {

#define GEN_PASS_DEF_WAVESPLITLOOPACROSSWAVES
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;
using dialect::FoldKind;

// The combinations of `loop`'s results, after it; every other use takes them.
void combineAfter(dialect::IterateOp loop, ArrayRef<CarriedFold> folds) {
  OpBuilder b(loop->getContext());
  b.setInsertionPointAfter(loop);
  const Location loc = loop.getLoc();
  StringRef dim = loop.getDim();
  SmallPtrSet<Operation*, 8> combining;
  auto combined = [&](FoldKind kind, Value partial) {
    auto op = dialect::CombineWavesOp::create(b, loc, kind, partial, dim);
    combining.insert(op);
    return op.getResult();
  };
  SmallVector<Value> results(loop.getNumResults());
  for (auto [i, fold] : llvm::enumerate(folds))
    if (fold.kind == FoldKind::max) results[i] = combined(FoldKind::max, loop.getResult(i));
  // Each wave's partial of a rescaled sum counts its terms relative to the wave's own
  // max: exp2(k (m_w - m)) rescales it to the combined max m. One factor per max and k.
  std::map<std::pair<int, double>, Value> factors;
  auto factor = [&](int max, double k) {
    Value& f = factors[{max, k}];
    if (f) return f;
    Value own = loop.getResult(max);
    Type type = own.getType();
    Value exponent = dialect::SubOp::create(b, loc, type, own, results[max]);
    combining.insert(exponent.getDefiningOp());
    if (k != 1) {
      auto scalar = dialect::TensorType::get(b.getContext(), ArrayRef<StringRef>{}, b.getF32Type());
      Value scale = dialect::RegisterOp::create(b, loc, scalar, b.getF32FloatAttr(k));
      exponent = dialect::MulOp::create(b, loc, type, exponent, scale);
      combining.insert(exponent.getDefiningOp());
    }
    f = dialect::Exp2Op::create(b, loc, type, exponent);
    combining.insert(f.getDefiningOp());
    return f;
  };
  for (auto [i, fold] : llvm::enumerate(folds)) {
    if (fold.kind != FoldKind::sum) continue;
    Value partial = loop.getResult(i);
    if (fold.rescaledBy >= 0) {
      partial = dialect::MulOp::create(b, loc, partial.getType(), partial, factor(fold.rescaledBy, fold.log2Scale));
      combining.insert(partial.getDefiningOp());
    }
    results[i] = combined(FoldKind::sum, partial);
  }
  for (auto [result, total] : llvm::zip(loop.getResults(), results))
    result.replaceUsesWithIf(total, [&](OpOperand& use) { return !combining.contains(use.getOwner()); });
}

struct WaveSplitLoopAcrossWavesPass : impl::WaveSplitLoopAcrossWavesBase<WaveSplitLoopAcrossWavesPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    FailureOr<KernelGrid> grid = kernelGridQuietly(kernel);
    if (failed(grid)) return;
    kernel.walk([&](dialect::IterateOp loop) {
      StringRef dim = loop.getDim();
      const int axis = grid->waves.axisOf(dim);
      if (loop.getWaveFoldsAttr() || axis < 0 || grid->waves.waves[axis] == 1) return;
      std::string why;
      FailureOr<SmallVector<CarriedFold>> folds = carriedFolds(loop, why);
      if (failed(folds)) return;  // the waves exchange their values in every tile
      SmallVector<StringRef> kinds;
      for (const CarriedFold& f : *folds) kinds.push_back(dialect::stringifyFoldKind(f.kind));
      loop.setWaveFoldsAttr(OpBuilder(loop).getStrArrayAttr(kinds));
      combineAfter(loop, *folds);
    });
  }
};

}  // namespace
}  // namespace wave::jit
