#include "analysis/KernelGrid.h"

#include "analysis/MMAAnchors.h"
#include "analysis/ThreadLayout.h"
#include "dialect/WaveOps.h"
#include "mlir/IR/Diagnostics.h"

namespace wave::jit {

using namespace mlir;

namespace {

void addDims(Type type, llvm::MapVector<StringRef, DimTiling>& dims) {
  SmallVector<StringRef> names;
  if (auto t = dyn_cast<dialect::TensorType>(type)) names = t.getDimNames();
  if (auto m = dyn_cast<dialect::MemoryType>(type)) names = m.getDimNames();
  for (StringRef d : names) dims.insert({d, DimTiling{}});
}

// The dims a reduction reduces over (or prefix sums run along), less those an mma holds:
// their values take blocked layouts, which walk the tile in coalesced runs over the
// wave's lanes.
llvm::SmallDenseSet<StringRef> blockedReducedDims(func::FuncOp kernel) {
  llvm::SmallDenseSet<StringRef> reduced, mma;
  kernel.walk([&](Operation* op) {
    if (auto reduction = dyn_cast<dialect::ReductionOpInterface>(op)) reduced.insert(reduction.getDim());
    if (auto cumsum = dyn_cast<dialect::CumsumOp>(op)) reduced.insert(cumsum.getDim());
    if (isa<dialect::MmaOp>(op))
      for (Value v : op->getOperands())
        for (StringRef d : cast<dialect::TensorType>(v.getType()).getDimNames()) mma.insert(d);
  });
  for (StringRef d : mma) reduced.erase(d);
  return reduced;
}

// The tile of an unconstrained dim of `size` elements that a reduction reduces over. Its
// threads combine a row in butterflies, which needs each row to be a power of two of runs
// or whole steps of the wave's lanes; a size like 77, 100 or 4099 cannot be either, so the
// tile is padded to the next power of two (past 512, multiple of 512) and the elements past
// the size are masked, as in a partial workgroup tile.
int64_t reducedDimTile(int64_t size) {
  if (size <= 0 || llvm::isPowerOf2_64(static_cast<uint64_t>(size)) || size % 512 == 0) return size;
  return size < 512 ? static_cast<int64_t>(llvm::NextPowerOf2(static_cast<uint64_t>(size))) : llvm::alignTo(size, 512);
}

// The dims whose elements some op combines: those reductions and prefix sums run along,
// and an mma's K (its operand's dims that its result lacks).
llvm::SmallDenseSet<StringRef> combinedDims(func::FuncOp kernel) {
  llvm::SmallDenseSet<StringRef> combined;
  kernel.walk([&](Operation* op) {
    if (auto reduction = dyn_cast<dialect::ReductionOpInterface>(op)) combined.insert(reduction.getDim());
    if (auto cumsum = dyn_cast<dialect::CumsumOp>(op)) combined.insert(cumsum.getDim());
    if (!isa<dialect::MmaOp>(op) || op->getNumOperands() == 0 || op->getNumResults() == 0) return;
    auto lhs = dyn_cast<dialect::TensorType>(op->getOperand(0).getType());
    auto result = dyn_cast<dialect::TensorType>(op->getResult(0).getType());
    if (!lhs || !result) return;  // (the verifier reports it)
    const auto resultDims = result.getDimNames();
    for (StringRef d : lhs.getDimNames())
      if (!llvm::is_contained(resultDims, d)) combined.insert(d);
  });
  return combined;
}

}  // namespace

FailureOr<llvm::StringMap<RankSlice>> rankSlices(func::FuncOp kernel) {
  llvm::StringMap<RankSlice> slices;
  auto constraints = kernel->getAttrOfType<ArrayAttr>("wave.constraints");
  auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters");
  for (Attribute c : constraints ? constraints.getValue() : ArrayRef<Attribute>()) {
    auto device = dyn_cast<dialect::DeviceConstraintAttr>(c);
    if (!device) continue;
    StringRef dim = device.getDim().getValue();
    auto tile = tileSize(kernel, device.getTile(), dim, "device");
    if (failed(tile)) return failure();
    auto size = hyper ? hyper.getAs<IntegerAttr>(dim) : IntegerAttr();
    auto rank = hyper ? hyper.getAs<IntegerAttr>(dialect::kRankSymbol) : IntegerAttr();
    if (!size)
      return kernel.emitError("expected a value in subs for ") << dim << " (a device_constraint splits it over the "
                                                                   "ranks), but found none";
    if (!rank)
      return kernel.emitError("expected a value in subs for ")
             << dialect::kRankSymbol << " (the rank of a kernel with a device_constraint), but found none";
    if (size.getInt() % *tile != 0)
      return kernel.emitError("expected the device tile of ")
             << dim << " (" << *tile << ") to divide its size (" << size.getInt() << "): the rank count is their quotient";
    if (rank.getInt() >= size.getInt() / *tile)
      return kernel.emitError("expected ") << dialect::kRankSymbol << " below the rank count "
                                           << size.getInt() / *tile << " (" << dim << " / its device tile), but found "
                                           << rank.getInt();
    slices[dim] = RankSlice{*tile, rank.getInt() * *tile};
  }
  return slices;
}

FailureOr<KernelGrid> kernelGrid(func::FuncOp kernel) {
  KernelGrid grid;
  for (BlockArgument arg : kernel.getArguments()) addDims(arg.getType(), grid.dims);
  llvm::MapVector<StringRef, DimTiling> valueDims;  // the dims of the kernel's tensor values
  kernel.walk([&](Operation* op) {
    for (Type t : op->getResultTypes()) {
      addDims(t, grid.dims);
      addDims(t, valueDims);
    }
  });
  // A loop walks a dim of the kernel's tensors (IR edited by hand may name another).
  WalkResult unknownLoopDim = kernel.walk([&](dialect::IterateOp loop) {
    if (grid.dims.contains(loop.getDim())) return WalkResult::advance();
    loop.emitOpError("walks ") << loop.getDim() << ", but no tensor of the kernel has that dim";
    return WalkResult::interrupt();
  });
  if (unknownLoopDim.wasInterrupted()) return failure();
  FailureOr<llvm::StringMap<RankSlice>> slices = rankSlices(kernel);
  if (failed(slices)) return failure();
  if (!slices->empty()) {
    const llvm::SmallDenseSet<StringRef> combined = combinedDims(kernel);
    for (const auto& [dim, slice] : *slices) {
      if (!valueDims.contains(dim))
        return kernel.emitError("expected a dim of the kernel's tensor values for its device_constraint, but found ")
               << dim << ", which no value has";
      if (combined.contains(dim))
        return kernel.emitError("expected a device_constraint on a dim no op combines, but an op reduces along ")
               << dim << " (each rank would combine only its slice)";
      grid.dims[dim].rankSlice = slice.size;
      grid.dims[dim].rankOffset = slice.offset;
    }
  }
  auto constraints = kernel->getAttrOfType<ArrayAttr>("wave.constraints");
  SmallVector<StringRef> waveOrder;
  const llvm::SmallDenseSet<StringRef> reduced = blockedReducedDims(kernel);
  llvm::SmallDenseMap<StringRef, int64_t> workgroupTile;  // of dims a loop may walk too
  for (Attribute c : constraints ? constraints.getValue() : ArrayRef<Attribute>()) {
    if (auto wg = dyn_cast<dialect::WorkgroupConstraintAttr>(c)) {
      auto it = grid.dims.find(wg.getDim().getValue());
      if (it == grid.dims.end()) continue;
      auto tile = tileSize(kernel, wg.getTile(), wg.getDim().getValue(), "workgroup");
      if (failed(tile)) return failure();
      workgroupTile[it->first] = *tile;
      if (!it->second.loop) it->second.blockTile = *tile;
      it->second.gridAxis = static_cast<int>(wg.getWorkgroupDim());
    } else if (auto w = dyn_cast<dialect::WaveConstraintAttr>(c)) {
      auto it = grid.dims.find(w.getDim().getValue());
      if (it == grid.dims.end()) continue;
      auto tile = tileSize(kernel, w.getTile(), w.getDim().getValue(), "wave");
      if (failed(tile)) return failure();
      it->second.waveTile = *tile;
      waveOrder.push_back(it->first);
    } else if (auto t = dyn_cast<dialect::TilingConstraintAttr>(c)) {
      auto it = grid.dims.find(t.getDim().getValue());
      if (it == grid.dims.end()) continue;
      auto tile = tileSize(kernel, t.getTile(), t.getDim().getValue(), "tiling");
      if (failed(tile)) return failure();
      it->second.blockTile = *tile;
      it->second.loop = true;
    } else if (auto hw = dyn_cast<dialect::HardwareConstraintAttr>(c)) {
      grid.waves.lanes = hw.getThreadsPerWave();
    }
  }
  // A loop's dim split over the grid too: each workgroup walks its own run of whole tiles.
  for (auto& [dim, t] : grid.dims) {
    auto split = workgroupTile.find(dim);
    if (!t.loop || split == workgroupTile.end()) continue;
    if (split->second % t.blockTile != 0)
      return kernel.emitError("expected the workgroup tile of ")
             << dim << " (" << split->second << "), which splits the loop over it across workgroups, to be a "
             << "multiple of its tiling tile (" << t.blockTile << ")";
    t.splitTile = split->second;
  }
  // A memory's dim that no value has (reached only through index mappings, as a paged
  // cache's page count) needs no tile; its size may be given at launch.
  SmallVector<StringRef> memoryOnly;
  for (auto& [dim, t] : grid.dims)
    if (t.blockTile == 0 && !valueDims.contains(dim)) memoryOnly.push_back(dim);
  for (StringRef dim : memoryOnly) grid.dims.erase(dim);
  for (auto& [dim, t] : grid.dims) {
    if (t.blockTile == 0) {
      auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters");
      auto size = hyper ? hyper.getAs<IntegerAttr>(dim) : IntegerAttr();
      if (!size)
        return kernel.emitError("expected a value in subs for ")
               << dim << " (a dim without a workgroup constraint is one tile), but found none";
      const int64_t extent = t.rankSlice ? t.rankSlice : size.getInt();  // (a rank's slice is one tile)
      t.blockTile = t.waveTile == 0 && reduced.contains(dim) ? reducedDimTile(extent) : extent;
    }
    if (t.waveTile == 0) t.waveTile = t.blockTile;
    if (t.blockTile % t.waveTile != 0)
      return kernel.emitError("expected the wave tile of ")
             << dim << " (" << t.waveTile << ") to divide its workgroup tile (" << t.blockTile << ")";
  }
  // Tensor-core kernels copy whole workgroup tiles (16-byte copies, TMA boxes): a rank's
  // slice holds whole ones.
  if (computesWithMMA(kernel))
    for (auto& [dim, t] : grid.dims)
      if (t.rankSlice && t.rankSlice % t.blockTile != 0)
        return kernel.emitError("expected the device tile of ")
               << dim << " (" << t.rankSlice << ") to be a multiple of its workgroup tile (" << t.blockTile
               << ") in a kernel with mma (its tiles are copied whole)";
  for (StringRef dim : waveOrder) {
    const DimTiling& t = grid.tiling(dim);
    if (t.blockTile == t.waveTile) continue;
    grid.waves.dims.push_back(dim.str());
    grid.waves.waves.push_back(t.blockTile / t.waveTile);
    grid.waves.waveTile.push_back(t.waveTile);
  }
  if (grid.threads() > 1024)
    return kernel.emitError("expected at most 1024 threads per workgroup, but the constraints make ")
           << grid.threads();
  return grid;
}

FailureOr<KernelGrid> kernelGridQuietly(func::FuncOp kernel) {
  if (kernel.isExternal() || !kernel->hasAttr("wave.constraints")) return failure();
  ScopedDiagnosticHandler silence(kernel.getContext(), [](Diagnostic&) { return success(); });
  return kernelGrid(kernel);
}

}  // namespace wave::jit
