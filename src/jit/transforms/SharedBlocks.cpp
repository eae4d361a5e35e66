//===- SharedBlocks.cpp - the dynamic shared memory's blocks and live spans -===//

#include "transforms/SharedBlocks.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"

namespace wave::jit::shared_blocks {

using namespace mlir;

unsigned topLevelIndex(gpu::GPUFuncOp func, Operation* op) {
  Operation* top = func.getBody().front().findAncestorOpInBlock(*op);
  unsigned index = 0;
  for (Operation& at : func.getBody().front()) {
    if (&at == top) return index;
    ++index;
  }
  return index;
}

namespace {

// The span of top-level ops using the bytes `view` names: its users, through views of it
// and addresses taken of it (wgmma's descriptors, computed once and used in a loop)
// through arithmetic, to whatever uses those.
std::pair<unsigned, unsigned> spanOf(gpu::GPUFuncOp func, const DenseMap<Operation*, unsigned>& order,
                                     memref::ViewOp view) {
  Block& body = func.getBody().front();
  auto indexOf = [&](Operation* op) { return order.lookup(body.findAncestorOpInBlock(*op)); };
  unsigned first = ~0u, last = 0;
  SmallVector<Value> work{view.getResult()};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second) continue;
    for (Operation* user : v.getUsers()) {
      const unsigned at = indexOf(user);
      first = std::min(first, at);
      last = std::max(last, at);
      const bool passesOn = isa<ViewLikeOpInterface, memref::ExtractAlignedPointerAsIndexOp>(user) ||
                            (!isa<MemRefType>(v.getType()) && user->getNumRegions() == 0 && isMemoryEffectFree(user));
      if (passesOn) llvm::append_range(work, user->getResults());
    }
  }
  if (first == ~0u) first = last = indexOf(view);
  return {first, last};
}

int64_t bytesOf(MemRefType type) {
  return type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

}  // namespace

std::optional<SmallVector<SharedBlock>> sharedBlocks(gpu::GPUFuncOp func) {
  if (!func.getBody().hasOneBlock()) return std::nullopt;
  struct Piece {
    memref::ViewOp view;
    int64_t begin, end;
  };
  SmallVector<Piece> pieces;
  bool constant = true;
  func.walk([&](memref::ViewOp view) {
    if (!view.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>()) return;
    std::optional<int64_t> offset = getConstantIntValue(view.getByteShift());
    if (!offset || !view.getType().hasStaticShape()) constant = false;
    else pieces.push_back({view, *offset, *offset + bytesOf(view.getType())});
  });
  if (!constant) return std::nullopt;
  // Each top-level op's position, once (a view's users are many).
  DenseMap<Operation*, unsigned> order;
  unsigned next = 0;
  for (Operation& op : func.getBody().front()) order[&op] = next++;
  llvm::sort(pieces,
             [](const Piece& a, const Piece& b) { return std::pair(a.begin, a.end) < std::pair(b.begin, b.end); });
  SmallVector<SharedBlock> blocks;
  for (const Piece& p : pieces) {
    auto [first, last] = spanOf(func, order, p.view);
    if (blocks.empty() || p.begin >= blocks.back().offset + blocks.back().bytes) {
      blocks.push_back({p.begin, p.end - p.begin, first, last, {p.view}});
      continue;
    }
    SharedBlock& b = blocks.back();
    b.bytes = std::max(b.bytes, p.end - b.offset);
    b.first = std::min(b.first, first);
    b.last = std::max(b.last, last);
    b.views.push_back(p.view);
  }
  return blocks;
}

int64_t liveBytes(ArrayRef<SharedBlock> blocks, unsigned index) {
  int64_t bytes = 0;
  for (const SharedBlock& b : blocks)
    if (b.liveAt(index)) bytes += b.bytes;
  return bytes;
}

}  // namespace wave::jit::shared_blocks
