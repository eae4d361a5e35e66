//===- ScheduleTilesDynamically.cpp - a persistent grid's tiles handed out at run time -===//
//
// A persistent grid's workgroups loop over the tiles (analysis/TileLoop.h). The static
// schedule gives each the tiles of its places in rounds; where tiles differ in length
// (causal attention's query tiles see from one key tile to all), the workgroups' sums
// differ too and the launch waits for the longest. Under warp specialization the producer
// thread hands them out instead: it takes each next tile from a counter in global memory
// (atom.inc, which wraps to zero at the launch's last tile, so that the next launch finds
// it zero) and passes it to the computing warps through one of two slots of shared memory,
// each with a "full" and an "empty" mbarrier. Both tile loops become `scf.while` loops
// that stop at the first index past the tiles. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "transforms/ConsumerThreads.h"
#include "transforms/Passes.h"

#include "analysis/TileLoop.h"
#include "dialect/WaveOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVESCHEDULETILESDYNAMICALLY
#include "transforms/Passes.h.inc"

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kSlotsName = "wave_tile_slots";
constexpr int64_t kSlots = 2;  // the producer may run one tile ahead of the computing warps

Value index(OpBuilder& b, Location loc, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

dialect::ScheduledTileOp scheduledTileIn(scf::ForOp loop) {
  for (auto tile : loop.getBody()->getOps<dialect::ScheduledTileOp>()) return tile;
  return {};
}

// The loop over tiles `region` holds (at any depth), or null.
scf::ForOp tileLoopIn(Region& region) {
  scf::ForOp found;
  region.walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kTileLoopAttr)) return WalkResult::advance();
    found = loop;
    return WalkResult::interrupt();
  });
  return found;
}

// Whether `loop` counts from 0 by 1, so that its induction variable is its trip.
bool countsTrips(scf::ForOp loop) {
  return matchPattern(loop.getLowerBound(), m_Zero()) && matchPattern(loop.getStep(), m_One());
}

// What the hand-out needs of a specialized function: its split between the computing
// threads and the producer, their tile loops, the tile count and the counter.
struct TileLoops {
  scf::IfOp roles;
  scf::ForOp consumer, producer;
  Value tiles, counter;
};

std::optional<TileLoops> specializedTileLoops(gpu::GPUFuncOp func) {
  TileLoops t;
  for (auto roles : func.getBody().front().getOps<scf::IfOp>())
    if (roles->hasAttr(kConsumerThreadsAttr)) t.roles = roles;
  if (!t.roles || t.roles.getElseRegion().empty()) return std::nullopt;
  for (auto loop : t.roles.thenBlock()->getOps<scf::ForOp>())
    if (loop->hasAttr(kTileLoopAttr)) t.consumer = loop;
  t.producer = tileLoopIn(t.roles.getElseRegion());
  if (!t.consumer || !t.producer || !countsTrips(t.consumer) || !countsTrips(t.producer)) return std::nullopt;
  dialect::ScheduledTileOp tile = scheduledTileIn(t.consumer);
  if (!tile || !tile.getCounter()) return std::nullopt;
  t.tiles = tile.getTiles();
  t.counter = tile.getCounter();
  // (Both loops see them: made before the split.)
  for (Value v : {t.tiles, t.counter})
    if (t.roles->isAncestor(v.getParentBlock()->getParentOp())) return std::nullopt;
  return t;
}

// The slots and their mbarriers, made and initialized beside the function's others,
// before the barrier that publishes them.
struct Handover {
  Value slots, full, empty;
};

