//===- Distributor.h - the state the per-op distribution shares --*- C++ -*-===//
//
// The lowering of a kernel whose values carry layouts into per-thread vector code
// (DistributeKernel.cpp has the overview): one Distributor per kernel holds what every
// op's lowering shares (each value's registers, the thread's lane and wave, the
// workgroup's offsets and sizes, shared memory), and its members lower the op families,
// one file each (DistributeKernel.cpp lists them).
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_DISTRIBUTOR_H
#define WAVE_JIT_LOWERING_DISTRIBUTOR_H

#include "analysis/AffineBounds.h"
#include "analysis/KernelGrid.h"
#include "analysis/MMAAnchors.h"
#include "analysis/SizeFacts.h"
#include "lowering/CrossThreadReduction.h"
#include "lowering/DistributeKernel.h"
#include "lowering/LoweringBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <array>
#include <map>
#include <optional>

namespace wave::jit::distribution {

using namespace mlir;

// A tensor value's layout, dim names and element type.
inline LayoutAttr layoutOf(Value v) { return cast<dialect::TensorType>(v.getType()).getLayout(); }
inline SmallVector<StringRef> dimsOf(Value v) { return cast<dialect::TensorType>(v.getType()).getDimNames(); }
inline Type elementOf(Value v) { return cast<dialect::TensorType>(v.getType()).getElementType(); }

// Whether `v` is zero wherever its position along a dim lies past the dim's end.
bool zeroFilledPastEnd(Value v);

// Float arithmetic may contract into FMAs (a scaled score minus its row max, an epilogue's
// acc * alpha + bias): one rounding instead of two, and half the instructions.
template <class FloatOp, class IntOp>
Value binary(OpBuilder& b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(getElementTypeOrSelf(lhs)))
    return FloatOp::create(b, loc, lhs, rhs, arith::FastMathFlagsAttr::get(b.getContext(), arith::FastMathFlags::contract));
  return IntOp::create(b, loc, lhs, rhs);
}

// A read's or write's index mapping taken apart: per iterator the value dim it walks, per
// memory dim its expression and the values of that expression's symbols, and whether the
// innermost memory dim is its value dim's own iterator (runs along it stay whole).
struct MemoryMapping {
  dialect::IndexMappingAttr mapping;  // null: none
  SmallVector<int> iteratorDim;
  llvm::StringMap<dialect::ExprAttr> memoryExpr;
  llvm::StringMap<SmallVector<Value>> memorySymbols;
  bool innerIsIterator = true;
};

// How a reduction combines a row: the type it accumulates in, per result register the
// input registers of its row (each position along the dim once), the lane bits whose
// shuffles combine along the dim, the wave axes combined through shared memory, and
// whether the result stays a wave's own partial (its waves fold their parts apart).
struct ReductionPlan {
  Type work;
  SmallVector<SmallVector<int64_t>> members;
  SmallVector<int64_t> laneBits;
  SmallVector<bool> reduceAxis;
  bool keepsPartials = false;
};

// A shared tile read as an mma operand: where each fragment starts, and which two load
// as one ldmatrix.x4.
struct FragmentSource {
  const MMAOperandLayout* operand = nullptr;
  StringRef rowDim, kDim;
  SmallVector<StringRef> memoryDims;
  bool transpose = false;  // rows run along the memory's innermost dim (.trans)
  Value memref;
  Type element;
  SmallVector<std::pair<AffineExpr, AffineExpr>> origins;  // (row, col) over (lane 0, wave)
  SmallVector<int64_t> partner;  // the fragment loaded with each (by one x4), or -1
  SmallVector<std::pair<int64_t, int64_t>> step;  // from each fragment's origin to its partner's
  DenseMap<int64_t, SmallVector<Value>> loaded;  // fragment -> its register rows, once loaded
};

class Distributor : LoweringBuilder {
 public:
  Distributor(func::FuncOp kernel, KernelGrid grid, const DistributionOptions& options)
      : LoweringBuilder(kernel), kernel_(kernel), grid_(std::move(grid)), options_(options),
        persistent_(options.persistent), clusterSize_(options.clusterSize), vectorAtomics_(options.vectorAtomics),
        systemAtomics_(options.systemAtomics) {}

