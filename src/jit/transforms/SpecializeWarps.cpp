//===- SpecializeWarps.cpp - a producer warpgroup issues a loop's TMA copies --===//
//
// The warp-specialized schedule of a loop whose shared tiles TMA fills (the other one,
// software pipelining, is PipelineSharedCopies.cpp's). The workgroup gains a warpgroup
// whose first thread runs the loop's copies alone, refilling each stage once every
// computing thread released it (an "empty" mbarrier per stage); the function's own threads
// compute, waiting on each stage's "full" mbarriers as before but never on a workgroup
// barrier before a refill. Registers move from the producer to them by setmaxnreg.
// Under a persistent grid the producer also issues the copies each tile makes once before
// the loop (attention's Q): into a second copy of their tiles while the computing warps
// read the first, where shared memory has room, else as soon as the computing warps are
// done with the last tile's, so that they land during the epilogue.
//
//===----------------------------------------------------------------------===//

#include "transforms/ConsumerThreads.h"
#include "transforms/Passes.h"
#include "transforms/SharedBlocks.h"
#include "transforms/SharedCopies.h"

#include "analysis/TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace wave::jit::shared_copies {

using namespace mlir;

namespace {

constexpr int64_t kMaxThreads = 1024;
// The producer's registers (its thread computes a few coordinates); the consumers get the
// rest, in setmaxnreg's multiples of 8, at most 240 (ptxas's 255 rounded down). Beside
// three computing warpgroups it keeps 32, leaving them 160 each (40 left them 152, where
// flash attention's 192-query tile spilled once P V overlaps the softmax: bench/RESULTS.md,
// run 227); beside two, setmaxnreg's least, 24, leaving them the 240 most (232 beside 40,
// where causal attention on 128x128 tiles spilled; at 240, with its key-bounds mask gone
// from whole tiles, it ran 1-9% faster, run 264), but 40 where it walks a persistent
// grid's tiles (their coordinates' divisions spill at 24); beside one, 40 (216; 32 would
// give it 224, measured no better, run 228).
int32_t producerRegisters(int64_t consumers, bool walksTiles) {
  if (consumers >= 3 * kWarpgroupThreads) return 32;
  return consumers == 2 * kWarpgroupThreads && !walksTiles ? 24 : 40;
}
constexpr int32_t kMaxRegisters = 240;

int64_t blockThreads(gpu::GPUFuncOp func) {
  DenseI32ArrayAttr block = func.getKnownBlockSizeAttr();
  return block && block[1] == 1 && block[2] == 1 ? block[0] : 0;
}

bool usesAny(Operation* op, const llvm::SetVector<Operation*>& defs) {
  return op->walk([&](Operation* nested) {
             for (Value v : nested->getOperands())
               if (Operation* def = v.getDefiningOp(); def && defs.contains(def)) return WalkResult::interrupt();
             return WalkResult::advance();
           })
      .wasInterrupted();
}

// Whether `op` or an op in it acquires (an atomic load, read-modify-write or fence of
// acquire or stronger ordering): a wait for a flag, after which reads must see what its
// setter wrote before it. The producer's copies read too, so they must follow it.
bool acquires(Operation* op) {
  auto acquiring = [](LLVM::AtomicOrdering ordering) {
    return ordering == LLVM::AtomicOrdering::acquire || ordering == LLVM::AtomicOrdering::acq_rel ||
           ordering == LLVM::AtomicOrdering::seq_cst;
  };
  return op
      ->walk([&](Operation* nested) {
        bool found = false;
        if (auto load = dyn_cast<LLVM::LoadOp>(nested)) found = acquiring(load.getOrdering());
        else if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(nested)) found = acquiring(rmw.getOrdering());
        else if (auto exchange = dyn_cast<LLVM::AtomicCmpXchgOp>(nested))
          found = acquiring(exchange.getSuccessOrdering());
        else if (auto fence = dyn_cast<LLVM::FenceOp>(nested)) found = acquiring(fence.getOrdering());
        return found ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

// The op of the function's block the split starts at: the loop, or the persistent grid's
// loop over tiles around it.
Operation* splitPoint(scf::ForOp loop) {
  if (scf::ForOp tiles = enclosingTileLoop(loop)) return tiles;
  return loop;
}

// The barrier after the last mbarrier initialization before `loop`, which publishes them.
FailureOr<gpu::BarrierOp> barriersPublished(Operation* loop) {
  FailureOr<MBarrierSetUp> setUp = mbarrierSetUp(*loop->getBlock(), loop->getIterator());
  if (failed(setUp)) return failure();
  return setUp->published;
}

// Ops before `loop` that the computing threads alone run: those with memory effects (a producer
// thread would read and write at addresses made of a thread index out of the computing
// range), barriers after them, and what uses their results. All come after the mbarriers'
// set-up (their initialization and the barrier that publishes it), which every thread
// runs; nothing but it may have effects before: failure otherwise.
FailureOr<llvm::SetVector<Operation*>> consumerPrologue(Operation* loop) {
  auto before = llvm::make_range(loop->getBlock()->begin(), loop->getIterator());
  FailureOr<gpu::BarrierOp> published = barriersPublished(loop);
  if (failed(published)) return failure();
  llvm::SetVector<Operation*> moved;
  bool setUp = false;
  for (Operation& op : before) {
    if (!setUp) {
      setUp = &op == published->getOperation();
      if (!setUp && !isMemoryEffectFree(&op) && !isa<gpu::BarrierOp, nvgpu::MBarrierCreateOp, nvgpu::MBarrierInitOp>(op))
        return failure();
      continue;
    }
    if (usesAny(&op, moved) || !isMemoryEffectFree(&op)) moved.insert(&op);
  }
  return moved;
}

// The copies' ops in the body (arming, copies and the arithmetic and views they use), in
// the body's order.
SmallVector<Operation*> orderedSlice(Block* body, ArrayRef<Operation*> roots) {
  llvm::SetVector<Operation*> slice = sliceIn(body, roots);
  SmallVector<Operation*> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation* a, Operation* b) { return a->isBeforeInBlock(b); });
  return ordered;
}

SmallVector<Operation*> issueSlice(scf::ForOp loop, ArrayRef<TensorCopy> copies) {
  SmallVector<Operation*> roots;
  for (const TensorCopy& c : copies) llvm::append_range(roots, c.issue);
  return orderedSlice(loop.getBody(), roots);
}

// Erases the ops of `slice` (in their block's order) that nothing uses any more, last first.
void eraseUnused(ArrayRef<Operation*> slice) {
  for (Operation* op : llvm::reverse(slice))
    if (op->use_empty()) op->erase();
}

// An arrival on mbarrier `at` of `barriers`, by the threads where `condition` holds (null:
// every thread).
void arriveIf(OpBuilder& b, Location loc, Value condition, Value barriers, Value at) {
  if (condition) {
    auto only = scf::IfOp::create(b, loc, TypeRange{}, condition, /*withElseRegion=*/false);
    b.setInsertionPoint(only.thenBlock()->getTerminator());
  }
  nvgpu::MBarrierArriveOp::create(b, loc, barriers, at);
}

Value index(OpBuilder& b, Location loc, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

// A copy a persistent grid's tile makes once, before its loop (attention's Q): its arming
// and TMA copies on an mbarrier of its own, waited on in the tile's body.
struct TileCopy {
  Value barrier;
  SmallVector<Operation*> issue;
};

// Whether every use of the bytes of `block` is `copies`' writing them or an address taken
// for wgmma inside `loop` (so the tile is free again once the loop's wgmma batches are).
bool readOnlyByMmaIn(const shared_blocks::SharedBlock& block, ArrayRef<Operation*> copies, scf::ForOp loop) {
  SmallVector<Value> work;
  for (memref::ViewOp view : block.views) work.push_back(view.getResult());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation* user : v.getUsers()) {
      if (isa<ViewLikeOpInterface>(user)) {
        work.push_back(user->getResult(0));
        continue;
      }
      if (llvm::is_contained(copies, user)) continue;
      if (isa<memref::ExtractAlignedPointerAsIndexOp>(user) && loop->isAncestor(user)) continue;
      return false;
    }
  }
  return true;
}