FailureOr<Handover> createHandover(gpu::GPUFuncOp func, int64_t consumers) {
  Block& entry = func.getBody().front();
  FailureOr<MBarrierSetUp> setUp = mbarrierSetUp(entry, entry.end());
  if (failed(setUp)) return failure();
  nvgpu::MBarrierInitOp lastInit = setUp->lastInit;
  MLIRContext* ctx = func.getContext();
  const Location loc = func.getLoc();
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto slotsType = MemRefType::get({kSlots}, IntegerType::get(ctx, 32), AffineMap(), workgroup);
  auto module = func->getParentOfType<gpu::GPUModuleOp>();
  if (!module.lookupSymbol(kSlotsName)) {
    OpBuilder at = OpBuilder::atBlockBegin(module.getBody());
    memref::GlobalOp::create(at, loc, kSlotsName, at.getStringAttr("private"), slotsType, Attribute(),
                             /*constant=*/false, IntegerAttr());
  }
  OpBuilder b(setUp->published);
  Handover h;
  h.slots = memref::GetGlobalOp::create(b, loc, slotsType, kSlotsName);
  auto group = nvgpu::MBarrierGroupType::get(ctx, workgroup, kSlots);
  h.full = nvgpu::MBarrierCreateOp::create(b, loc, group);
  h.empty = nvgpu::MBarrierCreateOp::create(b, loc, group);
  for (int64_t slot = 0; slot < kSlots; ++slot) {
    // A slot is full once the producer stored a tile in it, empty once every computing
    // thread read it.
    nvgpu::MBarrierInitOp::create(b, loc, h.full, index(b, loc, 1), index(b, loc, slot), lastInit.getPredicate());
    nvgpu::MBarrierInitOp::create(b, loc, h.empty, index(b, loc, consumers), index(b, loc, slot),
                                  lastInit.getPredicate());
  }
  return h;
}

// The slot of the `count`th tile a workgroup runs, and the parity of that slot's phase.
std::pair<Value, Value> slotOf(OpBuilder& b, Location loc, Value count) {
  Value slot = arith::RemUIOp::create(b, loc, count, index(b, loc, kSlots));
  Value round = arith::DivUIOp::create(b, loc, count, index(b, loc, kSlots));
  return {slot, parityOf(b, loc, round)};
}

void waitFor(OpBuilder& b, Location loc, Value barriers, Value slot, Value parity) {
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, parity, index(b, loc, kMBarrierWaitTicks), slot);
}

// Replaces the tile loop `loop` by a `scf.while` over (tile, count, loop's iteration
// arguments): `before` builds, from the count and the tile the last trip yielded, the
// tile this trip runs (a trip runs where it is below `tiles`); `next` the tile the
// following trip starts from, built at the top of the body. The induction variable is
// the count (both count from 0 by 1), the body's scheduled tile this trip's.
void becomeWhile(scf::ForOp loop, Value firstTile, Value tiles,
                 function_ref<Value(OpBuilder&, Location, Value count, Value lastTile)> before,
                 function_ref<Value(OpBuilder&, Location)> next) {
  const Location loc = loop.getLoc();
  OpBuilder b(loop);
  SmallVector<Value> inits{firstTile, index(b, loc, 0)};
  llvm::append_range(inits, loop.getInitArgs());
  SmallVector<Type> types = llvm::to_vector(ValueRange(inits).getTypes());
  SmallVector<Location> locs(types.size(), loc);
  auto whileOp = scf::WhileOp::create(b, loc, types, inits);
  Block* cond = b.createBlock(&whileOp.getBefore(), {}, types, locs);
  Value tile = before(b, loc, cond->getArgument(1), cond->getArgument(0));
  Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tile, tiles);
  SmallVector<Value> forwarded{tile};
  llvm::append_range(forwarded, cond->getArguments().drop_front());
  scf::ConditionOp::create(b, loc, runs, forwarded);

  Block* body = b.createBlock(&whileOp.getAfter(), {}, types, locs);
  Value following = next ? next(b, loc) : body->getArgument(0);
  Block* old = loop.getBody();
  loop.getInductionVar().replaceAllUsesWith(body->getArgument(1));
  for (auto [arg, replacement] : llvm::zip(loop.getRegionIterArgs(), body->getArguments().drop_front(2)))
    arg.replaceAllUsesWith(replacement);
  if (dialect::ScheduledTileOp scheduled = scheduledTileIn(loop)) {
    scheduled.getResult().replaceAllUsesWith(body->getArgument(0));
    scheduled.erase();
  }
  // (The loops' trips in earlier tiles are the while's arguments now: their marks, which
  // name the tile loop's, go.)
  for (Operation& op : *old) op.removeAttr(kTripBaseAttr);
  auto yield = cast<scf::YieldOp>(old->getTerminator());
  body->getOperations().splice(body->end(), old->getOperations(), old->begin(), yield->getIterator());
  b.setInsertionPointToEnd(body);
  SmallVector<Value> yielded{following,
                             arith::AddIOp::create(b, loc, body->getArgument(1), index(b, loc, 1)).getResult()};
  llvm::append_range(yielded, yield.getOperands());
  scf::YieldOp::create(b, loc, yielded);
  loop.replaceAllUsesWith(whileOp.getResults().drop_front(2));
  loop.erase();
}