  LogicalResult emit(gpu::GPUModuleOp module);

 private:
  VectorType registersOf(Value v) {
    return VectorType::get({layoutOf(v).getNumRegisters()}, elementOf(v));
  }
  Value lookup(Value v) { return values_.lookup(v); }
  // The extents of this thread's lane (d0) and wave (d1) indices.
  SmallVector<int64_t, 2> threadExtents() const { return {grid_.waves.lanes, grid_.waves.count()}; }
  // `e` of this thread's lane (d0) and wave (d1), simplified by their ranges.
  Value threadIndex(AffineExpr e) { return apply(simplifyWithinBounds(e, threadExtents()), {lane_, wave_}); }

  // Per dim of `dims`, the index of register `reg`'s element in this thread: in the
  // tensor (the tile's offsets added), or with `inTile`, in the workgroup's tile.
  SmallVector<Value> indexOf(LayoutAttr layout, ArrayRef<StringRef> dims, int64_t reg, bool inTile = false);
  // Per dim, register `reg`'s position in the workgroup's tile (the layout's), in this thread.
  SmallVector<Value> positionInTile(LayoutAttr layout, int64_t reg);
  // Whether `dim` may end inside a workgroup's tile (then accesses are masked).
  bool mayOverrun(StringRef dim) {
    const DimTiling& t = grid_.tiling(dim);
    return !isKnownMultiple(kernel_, dim, t.blockTile) || (t.rankSlice && t.rankSlice % t.blockTile != 0);
  }
  // Where `dim` ends in this workgroup: its size, or the size wave.set_symbol set.
  Value endOf(StringRef dim) {
    Value set = ends_.lookup(dim);
    return set ? set : sizes_.lookup(dim);
  }
  // Whether this workgroup's tile along `dim` (in a loop over it, this trip's tile) reaches
  // past the dim's end: the same in every thread, so a branch on it does not diverge. Only
  // such tiles need the fills that keep elements past the end out of reductions and mma
  // contractions; the others skip them (DistributeOverrun.cpp).
  Value tileOverruns(StringRef dim);
  // Per register of `layout`, whether its element along `dim` (at `k` of the layout's
  // dims) lies before the dim's end, in this tile.
  SmallVector<Value> registersBeforeEnd(LayoutAttr layout, unsigned k, StringRef dim);
  // An apply_expr comparing a sum of elements' positions (self_index along dims, through
  // broadcasts, added and subtracted) with an expression of the symbols, as a constant
  // per register against one value per thread, where every register's position is this
  // thread's part plus a constant (DistributePositions.cpp); null where it is not.
  Value comparePositions(dialect::ApplyExprOp a);
  // Whether reads and writes of `memref` go through an AMDGPU buffer, whose range check
  // reads zero and drops writes past its end: a kernel argument of static shape whose
  // offsets, its dims rounded up to whole tiles, stay under 2 GiB
  // (DistributeBufferAccesses.cpp).
  bool throughBuffer(Value memref, Type element, ArrayRef<StringRef> memoryDims);
  // Whether the buffer's range check is the mask of `dim`'s end: `dim` is the memory's
  // outermost and ends where the memref does.
  bool bufferChecksEnd(Value memref, StringRef dim, ArrayRef<StringRef> memoryDims);
  // `indices` as a buffer's i32 offsets; where `inside` is false, past the buffer's end.
  SmallVector<Value> bufferOffsets(Value memref, ArrayRef<Value> indices, Value inside);
  // A buffer load of `type` at `indices`; where `inside` is false, from past the end (zero).
  Value bufferLoad(Type type, Value memref, ArrayRef<Value> indices, Value inside);
  // A buffer store of `value` at `indices`; where `inside` is false, past the end (dropped).
  void bufferStore(Value value, Value memref, ArrayRef<Value> indices, Value inside);
  // `filled()` (values with the elements past `dim`'s end filled) on the tiles that reach
  // past it and `plain()` on the others, under one branch of `types`; `filled()` alone
  // where the options keep the fills in every tile.
  SmallVector<Value> fillOnOverrunningTiles(StringRef dim, TypeRange types,
                                            function_ref<SmallVector<Value>()> filled,
                                            function_ref<SmallVector<Value>()> plain);
  // A dim's end in this workgroup read at run time: clamped to [0, its size].
  LogicalResult lowerSetSymbol(dialect::SetSymbolOp op);
  // The element of `value` each workgroup holds one of (each of its dims a workgroup tile
  // of 1), in this thread; an error at `op` about `what` ("a size") otherwise.
  FailureOr<Value> onePerWorkgroup(Operation* op, Value value, StringRef what);
  // Whether position `k` of register `reg` (`at`, in the tensor) lies before the end of
  // `dim`: null where it always does and `false` where it never does (by the ranges of the
  // workgroup's offset and of the lane and wave), else the comparison.
  Value beforeEnd(LayoutAttr layout, int64_t reg, unsigned k, StringRef dim, Value at);