// The copies of `loop`'s tile loop body before it that the producer can issue: each
// mbarrier's arming and copies (one mbarrier, made before the tile loop), into a tile only
// wgmma in `loop` reads; none where the loop is not in a tile loop.
SmallVector<TileCopy> copiesPerTile(scf::ForOp loop) {
  scf::ForOp tiles = enclosingTileLoop(loop);
  auto func = loop->getParentOfType<gpu::GPUFuncOp>();
  if (!tiles || loop->getBlock() != tiles.getBody() || !func) return {};
  std::optional<SmallVector<shared_blocks::SharedBlock>> blocks = shared_blocks::sharedBlocks(func);
  if (!blocks) return {};
  llvm::MapVector<Value, TileCopy> byBarrier;
  for (Operation& op : llvm::make_range(tiles.getBody()->begin(), loop->getIterator())) {
    Value barrier;
    if (auto arm = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(op)) barrier = arm.getBarriers();
    else if (auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(op)) barrier = load.getBarriers();
    else continue;
    TileCopy& copy = byBarrier[barrier];
    copy.barrier = barrier;
    copy.issue.push_back(&op);
  }
  SmallVector<TileCopy> copies;
  for (auto& [barrier, copy] : byBarrier) {
    auto group = cast<nvgpu::MBarrierGroupType>(barrier.getType());
    // Armed first, once; the mbarrier made before the tiles.
    if (group.getNumBarriers() != 1 || !isa<nvgpu::MBarrierArriveExpectTxOp>(copy.issue.front()) ||
        llvm::count_if(copy.issue, [](Operation* op) { return isa<nvgpu::MBarrierArriveExpectTxOp>(op); }) != 1 ||
        tiles->isAncestor(barrier.getParentBlock()->getParentOp()))
      return {};
    for (Operation* op : ArrayRef(copy.issue).drop_front()) {
      memref::ViewOp view = tileOfBox(cast<nvgpu::TmaAsyncLoadOp>(op).getDst());
      auto block = view ? llvm::find_if(*blocks, [&](const auto& b) { return llvm::is_contained(b.views, view); })
                        : blocks->end();
      if (block == blocks->end() || !readOnlyByMmaIn(*block, copy.issue, loop)) return {};
    }
    copies.push_back(copy);
  }
  return copies;
}

