#include "lowering/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace wave::jit {

using namespace mlir;

Value convertElements(OpBuilder& b, Location loc, Value v, VectorType to) {
  Type from = cast<VectorType>(v.getType()).getElementType(), dst = to.getElementType();
  if (from == dst) return v;
  const bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(dst);
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < dst.getIntOrFloatBitWidth()
               ? arith::ExtFOp::create(b, loc, to, v).getResult()
               : arith::TruncFOp::create(b, loc, to, v).getResult();
  if (fromFloat) return arith::FPToSIOp::create(b, loc, to, v);
  if (toFloat) return arith::SIToFPOp::create(b, loc, to, v);
  if (dst.isInteger(1)) {  // to i1: nonzero is true
    Value zero = arith::ConstantOp::create(b, loc, v.getType(), b.getZeroAttr(v.getType()));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  return from.getIntOrFloatBitWidth() < dst.getIntOrFloatBitWidth()
             ? arith::ExtSIOp::create(b, loc, to, v).getResult()
             : arith::TruncIOp::create(b, loc, to, v).getResult();
}

}  // namespace wave::jit
