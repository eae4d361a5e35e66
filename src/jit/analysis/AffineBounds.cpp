#include "analysis/AffineBounds.h"

#include "llvm/Support/MathExtras.h"


namespace wave::jit {

using namespace mlir;

namespace {

struct Range {
  int64_t lo, hi;
};

struct Bounded {
  AffineExpr expr;
  std::optional<Range> range;  // none: unbounded
};

class BoundsSimplifier {
 public:
  explicit BoundsSimplifier(ArrayRef<int64_t> extents) : extents_(extents) {}

  Bounded visit(AffineExpr e) {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) return {e, Range{c.getValue(), c.getValue()}};
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (d.getPosition() < extents_.size() && extents_[d.getPosition()] > 0)
        return {e, Range{0, extents_[d.getPosition()] - 1}};
      return {e, std::nullopt};
    }
    auto binary = dyn_cast<AffineBinaryOpExpr>(e);
    if (!binary) return {e, std::nullopt};
    Bounded l = visit(binary.getLHS()), r = visit(binary.getRHS());
    std::optional<int64_t> c;
    if (auto constant = dyn_cast<AffineConstantExpr>(r.expr)) c = constant.getValue();
    switch (e.getKind()) {
      case AffineExprKind::Add:
        return {l.expr + r.expr, l.range && r.range ? std::optional(Range{l.range->lo + r.range->lo,
                                                                          l.range->hi + r.range->hi})
                                                    : std::nullopt};
      case AffineExprKind::Mul:
        if (!c || !l.range) return {l.expr * r.expr, std::nullopt};
        return {l.expr * *c, *c >= 0 ? Range{l.range->lo * *c, l.range->hi * *c}
                                     : Range{l.range->hi * *c, l.range->lo * *c}};
      case AffineExprKind::FloorDiv: {
        if (!c || *c <= 0 || !l.range) return {l.expr.floorDiv(r.expr), std::nullopt};
        const int64_t lo = llvm::divideFloorSigned(l.range->lo, *c), hi = llvm::divideFloorSigned(l.range->hi, *c);
        if (lo == hi) return {getAffineConstantExpr(lo, e.getContext()), Range{lo, lo}};
        return {l.expr.floorDiv(*c), Range{lo, hi}};
      }
      case AffineExprKind::CeilDiv: {
        if (!c || *c <= 0 || !l.range) return {l.expr.ceilDiv(r.expr), std::nullopt};
        const int64_t lo = llvm::divideCeilSigned(l.range->lo, *c), hi = llvm::divideCeilSigned(l.range->hi, *c);
        if (lo == hi) return {getAffineConstantExpr(lo, e.getContext()), Range{lo, lo}};
        return {l.expr.ceilDiv(*c), Range{lo, hi}};
      }
      case AffineExprKind::Mod: {
        if (!c || *c <= 0) return {l.expr % r.expr, std::nullopt};
        if (l.range) {
          const int64_t block = llvm::divideFloorSigned(l.range->lo, *c);
          if (block == llvm::divideFloorSigned(l.range->hi, *c))
            return {l.expr - block * *c, Range{l.range->lo - block * *c, l.range->hi - block * *c}};
        }
        return {l.expr % *c, Range{0, *c - 1}};
      }
      default:
        return {e, std::nullopt};
    }
  }

 private:
  ArrayRef<int64_t> extents_;
};

}  // namespace

AffineExpr simplifyWithinBounds(AffineExpr e, ArrayRef<int64_t> extents) {
  return BoundsSimplifier(extents).visit(e).expr;
}

std::optional<std::pair<int64_t, int64_t>> rangeWithinBounds(AffineExpr e, ArrayRef<int64_t> extents) {
  std::optional<Range> range = BoundsSimplifier(extents).visit(e).range;
  if (!range) return std::nullopt;
  return std::pair{range->lo, range->hi};
}

SmallVector<AffineExpr> additiveTerms(AffineExpr e) {
  SmallVector<AffineExpr> out, work{e};
  while (!work.empty()) {
    AffineExpr t = work.pop_back_val();
    if (t.getKind() == AffineExprKind::Add) {
      auto add = cast<AffineBinaryOpExpr>(t);
      work.append({add.getLHS(), add.getRHS()});
    } else {
      out.push_back(t);
    }
  }
  return out;
}

}  // namespace wave::jit
