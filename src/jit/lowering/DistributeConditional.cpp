//===- DistributeConditional.cpp - wave.conditional per thread ------------===//
//
// A two-way branch on the condition's one element per workgroup (every thread holds it):
// the body's code in one case, the otherwise values in the other. Marked uniform, so
// that wave-insert-barriers places barriers inside it.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/UniformBranch.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit::distribution {

LogicalResult Distributor::lowerConditional(dialect::ConditionalOp op) {
  FailureOr<Value> cond = onePerWorkgroup(op, op.getCondition(), "a condition");
  if (failed(cond)) return failure();
  // A persistent grid carries each top-level loop's trips across its tiles (the mbarrier
  // phases); a loop that some tiles skip would lose count.
  if (tileLoop_ && op.getBody().walk([](dialect::IterateOp) { return WalkResult::interrupt(); }).wasInterrupted())
    return op.emitOpError("is not yet supported: a loop inside a conditional on a persistent grid (turn "
                          "CompileOptions::persistent off)");
  // An scf.index_switch on 0 or 1 rather than an scf.if: the canonicalizer rebuilds ifs
  // (dropping unused results, merging neighbours) without the uniform mark.
  Value which = arith::IndexCastOp::create(b_, loc_, b_.getIndexType(),
                                           arith::ExtUIOp::create(b_, loc_, b_.getI32Type(), *cond));
  SmallVector<Type> types;
  for (Value r : op.getResults()) types.push_back(registersOf(r));
  auto branch = scf::IndexSwitchOp::create(b_, loc_, types, which, ArrayRef<int64_t>{1}, /*numCases=*/1);
  branch->setAttr(kUniformBranchAttr, b_.getUnitAttr());
  Block& body = op.getBody().front();
  {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(&branch.getCaseRegions()[0].emplaceBlock());
    if (failed(lowerBlock(body))) return failure();
    SmallVector<Value> given;
    for (Value v : body.getTerminator()->getOperands()) given.push_back(lookup(v));
    scf::YieldOp::create(b_, loc_, given);
    b_.setInsertionPointToStart(&branch.getDefaultRegion().emplaceBlock());
    SmallVector<Value> otherwise;
    for (Value v : op.getOtherwise()) otherwise.push_back(lookup(v));
    scf::YieldOp::create(b_, loc_, otherwise);
  }
  for (auto [result, value] : llvm::zip(op.getResults(), branch.getResults())) values_[result] = value;
  return success();
}

}  // namespace wave::jit::distribution
