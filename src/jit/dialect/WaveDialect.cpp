//===- WaveDialect.cpp - the wave dialect and its kernel attributes -------===//

#include "dialect/WaveDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace wave::dialect;

#include "dialect/WaveDialect.cpp.inc"
#include "dialect/WaveEnums.cpp.inc"

std::shared_ptr<const void> WaveDialect::derived(mlir::Attribute key, mlir::TypeID kind,
                                                 llvm::function_ref<std::shared_ptr<const void>()> compute) {
  {
    std::lock_guard<std::mutex> lock(derivedMutex_);
    if (auto it = derived_.find({key, kind}); it != derived_.end()) return it->second;
  }
  std::shared_ptr<const void> value = compute();  // unlocked: it may ask for others
  std::lock_guard<std::mutex> lock(derivedMutex_);
  return derived_.try_emplace({key, kind}, std::move(value)).first->second;
}

void WaveDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialect/WaveOps.cpp.inc"
      >();
}

// `wave.constraints`: a list of constraint attributes that agree with one another.
static LogicalResult verifyConstraints(Operation* op, Attribute value) {
  auto list = dyn_cast<ArrayAttr>(value);
  if (!list) return op->emitOpError("expected wave.constraints to be an array of constraints");
  int hardware = 0;
  llvm::SmallSet<int64_t, 3> axes;
  llvm::StringSet<> distributed;
  llvm::StringSet<> onDevices;
  for (Attribute c : list)
    if (auto wg = dyn_cast<WorkgroupConstraintAttr>(c))
      distributed.insert(wg.getDim().getValue());
    else if (auto t = dyn_cast<TilingConstraintAttr>(c))  // waves split each tile a loop walks
      distributed.insert(t.getDim().getValue());
  for (Attribute c : list) {
    if (auto wg = dyn_cast<WorkgroupConstraintAttr>(c)) {
      if (!axes.insert(wg.getWorkgroupDim()).second)
        return op->emitOpError("expected one workgroup_constraint per grid axis, but found two on axis ")
               << wg.getWorkgroupDim();
    } else if (auto w = dyn_cast<WaveConstraintAttr>(c)) {
      if (!distributed.contains(w.getDim().getValue()))
        return op->emitOpError("expected a workgroup_constraint or tiling_constraint on ")
               << w.getDim() << " for its wave_constraint, but found none";
    } else if (auto d = dyn_cast<DeviceConstraintAttr>(c)) {
      if (!onDevices.insert(d.getDim().getValue()).second)
        return op->emitOpError("expected one device_constraint per dim, but found two on ") << d.getDim();
    } else if (isa<HardwareConstraintAttr>(c)) {
      ++hardware;
    } else if (!isa<TilingConstraintAttr, AssumptionAttr>(c)) {
      return op->emitOpError("expected a wave constraint attribute, but found ") << c;
    }
  }
  if (hardware > 1)
    return op->emitOpError("expected at most one hardware_constraint, but found ") << hardware;
  return success();
}

// `wave.hyperparameters`: symbol -> positive integer (RANK, a GPU's rank: 0 or more).
static LogicalResult verifyHyperparameters(Operation* op, Attribute value) {
  auto dict = dyn_cast<DictionaryAttr>(value);
  if (!dict) return op->emitOpError("expected wave.hyperparameters to be a dictionary");
  for (NamedAttribute entry : dict) {
    auto v = dyn_cast<IntegerAttr>(entry.getValue());
    const bool rank = entry.getName() == kRankSymbol;
    if (!v || v.getInt() < (rank ? 0 : 1))
      return op->emitOpError("expected hyperparameter ")
             << entry.getName() << " to be a " << (rank ? "rank, 0 or more" : "positive integer") << ", but found "
             << entry.getValue();
  }
  return success();
}