  LogicalResult access(Operation* op, Value memory, Value tensor, bool isRead);
  // A write that combines (wave.write's combine: add, min, max): `values` (a vector of a
  // run's consecutive elements, or one element) combined with memory at `indices` (the
  // run's first), atomically; with `count`, only the run's first `count` elements.
  void combineIntoMemory(dialect::WriteCombine combine, Value values, Value memref, ArrayRef<Value> indices,
                         Value count = Value());
  // Whether values of `type` add to memory in one vector red.global.add (sm_90: f32 in
  // twos or fours, f16 and bf16 in one to four words of pairs).
  bool addsAsOneVector(Type type) const;
  // Adds `values` to memory at `address` (i64) in one vector red.global.add, at GPU scope
  // or at system scope.
  void addVectorAt(Value address, Value values, bool systemScope);
  // The global address (i64) of `memref`'s element at `indices`.
  Value globalAddress(Value memref, ArrayRef<Value> indices);
  // Signals (DistributeSignal.cpp). A wait's threshold, an expression of the kernel's
  // symbols, as a value of the flags' type.
  FailureOr<Value> flagThreshold(Operation* op, dialect::ExprAttr least, Type element);
  // The flag at `indices` read (acquire, system scope) until it is at least `least`; the
  // value seen; with `take`, `least` then subtracted from it atomically. Traps after some
  // 10 seconds.
  Value waitForFlag(Value memref, ArrayRef<Value> indices, Value least, bool take);
  // The flag at `indices` read once (relaxed, system scope) where `when` holds, else
  // `otherwise`.
  Value readFlagIf(Value when, Value memref, ArrayRef<Value> indices, Value otherwise);
  // After a wait's loads: the workgroup's barrier (and a proxy fence where TMA reads).
  void afterWait();
  // Before a signal's stores: the workgroup's barrier.
  void beforeRelease();
  // `value` stored at `indices` with release semantics at system scope.
  void storeRelease(Value value, Value memref, ArrayRef<Value> indices);
  Value flagPointer(Value memref, ArrayRef<Value> indices);
  // Per register of `layout`, the condition under which this thread's register is the one
  // that adds its element, where the layout holds elements in several threads or
  // registers (null: always; false: never).
  FailureOr<SmallVector<Value>> addersOf(Operation* op, LayoutAttr layout);
  FailureOr<MemoryMapping> mappingOf(Operation* op, Value tensor, bool isRead, ArrayRef<StringRef> valueDims,
                                     ArrayRef<StringRef> memoryDims);
  // A shared tile's read into an mma operand's layout by ldmatrix, one per fragment (two
  // per x4 where they pair); null where the layout or the tile's order does not allow it.
  std::optional<FragmentSource> fragmentSource(dialect::ReadOp read);
  // Fragment `f`'s register rows (e.g. 4 of vector<2xf16>), by ldmatrix where not loaded.
  ArrayRef<Value> loadFragment(FragmentSource& source, int64_t f);
  Value loadFragments(dialect::ReadOp read);
  bool loadsAtUse(dialect::ReadOp read);
  // An error at `op` unless one workgroup's tile holds the whole of `dim` (which `op`
  // `what`s: "reduces over", "sums along").
  LogicalResult checkOneWorkgroupCovers(Operation* op, StringRef dim, StringRef what);
  // The plan of a reduction from its input's and result's layouts; an error where they do
  // not allow one (rows that differ between threads, elements repeated across threads).
  FailureOr<ReductionPlan> planReduction(Operation* op);
  LogicalResult lowerReduction(Operation* op);
  // Per register, `partial` combined over the waves that differ from this thread's only
  // along the wave axes marked in `axes`, through shared memory.
  SmallVector<Value> combineAcrossWaves(ArrayRef<Value> partial, ReductionKind kind, ArrayRef<bool> axes,
                                        LayoutAttr layout);
  LogicalResult lowerCombineWaves(dialect::CombineWavesOp op);
  // Prefix sums along a dim through shared memory (DistributeScan.cpp).
  LogicalResult lowerCumsum(dialect::CumsumOp op);
  // Pairs along a dim exchanged (DistributeShuffle.cpp): registers and lanes of a wave
  // where the layout keeps each pair in it, else through shared memory.
  LogicalResult lowerShuffle(dialect::ShuffleOp op);
  // Gathers within the workgroup's tile (DistributeGather.cpp): each result register is
  // the input's element at `at` (per input dim, in the workgroup's tile), or 0 where
  // `valid` (null: always) does not hold.
  struct GatherSource {
    SmallVector<Value> at;
    Value valid;
  };
  LogicalResult gatherInTile(Operation* op, function_ref<GatherSource(int64_t reg)> sourceOf);
  // An error at `op` unless each workgroup's tile holds the whole of `dim`, along which
  // it computes positions, and its input's layout all of that tile.
  LogicalResult checkGatheredWhole(Operation* op, StringRef dim);
  LogicalResult lowerExtractSlice(dialect::ExtractSliceOp op);
  LogicalResult lowerReshape(dialect::ReshapeOp op);
  // The body in a branch every thread of the workgroup takes alike (DistributeConditional.cpp).
  LogicalResult lowerConditional(dialect::ConditionalOp op);
  // One element (of 8 to 64 bits) of the lane whose index differs by `laneXor`.
  Value fromLane(Value element, int64_t laneXor, int64_t lanes);
  // This thread's wave index along wave axis `axis`.
  Value waveDigit(int axis);
  // The number of workgroup tiles along `axis`: a constant where every dim over the grid
  // has a static size (then the tile order's arithmetic folds without a range analysis).
  Value gridSize(gpu::Dimension axis);
  // The workgroup's tile (DistributeTiles.cpp): the dims' sizes, and their offsets from
  // the tile's coordinates in the tile scheduler's order; for a persistent grid, inside
  // the loop over the tiles it opens (the builder left in its body).
  LogicalResult enterTiles();
  // The grid axis a cluster's workgroups go along (neighbouring tiles): the one whose
  // tiles share the most bytes of the loops' TMA copies, among those whose static tile
  // count the cluster size divides and whose loops' trips do not depend on the tile;
  // none where no axis qualifies (clusters of one workgroup).
  std::optional<int> clusterAxis();
  // The grid axes along which the tiles' loops lengthen (a loop ending by the workgroup's
  // position there, as causal attention's over the keys): their tiles run longest first.
  SmallVector<int> lengthenedAxes();
  // Closes the tile loop, if any (each loop's trips across tiles carried on).
  LogicalResult exitTiles();
  // `loop` (directly in the tile loop's body, running `trips` trips) counts its trips from
  // those of earlier tiles (analysis/TileLoop.h); nothing outside a tile loop.
  void countTripsAcrossTiles(scf::ForOp loop, Value trips);
  LogicalResult lowerPrint(dialect::PrintOp op);
  LogicalResult lowerConvert(dialect::ConvertLayoutOp op);
  LogicalResult lowerAllocate(dialect::AllocateOp op);
  // A tile filled by TMA (DistributeTmaCopy.cpp), with the kernel parameter of its tensor
  // map (one per argument and box), its mbarrier (made and initialized at the kernel's
  // start), and the predicate of the one thread that issues copies.
  LogicalResult lowerTmaCopy(dialect::TmaCopyOp op);
  Value tensorMap(unsigned argument, ArrayRef<int64_t> box, MemRefType boxType, int64_t swizzle);
  Value armedBarrier();
  Value isLeader();
  // A buffer of its own in the dynamic shared memory, starting `alignment`-byte aligned.
  Value sharedBuffer(ArrayRef<int64_t> shape, Type element, int64_t alignment = 128);
  Value flattened(Value memref);
  Value applyByIterators(AffineExpr sum, ValueRange iterators, ArrayRef<int64_t> extents = {});
  LogicalResult lowerIterate(dialect::IterateOp loop);
  // `extent`, or with `end` (over the workgroup's first positions along `endDims`, the
  // attribute named `what`) the smaller of the two.
  FailureOr<Value> endingAt(dialect::IterateOp loop, Value extent, dialect::ExprAttr end, ArrayAttr endDims,
                            StringRef what);
  // The first tile of `loop` whose marked masks are not all zeros (null: none marked),
  // counted from the tile at `start` where the loop starts there (a split loop).
  FailureOr<Value> firstMaskedTile(dialect::IterateOp loop, Value tiles, Value start = Value());
  // A loop split across workgroups: each carried value must be a sum over its dim.
  LogicalResult checkSplitSums(dialect::IterateOp loop);
  // The first carried value of `loop` that is no sum over its dim (an mma's accumulator,
  // or the value plus a term computed from no carried value); none where all are.
  std::optional<unsigned> firstNonSum(dialect::IterateOp loop);
  // Stream-K (DistributeStreamK.cpp). The loop a persistent grid splits at trip
  // boundaries: the kernel's one loop at its top level, every carried value a sum, writing
  // nothing, its trips the same in every tile, no writes before it; null where
  // DistributionOptions::streamK does not ask or the kernel does not allow.
  dialect::IterateOp streamKLoop();
  // Opens stream-K in a persistent grid of `tiles` tiles: this workgroup's units of work
  // (whole tiles of the full rounds, then the segments of its share of the last rounds'
  // trips), returned as the tile loop's trip count; where nothing splits, `wholeTiles`
  // (the plain grid's rounds, the partial last one included).
  Value openStreamK(dialect::IterateOp loop, Value tiles, Value workgroup, Value workgroups, Value wholeTiles);
  // In the tile loop's body: unit `unit`'s tile in the tiles' linear order (`roundTile`,
  // where the unit is a whole tile of a full round); its segment of trips set.
  Value streamKTile(Value unit, Value roundTile);
  // After the split loop: a segment short of its tile stores its sums; the last of a
  // tile's segments to finish adds the others' and runs the rest of the body, which the
  // others skip (the builder left inside the branch that runs it).
  void combineStreamKParts(dialect::IterateOp loop);
  // The byte address of `offset` bytes into the stream-K workspace (a global pointer).
  Value workspaceAt(Value offset);
  // What may follow a split loop's sums: linear ops and writes that add (see lowerBlock).
  LogicalResult checkUseOfSplitSums(Operation* op);
  LogicalResult lowerHidingMask(dialect::AddOp add);
  LogicalResult lowerMma(dialect::MmaOp op);
  // A warpgroup mma: wgmma per 64-row strip, instruction and k16 step, reading both
  // operands from their swizzled shared tiles through matrix descriptors.
  LogicalResult lowerWarpgroupMma(dialect::MmaOp op, const MMAAnchors& anchors);
  // The element offset of (row, col) in a swizzled tile of `rows` rows (see wave.allocate).
  Value swizzledOffset(Value row, Value col, int64_t rows, int64_t swizzle, Type element);
  // `op`'s anchors, computed once (the operands' reads and the op itself both ask).
  FailureOr<const MMAAnchors*> anchorsOf(dialect::MmaOp op);
  // `value`'s registers with those past the end of `dim` (at `dimIndex` of its dims) zero,
  // on the tiles that overrun it (a branch; the others take `value` as it is).
  Value zeroPastEnd(Value value, LayoutAttr layout, unsigned dimIndex, StringRef dim);
  Value gather(Value from, LayoutAttr fromLayout, LayoutAttr toLayout, ArrayRef<StringRef> fromDims,
               ArrayRef<StringRef> toDims);
  // `from`'s registers in `toLayout` by shuffles within each wave; null where the two
  // layouts differ by more than exchanges of lane and register steps.
  Value shuffleWithinWaves(Value from, LayoutAttr fromLayout, LayoutAttr toLayout);
  LogicalResult lowerBlock(Block& block);
  LogicalResult lowerOp(Operation* op);
  Value compareElements(Operation* op, Value lhs, Value rhs);
  // Each element's tanh by the hardware's tanh.approx.f32 (narrower floats through f32)
  // where the target has it (DistributionOptions::ptxTanh), else math.tanh.
  Value tanhApprox(Value x);

