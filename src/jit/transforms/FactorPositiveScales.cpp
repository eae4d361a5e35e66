//===- FactorPositiveScales.cpp - max(a c, b c) as max(a, b) c ------------===//
//
// An extremum of two values scaled by one positive constant takes the scale out, so a
// reduction's max over scaled logits multiplies once, not once per element. Exact: see
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

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

// The products whose scale a rewrite took out (their other users keep them).
using Products = llvm::SetVector<Operation*>;

template <class Extremum>
struct FactorScaleOutOf : OpRewritePattern<Extremum> {
  FactorScaleOutOf(MLIRContext* ctx, Products& products) : OpRewritePattern<Extremum>(ctx), products_(products) {}

  LogicalResult matchAndRewrite(Extremum op, PatternRewriter& rewriter) const override {
    std::optional<Scaled> lhs = asScaled(op.getLhs()), rhs = asScaled(op.getRhs());
    if (!lhs || !rhs || !lhs->scale.bitwiseIsEqual(rhs->scale)) return failure();
    const Location loc = op.getLoc();
    Value a = unscaled(rewriter, loc, *lhs), b = unscaled(rewriter, loc, *rhs);
    Value extremum = Extremum::create(rewriter, loc, a, b, op.getFastmathAttr());
    Value scale = createScalarOrSplatConstant(rewriter, loc, op.getType(), lhs->scale);
    const arith::FastMathFlags flags = lhs->product.getFastmath() & rhs->product.getFastmath();
    products_.insert(lhs->product);
    products_.insert(rhs->product);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, extremum, scale, flags);
    return success();
  }

  Products& products_;
};

// select(p, x c, k) as select(p, x, k / c) c, where k is a constant that c divides
// exactly back (0 or an infinity: a reduction's identity, as the fill of elements past a
// dim's end), or select(p, x c, y c) as select(p, x, y) c: a masked element of a scaled
// vector stays scaled for the extremum above it to take the scale out.
struct FactorScaleOutOfSelect : OpRewritePattern<arith::SelectOp> {
  FactorScaleOutOfSelect(MLIRContext* ctx, Products& products) : OpRewritePattern(ctx), products_(products) {}

  LogicalResult matchAndRewrite(arith::SelectOp op, PatternRewriter& rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(getElementTypeOrSelf(type))) return failure();
    std::optional<Scaled> a = asScaled(op.getTrueValue()), b = asScaled(op.getFalseValue());
    if (!a && !b) return failure();
    const llvm::APFloat scale = (a ? *a : *b).scale;
    // Each operand either scaled by the same constant or a fill that the scale leaves
    // as it is (0 / c and inf / c are 0 and inf again, signs kept).
    auto fits = [&](Value operand, const std::optional<Scaled>& s) {
      if (s) return s->scale.bitwiseIsEqual(scale);
      llvm::APFloat k(0.0f);
      return matchPattern(operand, m_ConstantFloat(&k)) && (k.isZero() || k.isInfinity());
    };
    if (!fits(op.getTrueValue(), a) || !fits(op.getFalseValue(), b)) return failure();
    const Location loc = op.getLoc();
    auto unscaledOrFill = [&](Value operand, const std::optional<Scaled>& s) {
      if (!s) return operand;
      products_.insert(s->product);
      return unscaled(rewriter, loc, *s);
    };
    Value x = unscaledOrFill(op.getTrueValue(), a), y = unscaledOrFill(op.getFalseValue(), b);
    Value picked = arith::SelectOp::create(rewriter, loc, op.getCondition(), x, y);
    const arith::FastMathFlags flags = a && b ? a->product.getFastmath() & b->product.getFastmath()
                                              : (a ? *a : *b).product.getFastmath();
    Value scaleConstant = createScalarOrSplatConstant(rewriter, loc, type, scale);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, picked, scaleConstant, flags);
    return success();
  }

  Products& products_;
};

// A product whose scale the extrema took out is left to its other users, such as the
// exponent's subtraction: moved next to the first of them where all are in its block, so
// that LLVM, which contracts a multiply and an add only within a block, still makes them
// one fma where a branch (a partial tile's masked reduction) lies between.
void sinkToFirstUser(Operation* product) {
  for (Operation* user : llvm::make_early_inc_range(product->getUsers()))
    if (isa<vector::ExtractOp>(user) && user->use_empty()) user->erase();  // the extrema's old operands
  Operation* first = nullptr;
  for (Operation* user : product->getUsers()) {
    if (user->getBlock() != product->getBlock()) return;
    if (!first || user->isBeforeInBlock(first)) first = user;
  }
  if (first) product->moveBefore(first);
}

struct WaveFactorPositiveScalesPass : impl::WaveFactorPositiveScalesBase<WaveFactorPositiveScalesPass> {
  void runOnOperation() override {
    Products products;
    RewritePatternSet patterns(&getContext());
    patterns.add<FactorScaleOutOf<arith::MaximumFOp>, FactorScaleOutOf<arith::MinimumFOp>,
                 FactorScaleOutOf<arith::MaxNumFOp>, FactorScaleOutOf<arith::MinNumFOp>, FactorScaleOutOfSelect>(
        &getContext(), products);
    // One walk in order: a reduction's inner steps are rewritten before the steps that
    // take their results, so the scale moves up the whole tree.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    for (Operation* product : products) sinkToFirstUser(product);
  }
};

}  // namespace
}  // namespace wave::jit
