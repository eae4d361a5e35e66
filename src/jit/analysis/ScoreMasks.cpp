#include "analysis/ScoreMasks.h"

#include "dialect/WaveOps.h"

#include "mlir/IR/AffineMap.h"

namespace wave::jit {

using namespace mlir;

Value throughBroadcasts(Value v) {
  while (auto b = v.getDefiningOp<dialect::BroadcastOp>()) v = b.getInput();
  return v;
}

std::optional<double> splatValue(Value v) {
  auto reg = throughBroadcasts(v).getDefiningOp<dialect::RegisterOp>();
  if (!reg) return std::nullopt;
  auto value = dyn_cast<FloatAttr>(reg.getValue());
  return value ? std::optional(value.getValueAsDouble()) : std::nullopt;
}

namespace {

std::optional<StringRef> selfIndexDim(Value v) {
  auto index = throughBroadcasts(v).getDefiningOp<dialect::SelfIndexOp>();
  return index ? std::optional(index.getDim()) : std::nullopt;
}

// The comparison `visible` computes: an apply_expr of one operand, through a cast to i1
// and broadcasts.
dialect::ApplyExprOp comparisonOf(Value visible) {
  if (auto toBool = visible.getDefiningOp<dialect::CastOp>()) visible = toBool.getInput();
  auto compare = throughBroadcasts(visible).getDefiningOp<dialect::ApplyExprOp>();
  if (!compare || compare->getNumOperands() != 1 || !compare.getExpr().isComparison()) return {};
  return compare;
}

}  // namespace

std::optional<HidingMask> hidingMask(Value mask) {
  auto select = mask.getDefiningOp<dialect::SelectOp>();
  if (!select) return std::nullopt;
  auto visible = splatValue(select.getIfTrue()), hidden = splatValue(select.getIfFalse());
  if (!visible || *visible != 0.0 || !hidden || *hidden > kHidingMask) return std::nullopt;
  return HidingMask{select.getCond()};
}

std::optional<CausalMask> causalCondition(Value visible, StringRef loopDim, DictionaryAttr hyperparameters) {
  dialect::ApplyExprOp compare = comparisonOf(visible);
  if (!compare) return std::nullopt;
  dialect::ExprAttr expr = compare.getExpr();
  // The bound, with the hyperparameters' values in place of its symbols.
  SmallVector<AffineExpr> values;
  for (StringAttr symbol : expr.getSymbols()) {
    auto value = hyperparameters ? hyperparameters.getAs<IntegerAttr>(symbol) : IntegerAttr();
    if (!value) return std::nullopt;
    values.push_back(getAffineConstantExpr(value.getInt(), compare.getContext()));
  }
  AffineMap map = expr.getMap();
  map = simplifyAffineMap(map.replaceDimsAndSymbols({}, values, map.getNumDims(), map.getNumSymbols()));
  auto lhs = dyn_cast<AffineDimExpr>(map.getResult(0));
  auto rhs = dyn_cast<AffineConstantExpr>(map.getResult(1));
  if (!lhs || lhs.getPosition() != 0 || !rhs) return std::nullopt;
  auto difference = throughBroadcasts(compare->getOperand(0)).getDefiningOp<dialect::SubOp>();
  if (!difference) return std::nullopt;
  std::optional<StringRef> first = selfIndexDim(difference.getLhs()), second = selfIndexDim(difference.getRhs());
  if (!first || !second || *first == *second) return std::nullopt;
  // Normalized to `loopDim - rowDim <= slack`.
  using dialect::ExprKind;
  const int64_t bound = rhs.getValue();
  std::optional<int64_t> slack;
  if (*first == loopDim) {  // k - m <= c, k - m < c
    if (expr.getKind() == ExprKind::le) slack = bound;
    if (expr.getKind() == ExprKind::lt) slack = bound - 1;
    if (slack) return *slack < 0 ? std::nullopt : std::optional(CausalMask{*second, *slack});
  } else if (*second == loopDim) {  // m - k >= c, m - k > c
    if (expr.getKind() == ExprKind::ge) slack = -bound;
    if (expr.getKind() == ExprKind::gt) slack = -bound - 1;
    if (slack) return *slack < 0 ? std::nullopt : std::optional(CausalMask{*first, *slack});
  }
  return std::nullopt;
}

std::optional<CausalMask> causalMask(Value mask, StringRef loopDim, DictionaryAttr hyperparameters) {
  std::optional<HidingMask> hiding = hidingMask(mask);
  return hiding ? causalCondition(hiding->visible, loopDim, hyperparameters) : std::nullopt;
}

bool boundsMask(Value mask, StringRef loopDim) {
  std::optional<HidingMask> hiding = hidingMask(mask);
  dialect::ApplyExprOp compare = hiding ? comparisonOf(hiding->visible) : dialect::ApplyExprOp();
  if (!compare || selfIndexDim(compare->getOperand(0)) != loopDim) return false;
  dialect::ExprAttr expr = compare.getExpr();
  // `$0 < D`: the map's results are (d0, s_D), the symbol named loopDim.
  if (expr.getKind() != dialect::ExprKind::lt) return false;
  auto lhs = dyn_cast<AffineDimExpr>(expr.getMap().getResult(0));
  auto rhs = dyn_cast<AffineSymbolExpr>(expr.getMap().getResult(1));
  return lhs && lhs.getPosition() == 0 && rhs && expr.getSymbols()[rhs.getPosition()].getValue() == loopDim;
}

}  // namespace wave::jit