// The byte alignment of tiles whose addresses go to wgmma (a descriptor's 128-byte swizzle).
constexpr int64_t kSwizzledTileAlignment = 1024;

// Where `spareBytes` of shared memory hold a second copy of each tile `perTile` fills,
// gives them one, the tiles alternating between the two (with an mbarrier each): the
// producer then fills the next tile's while the computing warps still read this one's,
// where with one copy it could only start once they were done, and they waited for it
// after the epilogue (bench/RESULTS.md, run 277). Returns the copy a tile uses (its trip
// mod 2); null, changing nothing, where they do not fit or a use of theirs is not one
// this knows.
Value doubleBufferTileCopies(scf::ForOp tiles, ArrayRef<TileCopy> perTile, int64_t spareBytes) {
  SmallVector<Tile> filled;
  SmallVector<nvgpu::MBarrierTryWaitParityOp> waits;
  int64_t growth = 0;
  for (const TileCopy& c : perTile) {
    for (Operation* user : c.barrier.getUsers()) {
      if (llvm::is_contained(c.issue, user) || (isa<nvgpu::MBarrierInitOp>(user) && !tiles->isAncestor(user)))
        continue;
      auto wait = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(user);
      if (!wait || !tiles->isProperAncestor(wait)) return {};
      waits.push_back(wait);
    }
    for (Operation* op : c.issue) {
      auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(op);
      memref::ViewOp view = load ? tileOfBox(load.getDst()) : nullptr;
      if (!load || llvm::any_of(filled, [&](const Tile& t) { return t.view == view; })) continue;
      FailureOr<Tile> tile = view ? tileOf(tiles, view) : FailureOr<Tile>(failure());
      if (failed(tile) || tile->bytes % kSwizzledTileAlignment != 0) return {};
      filled.push_back(*tile);
      growth += tile->bytes;
    }
  }
  if (filled.empty() || growth > spareBytes) return {};

  const Location loc = tiles.getLoc();
  auto b = OpBuilder::atBlockBegin(tiles.getBody());
  Value trip = localTrip(b, loc, tiles);
  Value buffer = arith::RemUIOp::create(b, loc, trip, index(b, loc, 2));
  Value parity = parityOf(b, loc, arith::DivUIOp::create(b, loc, trip, index(b, loc, 2)));
  auto func = tiles->getParentOfType<gpu::GPUFuncOp>();
  for (const Tile& tile : filled)
    growSharedMemory(func, multiBuffer(tile, 2, kSwizzledTileAlignment, [&](OpBuilder&, Location) { return buffer; }));
  for (const TileCopy& c : perTile) {
    growBarrierGroup(c.barrier, 2, tiles);
    for (Operation* op : c.issue) {
      if (auto arm = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(op)) arm.getMbarIdMutable().assign(buffer);
      else cast<nvgpu::TmaAsyncLoadOp>(op).getMbarIdMutable().assign(buffer);
    }
  }
  for (nvgpu::MBarrierTryWaitParityOp wait : waits) {
    wait.getMbarIdMutable().assign(buffer);
    wait.getPhaseParityMutable().assign(parity);
  }
  return buffer;
}

