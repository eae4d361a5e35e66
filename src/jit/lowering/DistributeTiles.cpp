//===- DistributeTiles.cpp - which workgroup tile a workgroup computes ---------===//
//
// One workgroup per tile, its coordinates from the block index; or, for a persistent
// grid, a loop over the tiles (`wave.tile_loop`): rounds of one tile per workgroup, in
// the workgroups' order and the reverse by turns, each round's linear tile named by
// `wave.scheduled_tile` (which wave-schedule-tiles-dynamically may make a fetch from a
// counter, where the tiles differ in length). Either way the tile scheduler's order:
// tensor-core kernels take their tiles in groups of 8 along x (the workgroups running at
// once share operand tiles in L2), and loops that end by the workgroup's position run
// their longest tiles first. Under a cluster size, the workgroups of a cluster take
// neighbouring tiles along the axis whose tiles share the most of the loops' TMA-filled
// operands (a GEMM's B along M), so that wave-multicast-tensor-copies can fill those once
// for all of them.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/MMAAnchors.h"
#include "analysis/TileLoop.h"
#include "lowering/KernelSignature.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit::distribution {

namespace {

constexpr gpu::Dimension kAxes[] = {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};

}  // namespace

Value Distributor::gridSize(gpu::Dimension axis) {
  const int a = static_cast<int>(axis);
  if (tileGrid_) return index((*tileGrid_)[a]);
  if (tileCounts_[a]) return tileCounts_[a];
  return gpu::GridDimOp::create(b_, loc_, axis);
}

std::optional<int> Distributor::clusterAxis() {
  if (clusterSize_ <= 1 || !tileGrid_) return std::nullopt;
  // Loops whose trips depend on the workgroup's position along an axis: its workgroups
  // would not fill their stages in step.
  llvm::SmallDenseSet<int, 4> uneven;
  kernel_.walk([&](dialect::IterateOp loop) {
    for (ArrayAttr dims : {loop.getEndDimsAttr(), loop.getUnmaskedEndDimsAttr()})
      for (Attribute d : dims ? dims.getValue() : ArrayRef<Attribute>())
        uneven.insert(grid_.tiling(cast<StringAttr>(d).getValue()).gridAxis);
  });
  std::optional<int> best;
  int64_t bestBytes = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const int32_t tiles = (*tileGrid_)[axis];
    if (tiles < clusterSize_ || tiles % clusterSize_ != 0 || uneven.contains(axis)) continue;
    // The bytes per trip of the loops' copies whose tiles neighbours along `axis` share.
    int64_t bytes = 0;
    kernel_.walk([&](dialect::TmaCopyOp copy) {
      if (!copy->getParentOfType<dialect::IterateOp>()) return;
      dialect::MemoryType memory = copy.getSource().getType();
      int64_t tileBytes = memory.getElementType().getIntOrFloatBitWidth() / 8;
      for (StringRef d : memory.getDimNames()) {
        if (grid_.tiling(d).gridAxis == axis) return;
        tileBytes *= grid_.tiling(d).blockTile;
      }
      bytes += tileBytes;
    });
    if (bytes > bestBytes) best = axis, bestBytes = bytes;
  }
  return best;
}

SmallVector<int> Distributor::lengthenedAxes() {
  SmallVector<int> axes;
  kernel_.walk([&](dialect::IterateOp loop) {
    if (!loop.getEndDimsAttr()) return;
    for (Attribute d : loop.getEndDimsAttr()) {
      auto it = grid_.dims.find(cast<StringAttr>(d).getValue());
      if (it != grid_.dims.end() && it->second.gridAxis >= 0 && !llvm::is_contained(axes, it->second.gridAxis))
        axes.push_back(it->second.gridAxis);
    }
  });
  return axes;
}