LogicalResult WaveDialect::verifyOperationAttribute(Operation* op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == "wave.constraints") return verifyConstraints(op, attr.getValue());
  if (name == "wave.hyperparameters") return verifyHyperparameters(op, attr.getValue());
  if (name == "wave.shared_memory_bytes") {
    if (auto bytes = dyn_cast<IntegerAttr>(attr.getValue()); bytes && bytes.getInt() >= 0) return success();
    return op->emitOpError("expected wave.shared_memory_bytes to be a size in bytes, but found ") << attr.getValue();
  }
  if (name == "wave.thread_layout") {
    if (isa<ThreadLayoutAttr>(attr.getValue())) return success();
    return op->emitOpError("expected wave.thread_layout to be a #wave.thread_layout, but found ") << attr.getValue();
  }
  if (name == "wave.rank_slices") {
    // The distribution's record of the dims a device_constraint splits: per dim, the
    // elements of this rank's slice, which the launch's grid covers.
    auto slices = dyn_cast<DictionaryAttr>(attr.getValue());
    auto positive = [](NamedAttribute e) {
      auto v = dyn_cast<IntegerAttr>(e.getValue());
      return v && v.getInt() > 0;
    };
    if (slices && llvm::all_of(slices, positive)) return success();
    return op->emitOpError("expected wave.rank_slices to map dims to positive slice sizes, but found ")
           << attr.getValue();
  }
  if (name == "wave.tensor_maps") {
    // The distribution's record of the tensor maps a kernel takes as its last parameters:
    // per map the argument it describes, its box (elements per dim) and swizzle (bytes).
    auto maps = dyn_cast<ArrayAttr>(attr.getValue());
    auto wellFormed = [](Attribute a) {
      auto map = dyn_cast<DictionaryAttr>(a);
      return map && map.getAs<IntegerAttr>("argument") && map.getAs<DenseI64ArrayAttr>("box") &&
             map.getAs<IntegerAttr>("swizzle");
    };
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (maps && func && maps.size() <= func.getNumArguments() && llvm::all_of(maps, wellFormed)) return success();
    return op->emitOpError("expected wave.tensor_maps to be a list of {argument, box, swizzle}, one per trailing "
                           "parameter, but found ")
           << attr.getValue();
  }
  if (name == "wave.hiding_mask") {
    // wave-mask-partial-tiles' mark: the add's rhs is a mask, zero in an iterate's
    // unmasked tiles.
    if (isa<UnitAttr>(attr.getValue()) && isa<AddOp>(op) && op->getParentOfType<IterateOp>()) return success();
    return op->emitOpError("expected wave.hiding_mask to be a unit attribute on a wave.add inside a wave.iterate");
  }
  // A persistent grid (wave-lower-to-gpu's persistent=true, analysis/TileLoop.h): the
  // function, its loop over the workgroup tiles, and the index of the tile loop's
  // iteration argument holding a loop's trips in earlier tiles.
  if (name == "wave.persistent") {
    if (isa<UnitAttr>(attr.getValue()) && isa<FunctionOpInterface>(op)) return success();
    return op->emitOpError("expected wave.persistent to be a unit attribute on a function");
  }
  if (name == "wave.stream_k_slot_bytes") {
    // Stream-K's (lowering/DistributeStreamK.cpp): the bytes of one slot of the workspace.
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (bytes && bytes.getInt() > 0 && isa<FunctionOpInterface>(op)) return success();
    return op->emitOpError("expected wave.stream_k_slot_bytes to be a positive byte count on a function, but found ")
           << attr.getValue();
  }
  if (name == "wave.tile_counter") {
    // The tile counter parameter's (wave-lower-to-gpu's tile-counter).
    if (isa<UnitAttr>(attr.getValue()) && isa<FunctionOpInterface>(op)) return success();
    return op->emitOpError("expected wave.tile_counter to be a unit attribute on a function");
  }
  if (name == "wave.tile_loop") {
    if (isa<UnitAttr>(attr.getValue()) && op->getName().getStringRef() == "scf.for") return success();
    return op->emitOpError("expected wave.tile_loop to be a unit attribute on an scf.for");
  }
  if (name == "wave.trip_base") {
    auto which = dyn_cast<IntegerAttr>(attr.getValue());
    Operation* tiles = op->getParentOp();
    if (which && which.getInt() >= 0 && op->getName().getStringRef() == "scf.for" && tiles &&
        tiles->hasAttr("wave.tile_loop") && which.getInt() < static_cast<int64_t>(tiles->getNumResults()))
      return success();
    return op->emitOpError("expected wave.trip_base to index an iteration argument of the wave.tile_loop around "
                           "the scf.for, but found ")
           << attr.getValue();
  }
  if (name == "wave.consumer_threads") {
    // wave-pipeline-shared-copies' warp-specialized split: threads [0, n) run the then-region.
    auto threads = dyn_cast<IntegerAttr>(attr.getValue());
    if (threads && threads.getInt() > 0 && op->getName().getStringRef() == "scf.if" && op->getNumRegions() == 2 &&
        !op->getRegion(1).empty())
      return success();
    return op->emitOpError("expected wave.consumer_threads to be a positive thread count on an scf.if with an else "
                           "region, but found ")
           << attr.getValue();
  }
  if (name == "wave.multicast") {
    // The distribution's mark on a TMA load whose tile every workgroup of the cluster
    // fills alike (analysis/Cluster.h).
    if (isa<UnitAttr>(attr.getValue()) && op->getName().getStringRef() == "nvgpu.tma.async.load") return success();
    return op->emitOpError("expected wave.multicast to be a unit attribute on an nvgpu.tma.async.load");
  }
  if (name == "wave.uniform_branch") {
    // The distribution's wave.conditional: every thread of a workgroup takes the same case.
    if (isa<UnitAttr>(attr.getValue()) && op->getName().getStringRef() == "scf.index_switch") return success();
    return op->emitOpError("expected wave.uniform_branch to be a unit attribute on an scf.index_switch");
  }
  return op->emitOpError("unknown wave dialect attribute ") << attr.getName();
}
