//===- PackSharedMemory.cpp - shared tiles never live at once share bytes ---===//
//
// First-fit placement of the dynamic shared memory's blocks by their live spans (see
// SharedBlocks.h and Passes.td).
//
//===----------------------------------------------------------------------===//

#include "transforms/Passes.h"
#include "transforms/SharedBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEPACKSHAREDMEMORY
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;
using namespace shared_blocks;

// Offsets for `blocks` in order, each the lowest (aligned) where it overlaps no block
// placed before it that is live with it; with `disjointUnder`, where that stays under it,
// none placed before it at all (bytes reused cost a barrier). Returns the offsets and end.
std::pair<SmallVector<int64_t>, int64_t> place(ArrayRef<SharedBlock> blocks, int64_t alignment,
                                               std::optional<int64_t> disjointUnder) {
  SmallVector<int64_t> placed;
  int64_t end = 0;
  auto firstFit = [&](size_t i, bool anyConflicts) {
    int64_t at = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t j = 0; j < i; ++j) {
        const int64_t from = placed[j], to = placed[j] + blocks[j].bytes;
        if ((!anyConflicts && !blocks[i].liveWith(blocks[j])) || at >= to || from >= at + blocks[i].bytes) continue;
        at = llvm::alignTo(to, alignment);
        moved = true;
      }
    }
    return at;
  };
  for (size_t i = 0; i < blocks.size(); ++i) {
    int64_t at = disjointUnder ? firstFit(i, true) : -1;
    if (!disjointUnder || at + blocks[i].bytes > *disjointUnder) at = firstFit(i, false);
    placed.push_back(at);
    end = std::max(end, at + blocks[i].bytes);
  }
  return {placed, end};
}

struct WavePackSharedMemoryPass : impl::WavePackSharedMemoryBase<WavePackSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    auto total = func->getAttrOfType<IntegerAttr>("wave.shared_memory_bytes");
    std::optional<SmallVector<SharedBlock>> blocks = sharedBlocks(func);
    if (!total || !blocks || blocks->size() < 2) return;
    // wgmma's descriptors (and the swizzles of TMA's boxes they read) need their tiles
    // 1024-byte aligned.
    const bool addressed = func.walk([](memref::ExtractAlignedPointerAsIndexOp) {
                                 return WalkResult::interrupt();
                               }).wasInterrupted();
    const int64_t alignment = addressed ? 1024 : 128;
    int64_t oldEnd = 0;
    for (const SharedBlock& block : *blocks) oldEnd = std::max(oldEnd, block.offset + block.bytes);
    auto [packed, end] = place(*blocks, alignment, std::nullopt);
    // Only where it lets the function run, or a second workgroup share the SM: bytes
    // shared where there was room anyway would cost barriers for nothing.
    const int64_t before = total.getInt(), extra = before - oldEnd;
    const bool fitsTwo = extra + end <= twoWorkgroupsBytes;
    if (end >= oldEnd || !(before > maxBytes || (before > twoWorkgroupsBytes && fitsTwo))) return;
    // Of that room, blocks take bytes of their own while they fit: fewer barriers.
    const int64_t room = (fitsTwo ? twoWorkgroupsBytes : maxBytes) - extra;
    if (auto [spread, spreadEnd] = place(*blocks, alignment, room); spreadEnd <= room) {
      packed = spread;
      end = spreadEnd;
    }
    for (auto [block, at] : llvm::zip(*blocks, packed))
      for (memref::ViewOp view : block.views) {
        if (at == block.offset) continue;
        OpBuilder b(view);
        const int64_t shift = *getConstantIntValue(view.getByteShift()) - block.offset + at;
        view.getByteShiftMutable().assign(arith::ConstantIndexOp::create(b, view.getLoc(), shift));
      }
    // (Bytes past the views, if any, keep their place past the end.)
    func->setAttr("wave.shared_memory_bytes", IntegerAttr::get(total.getType(), extra + end));
  }
};

}  // namespace
}  // namespace wave::jit