LogicalResult Distributor::enterTiles() {
  if (std::optional<ArrayRef<int32_t>> known = func_.getKnownGridSize()) tileGrid_ = {(*known)[0], (*known)[1], (*known)[2]};
  cluster_ = clusterAxis();
  if (cluster_) {
    SmallVector<int32_t, 3> dims(3, 1);
    dims[persistent_ ? 0 : *cluster_] = clusterSize_;  // (a persistent grid's workgroups go along x)
    func_->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(), b_.getDenseI32ArrayAttr(dims));
  }
  // Where a cluster's workgroups take neighbouring tiles along its axis, the scheduler
  // orders clusters: the tile counts along it are counted in clusters' tiles.
  auto inClusters = [&](Value count, int axis) {
    return cluster_ == axis ? arith::DivUIOp::create(b_, loc_, count, index(clusterSize_)).getResult() : count;
  };
  Value rank;  // the workgroup's place in its cluster
  Value tile[3];
  if (persistent_ && llvm::any_of(grid_.dims, [](const auto& d) { return d.second.rankSlice != 0; }))
    return kernel_.emitError("expected a plain grid for a kernel with a device_constraint, but found a persistent one "
                             "(its tiles are counted over whole dims)");
  if (persistent_) {
    // The launch sizes the grid to the GPU: the tile counts come from the dims' sizes.
    func_->setAttr("wave.persistent", b_.getUnitAttr());
    func_.setKnownGridSizeAttr(nullptr);
    for (auto& [dim, t] : grid_.dims) {
      FailureOr<Value> size = dimSize(b_, kernel_, func_, dim);
      if (failed(size)) return failure();
      sizes_[dim] = *size;
    }
    if (!tileGrid_)
      for (int axis = 0; axis < 3; ++axis) {
        Value count = index(1);
        for (auto& [dim, t] : grid_.dims)
          if (t.gridAxis == axis)
            count = arith::MulIOp::create(b_, loc_, count,
                                          arith::CeilDivUIOp::create(b_, loc_, sizes_[dim], index(t.gridStep())));
        tileCounts_[axis] = count;
      }
    Value counts[3] = {inClusters(gridSize(kAxes[0]), 0), inClusters(gridSize(kAxes[1]), 1),
                       inClusters(gridSize(kAxes[2]), 2)};
    Value tiles = arith::MulIOp::create(b_, loc_, arith::MulIOp::create(b_, loc_, counts[0], counts[1]), counts[2]);
    // Each loop of the body at its top level may count its trips across tiles (see
    // analysis/TileLoop.h): an iteration argument each.
    int64_t loops = 0;
    for (Operation& op : kernel_.getBody().front()) loops += isa<dialect::IterateOp>(op);
    SmallVector<Value> none(loops, index(0));
    // Rounds of one tile per workgroup, taken in turn forwards and backwards (a
    // serpentine): where tiles differ in length (causal attention's, longest first) a
    // workgroup's long and short ones pair up; each round's tiles are still neighbours, as
    // a plain grid's running at once are (L2). A workgroup runs the full rounds, and the
    // partial last one if its place in that round's direction is among the tiles left.
    // (Under a cluster, its workgroups take the same round's tiles: a cluster is one
    // place in the rounds.)
    Value workgroup = gpu::BlockIdOp::create(b_, loc_, gpu::Dimension::x);
    Value workgroups = gpu::GridDimOp::create(b_, loc_, gpu::Dimension::x);
    if (cluster_) {
      rank = arith::RemUIOp::create(b_, loc_, workgroup, index(clusterSize_));
      workgroup = arith::DivUIOp::create(b_, loc_, workgroup, index(clusterSize_));
      workgroups = arith::DivUIOp::create(b_, loc_, workgroups, index(clusterSize_));
    }
    Value mirrored = arith::SubIOp::create(b_, loc_, arith::SubIOp::create(b_, loc_, workgroups, index(1)), workgroup);
    auto placeIn = [&](Value round) {
      return arith::SelectOp::create(b_, loc_, parityOf(b_, loc_, round), mirrored, workgroup).getResult();
    };
    Value rounds = arith::DivUIOp::create(b_, loc_, tiles, workgroups);
    Value left = arith::RemUIOp::create(b_, loc_, tiles, workgroups);
    Value takesOneMore = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ult, placeIn(rounds), left);
    Value one = index(1), zero = index(0);
    Value trips = arith::AddIOp::create(b_, loc_, rounds, arith::SelectOp::create(b_, loc_, takesOneMore, one, zero));
    // (Stream-K: the last rounds' trips shared out instead, in segments.)
    if (dialect::IterateOp split = cluster_ ? dialect::IterateOp() : streamKLoop())
      trips = openStreamK(split, tiles, workgroup, workgroups, trips);
    // Where tiles differ in length, a counter from which wave-schedule-tiles-dynamically
    // may hand them out instead (a parameter after the tensors', zero at launch).
    Value counter;
    if (options_.tileCounter && !streamK_ && !cluster_ && !lengthenedAxes().empty()) {
      const unsigned position = func_.getNumArguments();
      if (succeeded(func_.insertArgument(position, LLVM::LLVMPointerType::get(b_.getContext(), /*addressSpace=*/1),
                                         DictionaryAttr(), loc_))) {
        counter = func_.getArgument(position);
        func_->setAttr("wave.tile_counter", b_.getUnitAttr());
      }
    }
    tileLoop_ = scf::ForOp::create(b_, loc_, index(0), trips, index(1), none);
    tileLoop_->setAttr(kTileLoopAttr, b_.getUnitAttr());
    if (loops == 0)
      b_.setInsertionPoint(tileLoop_.getBody()->getTerminator());
    else
      b_.setInsertionPointToStart(tileLoop_.getBody());
    Value round = tileLoop_.getInductionVar();
    // (One op per statement: the order of a call's arguments is the compiler's.)
    Value earlierRounds = arith::MulIOp::create(b_, loc_, round, workgroups);
    Value linear = arith::AddIOp::create(b_, loc_, earlierRounds, placeIn(round));
    if (streamK_) linear = streamKTile(round, linear);
    else linear = dialect::ScheduledTileOp::create(b_, loc_, linear, tiles, counter);
    // x fastest, as the block index orders a plain grid.
    Value rest = arith::DivUIOp::create(b_, loc_, linear, counts[0]);
    tile[0] = arith::RemUIOp::create(b_, loc_, linear, counts[0]);
    tile[1] = arith::RemUIOp::create(b_, loc_, rest, counts[1]);
    tile[2] = arith::DivUIOp::create(b_, loc_, rest, counts[1]);
  } else {
    // Along an axis of one workgroup the tile is 0, known where the addresses are built.
    for (int axis = 0; axis < 3; ++axis)
      tile[axis] = tileGrid_ && (*tileGrid_)[axis] == 1 ? index(0) : gpu::BlockIdOp::create(b_, loc_, kAxes[axis]);
    if (cluster_) {
      rank = arith::RemUIOp::create(b_, loc_, tile[*cluster_], index(clusterSize_));
      tile[*cluster_] = arith::DivUIOp::create(b_, loc_, tile[*cluster_], index(clusterSize_));
    }
  }
  // Tensor-core kernels reuse operand tiles across workgroups: those running at once take
  // them from L2 when they go in groups of 8 along x (8 tiles' worth of clusters), down
  // y, or down z where y holds one tile (a grouped GEMM's blocks of rows along x, each
  // one tile of rows along y, its columns along z: each block's rows are then read for
  // all its columns at once instead of again for each stripe of columns).
  const int across = tileGrid_ && (*tileGrid_)[1] == 1 && (*tileGrid_)[2] > 1 ? 2 : 1;
  if (computesWithMMA(kernel_))
    std::tie(tile[0], tile[across]) =
        groupedTileOrder(tile[0], tile[across], inClusters(gridSize(kAxes[0]), 0),
                         inClusters(gridSize(kAxes[across]), across), cluster_ == 0 ? std::max(1, 8 / clusterSize_) : 8);
  if (cluster_)
    tile[*cluster_] = arith::AddIOp::create(
        b_, loc_, arith::MulIOp::create(b_, loc_, tile[*cluster_], index(clusterSize_)), rank);
  // A loop that ends early by the workgroup's position (wave-skip-masked-tiles: causal
  // attention's later query tiles see more keys) makes those workgroups longer: they go
  // first, so the last to run are short ones.
  for (int axis : lengthenedAxes()) {
    Value last = arith::SubIOp::create(b_, loc_, gridSize(kAxes[axis]), index(1));
    tile[axis] = arith::SubIOp::create(b_, loc_, last, tile[axis]);
  }
  for (auto& [dim, t] : grid_.dims) {
    if (!sizes_.count(dim)) {
      FailureOr<Value> size = dimSize(b_, kernel_, func_, dim);
      if (failed(size)) return failure();
      sizes_[dim] = *size;
    }
    // On a dim split over the GPUs, the rank's slice starts the workgroups' tiles; where
    // the workgroup tile does not divide the slice, the slice's end masks the last one.
    const int64_t start = t.rankOffset;
    offsets_[dim] =
        t.gridAxis < 0
            ? index(start)
            : add(arith::MulIOp::create(b_, loc_, tile[t.gridAxis], index(t.gridStep())).getResult(), start);
    if (t.gridAxis < 0)
      offsetRanges_[dim] = {start, start};
    else if (tileGrid_)
      offsetRanges_[dim] = {start, start + ((*tileGrid_)[t.gridAxis] - 1) * t.gridStep()};
    if (t.rankSlice && t.rankSlice % t.blockTile != 0) ends_[dim] = index(start + t.rankSlice);
  }
  return success();
}