// What the producer computes the copies from: under a tile loop, the ops of its body
// before `loop` that the bounds and the copies use (arithmetic of the tile's
// coordinates, cloned into the producer's own loop over the tiles, in order); and the
// values from before the split, which both roles see.
struct ProducerInputs {
  SmallVector<Operation*> tileOps;
  SmallVector<Value> fromBefore;
};

FailureOr<ProducerInputs> producerInputs(scf::ForOp loop, ArrayRef<TensorCopy> copies,
                                         ArrayRef<TileCopy> perTile = {}) {
  scf::ForOp tiles = enclosingTileLoop(loop);
  SmallVector<Value> work{loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
  for (Operation* op : issueSlice(loop, copies))
    for (Value v : op->getOperands())
      if (!loop->isAncestor(v.getParentBlock()->getParentOp())) work.push_back(v);
  for (const TileCopy& c : perTile)
    for (Operation* op : c.issue) llvm::append_range(work, op->getOperands());
  ProducerInputs inputs;
  llvm::SetVector<Operation*> tileOps;
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second) continue;
    Operation* def = v.getDefiningOp();
    if (!tiles || !tiles->isAncestor(def ? def : v.getParentBlock()->getParentOp())) {
      inputs.fromBefore.push_back(v);
      continue;
    }
    // (The loop's trips in earlier tiles, which its stages' indices use, are the
    // consumers': the producer counts its own, the same.)
    if (v == tiles.getInductionVar() || v == tripsInEarlierTiles(loop)) continue;
    // (Cloned where it is, not hoisted: effect-free is enough, e.g. a division by a tile
    // count known only at launch.)
    if (!def || def->getBlock() != tiles.getBody() || !isMemoryEffectFree(def) || def->getNumRegions() != 0)
      return failure();
    tileOps.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  inputs.tileOps.assign(tileOps.begin(), tileOps.end());
  llvm::sort(inputs.tileOps, [](Operation* a, Operation* b) { return a->isBeforeInBlock(b); });
  return inputs;
}

// Where the computing threads acquire before the loop (a wait for a flag that other GPUs
// or workgroups set once the data is there), the producer's copies must follow: the
// computing threads arrive on `ready` once past it, and the producer waits for that phase
// before its first copy, then fences the async proxy TMA reads through. Once, or before
// each tile's copies where the tile's own body acquires.
struct AcquireFirst {
  Value ready;  // null: nothing to follow
  bool eachTile = false;
};

