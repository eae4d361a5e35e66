//===- PipelineSharedCopies.cpp - shared tiles filled ahead by cp.async ----===//
//
// Multi-buffers the shared tiles a loop fills from global memory, turns the fills into
// cp.async copies, and lets scf::pipelineForLoop run them stages - 1 iterations ahead of
// the work that reads them. See Passes.td for which loops qualify.
//
//===----------------------------------------------------------------------===//

#include "transforms/Passes.h"
#include "transforms/SharedBlocks.h"
#include "transforms/SharedCopies.h"
#include "transforms/WarpgroupMma.h"

#include "analysis/TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEPIPELINESHAREDCOPIES
#include "transforms/Passes.h.inc"

using namespace mlir;

namespace shared_copies {

Value stageIndex(OpBuilder& b, Location loc, scf::ForOp loop, int stages) {
  return arith::RemUIOp::create(b, loc, workgroupTrip(b, loc, loop), arith::ConstantIndexOp::create(b, loc, stages));
}

bool isShared(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

Value roundParity(OpBuilder& b, Location loc, scf::ForOp loop, int stages) {
  Value round = arith::DivUIOp::create(b, loc, workgroupTrip(b, loc, loop), arith::ConstantIndexOp::create(b, loc, stages));
  return parityOf(b, loc, round);
}

llvm::SetVector<Operation*> sliceIn(Block* body, ArrayRef<Operation*> roots) {
  llvm::SetVector<Operation*> slice(roots.begin(), roots.end());
  for (size_t i = 0; i < slice.size(); ++i)
    slice[i]->walk([&](Operation* inner) {  // (what nested regions use too)
      for (Value operand : inner->getOperands())
        if (Operation* def = operand.getDefiningOp(); def && def->getBlock() == body) slice.insert(def);
    });
  return slice;
}

memref::ViewOp tileOfBox(Value dst) {
  while (auto view = dst.getDefiningOp<ViewLikeOpInterface>()) {
    if (auto tile = dyn_cast<memref::ViewOp>(view.getOperation())) return tile;
    dst = view.getViewSource();
  }
  return {};
}

static int64_t byteSize(MemRefType type) {
  return type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

FailureOr<Tile> tileOf(scf::ForOp loop, memref::ViewOp view) {
  std::optional<int64_t> offset = getConstantIntValue(view.getByteShift());
  MemRefType type = view.getType();
  if (!offset || !type.hasStaticShape() || byteSize(type) % 16 != 0) return failure();
  for (Operation* user : view->getUsers())
    if (!loop->isProperAncestor(user)) return failure();
  const Tile tile{view, *offset, byteSize(type)};
  auto func = view->getParentOfType<gpu::GPUFuncOp>();
  bool alone = true;
  func.walk([&](memref::ViewOp other) {
    std::optional<int64_t> at = getConstantIntValue(other.getByteShift());
    if (other == view || other.getSource() != view.getSource()) return;
    const int64_t end = at && other.getType().hasStaticShape() ? *at + byteSize(other.getType()) : INT64_MAX;
    if (!at || (*at < tile.offset + tile.bytes && tile.offset < end)) alone = false;
  });
  if (!alone) return failure();
  return tile;
}

namespace {

// Builds `view` (a subview or expand_shape) again on its source, whose type changed (a
// stage's copy of a tile), and the views of it in turn, their result types inferred anew.
void retypeViews(Operation* view) {
  OpBuilder b(view);
  Value rebuilt;
  if (auto sub = dyn_cast<memref::SubViewOp>(view)) {
    if (sub.getType().getRank() != sub.getSourceType().getRank()) return;  // rank-reducing: not a box's
    rebuilt = memref::SubViewOp::create(b, sub.getLoc(), sub.getSource(), sub.getMixedOffsets(), sub.getMixedSizes(),
                                        sub.getMixedStrides());
  } else if (auto expand = dyn_cast<memref::ExpandShapeOp>(view)) {
    FailureOr<MemRefType> type = memref::ExpandShapeOp::computeExpandedType(
        expand.getSrcType(), expand.getResultType().getShape(), expand.getReassociationIndices());
    if (failed(type)) return;
    rebuilt = memref::ExpandShapeOp::create(b, expand.getLoc(), *type, expand.getSrc(), expand.getReassociationIndices());
  } else {
    return;
  }
  SmallVector<Operation*> users(view->getUsers().begin(), view->getUsers().end());
  view->getResult(0).replaceAllUsesWith(rebuilt);
  view->erase();
  for (Operation* user : users) retypeViews(user);
}

}  // namespace

int64_t multiBuffer(Tile tile, int count, int64_t viewAlignment, function_ref<Value(OpBuilder&, Location)> copyIndex) {
  const int64_t growth = llvm::alignTo((count - 1) * tile.bytes, viewAlignment);
  auto func = tile.view->getParentOfType<gpu::GPUFuncOp>();
  const int64_t end = *getConstantIntValue(tile.view.getByteShift()) + tile.bytes;  // tiles before it moved it
  func.walk([&](memref::ViewOp other) {
    std::optional<int64_t> at = getConstantIntValue(other.getByteShift());
    if (other == tile.view || other.getSource() != tile.view.getSource() || !at || *at < end) return;
    OpBuilder b(other);
    other.getByteShiftMutable().assign(arith::ConstantIndexOp::create(b, other.getLoc(), *at + growth));
  });

  MemRefType type = tile.view.getType();
  SmallVector<int64_t> shape{count};
  llvm::append_range(shape, type.getShape());
  auto buffered = MemRefType::get(shape, type.getElementType(), AffineMap(), type.getMemorySpace());
  OpBuilder b(tile.view);
  auto copies = memref::ViewOp::create(b, tile.view.getLoc(), buffered, tile.view.getSource(),
                                       tile.view.getByteShift(), ValueRange{});
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(1)}, strides(shape.size(), b.getIndexAttr(1));
  for (int64_t extent : type.getShape()) sizes.push_back(b.getIndexAttr(extent));
  for (OpOperand& use : llvm::make_early_inc_range(tile.view->getUses())) {
    b.setInsertionPoint(use.getOwner());
    const Location loc = use.getOwner()->getLoc();
    Value which = copyIndex(b, loc);
    if (auto address = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(use.getOwner())) {
      // Addresses (wgmma's descriptors) are the use's copy's.
      Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, copies);
      Value shift = arith::MulIOp::create(b, loc, which, arith::ConstantIndexOp::create(b, loc, tile.bytes));
      address.replaceAllUsesWith(arith::AddIOp::create(b, loc, base, shift).getResult());
      address->erase();
      continue;
    }
    SmallVector<OpFoldResult> offsets{which};
    offsets.append(type.getRank(), b.getIndexAttr(0));
    auto resultType = memref::SubViewOp::inferRankReducedResultType(type.getShape(), buffered, offsets, sizes, strides);
    use.set(memref::SubViewOp::create(b, loc, resultType, copies, offsets, sizes, strides));
    retypeViews(use.getOwner());  // a TMA copy's box
  }
  tile.view->erase();
  return growth;
}

void growSharedMemory(gpu::GPUFuncOp func, int64_t bytes) {
  auto shared = func->getAttrOfType<IntegerAttr>(kSharedMemoryBytesAttr);
  func->setAttr(kSharedMemoryBytesAttr, IntegerAttr::get(shared.getType(), shared.getInt() + bytes));
}

void growBarrierGroup(Value barrier, int count, Operation* scope) {
  auto group = cast<nvgpu::MBarrierGroupType>(barrier.getType());
  barrier.setType(nvgpu::MBarrierGroupType::get(barrier.getContext(), group.getMemorySpace(), count));
  for (Operation* user : llvm::make_early_inc_range(barrier.getUsers()))
    if (auto init = dyn_cast<nvgpu::MBarrierInitOp>(user); init && !scope->isAncestor(init)) {
      OpBuilder b(init->getNextNode());
      for (int id = 1; id < count; ++id) {
        Value at = arith::ConstantIndexOp::create(b, init.getLoc(), id);
        cast<nvgpu::MBarrierInitOp>(b.clone(*init)).getMbarIdMutable().assign(at);
      }
    }
}

void barrierPerStage(scf::ForOp loop, TensorCopy& copy, int stages) {
  growBarrierGroup(copy.barrier, stages, loop);
  OpBuilder b(copy.wait);
  const Location loc = copy.wait.getLoc();
  Value own = stageIndex(b, loc, loop, stages);
  Value parity = roundParity(b, loc, loop, stages);
  // (The parity the lowering gave, of a loop of one stage, is left unused: the
  // canonicalization after the pass removes it.)
  copy.wait.getMbarIdMutable().assign(own);
  copy.wait.getPhaseParityMutable().assign(parity);
}

}  // namespace shared_copies

