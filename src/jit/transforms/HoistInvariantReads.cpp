//===- HoistInvariantReads.cpp - reads a loop repeats, done once before it -===//

#include "analysis/InvariantReads.h"
#include "analysis/KernelGrid.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"


namespace wave::jit {

#define GEN_PASS_DEF_WAVEHOISTINVARIANTREADS
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// A read hoisted into registers holds them for the whole loop. Past this many 32-bit
// registers per thread (an eighth of what is left beside a 128-register accumulator), a
// read of memory in SHARED_ADDRESS_SPACE stays in the loop: wave-promote-shared fills its
// shared tile once before the loop and each iteration reads it where it is used.
constexpr int64_t kHoistedRegisterBudget = 16;

// The 32-bit registers a thread would hold `read`'s value in: its wave's tile over the
// lanes (each dim's wave tile, or workgroup tile without a wave constraint).
int64_t registersPerThread(dialect::ReadOp read, const KernelGrid& grid) {
  int64_t elements = 1;
  for (StringRef d : read.getType().getDimNames())
    if (grid.dims.contains(d)) elements *= grid.tiling(d).waveTile;
  const int64_t bits = elements * read.getType().getElementType().getIntOrFloatBitWidth();
  return llvm::divideCeil(bits, 32 * grid.waves.lanes);
}

struct WaveHoistInvariantReadsPass : impl::WaveHoistInvariantReadsBase<WaveHoistInvariantReadsPass> {
  using WaveHoistInvariantReadsBase::WaveHoistInvariantReadsBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (kernel.isExternal()) return;
    FailureOr<KernelGrid> grid = kernelGridQuietly(kernel);
    auto staysInShared = [&](dialect::ReadOp read) {
      if (read.getMemory().getType().getAddressSpace().getValue() != "shared") return false;
      if (keepMmaOperandsShared && !read->use_empty() &&
          llvm::all_of(read->getUsers(), [](Operation* user) { return isa<dialect::MmaOp>(user); }))
        return true;
      return succeeded(grid) && registersPerThread(read, *grid) > kHoistedRegisterBudget;
    };
    // Inner loops first: a read hoisted out of one may then leave the loop around it.
    kernel.walk<WalkOrder::PostOrder>([&](dialect::IterateOp loop) {
      SmallVector<dialect::ReadOp> invariant;
      for (auto read : loop.getBody().front().getOps<dialect::ReadOp>())
        if (isLoopInvariant(read, loop) && !staysInShared(read)) invariant.push_back(read);
      for (dialect::ReadOp read : invariant) read->moveBefore(loop);
    });
  }
};

}  // namespace
}  // namespace wave::jit
