#include "lowering/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

namespace wave::jit {

using namespace mlir;

Value convertElements(OpBuilder& b, Location loc, Value v, Type to) {
  Type from = getElementTypeOrSelf(v.getType()), dst = getElementTypeOrSelf(to);
  if (from == dst) return v;
  const bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(dst);
  auto zeroLike = [&](Value x) { return arith::ConstantOp::create(b, loc, x.getType(), b.getZeroAttr(x.getType())); };
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < dst.getIntOrFloatBitWidth()
               ? arith::ExtFOp::create(b, loc, to, v).getResult()
               : arith::TruncFOp::create(b, loc, to, v).getResult();
  // To i1: nonzero is true (NaN included).
  if (dst.isInteger(1))
    return fromFloat ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zeroLike(v)).getResult()
                     : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zeroLike(v)).getResult();
  if (fromFloat) return arith::FPToSIOp::create(b, loc, to, v);
  // From i1: true is 1, not the -1 a sign extension would give.
  const bool fromBool = from.isInteger(1);
  if (toFloat)
    return fromBool ? arith::UIToFPOp::create(b, loc, to, v).getResult() : arith::SIToFPOp::create(b, loc, to, v).getResult();
  if (from.getIntOrFloatBitWidth() < dst.getIntOrFloatBitWidth())
    return fromBool ? arith::ExtUIOp::create(b, loc, to, v).getResult() : arith::ExtSIOp::create(b, loc, to, v).getResult();
  return arith::TruncIOp::create(b, loc, to, v);
}

}  // namespace wave::jit
