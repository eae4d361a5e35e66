//===- HoistInvariantReads.cpp - reads a loop repeats, done once before it -===//

#include "transforms/Passes.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEHOISTINVARIANTREADS
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

bool hasDim(Type type, StringRef dim) {
  if (auto t = dyn_cast<dialect::TensorType>(type)) return llvm::is_contained(t.getDimNames(), dim);
  if (auto m = dyn_cast<dialect::MemoryType>(type)) return llvm::is_contained(m.getDimNames(), dim);
  return false;
}

// Whether `read`, in the body of `loop`, reads the same elements in every iteration: its
// memory is not indexed by the loop's dim (nor is its value), nothing it takes comes from
// the loop, and the loop writes no memory it reads.
bool isInvariant(dialect::ReadOp read, dialect::IterateOp loop) {
  const StringRef dim = loop.getDim();
  if (hasDim(read.getMemory().getType(), dim) || hasDim(read.getType(), dim)) return false;
  for (Value operand : read->getOperands())
    if (loop->isAncestor(operand.getParentRegion()->getParentOp())) return false;
  const bool written = loop.walk([&](dialect::WriteOp write) {
                             return write.getMemory() == read.getMemory() ? WalkResult::interrupt()
                                                                          : WalkResult::advance();
                           }).wasInterrupted();
  return !written;
}

struct WaveHoistInvariantReadsPass : impl::WaveHoistInvariantReadsBase<WaveHoistInvariantReadsPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    // Kernels the shape-matching lowerings take keep the structure those match.
    if (kernel.isExternal() || kernel->hasAttr("wave.shape_lowering")) return;
    // Inner loops first: a read hoisted out of one may then leave the loop around it.
    kernel.walk<WalkOrder::PostOrder>([&](dialect::IterateOp loop) {
      SmallVector<dialect::ReadOp> invariant;
      for (auto read : loop.getBody().front().getOps<dialect::ReadOp>())
        if (isInvariant(read, loop)) invariant.push_back(read);
      for (dialect::ReadOp read : invariant) read->moveBefore(loop);
    });
  }
};

}  // namespace
}  // namespace wave::jit
