//===- DistributeStreamK.cpp - a persistent grid's last rounds split by trips ---===//
//
// Stream-K (DistributionOptions::streamK): where a persistent grid's tiles fill at most
// half its last round, that round and the one before it are not run tile by tile: their
// trips of the kernel's summing loop are shared out evenly, each workgroup walking a
// contiguous run of them across tile boundaries. The rounds before stay whole tiles (no
// extra work there). A grid with fewer tiles than workgroups (a skinny GEMM's) is one such
// round, its tiles split in equal parts (split-K), at most one per kMinTripsPerPart of a
// tile's trips so that each part still pipelines its loads. A workgroup's run meets a tile
// in a segment of its trips; a segment short of the tile adds its sums to the tile's slot
// of a workspace (red.add, the parts at once) and its trip count to the tile's counter;
// the one whose add completes the count is the last: it takes the slot's sums, zeroes the
// slot and runs the rest of the body (the epilogue), which the others skip. A part that
// finds the others all counted before it adds is the last already and keeps its sums to
// itself. Nobody waits for anybody, so the grid need not be resident all at once, and the
// counters and slots return to zero for the next launch.
//
// The workspace (one kernel parameter, allocated and zeroed by the runtime, see
// `wave.stream_k_slot_bytes`): 16 bytes per workgroup of counters (one i32 per split tile:
// the last two rounds hold at most one and a half tiles per workgroup), then two slots per
// workgroup (one per split tile), each the workgroup's registers of the loop's results,
// laid out so that a warp's 16-byte chunks are contiguous.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit::distribution {