void scheduleDynamically(TileLoops t, Handover h) {
  // The producer thread: each trip publishes its tile in the next slot once the computing
  // warps emptied it (the fresh mbarriers' previous phase counts as complete), and the
  // first thing a trip that runs does is take the tile after it from the counter, which
  // the launch's last fetch wraps to zero. The first tiles are the workgroups' own.
  OpBuilder b(t.producer);
  const Location loc = t.producer.getLoc();
  Value first = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value workgroups = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value i32Tiles = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), t.tiles);
  Value lastTile = arith::SubIOp::create(b, loc, i32Tiles, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
  becomeWhile(
      t.producer, first, t.tiles,
      [&](OpBuilder& b, Location loc, Value count, Value tile) {
        auto [slot, parity] = slotOf(b, loc, count);
        Value emptied = arith::XOrIOp::create(b, loc, parity, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
        waitFor(b, loc, h.empty, slot, emptied);
        memref::StoreOp::create(b, loc, arith::IndexCastUIOp::create(b, loc, b.getI32Type(), tile), h.slots, slot);
        nvgpu::MBarrierArriveOp::create(b, loc, h.full, slot);  // (a release: the store is seen at the wait)
        return tile;
      },
      [&](OpBuilder& b, Location loc) {
        Value fetched = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::uinc_wrap, t.counter, lastTile,
                                                  LLVM::AtomicOrdering::monotonic);
        Value taken = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), fetched);
        return arith::AddIOp::create(b, loc, taken, workgroups).getResult();
      });
  // The computing threads: each trip waits for its slot, reads the tile and empties it.
  b.setInsertionPoint(t.consumer);
  becomeWhile(
      t.consumer, index(b, loc, 0), t.tiles,
      [&](OpBuilder& b, Location loc, Value count, Value) {
        auto [slot, parity] = slotOf(b, loc, count);
        waitFor(b, loc, h.full, slot, parity);
        Value tile = memref::LoadOp::create(b, loc, h.slots, slot);
        nvgpu::MBarrierArriveOp::create(b, loc, h.empty, slot);
        return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), tile).getResult();
      },
      nullptr);
}

struct WaveScheduleTilesDynamicallyPass : impl::WaveScheduleTilesDynamicallyBase<WaveScheduleTilesDynamicallyPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    if (std::optional<TileLoops> loops = specializedTileLoops(func)) {
      const int64_t consumers = loops->roles->getAttrOfType<IntegerAttr>(kConsumerThreadsAttr).getInt();
      FailureOr<Handover> handover = createHandover(func, consumers);
      if (succeeded(handover)) scheduleDynamically(*loops, *handover);
    }
    // Elsewhere, the static schedule's tiles.
    func.walk([](dialect::ScheduledTileOp tile) {
      tile.getResult().replaceAllUsesWith(tile.getStaticTile());
      tile.erase();
    });
  }
};

}  // namespace

}  // namespace wave::jit