namespace {

using namespace shared_copies;

// (Up to 8 for TMA copies, which hold no registers in flight, measured no faster: the
// skinny GEMM 128x1280x5120 -4.5%, attention -6% to +2%; RESULTS run 101.)
constexpr int kMaxStages = 4;
using shared_blocks::kMaxSharedBytes;
using shared_blocks::kTwoWorkgroupsBytes;
// The 32-bit registers each thread keeps across `loop`'s iterations (its carried values).
int64_t carriedRegisters(scf::ForOp loop) {
  int64_t registers = 0;
  for (Type t : loop.getResultTypes()) registers += registersOf(t);
  return registers;
}

// Whether `op`'s results reach another wgmma's accumulators (through the registers'
// repacking: extracts, inserts, empty asm fences), a few steps on.
bool feedsWarpgroupMma(Operation* op) {
  SmallVector<std::pair<Operation*, int>> work{{op, 0}};
  while (!work.empty()) {
    auto [at, depth] = work.pop_back_val();
    for (Operation* user : at->getUsers()) {
      if (isWarpgroupMma(user)) return true;
      if (depth < 4 && (isa<LLVM::ExtractValueOp, LLVM::InsertValueOp>(user) || isRegisterFence(user)))
        work.push_back({user, depth + 1});
    }
  }
  return false;
}

// The 32-bit registers each thread holds in wgmma batches' results at once in `loop`'s
// body: the last instruction of each batch (attention's scores and output, a GEMM's
// accumulators).
int64_t batchRegisters(scf::ForOp loop) {
  int64_t registers = 0;
  loop.getBody()->walk([&](Operation* op) {
    if (!isWarpgroupMma(op) || feedsWarpgroupMma(op)) return;
    if (auto result = dyn_cast<LLVM::LLVMStructType>(op->getResult(0).getType()))
      registers += static_cast<int64_t>(result.getBody().size());
  });
  return registers;
}

// Whether `op` itself (not counting ops nested in it) may write shared memory.
bool writesShared(Operation* op) {
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    return llvm::any_of(instances, [&](const MemoryEffects::EffectInstance& e) {
      if (!isa<MemoryEffects::Write>(e.getEffect())) return false;
      return e.getValue() ? isShared(e.getValue()) : llvm::any_of(op->getOperands(), isShared);
    });
  }
  return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() && llvm::any_of(op->getOperands(), isShared);
}

