#include "lowering/NarrowIndexExpr.h"

#include "analysis/AffineBounds.h"
#include "lowering/ExprToArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace wave::jit {

using namespace mlir;

namespace {

constexpr int64_t kNarrowLimit = int64_t(1) << 30;

bool nonNegative(AffineExpr e, ArrayRef<int64_t> extents) {
  std::optional<std::pair<int64_t, int64_t>> range = rangeWithinBounds(e, extents);
  return range && range->first >= 0;
}

// Whether `v` is the same on every trip of `loop`: defined outside it, or by pure ops of
// values that are (LICM hoists those).
bool invariantIn(Value v, LoopLikeOpInterface loop, int depth = 16) {
  if (!loop || loop.isDefinedOutsideOfLoop(v)) return true;
  Operation* op = v.getDefiningOp();
  if (!op || depth == 0 || op->getNumRegions() != 0 || !isPure(op)) return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) { return invariantIn(operand, loop, depth - 1); });
}

class NarrowBuilder {
 public:
  NarrowBuilder(OpBuilder& b, Location loc, ValueRange variables, ArrayRef<int64_t> extents)
      : b_(b), loc_(loc), variables_(variables), extents_(extents), narrowed_(variables.size()) {
    Operation* parent = b.getInsertionBlock()->getParentOp();
    loop_ = dyn_cast_or_null<LoopLikeOpInterface>(parent);
    if (!loop_ && parent) loop_ = parent->getParentOfType<LoopLikeOpInterface>();
  }

  Value build(AffineExpr e) {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) return constant(c.getValue());
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      Value& narrow = narrowed_[d.getPosition()];
      if (!narrow) narrow = arith::IndexCastOp::create(b_, loc_, b_.getI32Type(), variables_[d.getPosition()]);
      return narrow;
    }
    if (e.getKind() == AffineExprKind::Add) return sum(e);
    auto binary = cast<AffineBinaryOpExpr>(e);
    Value l = build(binary.getLHS()), r = build(binary.getRHS());
    const bool unsignedLhs = nonNegative(binary.getLHS(), extents_);
    switch (e.getKind()) {
      case AffineExprKind::Mul: return arith::MulIOp::create(b_, loc_, l, r);
      case AffineExprKind::FloorDiv:
        return unsignedLhs ? arith::DivUIOp::create(b_, loc_, l, r).getResult()
                           : arith::FloorDivSIOp::create(b_, loc_, l, r).getResult();
      case AffineExprKind::CeilDiv:
        return unsignedLhs ? arith::CeilDivUIOp::create(b_, loc_, l, r).getResult()
                           : arith::CeilDivSIOp::create(b_, loc_, l, r).getResult();
      default:  // Mod, by a positive constant (the expression fits)
        return unsignedLhs ? arith::RemUIOp::create(b_, loc_, l, r).getResult() : buildFloorMod(b_, loc_, l, r);
    }
  }

 private:
  Value constant(int64_t c) { return arith::ConstantOp::create(b_, loc_, b_.getI32IntegerAttr(static_cast<int32_t>(c))); }

  // A sum's invariant terms first, then the others.
  Value sum(AffineExpr e) {
    SmallVector<Value> invariant, variant;
    for (AffineExpr t : additiveTerms(e)) {
      Value v = build(t);
      (invariantIn(v, loop_) ? invariant : variant).push_back(v);
    }
    Value total;
    for (Value v : llvm::concat<Value>(invariant, variant))
      total = total ? arith::AddIOp::create(b_, loc_, total, v).getResult() : v;
    return total;
  }

  OpBuilder& b_;
  Location loc_;
  ValueRange variables_;
  ArrayRef<int64_t> extents_;
  SmallVector<Value> narrowed_;
  LoopLikeOpInterface loop_;
};

}  // namespace

bool fitsNarrow(AffineExpr e, ArrayRef<int64_t> extents) {
  std::optional<std::pair<int64_t, int64_t>> range = rangeWithinBounds(e, extents);
  if (!range || range->first < -kNarrowLimit || range->second >= kNarrowLimit) return false;
  if (auto binary = dyn_cast<AffineBinaryOpExpr>(e))
    return fitsNarrow(binary.getLHS(), extents) && fitsNarrow(binary.getRHS(), extents);
  return true;
}

bool dividesOrWraps(AffineExpr e) {
  bool found = false;
  e.walk([&](AffineExpr sub) {
    const AffineExprKind kind = sub.getKind();
    found |= kind == AffineExprKind::FloorDiv || kind == AffineExprKind::CeilDiv || kind == AffineExprKind::Mod;
  });
  return found;
}

Value buildNarrowExpr(OpBuilder& b, Location loc, AffineExpr e, ValueRange variables, ArrayRef<int64_t> extents) {
  return NarrowBuilder(b, loc, variables, extents).build(e);
}

}  // namespace wave::jit