namespace {

constexpr int64_t kChunkBytes = 16;
// The last part's loads of a slot in flight at once (16-byte chunks): 16 (64 registers)
// beside sums of at most 128 registers a thread, else 8.
int64_t chunksAtOnce(int64_t sumBytesPerThread) { return sumBytesPerThread <= 512 ? 16 : 8; }
constexpr int64_t kCounterBytesPerWorkgroup = 16;
// The fewest trips a part of a split tile walks (where the tile has that many): fewer
// would leave its software pipeline mostly filling and draining.
constexpr int64_t kMinTripsPerPart = 8;
constexpr llvm::StringLiteral kLastFlag = "__wave_stream_k_last";

int64_t bytesOf(VectorType type) {
  return type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

// Elements per store of a vector of `type`: a 16-byte chunk where they divide it, else one.
int64_t chunkOf(VectorType type) {
  const int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  const int64_t perChunk = kChunkBytes / bytes;
  return type.getNumElements() % perChunk == 0 ? perChunk : 1;
}

// Where workgroup `w`'s share of `trips` split trips starts: w * trips / workgroups.
Value shareStart(OpBuilder& b, Location loc, Value w, Value trips, Value workgroups) {
  return arith::DivUIOp::create(b, loc, arith::MulIOp::create(b, loc, w, trips), workgroups);
}

// Whether `op` writes memory other than the workgroup's own tiles (wave.allocate's), or
// sets a dim's end.
bool writesOutside(Operation* op) {
  if (auto write = dyn_cast<dialect::WriteOp>(op)) return !write.getMemory().getDefiningOp<dialect::AllocateOp>();
  return isa<dialect::PrintOp, dialect::SetSymbolOp>(op);
}

}  // namespace

dialect::IterateOp Distributor::streamKLoop() {
  if (!options_.streamK || !persistent_) return {};
  dialect::IterateOp split;
  for (Operation& op : kernel_.getBody().front()) {
    if (auto loop = dyn_cast<dialect::IterateOp>(op)) {
      if (split) return {};  // one loop only: the segments are of its trips
      split = loop;
      continue;
    }
    // A segment runs what comes before the loop again: nothing may be written twice.
    if (!split && writesOutside(&op)) return {};
  }
  if (!split || split.getIterArgs().empty() || split.getEndAttr() || split.getWaveFoldsAttr()) return {};
  const DimTiling& tiling = grid_.tiling(split.getDim());
  if (!tiling.loop || tiling.splitTile) return {};
  // Its trips the same in every tile (no end set at run time), nothing written per trip
  // but its shared tiles.
  const bool other = kernel_.walk([&](Operation* op) {
                               const bool writes = split->isAncestor(op) && writesOutside(op);
                               return writes || isa<dialect::SetSymbolOp>(op) ? WalkResult::interrupt()
                                                                              : WalkResult::advance();
                             }).wasInterrupted();
  if (other || firstNonSum(split)) return {};
  return split;
}

Value Distributor::openStreamK(dialect::IterateOp loop, Value tiles, Value workgroup, Value workgroups,
                               Value wholeTiles) {
  StreamK s;
  s.loop = loop;
  s.workgroup = workgroup;
  s.workgroups = workgroups;
  // The workspace: a parameter after the tensors' (before any tensor map's). (Where it
  // cannot be added, the plain persistent rounds.)
  MLIRContext* ctx = b_.getContext();
  const unsigned position = func_.getNumArguments();
  if (failed(func_.insertArgument(position, LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/1), DictionaryAttr(),
                                  loc_)))
    return wholeTiles;
  s.workspace = func_.getArgument(position);
  // (The loop's dim is one of the grid's: its size was taken with theirs.)
  s.tripsPerTile =
      arith::CeilDivUIOp::create(b_, loc_, sizes_.lookup(loop.getDim()), index(grid_.tiling(loop.getDim()).blockTile));
  // Split where the last round is at most half full (a fuller one loses less than the
  // parts' exchange costs: 128 KiB stored and loaded per part of a 128 x 256 f32 tile):
  // whole rounds but the last two, the rest by trips; else whole rounds throughout.
  Value rounds = arith::DivUIOp::create(b_, loc_, tiles, workgroups);
  Value left = arith::RemUIOp::create(b_, loc_, tiles, workgroups);
  s.splits = arith::AndIOp::create(
      b_, loc_, arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne, left, index(0)),
      arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ule, arith::MulIOp::create(b_, loc_, left, index(2)),
                            workgroups));
  Value fewer = arith::SubIOp::create(b_, loc_, arith::MaxUIOp::create(b_, loc_, rounds, index(1)), index(1));
  s.fullRounds = arith::SelectOp::create(b_, loc_, s.splits, fewer, rounds);
  // The split trips, and this workgroup's share [first, last) of them.
  Value splitTiles = arith::SelectOp::create(
      b_, loc_, s.splits,
      arith::SubIOp::create(b_, loc_, tiles, arith::MulIOp::create(b_, loc_, s.fullRounds, workgroups)), index(0));
  s.trips = arith::MulIOp::create(b_, loc_, splitTiles, s.tripsPerTile);
  // The workgroups that share them: where there are fewer tiles than workgroups, the same
  // number of parts per tile, so that no share crosses a tile (one segment each, one
  // exchange); at most one part per kMinTripsPerPart trips of a tile; at least one
  // workgroup (for the divisions). The others have none.
  Value perTile = arith::MinUIOp::create(
      b_, loc_, arith::DivUIOp::create(b_, loc_, workgroups, arith::MaxUIOp::create(b_, loc_, splitTiles, index(1))),
      arith::DivUIOp::create(b_, loc_, s.tripsPerTile, index(kMinTripsPerPart)));
  Value parts = arith::MaxUIOp::create(b_, loc_, perTile, index(1));
  s.sharers = arith::MaxUIOp::create(
      b_, loc_, arith::MinUIOp::create(b_, loc_, workgroups, arith::MulIOp::create(b_, loc_, splitTiles, parts)),
      index(1));
  s.first = shareStart(b_, loc_, arith::MinUIOp::create(b_, loc_, workgroup, s.sharers), s.trips, s.sharers);
  s.last = shareStart(b_, loc_,
                      arith::MinUIOp::create(b_, loc_, arith::AddIOp::create(b_, loc_, workgroup, index(1)), s.sharers),
                      s.trips, s.sharers);
  // Its segments: one per tile the share meets.
  Value any = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ult, s.first, s.last);
  Value firstTile = arith::DivUIOp::create(b_, loc_, s.first, s.tripsPerTile);
  Value endTile = arith::CeilDivUIOp::create(b_, loc_, s.last, s.tripsPerTile);
  Value segments = arith::SelectOp::create(b_, loc_, any, arith::SubIOp::create(b_, loc_, endTile, firstTile), index(0));
  streamK_ = s;
  return arith::SelectOp::create(b_, loc_, s.splits, arith::AddIOp::create(b_, loc_, s.fullRounds, segments),
                                 wholeTiles);
}