// Whether `op` itself may write memory other than shared. Of an op that does not say, it
// may where it takes an address (a memref or pointer) or is assembly with side effects
// other than wgmma's; register-only intrinsics (mma.sync) write nothing.
bool writesOutsideShared(Operation* op) {
  // wgmma (assembly) reads shared memory into registers; its batches' register fences are
  // empty asm statements.
  if (isRegisterFence(op) || isWarpgroupMma(op)) return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects) {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || isPure(op)) return false;
    if (auto assembly = dyn_cast<LLVM::InlineAsmOp>(op)) return assembly.getHasSideEffects();
    return llvm::any_of(op->getOperands(), [](Value v) {
      return isa<LLVM::LLVMPointerType>(v.getType()) || (isa<MemRefType>(v.getType()) && !isShared(v));
    });
  }
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [&](const MemoryEffects::EffectInstance& e) {
    return isa<MemoryEffects::Write>(e.getEffect()) && !(e.getValue() && isShared(e.getValue()));
  });
}

// A load from memory outside the workgroup's shared memory, or such loads and arithmetic
// under a condition (a masked read at a tensor's edge): nothing but reads.
bool isGlobalLoad(Operation* op) {
  if (auto load = dyn_cast<memref::LoadOp>(op)) return !isShared(load.getMemRef());
  if (auto load = dyn_cast<vector::LoadOp>(op)) return !isShared(load.getBase());
  if (auto masked = dyn_cast<vector::MaskedLoadOp>(op)) return !isShared(masked.getBase());
  if (auto branch = dyn_cast<scf::IfOp>(op))
    return !branch.walk([&](Operation* inner) {
                    const bool read = inner == op || isa<scf::YieldOp>(inner) ||
                                      (isPure(inner) && inner->getNumRegions() == 0) || isGlobalLoad(inner);
                    return read ? WalkResult::advance() : WalkResult::interrupt();
                  }).wasInterrupted();
  return false;
}

// A tile filled from global memory: store(load(global), tile), or at a masked edge
// store(inside ? load(global) : 0, tile), which a cp.async reading no bytes does.
struct Fill {
  vector::StoreOp store;
  vector::LoadOp load;
  Value inside;        // when the load runs (null: always)
  Operation* source;   // the op whose result is stored: the load, or the scf.if around it
};

bool isZero(Value v) { return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero()); }

// The fill `store` makes, if it makes one.
std::optional<Fill> fillOf(vector::StoreOp store) {
  Value stored = store.getValueToStore();
  Fill fill{store, stored.getDefiningOp<vector::LoadOp>(), Value(), stored.getDefiningOp()};
  if (auto branch = stored.getDefiningOp<scf::IfOp>()) {
    if (!branch->hasOneUse() || branch.getNumResults() != 1 || branch.getElseRegion().empty() ||
        branch.thenBlock()->getOperations().size() != 2 || branch.elseBlock()->getOperations().size() != 1 ||
        !isZero(branch.elseYield().getOperand(0)))
      return std::nullopt;
    fill.load = branch.thenYield().getOperand(0).getDefiningOp<vector::LoadOp>();
    fill.inside = branch.getCondition();
  }
  VectorType vec = store.getVectorType();
  const int64_t bits = vec.getNumElements() * vec.getElementTypeBitWidth();
  if (!fill.load || isShared(fill.load.getBase()) || vec.getRank() != 1 || (bits != 32 && bits != 64 && bits != 128))
    return std::nullopt;
  return fill;
}

// The fills of `loop`, when every write to shared memory in it is one and the loop is
// not already scheduled; nothing otherwise.
std::optional<SmallVector<Fill>> fillsOf(scf::ForOp loop) {
  Block* body = loop.getBody();
  SmallVector<Fill> fills;
  bool candidate = true;
  loop.getBody()->walk([&](Operation* op) {
    if (isa<gpu::BarrierOp, nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncWaitOp>(op)) candidate = false;
    if (!candidate || !writesShared(op)) return;
    auto store = dyn_cast<vector::StoreOp>(op);
    auto tile = store ? store.getBase().getDefiningOp<memref::ViewOp>() : nullptr;
    std::optional<Fill> fill = store ? fillOf(store) : std::nullopt;
    candidate = fill && tile && !loop->isAncestor(tile) && store->getBlock() == body &&
                fill->source->getBlock() == body;
    if (candidate) fills.push_back(*fill);
  });
  if (!candidate || fills.empty()) return std::nullopt;
  // The copies move to another iteration with what they depend on: plain arithmetic, and
  // loads of global memory the loop does not write (the indices a paged cache's copies
  // take from its block table), predicated off past the end as the copies are.
  const bool writesGlobal = body->walk([](Operation* op) {
                                return writesOutsideShared(op) ? WalkResult::interrupt() : WalkResult::advance();
                              }).wasInterrupted();
  SmallVector<Operation*> roots;
  for (Fill f : fills) roots.append({f.store, f.load, f.source});
  for (Operation* op : sliceIn(body, roots)) {
    if (llvm::is_contained(roots, op) || (isPure(op) && op->getNumRegions() == 0)) continue;
    if (!writesGlobal && isGlobalLoad(op)) continue;
    return std::nullopt;
  }
  return fills;
}

