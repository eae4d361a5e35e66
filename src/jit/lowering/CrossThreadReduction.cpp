#include "lowering/CrossThreadReduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit {

using namespace mlir;

Type accumulationType(Type element) {
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32) return Float32Type::get(element.getContext());
  return element;
}

Value reductionIdentity(OpBuilder& b, Location loc, ReductionKind kind, Type type) {
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics& semantics = f.getFloatSemantics();
    llvm::APFloat value = kind == ReductionKind::sum ? llvm::APFloat::getZero(semantics)
                                                     : llvm::APFloat::getInf(semantics, kind == ReductionKind::max);
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
  }
  const unsigned bits = type.getIntOrFloatBitWidth();
  llvm::APInt value = kind == ReductionKind::max   ? llvm::APInt::getSignedMinValue(bits)
                      : kind == ReductionKind::min ? llvm::APInt::getSignedMaxValue(bits)
                                                   : llvm::APInt(bits, 0);
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}

Value combine(OpBuilder& b, Location loc, ReductionKind kind, Value a, Value c) {
  const bool isFloat = isa<FloatType>(getElementTypeOrSelf(a.getType()));
  if (kind == ReductionKind::max)
    return isFloat ? arith::MaximumFOp::create(b, loc, a, c).getResult() : arith::MaxSIOp::create(b, loc, a, c).getResult();
  if (kind == ReductionKind::min)
    return isFloat ? arith::MinimumFOp::create(b, loc, a, c).getResult() : arith::MinSIOp::create(b, loc, a, c).getResult();
  return isFloat ? arith::AddFOp::create(b, loc, a, c).getResult() : arith::AddIOp::create(b, loc, a, c).getResult();
}

Value combineTree(OpBuilder& b, Location loc, ReductionKind kind, ArrayRef<Value> values) {
  SmallVector<Value> level(values);
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(combine(b, loc, kind, level[i], level[i + 1]));
    if (level.size() % 2) next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
}

Value reduceElements(OpBuilder& b, Location loc, ReductionKind kind, Value vector) {
  const bool isFloat = isa<FloatType>(cast<VectorType>(vector.getType()).getElementType());
  vector::CombiningKind combining = vector::CombiningKind::ADD;
  if (kind == ReductionKind::max) combining = isFloat ? vector::CombiningKind::MAXIMUMF : vector::CombiningKind::MAXSI;
  if (kind == ReductionKind::min) combining = isFloat ? vector::CombiningKind::MINIMUMF : vector::CombiningKind::MINSI;
  return vector::ReductionOp::create(b, loc, combining, vector);
}

Value reduceAcrossLanes(OpBuilder& b, Location loc, ReductionKind kind, Value scalar, int64_t lanes,
                        int64_t waveSize) {
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), waveSize);
  for (int64_t offset = 1; offset < lanes; offset *= 2) {
    Value by = arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
    Value other = gpu::ShuffleOp::create(b, loc, scalar, by, width, gpu::ShuffleMode::XOR).getShuffleResult();
    scalar = combine(b, loc, kind, scalar, other);
  }
  return scalar;
}

}  // namespace wave::jit