Value Distributor::streamKTile(Value unit, Value roundTile) {
  StreamK& s = *streamK_;
  s.unit = unit;
  Value split = arith::AndIOp::create(b_, loc_, s.splits,
                                      arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::uge, unit, s.fullRounds));
  Value segment = arith::SelectOp::create(b_, loc_, split, arith::SubIOp::create(b_, loc_, unit, s.fullRounds), index(0));
  s.tile = arith::AddIOp::create(b_, loc_, arith::DivUIOp::create(b_, loc_, s.first, s.tripsPerTile), segment);
  Value tileStart = arith::MulIOp::create(b_, loc_, s.tile, s.tripsPerTile);
  Value tileEnd = arith::AddIOp::create(b_, loc_, tileStart, s.tripsPerTile);
  Value begin = arith::SubIOp::create(b_, loc_, arith::MaxUIOp::create(b_, loc_, s.first, tileStart), tileStart);
  Value end = arith::SubIOp::create(b_, loc_, arith::MinUIOp::create(b_, loc_, s.last, tileEnd), tileStart);
  s.begin = arith::SelectOp::create(b_, loc_, split, begin, index(0));
  s.end = arith::SelectOp::create(b_, loc_, split, end, s.tripsPerTile);
  Value splitTile = arith::AddIOp::create(b_, loc_, arith::MulIOp::create(b_, loc_, s.fullRounds, s.workgroups), s.tile);
  return arith::SelectOp::create(b_, loc_, split, splitTile, roundTile);
}

Value Distributor::workspaceAt(Value offset) {
  Value bytes = arith::IndexCastOp::create(b_, loc_, b_.getI64Type(), offset);
  return LLVM::GEPOp::create(b_, loc_, streamK_->workspace.getType(), b_.getI8Type(), streamK_->workspace,
                             ValueRange{bytes});
}