// The TMA copies of `loop`, when every write to shared memory in it is one, at the top of
// its body, and each mbarrier is armed, filled and waited on only there.
std::optional<SmallVector<TensorCopy>> tensorCopiesOf(scf::ForOp loop) {
  Block* body = loop.getBody();
  llvm::MapVector<Value, TensorCopy> copies;
  bool candidate = true;
  body->walk([&](Operation* op) {
    if (isa<gpu::BarrierOp, nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncWaitOp>(op)) candidate = false;
    auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(op);
    if (!candidate || (!load && !writesShared(op))) return;
    memref::ViewOp tile = load ? tileOfBox(load.getDst()) : nullptr;
    candidate = load && tile && op->getBlock() == body && !loop->isAncestor(load.getBarriers().getDefiningOp());
    if (!candidate) return;
    TensorCopy& copy = copies[load.getBarriers()];
    candidate = !copy.tile || copy.tile == tile;
    copy.barrier = load.getBarriers();
    copy.tile = tile;
  });
  if (!candidate || copies.empty()) return std::nullopt;
  SmallVector<TensorCopy> result;
  for (auto& [barrier, copy] : copies) {
    if (cast<nvgpu::MBarrierGroupType>(barrier.getType()).getNumBarriers() != 1) return std::nullopt;
    for (Operation* user : barrier.getUsers()) {
      if (isa<nvgpu::MBarrierInitOp>(user) && !loop->isAncestor(user)) continue;
      if (user->getBlock() != body) return std::nullopt;
      if (isa<nvgpu::MBarrierArriveExpectTxOp, nvgpu::TmaAsyncLoadOp>(user)) copy.issue.push_back(user);
      else if (auto wait = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(user); wait && !copy.wait) copy.wait = wait;
      else return std::nullopt;
    }
    if (!copy.wait) return std::nullopt;
    llvm::sort(copy.issue, [](Operation* a, Operation* b) { return a->isBeforeInBlock(b); });  // uses: any order
    result.push_back(copy);
  }
  // The copies move to another iteration with what they depend on: plain arithmetic and views.
  SmallVector<Operation*> roots;
  for (const TensorCopy& c : result) llvm::append_range(roots, c.issue);
  for (Operation* op : sliceIn(body, roots))
    if (!llvm::is_contained(roots, op) && (!isPure(op) || op->getNumRegions() != 0)) return std::nullopt;
  return result;
}

// The fills as cp.async copies, committed as one group after the last; returns the group.
nvgpu::DeviceAsyncCreateGroupOp asyncCopies(ArrayRef<Fill> fills) {
  SmallVector<Value> tokens;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(fills.front().store->getContext());
  for (Fill f : fills) {
    OpBuilder b(f.store);
    VectorType vec = f.store.getVectorType();
    const bool whole16 = vec.getNumElements() * vec.getElementTypeBitWidth() == 128;  // .cg needs 16 bytes
    Value count;  // outside the edge, none of the elements: the copy zero-fills them
    if (f.inside)
      count = arith::SelectOp::create(b, f.store.getLoc(), f.inside,
                                      arith::ConstantIndexOp::create(b, f.store.getLoc(), vec.getNumElements()),
                                      arith::ConstantIndexOp::create(b, f.store.getLoc(), 0));
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(b, f.store.getLoc(), tokenType, f.store.getBase(),
                                                      f.store.getIndices(), f.load.getBase(), f.load.getIndices(),
                                                      b.getIndexAttr(vec.getNumElements()), count,
                                                      whole16 ? b.getUnitAttr() : UnitAttr()));
    f.store->erase();
    if (f.source->use_empty()) f.source->erase();
  }
  OpBuilder b(tokens.back().getDefiningOp()->getBlock()->getTerminator());
  return nvgpu::DeviceAsyncCreateGroupOp::create(b, tokens.back().getLoc(), tokenType, tokens);
}

// Ops of the slice also used by the rest of the body get a copy for the rest, so no value
// crosses stages (the pipeliner would carry each through the loop).
void cloneForOtherStages(Block* body, const llvm::SetVector<Operation*>& slice) {
  IRMapping copies;
  SmallVector<Operation*> cloned;
  for (Operation* op : slice) {
    if (isa<nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncCreateGroupOp, nvgpu::MBarrierArriveExpectTxOp,
            nvgpu::TmaAsyncLoadOp>(op))
      continue;
    OpBuilder b(op->getNextNode());
    Operation* copy = b.clone(*op, copies);
    cloned.push_back(copy);
    for (auto [original, replacement] : llvm::zip(op->getResults(), copy->getResults()))
      original.replaceUsesWithIf(replacement, [&](OpOperand& use) {
        Operation* user = body->findAncestorOpInBlock(*use.getOwner());
        return user && !slice.contains(user) && !llvm::is_contained(cloned, user);
      });
  }
  for (Operation* copy : llvm::reverse(cloned))
    if (copy->use_empty()) copy->erase();
}

