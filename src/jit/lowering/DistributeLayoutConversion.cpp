//===- DistributeLayoutConversion.cpp - wave.convert_layout per thread ---===//
//
// Nothing, a register permutation (a gather of the registers that hold each element), or
// a round trip through shared memory.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/DistributedLayout.h"
#include "analysis/ThreadLayout.h"
#include "lowering/ExprToArith.h"
#include "lowering/KernelSignature.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SmallBitVector.h"

namespace wave::jit::distribution {

LogicalResult Distributor::lowerConvert(dialect::ConvertLayoutOp op) {
  LayoutAttr from = layoutOf(op.getInput()), to = layoutOf(op.getResult());
  SmallVector<StringRef> dims = dimsOf(op.getInput());
  if (Value g = gather(lookup(op.getInput()), from, to, dims, dims)) {
    values_[op.getResult()] = g;
    return success();
  }
  if (partials_.contains(op.getInput()))
    return op.emitOpError("is not yet supported: moving a wave's own partials between threads (layouts ")
           << from << " to " << to << ")";
  // Through shared memory: every thread stores its elements at their tile positions, then
  // loads the ones the new layout gives it (wave-insert-barriers puts a barrier between).
  SmallVector<int64_t> extent = layoutExtent(from), other = layoutExtent(to);
  SmallVector<int64_t> shape;
  for (auto [a, c] : llvm::zip(extent, other)) shape.push_back(std::max(a, c));
  // Rows one element longer spread a column's elements over the banks.
  if (shape.size() > 1) shape.back() += 1;
  Value buffer = sharedBuffer(shape, elementOf(op.getInput()));
  auto position = [&](LayoutAttr layout, int64_t reg) {
    SmallVector<Value> p;
    for (AffineExpr e : positionOfRegister(layout, reg)) p.push_back(threadIndex(e));
    return p;
  };
  Value in = lookup(op.getInput());
  for (int64_t r = 0; r < from.getNumRegisters(); ++r)
    memref::StoreOp::create(b_, loc_, vector::ExtractOp::create(b_, loc_, in, ArrayRef<int64_t>{r}), buffer,
                            position(from, r));
  VectorType outType = registersOf(op.getResult());
  Value out = arith::ConstantOp::create(b_, loc_, outType, b_.getZeroAttr(outType));
  for (int64_t r = 0; r < to.getNumRegisters(); ++r)
    out = vector::InsertOp::create(b_, loc_, memref::LoadOp::create(b_, loc_, buffer, position(to, r)), out,
                                   ArrayRef<int64_t>{r});
  values_[op.getResult()] = out;
  return success();
}

// Each register of `toLayout` (over `toDims`) from the register of `fromLayout` (over
// `fromDims`, a subset) holding its element with the other dims dropped, the same in
// every thread. Null when some thread does not hold it.
Value Distributor::gather(Value from, LayoutAttr fromLayout, LayoutAttr toLayout, ArrayRef<StringRef> fromDims,
                          ArrayRef<StringRef> toDims) {
  auto project = [&](ArrayRef<int64_t> p) {
    SmallVector<int64_t> q;
    for (StringRef d : fromDims) q.push_back(p[dimIndex(toDims, d)]);
    return q;
  };
  if (fromLayout.getNumLanes() != toLayout.getNumLanes() || fromLayout.getNumWaves() != toLayout.getNumWaves())
    return {};
  const LayoutPoints fromPoints(fromLayout), toPoints(toLayout);
  SmallVector<int64_t> source(toLayout.getNumRegisters(), -1);
  for (int64_t r = 0; r < toLayout.getNumRegisters(); ++r) {
    SmallVector<int64_t> want = project(toPoints.at(r, 0, 0));
    for (int64_t s = 0; s < fromLayout.getNumRegisters() && source[r] < 0; ++s)
      if (fromPoints.at(s, 0, 0) == want) source[r] = s;
    if (source[r] < 0) return {};
  }
  for (int64_t w = 0; w < toLayout.getNumWaves(); ++w)
    for (int64_t l = 0; l < toLayout.getNumLanes(); ++l)
      for (int64_t r = 0; r < toLayout.getNumRegisters(); ++r)
        if (project(toPoints.at(r, l, w)) != fromPoints.at(source[r], l, w)) return {};
  bool identity = fromLayout.getNumRegisters() == toLayout.getNumRegisters();
  for (int64_t r = 0; r < static_cast<int64_t>(source.size()); ++r) identity &= source[r] == r;
  if (identity) return from;
  return vector::ShuffleOp::create(b_, loc_, from, from, source);
}

}  // namespace wave::jit::distribution