  func::FuncOp kernel_;
  KernelGrid grid_;
  DistributionOptions options_;
  bool persistent_ = false;
  int clusterSize_ = 1;
  bool vectorAtomics_ = false;  // red.global.add on vectors (sm_90+)
  bool systemAtomics_ = false;  // PTX red at system scope for adds and integer min/max
  std::optional<int> cluster_;  // the axis a cluster's workgroups go along
  gpu::GPUFuncOp func_;
  std::optional<std::array<int32_t, 3>> tileGrid_;  // the tile counts, where static
  Value tileCounts_[3];                             // a persistent grid's, where not
  scf::ForOp tileLoop_;                             // a persistent grid's loop over the tiles
  // Stream-K's state: the split loop, the workspace parameter (a counter per split tile,
  // then two slots of sums per workgroup), this workgroup's share of the split trips
  // [first, last) and the unit's segment [begin, end) of its tile's trips.
  struct StreamK {
    dialect::IterateOp loop;
    Value workspace, tripsPerTile, workgroup, workgroups, splits, fullRounds, trips, sharers, first, last;
    Value unit, tile, begin, end;  // per unit: its index, its tile among the split ones, its segment
    scf::IfOp rest;                // the rest of the tile's body, run where the sums are whole
  };
  std::optional<StreamK> streamK_;
  SmallVector<Value> tripsAfterTile_;               // per loop counting trips across tiles
  IRMapping memrefs_;
  DenseMap<Value, Value> flat_;  // a memref's 1-D view (flattened)
  DenseMap<Value, Value> values_;
  llvm::StringMap<Value> sizes_, offsets_;
  llvm::StringMap<Value> ends_;  // the dims' ends that wave.set_symbol set (sizes_ keeps the sizes)
  llvm::StringMap<std::pair<int64_t, int64_t>> offsetRanges_;  // where known: the offset's least and most
  Value lane_, wave_;
  Value sharedMemory_;          // the dynamic shared memory the allocations view
  int64_t sharedBytes_ = 0;     // its size so far
  DenseSet<Value> sharedTiles_;  // the allocations (memories addressed within the tile)
  std::map<std::pair<unsigned, SmallVector<int64_t>>, Value> tensorMaps_;  // (argument, box) -> its map
  Operation* barriersReady_ = nullptr;  // the barrier after the mbarriers' initialization
  Value leader_;                        // thread 0
  DenseMap<Operation*, std::optional<MMAAnchors>> anchors_;  // none: diagnosed already
  DenseMap<Value, FragmentSource> atUse_;  // reads whose fragments lowerMma loads
  DenseSet<Value> warpgroupOperands_;      // reads a warpgroup mma takes from their tiles
  // Marked masks (wave.hiding_mask adds, wave-mask-partial-tiles): per add, the ops of
  // the loop body that only its mask needs, lowered under the branch the add takes; and
  // per loop body, whether its tile is one of those the masks touch.
  DenseMap<Operation*, SmallVector<Operation*>> maskOnly_;
  DenseSet<Operation*> deferred_;
  DenseMap<Block*, Value> tileIsMasked_;
  // The dims whose waves fold their parts apart in the loops being lowered (wave_folds),
  // and the values that hold each wave's own partial: computed from such a loop's
  // carried values or its reductions, up to wave.combine_waves. They never move between
  // waves.
  llvm::StringSet<> foldingApart_;
  DenseSet<Value> partials_;
  // The values that hold a workgroup's part of a sum over a dim split across workgroups
  // (its loop's results, and what linear ops make of them), with the loop.
  DenseMap<Value, dialect::IterateOp> splitSums_;
};

}  // namespace wave::jit::distribution

#endif  // WAVE_JIT_LOWERING_DISTRIBUTOR_H