struct WavePipelineSharedCopiesPass : impl::WavePipelineSharedCopiesBase<WavePipelineSharedCopiesPass> {
  using WavePipelineSharedCopiesBase::WavePipelineSharedCopiesBase;

  void runOnOperation() override {
    if (stages < 0) {
      getOperation().emitError("pipeline_stages must be 0 (the compiler picks) or more, but found ") << stages;
      return signalPassFailure();
    }
    if (stages == 1) return;
    SmallVector<scf::ForOp> loops;
    // (A persistent grid's loop over tiles is not one whose copies run ahead: its body's
    // loops are.)
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop->hasAttr(kTileLoopAttr)) loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(pipeline(loop))) return signalPassFailure();
  }

  LogicalResult pipeline(scf::ForOp loop) {
    gpu::GPUFuncOp func = getOperation();
    auto sharedAttr = func->getAttrOfType<IntegerAttr>(kSharedMemoryBytesAttr);
    if (!sharedAttr) return success();
    // The fills: the threads' (stores of loads, made cp.async copies here) or TMA copies.
    std::optional<SmallVector<Fill>> fills = fillsOf(loop);
    std::optional<SmallVector<TensorCopy>> tensorCopies = fills ? std::nullopt : tensorCopiesOf(loop);
    if (!fills && !tensorCopies) return success();
    // A producer warpgroup of their own issues TMA copies where asked and the loop allows.
    const bool specialize = warpSpecialize && tensorCopies && succeeded(canSpecializeWarps(loop, *tensorCopies));
    llvm::SetVector<Operation*> views;
    if (fills)
      for (Fill f : *fills) views.insert(f.store.getBase().getDefiningOp());
    else
      for (const TensorCopy& c : *tensorCopies) views.insert(c.tile);
    // TMA's mbarriers are static shared memory, before the dynamic, which starts 1024-byte
    // aligned after them: room the stages leave.
    // (Warp specialization adds a group of "empty" mbarriers.)
    const int64_t groups = tensorCopies ? static_cast<int64_t>(tensorCopies->size()) + (specialize ? 1 : 0) : 0;
    // (So does any static shared memory the function uses, as stream-K's flag; looked
    // for in the function alone: its siblings are other threads'.)
    const bool staticShared = func.walk([](memref::GetGlobalOp global) {
                                    return gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(global.getType())
                                               ? WalkResult::interrupt()
                                               : WalkResult::advance();
                                  })
                                  .wasInterrupted();
    // (And wave-schedule-tiles-dynamically's slots and their mbarriers, 40 bytes.)
    const int64_t handover = func->hasAttr("wave.tile_counter") ? 64 : 0;
    const int64_t reserved = tensorCopies || staticShared ? 1024 + 8 * kMaxStages * groups + handover : 0;
    // Only the bytes live during the loop: wave-pack-shared-memory overlaps the tiles of
    // loops before and after it with its own. (Not once warp-specialized: the split puts
    // the loop and all after it in one op, over which every tile is live at once, as an
    // epilogue's staging tile under a persistent grid is while the producer fills the
    // next tile's stages.)
    int64_t live = sharedAttr.getInt();
    if (std::optional<SmallVector<shared_blocks::SharedBlock>> blocks = shared_blocks::sharedBlocks(func);
        !specialize && blocks && !blocks->empty()) {
      const shared_blocks::SharedBlock& last = blocks->back();
      live = shared_blocks::liveBytes(*blocks, shared_blocks::topLevelIndex(func, loop)) +
             std::max<int64_t>(0, live - (last.offset + last.bytes));
    }
    const int64_t used = live + reserved;
    SmallVector<Tile> tiles;
    int64_t perStage = 0;
    for (Operation* view : views) {
      FailureOr<Tile> tile = tileOf(loop, cast<memref::ViewOp>(view));
      if (failed(tile)) return success();
      tiles.push_back(*tile);
      perStage += llvm::alignTo(tile->bytes, 128);
    }

    // Where the carried registers alone keep a second workgroup off the SM, shared memory
    // need not leave room for one: the stages may take all of it.
    int64_t threads = 1;
    if (DenseI32ArrayAttr block = func.getKnownBlockSizeAttr())
      for (int32_t n : block.asArrayRef()) threads *= n;
    if (specialize) threads += kWarpgroupThreads;
    // (Warp-specialized, the computing threads get what the producer does not need: two
    // workgroups where what they hold fits twice.)
    const int64_t perThread = std::max(carriedRegisters(loop), batchRegisters(loop)) + kRegistersBesideCarried;
    // (A thread's registers are the function's: of loops in a row, the one holding the
    // most decides.)
    int64_t held = perThread;
    func.walk([&](scf::ForOp other) {
      held = std::max(held, std::max(carriedRegisters(other), batchRegisters(other)) + kRegistersBesideCarried);
    });
    const int perSM = specialize ? specializedWorkgroupsPerSM(threads - kWarpgroupThreads, perThread) : 0;
    const bool oneWorkgroup = specialize ? perSM == 1 : 2 * threads * held > kRegistersPerSM;
    int n = stagesFor(used, perStage, oneWorkgroup);
    // A loop that runs wgmma keeps each batch in flight through the next iteration (its
    // wait leaves one group): the copies then run one iteration less ahead, so that none
    // refills a tile a batch may still read; a third copy of each tile where two were
    // picked keeps them ahead at all.
    Block* body = loop.getBody();
    const bool warpgroupMma = body->walk([](NVVM::WgmmaFenceAlignedOp) { return WalkResult::interrupt(); }).wasInterrupted();
    // A batch may stay in flight only where its results go to the next iteration alone
    // and that reads them only as the next batch's accumulators (a GEMM's): nothing reads
    // them before the next batch's wait. (Attention's scores are read in the body, its
    // output rescaled before the next batch.)
    // Walking forward from `start`: every op reached through those `passes` lets through
    // is one that `ends` accepts.
    auto reachesOnly = [](SmallVector<Operation*> work, function_ref<bool(Operation*)> passes,
                          function_ref<bool(Operation*)> ends) {
      DenseSet<Operation*> seen;
      while (!work.empty()) {
        Operation* op = work.pop_back_val();
        if (!seen.insert(op).second || ends(op)) continue;
        if (!passes(op)) return false;
        llvm::append_range(work, op->getUsers());
      }
      return true;
    };
    // The registers' repacking, and their fences (empty asm statements) around a batch.
    auto repacks = [](Operation* op) {
      return isa<vector::ExtractOp, LLVM::ExtractValueOp, LLVM::InsertValueOp>(op) || isRegisterFence(op);
    };
    // The carried value reaches only wgmma accumulators.
    auto onlyPacked = [&](Value carried) {
      return reachesOnly(llvm::to_vector(carried.getUsers()), repacks, isWarpgroupMma);
    };
    // The batch's results reach only the yield, as values the next batch alone reads.
    auto feedsNextBatchOnly = [&](Operation* mma) {
      auto carriedOnly = [&](Operation* op) {
        return isa<vector::FromElementsOp>(op) && llvm::all_of(op->getUses(), [&](OpOperand& use) {
                 return use.getOwner() == body->getTerminator() &&
                        onlyPacked(loop.getRegionIterArg(use.getOperandNumber()));
               });
      };
      return reachesOnly(llvm::to_vector(mma->getUsers()),
                         [&](Operation* op) { return isWarpgroupMma(op) || repacks(op); }, carriedOnly);
    };
    // Nor may a batch that takes A from registers (inline PTX): the next iteration writes
    // its fragments again before its wait, which the batch may still be reading (the
    // registers are the program's until the wait, not the assembler's to keep).
    const bool resultsCarried = !body->walk([&](Operation* op) {
                                       return isWarpgroupMma(op) && (isa<LLVM::InlineAsmOp>(op) || !feedsNextBatchOnly(op))
                                                  ? WalkResult::interrupt()
                                                  : WalkResult::advance();
                                     }).wasInterrupted();
    if (warpgroupMma && resultsCarried && stages == 0 && n == 2 && used + 2 * perStage <= kMaxSharedBytes)
      n = 3;
    std::optional<int64_t> trips = constantTripCount(loop);
    if (trips) n = static_cast<int>(std::min<int64_t>(n, *trips));
    if (n < 2) return success();
    const bool overlapMma = warpgroupMma && resultsCarried && n >= 3;
    const int distance = overlapMma ? n - 2 : n - 1;  // iterations the copies run ahead
    if (used + (n - 1) * perStage > kMaxSharedBytes)
      return loop.emitError("pipeline_stages = ")
             << n << " needs " << used + (n - 1) * perStage
             << " bytes of shared memory, more than the " << kMaxSharedBytes << " a workgroup may have";

    // Views after a tile keep their alignment as it grows: 128 bytes, or where tiles'
    // addresses go to wgmma (a descriptor's swizzle needs 1024), 1024.
    const bool addressed = func.walk([](memref::ExtractAlignedPointerAsIndexOp address) {
                                 return isShared(address.getSource()) ? WalkResult::interrupt()
                                                                      : WalkResult::advance();
                               }).wasInterrupted();
    auto stageOfUse = [&](OpBuilder& b, Location loc) { return stageIndex(b, loc, loop, n); };
    for (Tile tile : tiles) growSharedMemory(func, multiBuffer(tile, n, addressed ? 1024 : 128, stageOfUse));
    if (specialize) {
      // The copies' own warpgroup runs them as far ahead as the stages allow.
      for (TensorCopy& c : *tensorCopies) barrierPerStage(loop, c, n);
      const bool batchInFlight = warpgroupMma && resultsCarried;
      const int64_t room = perSM == 1 ? kMaxSharedBytes : kTwoWorkgroupsBytes;
      const int64_t spare = room - reserved - func->getAttrOfType<IntegerAttr>(kSharedMemoryBytesAttr).getInt();
      if (failed(specializeWarps(loop, *tensorCopies, n, batchInFlight, perSM, spare))) return failure();
      if (batchInFlight) keepBatchesInFlight(loop);
      return success();
    }
    FailureOr<scf::ForOp> pipelined =
        fills ? pipelineAsyncCopies(loop, *fills, distance, warpgroupMma) : pipelineTensorCopies(loop, *tensorCopies, n, distance);
    if (failed(pipelined)) return failure();
    if (overlapMma) keepBatchesInFlight(*pipelined);
    return success();
  }

  // Each iteration of `loop` waits for the previous iteration's wgmma batches only; after
  // the loop, for all. Its batches' results feed only the next iteration's batches (the
  // caller checked), so where the body commits several (a gated GEMM's two products of
  // one A tile), the waits between them go and the last leaves all of them in flight:
  // waiting after each for the one before kept one batch queued behind the warps' copies
  // and barrier (bench/RESULTS.md, run 257).
  static void keepBatchesInFlight(scf::ForOp loop) {
    OpBuilder b(loop.getContext());
    b.setInsertionPointAfter(loop);
    Block* body = loop.getBody();
    SmallVector<NVVM::WgmmaWaitGroupSyncOp> waits;
    int64_t batches = 0;
    bool nested = false;
    Operation* lastCommit = nullptr;
    loop->walk([&](Operation* op) {
      const bool wait = isa<NVVM::WgmmaWaitGroupSyncOp>(op), commit = isa<NVVM::WgmmaGroupSyncAlignedOp>(op);
      if ((wait || commit) && op->getBlock() != body) nested = true;
      if (wait) waits.push_back(cast<NVVM::WgmmaWaitGroupSyncOp>(op));
      if (commit) lastCommit = op;
      batches += commit;
    });
    if (!nested && batches > 1 && static_cast<int64_t>(waits.size()) == batches &&
        lastCommit->isBeforeInBlock(waits.back())) {
      for (NVVM::WgmmaWaitGroupSyncOp wait : ArrayRef(waits).drop_back()) wait->erase();
      waits.back().setGroup(batches);
    } else {
      for (NVVM::WgmmaWaitGroupSyncOp wait : waits) wait.setGroup(1);
    }
    NVVM::WgmmaWaitGroupSyncOp::create(b, loop.getLoc(), 0);
  }

  // The cp.async path: the fills become copies committed as one group per iteration, run
  // `distance` iterations ahead; each iteration waits for its own group first.
  FailureOr<scf::ForOp> pipelineAsyncCopies(scf::ForOp loop, ArrayRef<Fill> fills, int distance, bool warpgroupMma) {
    Block* body = loop.getBody();
    nvgpu::DeviceAsyncCreateGroupOp group = asyncCopies(fills);

    SmallVector<Operation*> roots;
    body->walk([&](nvgpu::DeviceAsyncCopyOp copy) { roots.push_back(copy); });
    roots.push_back(group);
    llvm::SetVector<Operation*> ahead = sliceIn(body, roots);
    cloneForOtherStages(body, ahead);
    // Each iteration waits for its tiles first; the copies for a later one follow.
    OpBuilder b(body->getTerminator());
    auto wait = nvgpu::DeviceAsyncWaitOp::create(b, loop.getLoc(), group.getAsyncToken(),
                                                 b.getI32IntegerAttr(distance - 1));
    // Tiles wgmma reads (through the async proxy): each thread fences the copies it
    // landed before the barrier that publishes them.
    Operation* fence = nullptr;
    if (warpgroupMma)
      fence = NVVM::FenceProxyOp::create(b, loop.getLoc(), NVVM::ProxyKind::async_shared,
                                         NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));

    scf::PipeliningOption options;
    options.peelEpilogue = false;
    options.supportDynamicLoops = true;
    options.getScheduleFn = [&](scf::ForOp, std::vector<std::pair<Operation*, unsigned>>& schedule) {
      schedule.emplace_back(wait, distance);
      if (fence) schedule.emplace_back(fence, distance);
      for (Operation& op : body->without_terminator())
        if (ahead.contains(&op)) schedule.emplace_back(&op, 0);
      for (Operation& op : body->without_terminator())
        if (!ahead.contains(&op) && &op != wait && &op != fence) schedule.emplace_back(&op, distance);
    };
    options.predicateFn = [](RewriterBase& rewriter, Operation* op, Value predicate) -> Operation* {
      if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {  // past the end: read nothing
        rewriter.setInsertionPoint(copy);
        const Location loc = copy.getLoc();
        Value all = copy.getSrcElements();
        if (!all) all = arith::ConstantIndexOp::create(rewriter, loc, copy.getDstElements().getZExtValue());
        Value none = arith::ConstantIndexOp::create(rewriter, loc, 0);
        Value count = arith::SelectOp::create(rewriter, loc, predicate, all, none);
        rewriter.modifyOpInPlace(copy, [&] { copy.getSrcElementsMutable().assign(count); });
        return copy;
      }
      if (isGlobalLoad(op) && op->getNumResults() > 0) {  // past the end: not loaded (its indices may be anything)
        rewriter.setInsertionPoint(op);
        const Location loc = op->getLoc();
        auto branch = scf::IfOp::create(rewriter, loc, op->getResultTypes(), predicate, /*withElse=*/true);
        rewriter.setInsertionPointToStart(branch.elseBlock());
        Type type = op->getResult(0).getType();
        scf::YieldOp::create(rewriter, loc, ValueRange{arith::ConstantOp::create(rewriter, loc, type, rewriter.getZeroAttr(type)).getResult()});
        rewriter.setInsertionPointToStart(branch.thenBlock());
        auto yield = scf::YieldOp::create(rewriter, loc, op->getResults());
        rewriter.moveOpBefore(op, yield);
        return branch;
      }
      return isPure(op) || isa<nvgpu::DeviceAsyncCreateGroupOp>(op) ? op : nullptr;
    };
    IRRewriter rewriter(loop.getContext());
    rewriter.setInsertionPoint(loop);  // where the prologue goes
    const Location loc = loop.getLoc();
    FailureOr<scf::ForOp> pipelined = scf::pipelineForLoop(rewriter, loop, options);
    if (failed(pipelined)) return emitError(loc, "cannot software-pipeline the loop's shared-memory copies");
    // Nothing stays in flight past the loop (the last copies read nothing but still land).
    b.setInsertionPointAfter(*pipelined);
    auto drained = nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), ValueRange{});
    nvgpu::DeviceAsyncWaitOp::create(b, loc, drained, b.getI32IntegerAttr(0));
    return pipelined;
  }

  // The TMA path: each tile's mbarrier becomes one per stage; an iteration arms and fills
  // the stage `distance` iterations ahead (thread 0, as before) and waits on its own
  // stage's mbarrier for the phase of its round through the stages.
  FailureOr<scf::ForOp> pipelineTensorCopies(scf::ForOp loop, MutableArrayRef<TensorCopy> copies, int n, int distance) {
    Block* body = loop.getBody();
    MLIRContext* ctx = loop.getContext();
    for (TensorCopy& c : copies) {
      barrierPerStage(loop, c, n);
      // The issue names the stage it fills.
      OpBuilder b(c.issue.front());
      Value stage = stageIndex(b, loop.getLoc(), loop, n);
      for (Operation* op : c.issue) {
        if (auto arm = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(op)) arm.getMbarIdMutable().assign(stage);
        else cast<nvgpu::TmaAsyncLoadOp>(op).getMbarIdMutable().assign(stage);
      }
    }

    SmallVector<Operation*> roots;
    for (const TensorCopy& c : copies) llvm::append_range(roots, c.issue);
    llvm::SetVector<Operation*> ahead = sliceIn(body, roots);
    cloneForOtherStages(body, ahead);

    scf::PipeliningOption options;
    options.peelEpilogue = false;
    options.supportDynamicLoops = true;
    options.getScheduleFn = [&](scf::ForOp, std::vector<std::pair<Operation*, unsigned>>& schedule) {
      for (Operation& op : body->without_terminator())
        if (ahead.contains(&op)) schedule.emplace_back(&op, 0);
      for (Operation& op : body->without_terminator())
        if (!ahead.contains(&op)) schedule.emplace_back(&op, distance);
    };
    // Past the end, the copies and their arming are not issued (thread 0's predicate and
    // the iteration's together).
    options.predicateFn = [](RewriterBase& rewriter, Operation* op, Value predicate) -> Operation* {
      auto guard = [&](OpOperand* leader) {
        rewriter.setInsertionPoint(op);
        Value both = arith::AndIOp::create(rewriter, op->getLoc(), leader->get(), predicate);
        rewriter.modifyOpInPlace(op, [&] { leader->set(both); });
        return op;
      };
      if (auto arm = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(op); arm && arm.getPredicate())
        return guard(&arm.getPredicateMutable()[0]);
      if (auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(op); load && load.getPredicate())
        return guard(&load.getPredicateMutable()[0]);
      return isPure(op) ? op : nullptr;
    };
    IRRewriter rewriter(ctx);
    rewriter.setInsertionPoint(loop);  // where the prologue goes
    const Location loc = loop.getLoc();
    FailureOr<scf::ForOp> pipelined = scf::pipelineForLoop(rewriter, loop, options);
    if (failed(pipelined)) return emitError(loc, "cannot software-pipeline the loop's TMA copies");
    return pipelined;
  }

  // The stage count: as asked, or the most that leave two workgroups per SM (all of it
  // where one workgroup fills the SM's registers), else 2.
  int stagesFor(int64_t shared, int64_t perStage, bool oneWorkgroup) const {
    if (stages > 0) return stages;
    const int64_t room = oneWorkgroup ? kMaxSharedBytes : kTwoWorkgroupsBytes;
    for (int n = kMaxStages; n >= 2; --n)
      if (shared + (n - 1) * perStage <= room) return n;
    return shared + perStage <= kMaxSharedBytes ? 2 : 1;
  }

  static std::optional<int64_t> constantTripCount(scf::ForOp loop) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                           ub = getConstantIntValue(loop.getUpperBound()),
                           step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0) return std::nullopt;
    return *ub > *lb ? llvm::divideCeil(*ub - *lb, *step) : 0;
  }
};

}  // namespace

}  // namespace wave::jit