// The producer: its first thread alone fills each stage in turn, once the consumers have
// released it (a fresh mbarrier's previous phase counts as complete: the first round
// waits for nothing), arming the stage's full mbarriers and issuing the copies. Under a
// tile loop, it walks the tiles as the consumers do, its trips counted on across them.
void buildProducer(OpBuilder& b, scf::ForOp loop, ArrayRef<TensorCopy> copies, const ProducerInputs& inputs,
                   Value empty, Value tid, int64_t consumers, int stages, ArrayRef<TileCopy> perTile,
                   Value tileEmpty, Value tileBuffer, const AcquireFirst& acquire) {
  const Location loc = loop.getLoc();
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, index(b, loc, consumers));
  auto issuer = scf::IfOp::create(b, loc, TypeRange{}, first, /*withElseRegion=*/false);
  b.setInsertionPoint(issuer.thenBlock()->getTerminator());
  auto followAcquire = [&](Value parity) {
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, acquire.ready, parity, index(b, loc, kMBarrierWaitTicks),
                                           index(b, loc, 0));
    NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_global),
                               NVVM::SharedSpaceAttr());
  };
  if (acquire.ready && !acquire.eachTile) followAcquire(arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0));
  IRMapping map;
  scf::ForOp tiles = enclosingTileLoop(loop), producerTiles;
  if (tiles) {
    producerTiles = scf::ForOp::create(b, loc, tiles.getLowerBound(), tiles.getUpperBound(), tiles.getStep(),
                                       ValueRange{index(b, loc, 0)});
    producerTiles->setAttr(kTileLoopAttr, b.getUnitAttr());
    b.setInsertionPointToStart(producerTiles.getBody());
    map.map(tiles.getInductionVar(), producerTiles.getInductionVar());
    if (Value earlier = tripsInEarlierTiles(loop)) map.map(earlier, producerTiles.getRegionIterArgs()[0]);
    for (Operation* op : inputs.tileOps) b.clone(*op, map);
    if (acquire.ready && acquire.eachTile) followAcquire(parityOf(b, loc, localTrip(b, loc, producerTiles)));
  }
  // The tile's own copies, once the computing warps released the copy of their tiles
  // they fill: the last tile's, or with two, the one before's (a fresh mbarrier's previous
  // phase counts as complete: the first tiles wait for nothing).
  auto issueTileCopies = [&] {
    Value uses = localTrip(b, loc, producerTiles);
    if (tileBuffer) uses = arith::DivUIOp::create(b, loc, uses, index(b, loc, 2));
    Value previous = arith::XOrIOp::create(b, loc, parityOf(b, loc, uses),
                                           arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, tileEmpty, previous, index(b, loc, kMBarrierWaitTicks),
                                           tileBuffer ? map.lookup(tileBuffer) : index(b, loc, 0));
    for (const TileCopy& c : perTile)
      for (Operation* op : c.issue) {
        Operation* copy = b.clone(*op, map);
        if (auto arm = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(copy)) arm.getPredicateMutable().clear();
        else if (auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(copy)) load.getPredicateMutable().clear();
      }
  };
  auto fills = scf::ForOp::create(b, loc, map.lookupOrDefault(loop.getLowerBound()),
                                  map.lookupOrDefault(loop.getUpperBound()), map.lookupOrDefault(loop.getStep()));
  if (tiles) fills->setAttr(kTripBaseAttr, b.getI64IntegerAttr(0));
  OpBuilder::InsertionGuard guard(b);
  if (tileBuffer) {
    // With two copies, the one to fill was released a tile ago: first, before the stages.
    b.setInsertionPoint(fills);
    issueTileCopies();
  } else if (!perTile.empty()) {
    // They are released when the last tile's loop ends, as is the stage of its last trip:
    // the stages the computing warps released earlier are refilled first (trips 0 to
    // stages - 2 of the tile), then these, before the trip that waits for that last
    // stage; after the loop where it has no trips.
    b.setInsertionPoint(fills);
    Value trips = tripCount(b, loc, fills);
    b.setInsertionPointAfter(fills);
    Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, trips, index(b, loc, 0));
    auto afterLoop = scf::IfOp::create(b, loc, TypeRange{}, none, /*withElseRegion=*/false);
    b.setInsertionPoint(afterLoop.thenBlock()->getTerminator());
    issueTileCopies();
    b.setInsertionPointToStart(fills.getBody());
    Value last = arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, trips, index(b, loc, 1)), index(b, loc, 1));
    Value at = arith::MinUIOp::create(b, loc, last, index(b, loc, stages - 1));
    Value now = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, localTrip(b, loc, fills), at);
    auto inLoop = scf::IfOp::create(b, loc, TypeRange{}, now, /*withElseRegion=*/false);
    b.setInsertionPoint(inLoop.thenBlock()->getTerminator());
    issueTileCopies();
  }
  b.setInsertionPoint(fills.getBody()->getTerminator());
  Value stage = stageIndex(b, loc, fills, stages);
  Value previous = arith::XOrIOp::create(b, loc, roundParity(b, loc, fills, stages),
                                         arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, empty, previous, index(b, loc, kMBarrierWaitTicks), stage);
  map.map(loop.getInductionVar(), fills.getInductionVar());
  for (Operation* op : issueSlice(loop, copies)) {
    Operation* copy = b.clone(*op, map);
    if (auto arm = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(copy)) {
      arm.getMbarIdMutable().assign(stage);
      arm.getPredicateMutable().clear();  // (a constant predicate would print as `@-1`)
    } else if (auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(copy)) {
      load.getMbarIdMutable().assign(stage);
      load.getPredicateMutable().clear();
    }
  }
  if (tiles) {
    b.setInsertionPointToEnd(producerTiles.getBody());
    Value after = arith::AddIOp::create(b, loc, producerTiles.getRegionIterArgs()[0], tripCount(b, loc, fills));
    scf::YieldOp::create(b, loc, after);
  }
}

// Whether the only shared memory `loop` reads is through addresses taken for wgmma (its
// tiles'): a warpgroup's wgmma batch completes for all its threads at once, so one thread
// of each warpgroup may release a stage for all of them.
bool readsOnlyByWarpgroupMma(scf::ForOp loop) {
  return !loop.getBody()
              ->walk([](Operation* op) {
                if (isa<memref::ExtractAlignedPointerAsIndexOp>(op)) return WalkResult::advance();
                return llvm::any_of(op->getOperands(), isShared) ? WalkResult::interrupt() : WalkResult::advance();
              })
              .wasInterrupted();
}

