#include "lowering/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

namespace wave::jit {

using namespace mlir;

namespace {

// A constant of `type` (a scalar or a vector of it) holding `value` in every element.
Value splat(OpBuilder& b, Location loc, Type type, TypedAttr value) {
  if (auto vec = dyn_cast<VectorType>(type)) return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vec, value));
  return arith::ConstantOp::create(b, loc, value);
}

// Float to signed integer as PTX's cvt.rzi.sat converts: toward zero, saturated to the
// integer's range, NaN to 0. LLVM's fptosi is poison out of range, so the value is
// clamped into range first (f16 and bf16 by way of f32, which holds every bound).
Value floatToSaturatedInteger(OpBuilder& b, Location loc, Value v, Type to) {
  Type from = getElementTypeOrSelf(v.getType());
  if (from.getIntOrFloatBitWidth() < 32) {
    Type wide = b.getF32Type();
    if (auto vec = dyn_cast<VectorType>(v.getType())) wide = vec.clone(wide);
    v = arith::ExtFOp::create(b, loc, wide, v);
    from = b.getF32Type();
  }
  auto floatType = cast<FloatType>(from);
  auto intType = cast<IntegerType>(getElementTypeOrSelf(to));
  const unsigned bits = intType.getWidth();
  // -2^(bits-1) and 2^(bits-1) are powers of two: exact in f32 and f64.
  llvm::APFloat low = llvm::APFloat::getZero(floatType.getFloatSemantics());
  low.convertFromAPInt(llvm::APInt::getSignedMinValue(bits), /*isSigned=*/true, llvm::APFloat::rmTowardZero);
  llvm::APFloat limit = low;
  limit.changeSign();
  llvm::APFloat below = limit;
  below.next(/*nextDown=*/true);
  Value clamped = arith::MinimumFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, v, splat(b, loc, v.getType(), b.getFloatAttr(floatType, low))),
      splat(b, loc, v.getType(), b.getFloatAttr(floatType, below)));
  Value converted = arith::FPToSIOp::create(b, loc, to, clamped);
  Value atLimit = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v,
                                        splat(b, loc, v.getType(), b.getFloatAttr(floatType, limit)));
  converted = arith::SelectOp::create(
      b, loc, atLimit, splat(b, loc, to, b.getIntegerAttr(intType, llvm::APInt::getSignedMaxValue(bits))), converted);
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  return arith::SelectOp::create(b, loc, isNan, splat(b, loc, to, b.getIntegerAttr(intType, 0)), converted);
}

}  // namespace

bool isF8(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type)) type = memref.getElementType();
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(type));
}

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
  if (fromFloat) return floatToSaturatedInteger(b, loc, v, to);
  // From i1: true is 1, not the -1 a sign extension would give.
  const bool fromBool = from.isInteger(1);
  if (toFloat)
    return fromBool ? arith::UIToFPOp::create(b, loc, to, v).getResult() : arith::SIToFPOp::create(b, loc, to, v).getResult();
  if (from.getIntOrFloatBitWidth() < dst.getIntOrFloatBitWidth())
    return fromBool ? arith::ExtUIOp::create(b, loc, to, v).getResult() : arith::ExtSIOp::create(b, loc, to, v).getResult();
  return arith::TruncIOp::create(b, loc, to, v);
}

}  // namespace wave::jit
