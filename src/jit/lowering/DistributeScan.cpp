//===- DistributeScan.cpp - prefix sums per thread ------------------------===//
//
// wave.cumsum through shared memory, in any layout: every thread stores its elements at
// their tile positions, then in step s = 1, 2, 4, .. each element adds the one s places
// before it along the dim (Hillis and Steele), log2(extent) steps of a load and a store
// (wave-insert-barriers puts the barriers between). Elements past the dim's end only
// reach positions past it, so no masking is needed; a thread holding an element another
// also holds computes and stores the same value.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/DistributedLayout.h"
#include "lowering/ExprToArith.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseSet.h"

namespace wave::jit::distribution {

LogicalResult Distributor::lowerCumsum(dialect::CumsumOp op) {
  StringRef dim = op.getDim();
  if (grid_.tiling(dim).loop)
    return op.emitOpError("is not yet supported: prefix sums along ")
           << dim << ", a dim a loop walks tile by tile (each tile would start its sums again)";
  if (failed(checkOneWorkgroupCovers(op, dim, "sums along"))) return failure();
  if (partials_.contains(op.getInput()))
    return op.emitOpError("is not yet supported: prefix sums of a wave's own partials (combine the waves first)");
  LayoutAttr layout = layoutOf(op.getInput());
  const int k = dimIndex(dimsOf(op.getInput()), dim);
  Type element = elementOf(op.getInput());
  Type work = accumulationType(element);
  if (work.getIntOrFloatBitWidth() < 32)
    return op.emitOpError("is not yet supported: prefix sums of ") << element << " (32- and 64-bit numbers, f16, bf16)";

  // Each step reads positions some other thread wrote: every position of the tile must be
  // held by some thread.
  SmallVector<int64_t> extent = layoutExtent(layout);
  {
    const LayoutPoints points(layout);
    const int64_t rank = extent.size();
    llvm::DenseSet<int64_t> held;
    for (int64_t w = 0; w < layout.getNumWaves(); ++w)
      for (int64_t l = 0; l < layout.getNumLanes(); ++l)
        for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
          const int64_t* p = points.data(r, l, w);
          int64_t key = 0;
          for (int64_t d = 0; d < rank; ++d) key = key * extent[d] + p[d];
          held.insert(key);
        }
    int64_t positions = 1;
    for (int64_t e : extent) positions *= e;
    if (static_cast<int64_t>(held.size()) != positions)
      return op.emitOpError("is not yet supported: prefix sums in a layout that leaves some of the tile's ")
             << positions << " positions to no thread (it holds " << held.size() << ")";
  }

  SmallVector<int64_t> shape(extent);
  // Rows one element longer spread a column's elements over the banks.
  if (shape.size() > 1) shape.back() += 1;
  Value buffer = sharedBuffer(shape, work);
  const int64_t registers = layout.getNumRegisters();
  SmallVector<SmallVector<AffineExpr>> positions;
  SmallVector<SmallVector<Value>> at;
  SmallVector<Value> sums;
  Value in = lookup(op.getInput());
  for (int64_t r = 0; r < registers; ++r) {
    positions.push_back(positionOfRegister(layout, r));
    at.push_back(positionInTile(layout, r));
    Value v = vector::ExtractOp::create(b_, loc_, in, ArrayRef<int64_t>{r});
    if (v.getType() != work) v = arith::ExtFOp::create(b_, loc_, work, v);
    sums.push_back(v);
  }
  Value zero = reductionIdentity(b_, loc_, ReductionKind::sum, work);
  for (int64_t step = 1; step < extent[k]; step *= 2) {
    for (int64_t r = 0; r < registers; ++r) memref::StoreOp::create(b_, loc_, sums[r], buffer, at[r]);
    for (int64_t r = 0; r < registers; ++r) {
      // The element `step` places before (wrapped into the tile where there is none).
      SmallVector<Value> before(at[r]);
      before[k] = threadIndex((positions[r][k] + (extent[k] - step)) % extent[k]);
      Value earlier = memref::LoadOp::create(b_, loc_, buffer, before);
      Value has = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sge, at[r][k], index(step));
      sums[r] = combine(b_, loc_, ReductionKind::sum, sums[r], arith::SelectOp::create(b_, loc_, has, earlier, zero));
    }
  }
  VectorType outType = registersOf(op.getResult());
  Value out = arith::ConstantOp::create(b_, loc_, outType, b_.getZeroAttr(outType));
  for (int64_t r = 0; r < registers; ++r) {
    Value v = sums[r].getType() == element ? sums[r] : arith::TruncFOp::create(b_, loc_, element, sums[r]);
    out = vector::InsertOp::create(b_, loc_, v, out, ArrayRef<int64_t>{r});
  }
  values_[op.getResult()] = out;
  return success();
}

}  // namespace wave::jit::distribution