// The consumers' loop: the copies gone, each iteration releases the stage it read once
// its reads are done: at its end, or with its wgmma batch left in flight, the previous
// iteration's stage (that batch was waited for in this one), the last one's after the
// loop where the next tile's copies refill it. `arrives`: whether this thread is one
// that releases (null: every thread).
void releaseStages(scf::ForOp loop, Value empty, Value arrives, int stages, bool batchInFlight) {
  const Location loc = loop.getLoc();
  OpBuilder b(loop.getBody()->getTerminator());
  Value stage = stageIndex(b, loc, loop, stages);
  Value release = arrives;
  auto both = [&](Value a, Value c) { return a ? arith::AndIOp::create(b, loc, a, c).getResult() : c; };
  if (batchInFlight) {
    Value later = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, localTrip(b, loc, loop), index(b, loc, 0));
    release = both(release, later);
    Value before = arith::SubIOp::create(b, loc, workgroupTrip(b, loc, loop), index(b, loc, 1));
    stage = arith::RemUIOp::create(b, loc, before, index(b, loc, stages));
  }
  arriveIf(b, loc, release, empty, stage);
  if (!batchInFlight || !enclosingTileLoop(loop)) return;
  // (After the wait for the last batch, which keepBatchesInFlight puts right after the loop.)
  b.setInsertionPointAfter(loop);
  Value trips = tripCount(b, loc, loop);
  Value last = arith::SubIOp::create(b, loc, trips, index(b, loc, 1));
  if (Value earlier = tripsInEarlierTiles(loop)) last = arith::AddIOp::create(b, loc, earlier, last);
  Value ran = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, trips, index(b, loc, 0));
  release = both(arrives, ran);
  arriveIf(b, loc, release, empty, arith::RemUIOp::create(b, loc, last, index(b, loc, stages)));
}

// The registers each thread of a workgroup of `consumers` computing threads and a producer
// warpgroup starts with, `perSM` of them sharing the SM's (ptxas's cap: a multiple of 8).
int64_t registersAtEntry(int64_t consumers, int perSM) {
  return kRegistersPerSM / perSM / (consumers + kWarpgroupThreads) / 8 * 8;
}

// The registers each computing thread may have once the producer gave its own up: no
// more than the workgroup holds at entry (setmaxnreg.inc would wait for them for ever),
// in setmaxnreg's multiples of 8.
int64_t registersGiven(int64_t consumers, int perSM, bool walksTiles) {
  const int64_t held = registersAtEntry(consumers, perSM) * (consumers + kWarpgroupThreads);
  const int64_t given = (held - kWarpgroupThreads * producerRegisters(consumers, walksTiles)) / consumers / 8 * 8;
  return std::min<int64_t>(given, kMaxRegisters);
}

// setmaxnreg's count for the computing threads, where it gives them more than the cap at
// entry.
std::optional<int32_t> consumerRegisters(int64_t consumers, int perSM, bool walksTiles) {
  const int64_t atEntry = registersAtEntry(consumers, perSM);
  const int64_t registers = registersGiven(consumers, perSM, walksTiles);
  if (registers <= atEntry || atEntry < producerRegisters(consumers, walksTiles)) return std::nullopt;
  return static_cast<int32_t>(registers);
}

}  // namespace

int specializedWorkgroupsPerSM(int64_t consumers, int64_t registersNeeded) {
  // (Two workgroups of more threads would start with fewer than 128 registers each, under
  // what ptxas needs for a wide wgmma's operands: "insufficient registers (80)".)
  return consumers <= kWarpgroupThreads && registersGiven(consumers, 2, /*walksTiles=*/false) >= registersNeeded
             ? 2
             : 1;
}

