//===- DistributePrint.cpp - wave.print per thread -----------------------===//
//
// Each register's element printed by the one thread that owns it (lanes replicating an
// element print it once), with its indices, in the format the interpreter shares.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/DistributedLayout.h"
#include "analysis/ThreadLayout.h"
#include "lowering/MMAInstructions.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "wave/print_format.hpp"

namespace wave::jit::distribution {

// One gpu.printf per register, in the thread that holds its element first (replicas stay
// quiet), guarded by the element being inside the tensor, its row-major position being
// below the limit and the mask.
LogicalResult Distributor::lowerPrint(dialect::PrintOp op) {
  LayoutAttr layout = layoutOf(op.getValue());
  if (layout.getNumLanes() != grid_.waves.lanes)
    return op.emitOpError("is not yet supported for a value whose layout spreads over ")
           << layout.getNumLanes() << " lanes (a wave has " << grid_.waves.lanes << ")";
  auto holders = firstHolders(layout);
  if (failed(holders))
    return op.emitOpError("is not yet supported for a value whose layout replicates elements irregularly: ")
           << layout;
  SmallVector<StringRef> dims = dimsOf(op.getValue());
  Type element = elementOf(op.getValue());
  const std::string format =
      print_format(op.getLabel().str(), std::vector<std::string>(dims.begin(), dims.end()), isa<FloatType>(element));
  Value values = lookup(op.getValue()), mask = op.getMask() ? lookup(op.getMask()) : Value();
  Value tid = arith::AddIOp::create(b_, loc_, arith::MulIOp::create(b_, loc_, wave_, index(grid_.waves.lanes)), lane_);
  const int64_t layoutThreads = layout.getNumLanes() * layout.getNumWaves();
  // Row-major strides over the whole tensor, for the limit.
  SmallVector<Value> strides(dims.size());
  Value stride = index(1);
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    strides[k] = stride;
    stride = arith::MulIOp::create(b_, loc_, stride, sizes_.lookup(dims[k]));
  }
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    const FirstHolders& first = (*holders)[r];
    if (first.none) continue;
    SmallVector<Value> at = indexOf(layout, dims, r), conditions;
    if (first.mask) {
      Value bits = arith::AndIOp::create(b_, loc_, tid, index(first.mask));
      conditions.push_back(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, bits, index(first.value)));
    }
    if (grid_.threads() > layoutThreads) conditions.push_back(lessThan(tid, index(layoutThreads)));
    Value position = index(0);
    for (auto [k, d] : llvm::enumerate(dims)) {
      if (mayOverrun(d)) conditions.push_back(lessThan(at[k], endOf(d)));
      position = arith::AddIOp::create(b_, loc_, position, arith::MulIOp::create(b_, loc_, at[k], strides[k]));
    }
    conditions.push_back(lessThan(position, index(op.getLimit())));
    if (mask) conditions.push_back(vector::ExtractOp::create(b_, loc_, mask, ArrayRef<int64_t>{r}));
    ifThen(andAll(conditions), [&] {
      SmallVector<Value> args;
      for (Value i : at) args.push_back(arith::IndexCastOp::create(b_, loc_, b_.getI64Type(), i));
      Value v = vector::ExtractOp::create(b_, loc_, values, ArrayRef<int64_t>{r});
      if (isa<FloatType>(element))
        v = element.isF64() ? v : arith::ExtFOp::create(b_, loc_, b_.getF64Type(), v).getResult();
      else if (element.isInteger(1))
        v = arith::ExtUIOp::create(b_, loc_, b_.getI64Type(), v);
      else if (!element.isInteger(64))
        v = arith::ExtSIOp::create(b_, loc_, b_.getI64Type(), v);
      args.push_back(v);
      gpu::PrintfOp::create(b_, loc_, b_.getStringAttr(format), args);
    });
  }
  return success();
}

}  // namespace wave::jit::distribution
