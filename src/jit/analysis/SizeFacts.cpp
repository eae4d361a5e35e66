#include "analysis/SizeFacts.h"

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

// A kernel's assumptions about `dim`, with the hyperparameters' values in place of their
// symbols: the comparison's kind, its two sides, and the symbol position of `dim`.
struct Fact {
  dialect::ExprKind kind;
  AffineExpr lhs, rhs;
  unsigned dimSymbol;
};

SmallVector<Fact> factsAbout(func::FuncOp kernel, StringRef dim) {
  SmallVector<Fact> facts;
  auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters");
  auto constraints = kernel->getAttrOfType<ArrayAttr>("wave.constraints");
  for (Attribute c : constraints ? constraints.getValue() : ArrayRef<Attribute>()) {
    auto assumption = dyn_cast<dialect::AssumptionAttr>(c);
    if (!assumption) continue;
    dialect::ExprAttr predicate = assumption.getPredicate();
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
    facts.push_back({predicate.getKind(), known.getResult(0), known.getResult(1), *dimSymbol});
  }
  return facts;
}

std::optional<int64_t> staticValue(func::FuncOp kernel, StringRef dim) {
  auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters");
  if (auto size = hyper ? hyper.getAs<IntegerAttr>(dim) : IntegerAttr()) return size.getInt();
  return std::nullopt;
}

bool isDim(AffineExpr e, unsigned symbol) {
  auto s = dyn_cast<AffineSymbolExpr>(e);
  return s && s.getPosition() == symbol;
}

std::optional<int64_t> constantOf(AffineExpr e) {
  if (auto c = dyn_cast<AffineConstantExpr>(e)) return c.getValue();
  return std::nullopt;
}

}  // namespace

bool isSetAtRunTime(func::FuncOp kernel, StringRef dim) {
  if (kernel.isExternal()) return false;
  return llvm::any_of(kernel.getBody().front().getOps<dialect::SetSymbolOp>(),
                      [&](dialect::SetSymbolOp set) { return set.getDim() == dim; });
}

bool isKnownMultiple(func::FuncOp kernel, StringRef dim, int64_t factor) {
  if (factor != 1 && isSetAtRunTime(kernel, dim)) return false;
  if (auto size = staticValue(kernel, dim)) return *size % factor == 0;
  for (Fact f : factsAbout(kernel, dim)) {
    if (f.kind != dialect::ExprKind::eq) continue;
    if (!isZero(f.rhs)) std::swap(f.lhs, f.rhs);
    if (!isZero(f.rhs)) continue;
    if (auto modulus = moduloOf(f.lhs, f.dimSymbol); modulus && *modulus > 0 && *modulus % factor == 0) return true;
  }
  return false;
}

bool isKnownAtMost(func::FuncOp kernel, StringRef dim, int64_t bound) {
  if (auto size = staticValue(kernel, dim)) return *size <= bound;
  using dialect::ExprKind;
  for (Fact f : factsAbout(kernel, dim)) {
    // As `dim <= c` or `dim < c`.
    ExprKind kind = f.kind;
    if (isDim(f.rhs, f.dimSymbol)) {
      std::swap(f.lhs, f.rhs);
      kind = kind == ExprKind::ge ? ExprKind::le : kind == ExprKind::gt ? ExprKind::lt : ExprKind::value;
    }
    auto c = constantOf(f.rhs);
    if (!isDim(f.lhs, f.dimSymbol) || !c) continue;
    if ((kind == ExprKind::le && *c <= bound) || (kind == ExprKind::lt && *c - 1 <= bound)) return true;
  }
  return false;
}

}  // namespace wave::jit
