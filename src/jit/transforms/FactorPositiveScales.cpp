//===- FactorPositiveScales.cpp - max(a c, b c) as max(a, b) c ------------===//
//
// An extremum of two values scaled by one positive constant takes the scale out, so a
// reduction's max over scaled logits multiplies once, not once per element. Exact: see
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEFACTORPOSITIVESCALES
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// `value` as x * c for a finite constant c > 0: the multiply, which of its operands is x,
// and c. An element extracted from such a product of vectors counts too (its x is then
// the element of the vector's x, extracted when the rewrite happens).
struct Scaled {
  arith::MulFOp product;
  unsigned factor = 0;  // the operand that is x
  llvm::APFloat scale{0.0f};
  vector::ExtractOp element;  // set where `value` is an element of `product`
};

// A constant (scalar or splat) that is finite and > 0.
std::optional<llvm::APFloat> positiveConstant(Value v) {
  llvm::APFloat c(0.0f);
  if (matchPattern(v, m_ConstantFloat(&c)) && c.isFinite() && !c.isZero() && !c.isNegative()) return c;
  return std::nullopt;
}

std::optional<Scaled> asScaled(Value value) {
  Scaled s;
  Value product = value;
  if (auto element = value.getDefiningOp<vector::ExtractOp>()) {
    if (!element.getDynamicPosition().empty() || isa<VectorType>(value.getType())) return std::nullopt;
    s.element = element;
    product = element.getSource();
  }
  s.product = product.getDefiningOp<arith::MulFOp>();
  if (!s.product) return std::nullopt;
  for (unsigned i = 0; i < 2; ++i)
    if (auto c = positiveConstant(s.product->getOperand(1 - i))) {
      s.factor = i;
      s.scale = *c;
      return s;
    }
  return std::nullopt;
}

// Builds x of `s` (the element of the product's x where `s` is an element).
Value unscaled(PatternRewriter& rewriter, Location loc, Scaled s) {
  Value x = s.product->getOperand(s.factor);
  if (!s.element) return x;
  return vector::ExtractOp::create(rewriter, loc, x, s.element.getMixedPosition());
}

template <class Extremum>
struct FactorScaleOutOf : OpRewritePattern<Extremum> {
  using OpRewritePattern<Extremum>::OpRewritePattern;

  LogicalResult matchAndRewrite(Extremum op, PatternRewriter& rewriter) const override {
    std::optional<Scaled> lhs = asScaled(op.getLhs()), rhs = asScaled(op.getRhs());
    if (!lhs || !rhs || !lhs->scale.bitwiseIsEqual(rhs->scale)) return failure();
    const Location loc = op.getLoc();
    Value a = unscaled(rewriter, loc, *lhs), b = unscaled(rewriter, loc, *rhs);
    Value extremum = Extremum::create(rewriter, loc, a, b, op.getFastmathAttr());
    Type type = op.getType();
    TypedAttr scaleAttr = isa<VectorType>(type)
                              ? TypedAttr(DenseElementsAttr::get(cast<ShapedType>(type), lhs->scale))
                              : TypedAttr(rewriter.getFloatAttr(type, lhs->scale));
    Value scale = arith::ConstantOp::create(rewriter, loc, scaleAttr);
    const arith::FastMathFlags flags = lhs->product.getFastmath() & rhs->product.getFastmath();
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, extremum, scale, flags);
    return success();
  }
};

struct WaveFactorPositiveScalesPass : impl::WaveFactorPositiveScalesBase<WaveFactorPositiveScalesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FactorScaleOutOf<arith::MaximumFOp>, FactorScaleOutOf<arith::MinimumFOp>,
                 FactorScaleOutOf<arith::MaxNumFOp>, FactorScaleOutOf<arith::MinNumFOp>>(&getContext());
    // One walk in order: a reduction's inner steps are rewritten before the steps that
    // take their results, so the scale moves up the whole tree.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

}  // namespace
}  // namespace wave::jit