LogicalResult canSpecializeWarps(scf::ForOp loop, ArrayRef<TensorCopy> copies) {
  auto func = loop->getParentOfType<gpu::GPUFuncOp>();
  Operation* top = splitPoint(loop);
  if (!func || !func.getBody().hasOneBlock() || top->getBlock() != &func.getBody().front())
    return failure();  // the split takes the rest of the function from the loop on
  // Under a tile loop, the producer runs one loop's copies (two loops' would interleave;
  // copies outside loops, as attention's Q, stay with the computing warps).
  if (top != loop && top->walk([&](nvgpu::TmaAsyncLoadOp load) {
                           auto other = load->getParentOfType<scf::ForOp>();
                           return other && other != top && !loop->isAncestor(load) ? WalkResult::interrupt()
                                                                                   : WalkResult::advance();
                         }).wasInterrupted())
    return failure();
  const int64_t threads = blockThreads(func);
  if (threads == 0 || threads % kWarpgroupThreads != 0 || threads + kWarpgroupThreads > kMaxThreads) return failure();
  // What the producer uses from before the split stays outside the computing threads' part.
  FailureOr<llvm::SetVector<Operation*>> prologue = consumerPrologue(top);
  if (failed(prologue)) return failure();
  const llvm::SetVector<Operation*>& moved = *prologue;
  auto outside = [&](Value v) {
    Operation* def = v.getDefiningOp();
    return !def || !moved.contains(def);
  };
  FailureOr<ProducerInputs> inputs = producerInputs(loop, copies);
  if (failed(inputs) || !llvm::all_of(inputs->fromBefore, outside)) return failure();
  for (const TensorCopy& c : copies)
    if (!outside(c.barrier) || !llvm::any_of(c.barrier.getUsers(), [&](Operation* user) {
          return isa<nvgpu::MBarrierInitOp>(user) && !top->isAncestor(user);
        }))
      return failure();
  return success();
}