void Distributor::countTripsAcrossTiles(scf::ForOp loop, Value trips) {
  if (!tileLoop_ || loop->getBlock() != tileLoop_.getBody()) return;
  const auto which = static_cast<int64_t>(tripsAfterTile_.size());
  if (which >= static_cast<int64_t>(tileLoop_.getNumRegionIterArgs())) return;  // exitTiles reports it
  loop->setAttr(kTripBaseAttr, b_.getI64IntegerAttr(which));
  OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPoint(loop);
  tripsAfterTile_.push_back(arith::AddIOp::create(b_, loc_, tileLoop_.getRegionIterArgs()[which], trips));
}

LogicalResult Distributor::exitTiles() {
  if (!tileLoop_) return success();
  // (Every loop of the body's top level counts its trips: an argument yielded unchanged
  // would be folded away, the others' positions with it.)
  if (tripsAfterTile_.size() != tileLoop_.getNumRegionIterArgs())
    return kernel_.emitError("expected each loop at the kernel's top level to count its trips across the persistent "
                             "grid's tiles, but found ")
           << tripsAfterTile_.size() << " of " << tileLoop_.getNumRegionIterArgs() << " counting";
  if (streamK_ && streamK_->rest) b_.setInsertionPointAfter(streamK_->rest);
  if (!tripsAfterTile_.empty()) scf::YieldOp::create(b_, loc_, tripsAfterTile_);
  b_.setInsertionPointAfter(tileLoop_);
  return success();
}

