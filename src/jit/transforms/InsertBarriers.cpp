//===- InsertBarriers.cpp - the barriers shared-memory accesses need --------===//
//
// A forward walk over the structured control flow of a gpu.func that tracks which kinds of
// shared-memory access this thread made since the last barrier; an access that may race
// with one of them gets a barrier before it. See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "analysis/UniformBranch.h"
#include "transforms/ConsumerThreads.h"
#include "transforms/Passes.h"
#include "transforms/SharedCopies.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEINSERTBARRIERS
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

using shared_copies::isShared;

// Views at constant byte offsets of a source (the lowerings carve the dynamic shared
// memory into tiles so, and wave-pack-shared-memory overlaps tiles never live at once):
// each is keyed by the first view of its exact range, and two keys touch the same bytes
// only where their ranges overlap. Any other shared memref is a buffer of its own, which
// touches every view of it.
struct ViewRanges {
  struct Range {
    Value source;
    int64_t begin, end;
  };
  DenseMap<Value, Value> key;    // a view -> the first view of its range
  DenseMap<Value, Range> range;  // a key -> its range

  // Whether accesses to keys `a` and `b` may touch the same bytes.
  bool mayOverlap(Value a, Value b) const {
    if (a == b) return true;
    auto ra = range.find(a), rb = range.find(b);
    const Value sa = ra != range.end() ? ra->second.source : a, sb = rb != range.end() ? rb->second.source : b;
    if (sa != sb) return false;
    if (ra == range.end() || rb == range.end()) return true;  // the whole source
    return ra->second.begin < rb->second.end && rb->second.begin < ra->second.end;
  }
};

Value viewSource(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>()) memref = view.getViewSource();
  return memref;
}

ViewRanges viewRanges(gpu::GPUFuncOp func) {
  ViewRanges views;
  DenseMap<std::tuple<Value, int64_t, int64_t>, Value> first;
  func.walk([&](memref::ViewOp view) {
    std::optional<int64_t> offset = getConstantIntValue(view.getByteShift());
    MemRefType type = view.getType();
    if (!offset || !type.hasStaticShape() || !isShared(view)) return;
    const int64_t bytes = type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    const Value source = viewSource(view.getSource());
    auto [it, added] = first.try_emplace({source, *offset, *offset + bytes}, view.getResult());
    views.key[view.getResult()] = it->second;
    if (added) views.range[view.getResult()] = {source, *offset, *offset + bytes};
  });
  return views;
}

// The buffer a shared memref accesses: the key of the view at constant offsets it lies in,
// else the memref it views (a workgroup attribution, an allocation, the dynamic memory).
Value underlyingBuffer(Value memref, const ViewRanges& views) {
  for (;;) {
    if (auto it = views.key.find(memref); it != views.key.end()) return it->second;
    auto view = memref.getDefiningOp<ViewLikeOpInterface>();
    if (!view) return memref;
    memref = view.getViewSource();
  }
}

// Kinds of access to one buffer.
struct Kinds {
  bool read = false, write = false;
  bool copy = false;  // an async copy into it in flight, landing at a later wait

  bool operator==(const Kinds&) const = default;
  void merge(const Kinds& o) {
    read |= o.read;
    write |= o.write;
    copy |= o.copy;
  }
};

// The shared-memory effects of one op (with everything nested in it), per buffer.
struct Accesses {
  const ViewRanges& views;
  llvm::MapVector<Value, Kinds> buffers;
  // Lands this thread's async copies: all of them, or all but the latest groups (which
  // copies those are is not tracked, so they count as both landed and in flight).
  std::optional<int32_t> asyncWaitLeaves;

  Value bufferOf(Value memref) const { return underlyingBuffer(memref, views); }

  void add(Operation* op) {
    if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
      if (isShared(copy.getDst())) buffers[bufferOf(copy.getDst())].copy = true;
      if (isShared(copy.getSrc())) buffers[bufferOf(copy.getSrc())].read = true;
      return;
    }
    // A TMA copy lands on its mbarrier, which every thread waits on before reading the
    // tile: it is in flight until then and never needs a barrier to publish it. Only
    // refilling a tile other threads may still read does.
    if (auto copy = dyn_cast<nvgpu::TmaAsyncLoadOp>(op)) {
      buffers[bufferOf(copy.getDst())].copy = true;
      return;
    }
    if (auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op)) {
      asyncWaitLeaves = wait.getNumGroups().value_or(0);
      return;
    }
    // A buffer's address taken is its read: wgmma reads the tile through the descriptor
    // made of it, right after (and is waited for before the thread goes on).
    if (auto address = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
      if (isShared(address.getSource())) buffers[bufferOf(address.getSource())].read = true;
      return;
    }
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance& e : instances) {
        const bool read = isa<MemoryEffects::Read>(e.getEffect()), write = isa<MemoryEffects::Write>(e.getEffect());
        // An effect not tied to a value (e.g. ldmatrix's) is on the op's memref operands.
        SmallVector<Value> on = e.getValue() ? SmallVector<Value>{e.getValue()} : SmallVector<Value>(op->getOperands());
        for (Value v : on)
          if (isShared(v)) buffers[bufferOf(v)].merge({read, write});
      }
    } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      for (Value v : op->getOperands())
        if (isShared(v)) buffers[bufferOf(v)].merge({true, true});  // effects unknown: assume both
    }
    for (Region& region : op->getRegions())
      region.walk([&](Operation* nested) {
        if (nested != op) add(nested);
      });
  }
};