LogicalResult specializeWarps(scf::ForOp loop, ArrayRef<TensorCopy> copies, int stages, bool batchInFlight,
                              int perSM, int64_t spareBytes) {
  auto func = loop->getParentOfType<gpu::GPUFuncOp>();
  Operation* top = splitPoint(loop);
  const Location loc = loop.getLoc();
  const int64_t consumers = blockThreads(func);
  MLIRContext* ctx = loop.getContext();

  // The empty mbarriers, one per stage, made after the full ones, before the barrier that
  // publishes them.
  gpu::BarrierOp published = *barriersPublished(top);
  OpBuilder b(published);
  // (Initialized by the thread that initializes the full ones.)
  Value initializes = cast<nvgpu::MBarrierInitOp>(*llvm::find_if(copies.front().barrier.getUsers(), [&](Operation* user) {
                        return isa<nvgpu::MBarrierInitOp>(user) && !top->isAncestor(user);
                      })).getPredicate();
  auto fullType = cast<nvgpu::MBarrierGroupType>(copies.front().barrier.getType());
  Value empty =
      nvgpu::MBarrierCreateOp::create(b, loc, nvgpu::MBarrierGroupType::get(ctx, fullType.getMemorySpace(), stages));

  // The split: threads [0, consumers) compute, the new warpgroup produces.
  FailureOr<llvm::SetVector<Operation*>> prologue = consumerPrologue(top);
  // The tiles' own copies go to the producer where it can compute them.
  SmallVector<TileCopy> perTile = copiesPerTile(loop);
  FailureOr<ProducerInputs> inputs = producerInputs(loop, copies, perTile);
  auto beforeSplit = [&](Value v) { return !v.getDefiningOp() || !prologue->contains(v.getDefiningOp()); };
  if (!perTile.empty() && (failed(prologue) || failed(inputs) || !llvm::all_of(inputs->fromBefore, beforeSplit))) {
    perTile.clear();
    inputs = producerInputs(loop, copies);
  }
  Value tileBuffer;
  if (!perTile.empty() && (tileBuffer = doubleBufferTileCopies(enclosingTileLoop(loop), perTile, spareBytes)))
    inputs = producerInputs(loop, copies, perTile);  // (the copies' indices, more of the tile's arithmetic)
  if (failed(prologue) || failed(inputs))  // (canSpecializeWarps said it could)
    return loop.emitError("cannot split the loop between a producer warpgroup and the computing warps");
  AcquireFirst acquire;
  if (scf::ForOp tiles = enclosingTileLoop(loop))
    acquire.eachTile = llvm::any_of(
        llvm::make_range(tiles.getBody()->begin(), tiles.getBody()->findAncestorOpInBlock(*loop)->getIterator()),
        [](Operation& op) { return acquires(&op); });
  if (acquire.eachTile || llvm::any_of(*prologue, acquires)) {
    OpBuilder at(published);
    acquire.ready =
        nvgpu::MBarrierCreateOp::create(at, loc, nvgpu::MBarrierGroupType::get(ctx, fullType.getMemorySpace(), 1));
  }
  // Released by the computing warps once the tile's loop is done with them.
  Value tileEmpty;
  if (!perTile.empty()) {
    OpBuilder at(published);
    tileEmpty = nvgpu::MBarrierCreateOp::create(
        at, loc, nvgpu::MBarrierGroupType::get(ctx, fullType.getMemorySpace(), tileBuffer ? 2 : 1));
  }
  b.setInsertionPoint(top);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value computes = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, index(b, loc, consumers));
  auto roles = scf::IfOp::create(b, loc, TypeRange{}, computes, /*withElseRegion=*/true);
  roles->setAttr(kConsumerThreadsAttr, b.getI64IntegerAttr(consumers));
  Block* consumer = roles.thenBlock();
  Block* entry = top->getBlock();
  for (Operation* op : *prologue) op->moveBefore(consumer->getTerminator());
  consumer->getOperations().splice(consumer->getTerminator()->getIterator(), entry->getOperations(),
                                   top->getIterator(), entry->getTerminator()->getIterator());
  // Their barriers are of their threads alone: the producer never reaches them.
  consumer->walk([&](gpu::BarrierOp barrier) {
    OpBuilder at(barrier);
    createConsumerBarrier(at, barrier.getLoc(), consumers);
    barrier.erase();
  });

  const bool walksTiles = static_cast<bool>(enclosingTileLoop(loop));
  std::optional<int32_t> registers = consumerRegisters(consumers, perSM, walksTiles);
  if (registers) {
    // ptxas honours setmaxnreg only under a register cap at entry, which this sets.
    func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(perSM));
    OpBuilder at = OpBuilder::atBlockBegin(consumer);
    NVVM::SetMaxRegisterOp::create(at, loc, *registers, NVVM::SetMaxRegisterAction::increase);
  }
  b.setInsertionPoint(roles.elseBlock()->getTerminator());
  if (registers)
    NVVM::SetMaxRegisterOp::create(b, loc, producerRegisters(consumers, walksTiles),
                                   NVVM::SetMaxRegisterAction::decrease);
  buildProducer(b, loop, copies, *inputs, empty, tid, consumers, stages, perTile, tileEmpty, tileBuffer, acquire);
  if (acquire.ready) {
    // Every computing thread, past its own acquires (before the loop in each tile, or
    // past the prologue before the split).
    OpBuilder at(acquire.eachTile ? loop.getOperation() : top);
    nvgpu::MBarrierArriveOp::create(at, loc, acquire.ready, index(at, loc, 0));
  }
  // The consumers' tile without its own copies and their loop without theirs (and the
  // views and arithmetic only those used); they keep their waits.
  SmallVector<Operation*> tileRoots;
  for (const TileCopy& c : perTile) llvm::append_range(tileRoots, c.issue);
  if (!tileRoots.empty()) eraseUnused(orderedSlice(loop->getBlock(), tileRoots));
  eraseUnused(issueSlice(loop, copies));
  // Each stage's empty mbarrier completes a phase when every computing thread released it,
  // or where wgmma alone reads the tiles, the first thread of each warpgroup (one arrival
  // instead of 128 on the same word).
  const bool perWarpgroup = readsOnlyByWarpgroupMma(loop);
  b.setInsertionPoint(published);
  Value count = index(b, loc, perWarpgroup ? consumers / kWarpgroupThreads : consumers);
  for (int stage = 0; stage < stages; ++stage)
    nvgpu::MBarrierInitOp::create(b, loc, empty, count, index(b, loc, stage), initializes);
  for (int copy = 0; tileEmpty && copy < (tileBuffer ? 2 : 1); ++copy)
    nvgpu::MBarrierInitOp::create(b, loc, tileEmpty, count, index(b, loc, copy), initializes);
  if (acquire.ready)
    nvgpu::MBarrierInitOp::create(b, loc, acquire.ready, index(b, loc, consumers), index(b, loc, 0), initializes);
  Value arrives;
  if (perWarpgroup) {
    b.setInsertionPoint(loop);
    Value lane = arith::RemUIOp::create(b, loc, tid, index(b, loc, kWarpgroupThreads));
    arrives = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(b, loc, 0));
  }
  releaseStages(loop, empty, arrives, stages, batchInFlight);
  if (tileEmpty) {
    // After the loop (and the wait for its last wgmma batch, which keepBatchesInFlight
    // puts right after it), nothing reads the tile's copies again.
    b.setInsertionPointAfter(loop);
    arriveIf(b, loc, arrives, tileEmpty, tileBuffer ? tileBuffer : index(b, loc, 0));
  }
  func.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(ctx, {static_cast<int32_t>(consumers + kWarpgroupThreads), 1, 1}));
  return success();
}

}  // namespace wave::jit::shared_copies
