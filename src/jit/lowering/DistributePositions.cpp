//===- DistributePositions.cpp - comparisons of elements' positions -------===//
//
// A mask made of the elements' positions (`self_index`, broadcast, added and subtracted:
// a causal mask's `k - m <= 0`) holds in each register this thread's part of the sum
// plus a constant per register, as the MMA layouts place elements. Compared with an
// expression of the symbols, it is then the constant against one value per thread
// (the bound less this thread's part): no position computed per register. Computed per
// register, causal attention's 64 positions a tile were 64-bit adds and subtractions
// whose registers ptxas spilled (bench/RESULTS.md, runs 262-265).
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"
#include "lowering/ElementConversion.h"
#include "lowering/ExprToArith.h"
#include "lowering/KernelSignature.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit::distribution {

namespace {

// The dims whose positions `v` sums, each with its sign: a self_index, through
// broadcasts, permutes and layout conversions, or sums and differences of such values.
std::optional<SmallVector<std::pair<StringRef, int64_t>>> positionTerms(Value v) {
  Operation* def = v.getDefiningOp();
  if (!def) return std::nullopt;
  if (auto self = dyn_cast<dialect::SelfIndexOp>(def)) return SmallVector<std::pair<StringRef, int64_t>>{{self.getDim(), 1}};
  if (isa<dialect::BroadcastOp, dialect::PermuteOp, dialect::ConvertLayoutOp>(def))
    return positionTerms(def->getOperand(0));
  if (!isa<dialect::AddOp, dialect::SubOp>(def)) return std::nullopt;
  auto lhs = positionTerms(def->getOperand(0)), rhs = positionTerms(def->getOperand(1));
  if (!lhs || !rhs) return std::nullopt;
  const int64_t sign = isa<dialect::SubOp>(def) ? -1 : 1;
  for (auto [dim, s] : *rhs) lhs->push_back({dim, sign * s});
  return lhs;
}

}  // namespace

Value Distributor::comparePositions(dialect::ApplyExprOp a) {
  dialect::ExprAttr expr = a.getExpr();
  AffineMap map = expr.getMap();
  if (!expr.isComparison() || map.getNumDims() != 1 || map.getNumResults() != 2) return {};
  auto compared = dyn_cast<AffineDimExpr>(map.getResult(0));
  if (!compared || map.getResult(1).isFunctionOfDim(0) || !isa<IntegerType>(elementOf(a.getInput()))) return {};
  std::optional<SmallVector<std::pair<StringRef, int64_t>>> terms = positionTerms(a.getInput());
  if (!terms) return {};
  // Per register, the sum's position in the thread's part (lane d0, wave d1) and a constant.
  LayoutAttr layout = layoutOf(a.getInput());
  SmallVector<StringRef> dims = dimsOf(a.getInput());
  MLIRContext* ctx = b_.getContext();
  const AffineExpr zero = getAffineConstantExpr(0, ctx);
  AffineExpr threadPart;
  SmallVector<int64_t> constants;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    SmallVector<AffineExpr> position = positionOfRegister(layout, r);
    AffineExpr sum = zero;
    for (auto [dim, sign] : *terms) {
      const auto* k = llvm::find(dims, dim);
      if (k == dims.end()) return {};
      sum = sum + position[k - dims.begin()] * sign;
    }
    sum = simplifyAffineExpr(sum, 2, 0);
    auto constant = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(sum.replaceDims({zero, zero}), 2, 0));
    AffineExpr part = constant ? simplifyAffineExpr(sum - constant.getValue(), 2, 0) : AffineExpr();
    if (!part || (threadPart && part != threadPart)) return {};
    threadPart = part;
    constants.push_back(constant.getValue());
  }
  // The other side, an expression of the symbols, less this thread's part of the sum
  // (the tiles' offsets and the lanes' and waves' places).
  SmallVector<Value> symbols;
  SmallVector<AffineExpr> asDims;
  for (StringAttr s : expr.getSymbols()) {
    FailureOr<Value> size = dimSize(b_, kernel_, func_, s.getValue());
    if (failed(size)) return {};
    asDims.push_back(getAffineDimExpr(symbols.size(), ctx));
    symbols.push_back(*size);
  }
  Value room = arith::SubIOp::create(b_, loc_, apply(map.getResult(1).replaceSymbols(asDims), symbols),
                                     threadIndex(threadPart));
  for (auto [dim, sign] : *terms)
    if (Value offset = offsets_.lookup(dim))
      room = sign > 0 ? arith::SubIOp::create(b_, loc_, room, offset).getResult()
                      : arith::AddIOp::create(b_, loc_, room, offset).getResult();
  const arith::CmpIPredicate predicate = comparisonPredicate(expr.getKind());
  SmallVector<Value> holds;
  for (int64_t c : constants) holds.push_back(arith::CmpIOp::create(b_, loc_, predicate, index(c), room));
  Value mask = vector::FromElementsOp::create(
      b_, loc_, VectorType::get({static_cast<int64_t>(holds.size())}, b_.getI1Type()), holds);
  return convertElements(b_, loc_, mask, registersOf(a.getResult()));
}

}  // namespace wave::jit::distribution
