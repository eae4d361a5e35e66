#include "import/ExprToAffine.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

namespace wave::jit {
namespace {

using mlir::AffineExpr;

class Converter {
 public:
  Converter(mlir::MLIRContext* ctx, unsigned numVariables) : ctx_(ctx), numVariables_(numVariables) {}

  // Symbols are numbered in first-use order; ExprAttr::get canonicalizes the order.
  mlir::FailureOr<AffineExpr> convert(const Expr& e) {
    switch (e.op()) {
      case ExprOp::Constant: return mlir::getAffineConstantExpr(e.value(), ctx_);
      case ExprOp::Variable:
        if (static_cast<unsigned>(e.index()) >= numVariables_) return fail("$" + std::to_string(e.index()) + " is not bound here");
        return mlir::getAffineDimExpr(e.index(), ctx_);
      case ExprOp::Symbol: {
        auto [it, fresh] = symbolIndex_.try_emplace(e.name(), symbols_.size());
        if (fresh) symbols_.push_back(mlir::StringAttr::get(ctx_, e.name()));
        return mlir::getAffineSymbolExpr(it->second, ctx_);
      }
      default: break;
    }
    if (e.op() == ExprOp::Min || e.op() == ExprOp::Max || is_comparison(e.op()))
      return fail("min, max and comparisons may appear only at the top of an expression, not in '" + e.str() + "'");
    auto lhs = convert(e.lhs());
    auto rhs = convert(e.rhs());
    if (failed(lhs) || failed(rhs)) return mlir::failure();
    switch (e.op()) {
      case ExprOp::Add: return *lhs + *rhs;
      case ExprOp::Sub: return *lhs - *rhs;
      case ExprOp::Mul: return *lhs * *rhs;
      case ExprOp::FloorDiv: return lhs->floorDiv(*rhs);
      case ExprOp::CeilDiv: return lhs->ceilDiv(*rhs);
      case ExprOp::Mod: return *lhs % *rhs;
      default: return fail("unexpected operator in '" + e.str() + "'");
    }
  }

  llvm::ArrayRef<mlir::StringAttr> symbols() const { return symbols_; }
  const std::string& error() const { return error_; }

 private:
  mlir::FailureOr<AffineExpr> fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return mlir::failure();
  }

  mlir::MLIRContext* ctx_;
  unsigned numVariables_;
  llvm::SmallVector<mlir::StringAttr> symbols_;
  llvm::StringMap<unsigned> symbolIndex_;
  std::string error_;
};

// Flattens nested min (or max) into its operand list: min(min(a, b), c) -> [a, b, c].
void collectOperands(const Expr& e, ExprOp op, llvm::SmallVectorImpl<const Expr*>& out) {
  if (e.op() == op) {
    collectOperands(e.lhs(), op, out);
    collectOperands(e.rhs(), op, out);
  } else {
    out.push_back(&e);
  }
}

dialect::ExprKind kindOf(ExprOp op) {
  switch (op) {
    case ExprOp::Min: return dialect::ExprKind::min;
    case ExprOp::Max: return dialect::ExprKind::max;
    case ExprOp::Lt: return dialect::ExprKind::lt;
    case ExprOp::Le: return dialect::ExprKind::le;
    case ExprOp::Gt: return dialect::ExprKind::gt;
    case ExprOp::Ge: return dialect::ExprKind::ge;
    case ExprOp::Eq: return dialect::ExprKind::eq;
    case ExprOp::Ne: return dialect::ExprKind::ne;
    default: return dialect::ExprKind::value;
  }
}

}  // namespace

mlir::FailureOr<dialect::ExprAttr> exprToAttr(mlir::MLIRContext* ctx, const Expr& expr,
                                        unsigned numVariables, std::string& error) {
  Converter converter(ctx, numVariables);
  llvm::SmallVector<const Expr*> operands;
  if (expr.op() == ExprOp::Min || expr.op() == ExprOp::Max) {
    collectOperands(expr, expr.op(), operands);
  } else if (is_comparison(expr.op())) {
    operands = {&expr.lhs(), &expr.rhs()};
  } else {
    operands = {&expr};
  }
  llvm::SmallVector<AffineExpr> results;
  for (const Expr* operand : operands) {
    auto result = converter.convert(*operand);
    if (failed(result)) {
      error = converter.error();
      return mlir::failure();
    }
    results.push_back(*result);
  }
  auto map = mlir::AffineMap::get(numVariables, converter.symbols().size(), results, ctx);
  return dialect::ExprAttr::get(ctx, converter.symbols(), map, kindOf(expr.op()));
}

}  // namespace wave::jit
