//===- InsertBarriers.cpp - the barriers shared-memory accesses need --------===//
//
// A forward walk over the structured control flow of a gpu.func that tracks which kinds of
// shared-memory access this thread made since the last barrier; an access that may race
// with one of them gets a barrier before it. See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "transforms/Passes.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEINSERTBARRIERS
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

bool isShared(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

// The shared-memory effects of one op (with everything nested in it).
struct Accesses {
  bool read = false, write = false;
  bool asyncCopy = false;  // starts a copy into shared memory that lands at a wait
  bool asyncWait = false;  // lands this thread's copies

  void add(Operation* op) {
    if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
      asyncCopy |= isShared(copy.getDst());
      read |= isShared(copy.getSrc());
      return;
    }
    if (isa<nvgpu::DeviceAsyncWaitOp>(op)) {
      asyncWait = true;
      return;
    }
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      const bool sharedOperand = llvm::any_of(op->getOperands(), isShared);
      for (const MemoryEffects::EffectInstance& e : instances) {
        // An effect not tied to a value (e.g. ldmatrix's) is on the op's memref operands.
        if (e.getValue() ? !isShared(e.getValue()) : !sharedOperand) continue;
        read |= isa<MemoryEffects::Read>(e.getEffect());
        write |= isa<MemoryEffects::Write>(e.getEffect());
      }
    } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() && llvm::any_of(op->getOperands(), isShared)) {
      read = write = true;  // effects unknown: assume both
    }
    for (Region& region : op->getRegions())
      region.walk([&](Operation* nested) {
        if (nested != op) add(nested);
      });
  }
};

// What this thread did to shared memory since the last barrier.
struct Pending {
  bool read = false, write = false;
  bool copies = false;  // async copies issued, not yet waited for

  bool operator==(const Pending&) const = default;
  Pending join(const Pending& o) const { return {read || o.read, write || o.write, copies || o.copies}; }
  // Whether `a` may race with an access of another thread made since the last barrier.
  bool racesWith(const Accesses& a) const {
    return (a.read && write) || ((a.write || a.asyncCopy) && read);
  }
  // The state after `a` (a barrier before it, if it raced, already cleared this).
  void apply(const Accesses& a) {
    read |= a.read;
    write |= a.write;
    copies |= a.asyncCopy;
    if (a.asyncWait) write |= copies;
  }
};

class BarrierPlacer {
 public:
  // Walks `block` from `state`. Records where barriers go; inserts them if `insert`.
  Pending walk(Block& block, Pending state, bool insert) {
    for (Operation& op : llvm::make_early_inc_range(block)) {
      if (isa<gpu::BarrierOp>(op)) {
        state = {};
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        state = walkLoop(loop, state, insert);
      } else {
        Accesses a;
        a.add(&op);
        if (state.racesWith(a)) {
          if (insert) {
            OpBuilder b(&op);
            gpu::BarrierOp::create(b, op.getLoc());
          }
          state = {};
        }
        state.apply(a);
      }
    }
    return state;
  }

 private:
  // The body's entry state is what reaches it from before the loop or from its own end.
  Pending walkLoop(scf::ForOp loop, Pending before, bool insert) {
    Block& body = *loop.getBody();
    Pending entry = before;
    for (;;) {
      Pending next = before.join(walk(body, entry, /*insert=*/false));
      if (next == entry) break;
      entry = next;  // monotone over three flags: a few rounds at most
    }
    Pending after = walk(body, entry, insert);
    return before.join(after);  // the loop may run no iterations
  }
};

struct WaveInsertBarriersPass : impl::WaveInsertBarriersBase<WaveInsertBarriersPass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    for (Block& block : func.getBody()) BarrierPlacer().walk(block, {}, /*insert=*/true);
  }
};

}  // namespace

}  // namespace wave::jit