// What this thread did to each shared buffer since the last barrier.
struct Pending {
  llvm::MapVector<Value, Kinds> buffers;

  bool operator==(const Pending& o) const {
    return buffers.size() == o.buffers.size() && llvm::all_of(buffers, [&](const auto& entry) {
             auto it = o.buffers.find(entry.first);
             return it != o.buffers.end() && it->second == entry.second;
           });
  }
  Pending join(const Pending& o) const {
    Pending j = *this;
    for (auto& [buffer, kinds] : o.buffers) j.buffers[buffer].merge(kinds);
    return j;
  }
  // Whether `a` may race with an access of another thread to the same bytes made since
  // the last barrier.
  bool racesWith(const Accesses& a) const {
    for (auto& [buffer, kinds] : a.buffers)
      for (auto& [other, done] : buffers)
        if (a.views.mayOverlap(buffer, other) &&
            ((kinds.read && done.write) || ((kinds.write || kinds.copy) && done.read)))
          return true;
    return false;
  }
  // The state after `a` (a barrier before it, if it raced, already cleared this).
  void apply(const Accesses& a) {
    for (auto& [buffer, kinds] : a.buffers) buffers[buffer].merge(kinds);
    if (a.asyncWaitLeaves)
      for (auto& [buffer, kinds] : buffers) {
        kinds.write |= kinds.copy;
        kinds.copy &= *a.asyncWaitLeaves > 0;
      }
  }
  // The state after a barrier: copies still in flight land after it, at a later wait.
  void barrier() {
    for (auto& [buffer, kinds] : buffers) kinds = {.copy = kinds.copy};
  }
};

class BarrierPlacer {
 public:
  explicit BarrierPlacer(ViewRanges views) : views_(std::move(views)) {}

  // Walks `block` from `state`. Records where barriers go; inserts them if `insert`.
  Pending walk(Block& block, Pending state, bool insert) {
    for (Operation& op : llvm::make_early_inc_range(block)) {
      auto roles = dyn_cast<scf::IfOp>(op);
      if (isa<gpu::BarrierOp, NVVM::BarrierOp>(op)) {
        state.barrier();
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        state = walkLoop(loop, state, insert);
      } else if (auto uniform = dyn_cast<scf::IndexSwitchOp>(op); uniform && uniform->hasAttr(kUniformBranchAttr)) {
        // Every thread takes the same case: its accesses come in order, as if inline.
        Pending after = walk(uniform.getDefaultBlock(), state, insert);
        for (unsigned i = 0; i < uniform.getNumCases(); ++i) after = after.join(walk(uniform.getCaseBlock(i), state, insert));
        state = after;
      } else if (roles && roles->hasAttr(kConsumerThreadsAttr)) {
        // The producer's copies are ordered by mbarriers; the consumers sync among themselves.
        auto outer = std::exchange(consumerThreads_, roles->getAttrOfType<IntegerAttr>(kConsumerThreadsAttr).getInt());
        state = walk(*roles.thenBlock(), state, insert);
        consumerThreads_ = outer;
      } else {
        Accesses a{views_};
        a.add(&op);
        if (state.racesWith(a)) {
          if (insert) {
            OpBuilder b(&op);
            barrier(b, op.getLoc());
          }
          state.barrier();
        }
        state.apply(a);
      }
    }
    return state;
  }

 private:
  // A barrier of the workgroup, or under a warp-specialized split, of its computing threads.
  void barrier(OpBuilder& b, Location loc) const {
    if (!consumerThreads_) {
      gpu::BarrierOp::create(b, loc);
      return;
    }
    createConsumerBarrier(b, loc, *consumerThreads_);
  }

  // The body's entry state is what reaches it from before the loop or from its own end.
  Pending walkLoop(scf::ForOp loop, Pending before, bool insert) {
    Block& body = *loop.getBody();
    Pending entry = before;
    for (;;) {
      Pending next = before.join(walk(body, entry, /*insert=*/false));
      if (next == entry) break;
      entry = next;  // monotone over a few flags per buffer: a few rounds at most
    }
    Pending after = walk(body, entry, insert);
    return before.join(after);  // the loop may run no iterations
  }

  ViewRanges views_;
  std::optional<int64_t> consumerThreads_;  // inside a warp-specialized split
};

struct WaveInsertBarriersPass : impl::WaveInsertBarriersBase<WaveInsertBarriersPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    BarrierPlacer placer(viewRanges(func));
    for (Block& block : func.getBody()) placer.walk(block, {}, /*insert=*/true);
  }
};

}  // namespace

}  // namespace wave::jit
