//===- DistributeOverrun.cpp - tiles that reach past a dim's end ----------===//
//
// Where a dim is not a whole number of tiles, the last tile's registers past its end hold
// whatever the arithmetic made of zero-filled reads; reductions and mma contractions fill
// them with their identity (DistributeReduction.cpp, DistributeMma.cpp) under a branch
// on tileOverruns, which only that tile takes.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

namespace wave::jit::distribution {

Value Distributor::tileOverruns(StringRef dim) {
  Value start = offsets_.lookup(dim);
  Value last = index(grid_.tiling(dim).blockTile);
  if (start) last = arith::AddIOp::create(b_, loc_, start, last);
  return arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sgt, last, endOf(dim));
}

SmallVector<Value> Distributor::registersBeforeEnd(LayoutAttr layout, unsigned k, StringRef dim) {
  MLIRContext* ctx = b_.getContext();
  Value start = offsets_.lookup(dim);
  if (!start) start = index(0);
  // Each register's position as this thread's part t (the same for every register) plus
  // a constant c_r, as in the MMA layouts: then start + t + c_r < end is c_r < end -
  // start - t, one subtraction per thread and a compare with a constant per register
  // (on attention's last key tile the positions' 64-bit adds and compares were a third of
  // its fills' instructions; the tile's time moved less: bench/RESULTS.md, runs 251-252).
  const AffineExpr zero = getAffineConstantExpr(0, ctx);
  AffineExpr threadPart;
  SmallVector<int64_t> constants;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    AffineExpr position = positionOfRegister(layout, r)[k];
    auto constant = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(position.replaceDims({zero, zero}), 2, 0));
    AffineExpr part = constant ? simplifyAffineExpr(position - constant.getValue(), 2, 0) : AffineExpr();
    if (!part || (threadPart && part != threadPart)) {
      constants.clear();
      break;
    }
    threadPart = part;
    constants.push_back(constant.getValue());
  }
  SmallVector<Value> before;
  if (!constants.empty()) {
    Value room = arith::SubIOp::create(b_, loc_, arith::SubIOp::create(b_, loc_, endOf(dim), start),
                                       threadIndex(threadPart));
    for (int64_t c : constants)
      before.push_back(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, index(c), room));
    return before;
  }
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    Value at = arith::AddIOp::create(b_, loc_, start, threadIndex(positionOfRegister(layout, r)[k]));
    before.push_back(lessThan(at, endOf(dim)));
  }
  return before;
}

SmallVector<Value> Distributor::fillOnOverrunningTiles(StringRef dim, TypeRange types,
                                                       function_ref<SmallVector<Value>()> filled,
                                                       function_ref<SmallVector<Value>()> plain) {
  if (!options_.branchOnOverrunningTiles) return filled();
  auto branch = scf::IfOp::create(b_, loc_, types, tileOverruns(dim), /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToStart(branch.thenBlock());
  scf::YieldOp::create(b_, loc_, filled());
  b_.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b_, loc_, plain());
  return SmallVector<Value>(branch.getResults().begin(), branch.getResults().end());
}

}  // namespace wave::jit::distribution
