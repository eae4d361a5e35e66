//===- SelectTensorCopies.cpp - swizzled tiles filled by TMA ---------------===//
//
// Replaces the fill of a swizzled shared tile, `wave.write (wave.read %a), %s`, by one
// `wave.tma_copy %a, %s` where Hopper's tensor memory accelerator can make it: the copy
// engine then moves the tile (and zero-fills past the tensor's end) while the threads
// compute. See Passes.td for what qualifies.
//
//===----------------------------------------------------------------------===//

#include "analysis/KernelGrid.h"
#include "analysis/SizeFacts.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVESELECTTENSORCOPIES
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

constexpr int64_t kMaxTensorMapRank = 5;   // cuTensorMapEncodeTiled's
constexpr int64_t kMaxBoxExtent = 256;     // elements along any dim of a box
constexpr int64_t kTensorMapSwizzle = 128;  // bytes: the box rows wgmma's widest swizzle reads

// The read whose value `write` stores, when the pair is a fill the copy engine can make.
dialect::ReadOp copiedRead(dialect::WriteOp write, const KernelGrid& grid) {
  auto read = write.getValue().getDefiningOp<dialect::ReadOp>();
  auto tile = write.getMemory().getDefiningOp<dialect::AllocateOp>();
  if (!read || read.getWaitAtLeast() || !tile || write.getMappingAttr() || read.getMappingAttr() || !read->hasOneUse() ||
      read->getBlock() != write->getBlock() || tile.getSwizzle() != kTensorMapSwizzle)
    return {};
  // From a kernel argument (global memory), its dims the tile's, in order.
  auto source = dyn_cast<BlockArgument>(read.getMemory());
  dialect::MemoryType memory = read.getMemory().getType();
  if (!source || memory.getDimNames() != tile.getResult().getType().getDimNames() || memory.getDims().size() > kMaxTensorMapRank)
    return {};
  const unsigned bits = memory.getElementType().getIntOrFloatBitWidth();
  if (bits != 8 && bits != 16 && bits != 32) return {};
  // A box per 128-byte block of the innermost dim, each at most 256 along the others.
  SmallVector<StringRef> dims = memory.getDimNames();
  if (grid.tiling(dims.back()).blockTile * bits % (kTensorMapSwizzle * 8) != 0) return {};
  for (StringRef d : ArrayRef(dims).drop_back())
    if (grid.tiling(d).blockTile > kMaxBoxExtent) return {};
  // The copy engine zero-fills past the tensor's end, not past a size set at run time
  // (the masked copies do).
  auto func = read->getParentOfType<func::FuncOp>();
  if (llvm::any_of(dims, [&](StringRef d) { return isSetAtRunTime(func, d); })) return {};
  // The tensor map's row strides must be multiples of 16 bytes: so must the innermost dim.
  if (!isKnownMultiple(func, dims.back(), 128 / bits)) return {};
  // Each wait knows the copy's phase from its loop's trip count: one loop around it at most.
  auto loop = write->getParentOfType<dialect::IterateOp>();
  if (loop && loop->getParentOfType<dialect::IterateOp>()) return {};
  return read;
}

struct WaveSelectTensorCopiesPass : impl::WaveSelectTensorCopiesBase<WaveSelectTensorCopiesPass> {
  using WaveSelectTensorCopiesBase::WaveSelectTensorCopiesBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (!enabled || kernel.isExternal() || !kernel->hasAttr("wave.constraints")) return;
    FailureOr<KernelGrid> grid = kernelGridQuietly(kernel);
    if (failed(grid)) return;  // diagnosed by wave-assign-layouts
    // A block's fills go to TMA together or not at all: the pipelining runs a loop's fills
    // ahead one way, TMA with mbarriers or cp.async.
    llvm::MapVector<Block*, SmallVector<std::pair<dialect::WriteOp, dialect::ReadOp>>> byBlock;
    llvm::DenseSet<Block*> mixed;
    kernel.walk([&](dialect::WriteOp write) {
      if (!write.getMemory().getDefiningOp<dialect::AllocateOp>()) return;
      if (dialect::ReadOp read = copiedRead(write, *grid)) byBlock[write->getBlock()].push_back({write, read});
      else mixed.insert(write->getBlock());
    });
    SmallVector<std::pair<dialect::WriteOp, dialect::ReadOp>> fills;
    for (auto& [block, blockFills] : byBlock)
      if (!mixed.contains(block)) llvm::append_range(fills, blockFills);
    for (auto [write, read] : fills) {
      OpBuilder b(write);
      dialect::TmaCopyOp::create(b, write.getLoc(), read.getMemory(), write.getMemory());
      write->erase();
      read->erase();
    }
  }
};

}  // namespace

}  // namespace wave::jit