void Distributor::combineStreamKParts(dialect::IterateOp loop) {
  StreamK& s = *streamK_;
  const int64_t threads = grid_.threads();
  // A slot: per result, per chunk, the threads' chunks in a row.
  SmallVector<Value> sums;
  SmallVector<Type> types;
  SmallVector<int64_t> offsets;
  int64_t slotBytes = 0;
  for (Value result : loop.getResults()) {
    sums.push_back(lookup(result));
    types.push_back(sums.back().getType());
    offsets.push_back(slotBytes);
    slotBytes += llvm::alignTo(bytesOf(cast<VectorType>(types.back())) * threads, kChunkBytes);
  }
  func_->setAttr("wave.stream_k_slot_bytes", b_.getI64IntegerAttr(slotBytes));
  Value thread = arith::AddIOp::create(b_, loc_, arith::MulIOp::create(b_, loc_, wave_, index(grid_.waves.lanes)), lane_);
  // The tile's slot, after the counters.
  Value counters = arith::MulIOp::create(b_, loc_, s.workgroups, index(kCounterBytesPerWorkgroup));
  Value slot = arith::AddIOp::create(b_, loc_, counters, arith::MulIOp::create(b_, loc_, s.tile, index(slotBytes)));
  // Each chunk of each sum in the slot: its elements [from, from + chunk) of sum k, at `at`.
  auto eachChunk = [&](function_ref<void(size_t, int64_t, int64_t, Value)> visit) {
    for (auto [k, type] : llvm::enumerate(types)) {
      auto vector = cast<VectorType>(type);
      const int64_t chunk = chunkOf(vector);
      const int64_t chunkBytes = bytesOf(vector) / vector.getNumElements() * chunk;
      for (int64_t c = 0; c < vector.getNumElements() / chunk; ++c) {
        Value at = arith::AddIOp::create(
            b_, loc_, slot,
            arith::MulIOp::create(b_, loc_, arith::AddIOp::create(b_, loc_, index(c * threads), thread),
                                  index(chunkBytes)));
        visit(k, c * chunk, chunk, workspaceAt(arith::AddIOp::create(b_, loc_, at, index(offsets[k]))));
      }
    }
  };
  auto chunkType = [&](size_t k, int64_t chunk) -> Type {
    Type element = cast<VectorType>(types[k]).getElementType();
    return chunk == 1 ? element : VectorType::get({chunk}, element);
  };
  // Elements [from, from + chunk) of `v`, and `v` with them replaced by `part`.
  auto chunkOfValue = [&](Value v, int64_t from, int64_t chunk) -> Value {
    if (chunk == 1) return vector::ExtractOp::create(b_, loc_, v, ArrayRef<int64_t>{from});
    return vector::ExtractStridedSliceOp::create(b_, loc_, v, ArrayRef<int64_t>{from}, ArrayRef<int64_t>{chunk},
                                                 ArrayRef<int64_t>{1});
  };
  auto withChunk = [&](Value v, Value part, int64_t from, int64_t chunk) -> Value {
    if (chunk == 1) return vector::InsertOp::create(b_, loc_, part, v, ArrayRef<int64_t>{from});
    return vector::InsertStridedSliceOp::create(b_, loc_, part, v, ArrayRef<int64_t>{from}, ArrayRef<int64_t>{1});
  };
  // A chunk added to the slot: one vector red.global.add where the target has it, else
  // an atomic add per element (relaxed: the count's release orders them).
  auto addToSlot = [&](Value part, Value at) {
    if (addsAsOneVector(part.getType())) {
      addVectorAt(LLVM::PtrToIntOp::create(b_, loc_, b_.getI64Type(), at), part, /*systemScope=*/false);
      return;
    }
    auto vector = dyn_cast<VectorType>(part.getType());
    const int64_t n = vector ? vector.getNumElements() : 1;
    Type element = getElementTypeOrSelf(part);
    const int64_t bytes = std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
    for (int64_t e = 0; e < n; ++e) {
      Value v = vector ? vector::ExtractOp::create(b_, loc_, part, e).getResult() : part;
      Value address = LLVM::GEPOp::create(b_, loc_, at.getType(), b_.getI8Type(), at,
                                          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(e * bytes)});
      LLVM::AtomicRMWOp::create(b_, loc_, isa<FloatType>(element) ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add,
                                address, v, LLVM::AtomicOrdering::monotonic, options_.deviceScope);
    }
  };

  Value shortOfTile = arith::OrIOp::create(
      b_, loc_, arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne, s.begin, index(0)),
      arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne, s.end, s.tripsPerTile));
  SmallVector<Type> withFlag(types);
  withFlag.push_back(b_.getI1Type());
  auto parts = scf::IfOp::create(b_, loc_, withFlag, shortOfTile, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(parts.elseBlock());
    SmallVector<Value> whole(sums);
    whole.push_back(arith::ConstantIntOp::create(b_, loc_, 1, 1));
    scf::YieldOp::create(b_, loc_, whole);

    b_.setInsertionPointToStart(parts.thenBlock());
    auto workgroupMemory = gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup);
    auto flagType = MemRefType::get({1}, b_.getI32Type(), AffineMap(), workgroupMemory);
    auto module = func_->getParentOfType<gpu::GPUModuleOp>();
    if (!module.lookupSymbol(kLastFlag)) {
      OpBuilder at = OpBuilder::atBlockBegin(module.getBody());
      memref::GlobalOp::create(at, loc_, kLastFlag, at.getStringAttr("private"), flagType, Attribute(),
                               /*constant=*/false, IntegerAttr());
    }
    Value flag = memref::GetGlobalOp::create(b_, loc_, flagType, kLastFlag);
    auto setFlag = [&](Value set) {
      memref::StoreOp::create(b_, loc_, arith::ExtUIOp::create(b_, loc_, b_.getI32Type(), set), flag,
                              ValueRange{index(0)});
    };
    auto flagSet = [&] {
      return arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne,
                                   memref::LoadOp::create(b_, loc_, flag, ValueRange{index(0)}),
                                   arith::ConstantIntOp::create(b_, loc_, b_.getI32Type(), 0))
          .getResult();
    };
    Value counter = workspaceAt(arith::MulIOp::create(b_, loc_, s.tile, index(4)));
    Type i32 = b_.getI32Type();
    Value trips = arith::IndexCastOp::create(b_, loc_, i32, arith::SubIOp::create(b_, loc_, s.end, s.begin));
    Value total = arith::IndexCastOp::create(b_, loc_, i32, s.tripsPerTile);
    auto completes = [&](Value before) {
      return arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, arith::AddIOp::create(b_, loc_, before, trips),
                                   total)
          .getResult();
    };
    // Peek: the others' trips all counted already (acquire: their sums are in the slot).
    // (The barrier first: the flag may still be read for the workgroup's previous tile.)
    gpu::BarrierOp::create(b_, loc_);
    ifThen(isLeader(), [&] {
      setFlag(completes(LLVM::LoadOp::create(b_, loc_, i32, counter, /*alignment=*/4, /*isVolatile=*/false,
                                             /*isNonTemporal=*/false, /*isInvariant=*/false,
                                             /*isInvariantGroup=*/false, LLVM::AtomicOrdering::acquire,
                                             options_.deviceScope)));
    });
    gpu::BarrierOp::create(b_, loc_);
    Value lastAlready = flagSet();
    auto count = scf::IfOp::create(b_, loc_, TypeRange{}, lastAlready, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard inner(b_);
      b_.setInsertionPoint(count.elseBlock()->getTerminator());
      // The sums into the slot, every thread's before the count (release), the count by
      // one thread.
      eachChunk([&](size_t k, int64_t from, int64_t chunk, Value at) {
        addToSlot(chunkOfValue(sums[k], from, chunk), at);
      });
      LLVM::FenceOp::create(b_, loc_, LLVM::AtomicOrdering::release, options_.deviceScope);
      gpu::BarrierOp::create(b_, loc_);
      ifThen(isLeader(), [&] {
        setFlag(completes(LLVM::AtomicRMWOp::create(b_, loc_, LLVM::AtomicBinOp::add, counter, trips,
                                                    LLVM::AtomicOrdering::acq_rel, options_.deviceScope)));
      });
    }
    // The count back to zero for the next launch (no part of this one adds to it now).
    ifThen(isLeader(), [&] {
      ifThen(flagSet(), [&] {
        LLVM::StoreOp::create(b_, loc_, arith::ConstantIntOp::create(b_, loc_, i32, 0), counter, 4);
      });
    });
    gpu::BarrierOp::create(b_, loc_);
    Value last = flagSet();
    auto adds = scf::IfOp::create(b_, loc_, types, last, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard inner(b_);
      b_.setInsertionPointToStart(adds.elseBlock());
      scf::YieldOp::create(b_, loc_, sums);
      b_.setInsertionPointToStart(adds.thenBlock());
      LLVM::FenceOp::create(b_, loc_, LLVM::AtomicOrdering::acquire, options_.deviceScope);
      // The slot's sums: the others' (this part's added to them where it counted itself),
      // loaded chunksAtOnce at a time (as many loads in flight as the registers allow),
      // each group's chunks then zeroed for the next launch. (Two branches: one select
      // between own + slot and slot keeps twice the registers live.)
      auto takeSlot = [&](bool addOwn) {
        SmallVector<Value> taken(sums);
        SmallVector<std::pair<Value, Type>> zeroes;
        int64_t loaded = 0;
        auto zero = [&] {
          for (auto [at, type] : zeroes)
            LLVM::StoreOp::create(b_, loc_, arith::ConstantOp::create(b_, loc_, type, b_.getZeroAttr(type)), at,
                                  isa<VectorType>(type) ? kChunkBytes : 0);
          zeroes.clear();
        };
        eachChunk([&](size_t k, int64_t from, int64_t chunk, Value at) {
          Type type = chunkType(k, chunk);
          // (Volatile: from L2, never a line this SM's L1 kept from an earlier launch.)
          Value part = LLVM::LoadOp::create(b_, loc_, type, at, chunk == 1 ? 0 : kChunkBytes, /*isVolatile=*/true);
          if (addOwn) part = binary<arith::AddFOp, arith::AddIOp>(b_, loc_, chunkOfValue(taken[k], from, chunk), part);
          taken[k] = withChunk(taken[k], part, from, chunk);
          zeroes.emplace_back(at, type);
          if (++loaded % chunksAtOnce(slotBytes / threads) == 0) zero();
        });
        zero();
        scf::YieldOp::create(b_, loc_, taken);
      };
      auto take = scf::IfOp::create(b_, loc_, types, lastAlready, /*withElseRegion=*/true);
      b_.setInsertionPointToStart(take.thenBlock());
      takeSlot(/*addOwn=*/true);
      b_.setInsertionPointToStart(take.elseBlock());
      takeSlot(/*addOwn=*/false);
      b_.setInsertionPointAfter(take);
      scf::YieldOp::create(b_, loc_, take.getResults());
    }
    SmallVector<Value> combined(adds.getResults());
    combined.push_back(last);
    scf::YieldOp::create(b_, loc_, combined);
  }
  for (auto [result, value] : llvm::zip(loop.getResults(), parts.getResults())) values_[result] = value;
  // The rest of the tile's body where its sums are whole.
  s.rest = scf::IfOp::create(b_, loc_, TypeRange{}, parts.getResults().back(), /*withElseRegion=*/false);
  b_.setInsertionPoint(s.rest.thenBlock()->getTerminator());
}

}  // namespace wave::jit::distribution
