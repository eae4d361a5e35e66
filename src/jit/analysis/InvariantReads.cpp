#include "analysis/InvariantReads.h"

#include "dialect/WaveOps.h"

namespace wave::jit {

using namespace mlir;

namespace {

bool hasDim(Type type, StringRef dim) {
  if (auto t = dyn_cast<dialect::TensorType>(type)) return llvm::is_contained(t.getDimNames(), dim);
  if (auto m = dyn_cast<dialect::MemoryType>(type)) return llvm::is_contained(m.getDimNames(), dim);
  return false;
}

}  // namespace

bool isLoopInvariant(dialect::ReadOp read, dialect::IterateOp loop) {
  const StringRef dim = loop.getDim();
  if (read.getWaitAtLeast()) return false;  // a wait stays where the kernel put it
  if (hasDim(read.getMemory().getType(), dim) || hasDim(read.getType(), dim)) return false;
  for (Value operand : read->getOperands())
    if (loop->isAncestor(operand.getParentRegion()->getParentOp())) return false;
  const bool written = loop.walk([&](dialect::WriteOp write) {
                             return write.getMemory() == read.getMemory() ? WalkResult::interrupt()
                                                                          : WalkResult::advance();
                           }).wasInterrupted();
  return !written;
}

}  // namespace wave::jit
