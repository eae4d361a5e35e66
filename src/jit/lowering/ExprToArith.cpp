#include "lowering/ExprToArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

namespace wave::jit {

using namespace mlir;

arith::CmpIPredicate comparisonPredicate(dialect::ExprKind kind) {
  switch (kind) {
    case dialect::ExprKind::lt: return arith::CmpIPredicate::slt;
    case dialect::ExprKind::le: return arith::CmpIPredicate::sle;
    case dialect::ExprKind::gt: return arith::CmpIPredicate::sgt;
    case dialect::ExprKind::ge: return arith::CmpIPredicate::sge;
    case dialect::ExprKind::eq: return arith::CmpIPredicate::eq;
    default: return arith::CmpIPredicate::ne;
  }
}

Value buildFloorMod(OpBuilder& b, Location loc, Value l, Value r) {
  Value rem = arith::RemSIOp::create(b, loc, l, r);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(l.getType()));
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rem, zero);
  return arith::SelectOp::create(b, loc, negative, arith::AddIOp::create(b, loc, rem, r), rem);
}

Value buildExpr(OpBuilder& b, Location loc, dialect::ExprAttr expr, ValueRange variables, ValueRange symbols) {
  return buildExpr(b, loc, expr, variables.front().getType(), variables, symbols);
}

Value buildExpr(OpBuilder& b, Location loc, dialect::ExprAttr expr, Type type, ValueRange variables,
                ValueRange symbols) {
  auto constant = [&](int64_t c) -> Value {
    Type element = getElementTypeOrSelf(type);
    if (auto vec = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(b, loc, vec, DenseElementsAttr::get(vec, b.getIntegerAttr(element, c)));
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, c));
  };
  std::function<Value(AffineExpr)> build = [&](AffineExpr e) -> Value {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) return constant(c.getValue());
    if (auto d = dyn_cast<AffineDimExpr>(e)) return variables[d.getPosition()];
    if (auto s = dyn_cast<AffineSymbolExpr>(e)) return symbols[s.getPosition()];
    auto bin = cast<AffineBinaryOpExpr>(e);
    Value l = build(bin.getLHS()), r = build(bin.getRHS());
    switch (e.getKind()) {
      case AffineExprKind::Add: return arith::AddIOp::create(b, loc, l, r);
      case AffineExprKind::Mul: return arith::MulIOp::create(b, loc, l, r);
      case AffineExprKind::FloorDiv: return arith::FloorDivSIOp::create(b, loc, l, r);
      case AffineExprKind::CeilDiv: return arith::CeilDivSIOp::create(b, loc, l, r);
      default: return buildFloorMod(b, loc, l, r);
    }
  };
  SmallVector<Value> results;
  for (AffineExpr e : expr.getMap().getResults()) results.push_back(build(e));
  using dialect::ExprKind;
  switch (expr.getKind()) {
    case ExprKind::value: return results[0];
    case ExprKind::min:
    case ExprKind::max: {
      Value r = results[0];
      for (Value v : ArrayRef(results).drop_front())
        r = expr.getKind() == ExprKind::min ? arith::MinSIOp::create(b, loc, r, v).getResult()
                                            : arith::MaxSIOp::create(b, loc, r, v).getResult();
      return r;
    }
    default: {
      Value holds = arith::CmpIOp::create(b, loc, comparisonPredicate(expr.getKind()), results[0], results[1]);
      return arith::ExtUIOp::create(b, loc, type, holds).getResult();
    }
  }
}

}  // namespace wave::jit