FailureOr<Value> Distributor::onePerWorkgroup(Operation* op, Value value, StringRef what) {
  // The layout rule gives the value's one element to every thread, in its register 0: one
  // element per workgroup takes a workgroup tile of 1 along each of its dims.
  for (StringRef d : dimsOf(value))
    if (int64_t tile = grid_.tiling(d).blockTile; tile != 1)
      return op->emitOpError("expected ")
             << what << " of which each workgroup holds one element (a workgroup tile of 1 along each of its dims), but "
             << d << "'s workgroup tile is " << tile;
  return vector::ExtractOp::create(b_, loc_, lookup(value), ArrayRef<int64_t>{0}).getResult();
}

LogicalResult Distributor::lowerSetSymbol(dialect::SetSymbolOp op) {
  FailureOr<Value> element = onePerWorkgroup(op, op.getSize(), "a size");
  if (failed(element)) return failure();
  if (!sizes_.count(op.getDim()))
    return op.emitOpError("expected ") << op.getDim() << " to be a dim of the kernel, but found no size for it";
  Value size = arith::IndexCastOp::create(b_, loc_, b_.getIndexType(), *element);
  // At most the launch size (accesses stay inside the tensors), at least 0.
  size = arith::MinSIOp::create(b_, loc_, size, sizes_.lookup(op.getDim()));
  ends_[op.getDim()] = arith::MaxSIOp::create(b_, loc_, size, index(0)).getResult();
  return success();
}

}  // namespace wave::jit::distribution
