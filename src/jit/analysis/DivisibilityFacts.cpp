#include "analysis/DivisibilityFacts.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"

namespace wave::jit {

using namespace mlir;

namespace {

// The constant c where `e` is `symbol mod c`.
std::optional<int64_t> moduloOf(AffineExpr e, unsigned symbol) {
  auto mod = dyn_cast<AffineBinaryOpExpr>(e);
  if (!mod || mod.getKind() != AffineExprKind::Mod) return std::nullopt;
  auto lhs = dyn_cast<AffineSymbolExpr>(mod.getLHS());
  auto rhs = dyn_cast<AffineConstantExpr>(mod.getRHS());
  if (!lhs || !rhs || lhs.getPosition() != symbol) return std::nullopt;
  return rhs.getValue();
}

bool isZero(AffineExpr e) {
  auto c = dyn_cast<AffineConstantExpr>(e);
  return c && c.getValue() == 0;
}

}  // namespace

bool isKnownMultiple(func::FuncOp kernel, StringRef dim, int64_t factor) {
  auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters");
  if (auto size = hyper ? hyper.getAs<IntegerAttr>(dim) : IntegerAttr()) return size.getInt() % factor == 0;
  auto constraints = kernel->getAttrOfType<ArrayAttr>("wave.constraints");
  if (!constraints) return false;
  for (Attribute c : constraints) {
    auto assumption = dyn_cast<dialect::AssumptionAttr>(c);
    if (!assumption || assumption.getPredicate().getKind() != dialect::ExprKind::eq) continue;
    dialect::ExprAttr predicate = assumption.getPredicate();
    // The hyperparameters' values in place of their symbols.
    std::optional<unsigned> dimSymbol;
    SmallVector<AffineExpr> values;
    for (auto [i, symbol] : llvm::enumerate(predicate.getSymbols())) {
      if (symbol.getValue() == dim) dimSymbol = i;
      auto value = hyper ? hyper.getAs<IntegerAttr>(symbol) : IntegerAttr();
      values.push_back(value ? getAffineConstantExpr(value.getInt(), kernel.getContext())
                             : getAffineSymbolExpr(i, kernel.getContext()));
    }
    if (!dimSymbol) continue;
    AffineMap map = predicate.getMap();
    AffineMap known = simplifyAffineMap(map.replaceDimsAndSymbols({}, values, map.getNumDims(), map.getNumSymbols()));
    AffineExpr lhs = known.getResult(0), rhs = known.getResult(1);
    if (!isZero(rhs)) std::swap(lhs, rhs);
    if (!isZero(rhs)) continue;
    if (auto modulus = moduloOf(lhs, *dimSymbol); modulus && *modulus > 0 && *modulus % factor == 0) return true;
  }
  return false;
}

}  // namespace wave::jit
