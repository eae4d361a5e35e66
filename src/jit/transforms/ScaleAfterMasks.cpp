//===- ScaleAfterMasks.cpp - a hiding mask added before the logits' scale --===//
//
// Attention scales its scores by a positive constant and adds its masks to the logits:
// `s c + select(visible, 0, -BIG)`. The distribution computes a marked mask (wave-mask-
// partial-tiles) under a branch that most tiles skip, and the logits leave it as the
// branch's result; a row max and `exp2(x - max)` over a branch's result cannot take
// the scale out of the max (wave-factor-positive-scales) nor fuse the multiply into the
// subtraction, so every tile pays two instructions per score where the unmasked kernel
// pays one. This pass adds the mask before the scale instead, `(s + select(visible, 0,
// -BIG / c)) c`, so that the scale comes after the branch. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "analysis/ScoreMasks.h"
#include "transforms/Passes.h"

#include "dialect/WaveOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <cmath>

namespace wave::jit {

#define GEN_PASS_DEF_WAVESCALEAFTERMASKS
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// `value` as x * c for a splat constant c, finite and > 0: the multiply, x and c.
struct Scaled {
  dialect::MulOp product;
  Value x, scale;
  double c = 0;
};

std::optional<Scaled> asScaled(Value value) {
  auto product = value.getDefiningOp<dialect::MulOp>();
  if (!product) return std::nullopt;
  const Value lhs = product.getLhs(), rhs = product.getRhs();
  for (auto [x, scale] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
    std::optional<double> c = splatValue(scale);
    if (c && std::isfinite(*c) && *c > 0 && x.getType() == product.getType()) return Scaled{product, x, scale, *c};
  }
  return std::nullopt;
}

// Rewrites the marked `add` of a mask to scaled scores, the scores' only use, as the
// mask (its hidden value divided by the scale) added to the scores, then scaled.
void addBeforeScale(dialect::AddOp add) {
  std::optional<Scaled> scores = asScaled(add.getLhs());
  auto mask = add.getRhs().getDefiningOp<dialect::SelectOp>();
  if (!scores || !add.getLhs().hasOneUse() || !mask || !hidingMask(mask)) return;
  const double hidden = *splatValue(mask.getIfFalse());
  OpBuilder b(add);
  const Location loc = add.getLoc();
  auto maskType = cast<dialect::TensorType>(mask.getType());
  Value scaledHidden =
      dialect::RegisterOp::create(b, loc, maskType, b.getFloatAttr(maskType.getElementType(), hidden / scores->c));
  Value unscaledMask = dialect::SelectOp::create(b, loc, maskType, mask.getCond(), mask.getIfTrue(), scaledHidden);
  auto masked = dialect::AddOp::create(b, loc, add.getType(), scores->x, unscaledMask);
  masked->setAttrs(add->getAttrs());
  Value scaled = dialect::MulOp::create(b, loc, add.getType(), masked, scores->scale);
  add.getResult().replaceAllUsesWith(scaled);
  add.erase();
  scores->product.erase();
  if (mask.use_empty()) mask.erase();
}

struct WaveScaleAfterMasksPass : impl::WaveScaleAfterMasksBase<WaveScaleAfterMasksPass> {
  void runOnOperation() override {
    SmallVector<dialect::AddOp> marked;
    getOperation().walk([&](dialect::AddOp add) {
      if (add->hasAttr("wave.hiding_mask")) marked.push_back(add);
    });
    // In order: the scale that one rewrite puts after its mask meets the next mask.
    for (dialect::AddOp add : marked) addBeforeScale(add);
  }
};

}  // namespace
}  // namespace wave::jit
