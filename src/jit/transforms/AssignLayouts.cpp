//===- AssignLayouts.cpp - a distributed layout on every tensor value -----===//
//
// Anchors: a read's result is in coalesced runs along its memory's innermost dim, a
// reduction's result is its input's layout sliced along the reduced dim, a permute's is
// its input's permuted. Elementwise ops take their operands' layout; where operands
// disagree, or a write would scatter its runs, a wave.convert_layout goes in front of the
// consumer. Ops whose values cost nothing to make in any layout (register, self_index,
// broadcast, and elementwise chains of them) take the layout their first consumer asks
// for; another consumer gets a copy (constants and indices) or a conversion.
//
//===----------------------------------------------------------------------===//

#include "analysis/DistributedLayout.h"
#include "analysis/KernelGrid.h"
#include "dialect/WaveDialect.h"
#include "transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEASSIGNLAYOUTS
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

bool isElementwise(Operation* op) {
  return isa<dialect::AddOp, dialect::SubOp, dialect::MulOp, dialect::DivOp, dialect::MaximumOp, dialect::MinimumOp,
             dialect::NegOp, dialect::AbsOp, dialect::Exp2Op, dialect::Log2Op, dialect::ReciprocalOp, dialect::SqrtOp,
             dialect::RsqrtOp, dialect::TanhOp, dialect::CastOp, dialect::SelectOp, dialect::ApplyExprOp>(op);
}

// Ops whose result takes the layout its consumer asks for.
bool takesConsumerLayout(Operation* op) {
  return isa<dialect::RegisterOp, dialect::SelfIndexOp, dialect::BroadcastOp>(op);
}

dialect::TensorType tensorOf(Value v) { return cast<dialect::TensorType>(v.getType()); }

int indexOf(ArrayRef<StringRef> dims, StringRef d) {
  auto it = llvm::find(dims, d);
  return it == dims.end() ? -1 : static_cast<int>(it - dims.begin());
}

// `layout` (over `from`'s dims) with the dims `to` lacks sliced away and the rest in `to`'s
// order.
LayoutAttr restrictLayout(LayoutAttr layout, ArrayRef<StringRef> from, ArrayRef<StringRef> to) {
  SmallVector<StringRef> kept(from);
  for (int i = static_cast<int>(from.size()) - 1; i >= 0; --i)
    if (indexOf(to, from[i]) < 0) {
      layout = sliceLayout(layout, i);
      kept.erase(kept.begin() + i);
    }
  SmallVector<unsigned> order;
  for (StringRef d : to) order.push_back(indexOf(kept, d));
  return permuteLayout(layout, order);
}

class LayoutAssigner {
 public:
  LayoutAssigner(func::FuncOp kernel, KernelGrid grid) : kernel_(kernel), grid_(std::move(grid)) {
    unsigned bits = 0;
    for (Type t : kernel.getArgumentTypes())
      if (auto m = dyn_cast<dialect::MemoryType>(t)) {
        unsigned b = m.getElementType().getIntOrFloatBitWidth();
        if (b > 1) bits = bits ? std::min(bits, b) : b;
      }
    runBits_ = bits ? bits : 32;
  }

  LogicalResult run();

 private:
  LayoutAttr blocked(ArrayRef<StringRef> dims);
  // A layout over `valueDims` whose runs follow memory of `memoryDims`.
  LayoutAttr blockedFor(ArrayRef<StringRef> memoryDims, ArrayRef<StringRef> valueDims);
  void makeBroadcastsExplicit();
  LogicalResult visit(Operation* op);
  // Makes `op`'s operand `i` arrive in `want`.
  void demand(Operation* user, unsigned i, LayoutAttr want);
  // Gives an op that takes its consumer's layout the layout `want`.
  void assign(Operation* op, LayoutAttr want);
  void set(Value v, LayoutAttr layout) {
    layouts_[v] = layout;
    v.setType(tensorOf(v).withLayout(layout));
  }

  func::FuncOp kernel_;
  KernelGrid grid_;
  unsigned runBits_;
  DenseMap<Value, LayoutAttr> layouts_;
  DenseMap<std::pair<Value, Attribute>, Value> converts_;
};

LayoutAttr LayoutAssigner::blocked(ArrayRef<StringRef> dims) {
  SmallVector<int64_t> waveTile;
  for (StringRef d : dims) waveTile.push_back(grid_.tiling(d).waveTile);
  int64_t run = dims.empty() ? 1 : coalescedRun(waveTile.back(), runBits_);
  // Rows whose known length is not a multiple of the run would leave most runs unaligned:
  // runs shrink to what keeps them aligned.
  if (dims.size() > 1)
    if (auto hyper = kernel_->getAttrOfType<DictionaryAttr>("wave.hyperparameters"))
      if (auto size = hyper.getAs<IntegerAttr>(dims.back()))
        while (run > 1 && size.getInt() % run != 0) run /= 2;
  return blockedLayout(kernel_.getContext(), dims, waveTile, run, grid_.waves);
}

LayoutAttr LayoutAssigner::blockedFor(ArrayRef<StringRef> memoryDims, ArrayRef<StringRef> valueDims) {
  return restrictLayout(blocked(memoryDims), memoryDims, valueDims);
}

// Binary ops and selects whose operands have fewer dims than the result get an explicit
// wave.broadcast, so that every elementwise op's operands share the result's dims.
void LayoutAssigner::makeBroadcastsExplicit() {
  kernel_.walk([&](Operation* op) {
    if (!isElementwise(op) || op->getNumResults() != 1) return;
    auto result = tensorOf(op->getResult(0));
    for (OpOperand& operand : op->getOpOperands()) {
      auto type = tensorOf(operand.get());
      if (type.getDims() == result.getDims()) continue;
      OpBuilder b(op);
      auto wide = dialect::TensorType::get(op->getContext(), result.getDims(), type.getElementType());
      operand.set(dialect::BroadcastOp::create(b, op->getLoc(), wide, operand.get()));
    }
  });
}

void LayoutAssigner::assign(Operation* op, LayoutAttr want) {
  Value result = op->getResult(0);
  set(result, want);
  if (auto broadcast = dyn_cast<dialect::BroadcastOp>(op)) {
    demand(op, 0,
           restrictLayout(want, tensorOf(result).getDimNames(), tensorOf(broadcast.getInput()).getDimNames()));
    return;
  }
  for (unsigned i = 0; i < op->getNumOperands(); ++i) demand(op, i, want);
}

void LayoutAssigner::demand(Operation* user, unsigned i, LayoutAttr want) {
  Value v = user->getOperand(i);
  auto it = layouts_.find(v);
  if (it != layouts_.end() && it->second == want) return;
  Operation* def = v.getDefiningOp();
  if (it == layouts_.end() && def && (takesConsumerLayout(def) || isElementwise(def))) {
    assign(def, want);
    return;
  }
  if (it == layouts_.end()) {
    // Not yet placed and not placeable here (should not happen for SSA in one block).
    set(v, want);
    return;
  }
  // Constants and indices are copied rather than moved between threads.
  if (def && isa<dialect::RegisterOp, dialect::SelfIndexOp>(def)) {
    OpBuilder b(user);
    Operation* copy = b.clone(*def);
    set(copy->getResult(0), want);
    user->setOperand(i, copy->getResult(0));
    return;
  }
  Value& convert = converts_[{v, want}];
  if (!convert) {
    OpBuilder b(user);
    convert = dialect::ConvertLayoutOp::create(b, user->getLoc(), tensorOf(v).withLayout(want), v);
    layouts_[convert] = want;
  }
  user->setOperand(i, convert);
}

LogicalResult LayoutAssigner::visit(Operation* op) {
  if (auto read = dyn_cast<dialect::ReadOp>(op)) {
    if (read.getMapping())
      return op->emitOpError("is not yet supported by the layout pipeline: reads through an index mapping");
    set(read.getResult(), blocked(read.getMemory().getType().getDimNames()));
    return success();
  }
  if (takesConsumerLayout(op)) return success();  // placed when a consumer asks
  if (isElementwise(op)) {
    // The first operand that already has a layout sets it; none: wait for a consumer.
    for (Value operand : op->getOperands())
      if (auto l = layouts_.lookup(operand)) {
        assign(op, l);
        return success();
      }
    return success();
  }
  auto needInput = [&](Value input) {
    if (!layouts_.count(input)) demand(op, 0, blocked(tensorOf(input).getDimNames()));
    return layouts_.lookup(op->getOperand(0));
  };
  if (isa<dialect::ReduceMaxOp, dialect::ReduceSumOp>(op)) {
    LayoutAttr in = needInput(op->getOperand(0));
    int k = indexOf(tensorOf(op->getOperand(0)).getDimNames(), op->getAttrOfType<StringAttr>("dim").getValue());
    LayoutAttr out = sliceLayout(in, k);
    set(op->getResult(0), out);
    if (op->getNumOperands() > 1) demand(op, 1, out);
    return success();
  }
  if (auto permute = dyn_cast<dialect::PermuteOp>(op)) {
    LayoutAttr in = needInput(permute.getInput());
    SmallVector<StringRef> from = tensorOf(permute.getInput()).getDimNames();
    SmallVector<unsigned> order;
    for (StringRef d : tensorOf(permute.getResult()).getDimNames()) order.push_back(indexOf(from, d));
    set(permute.getResult(), permuteLayout(in, order));
    return success();
  }
  if (auto write = dyn_cast<dialect::WriteOp>(op)) {
    if (write.getMapping())
      return op->emitOpError("is not yet supported by the layout pipeline: writes through an index mapping");
    SmallVector<StringRef> memoryDims = write.getMemory().getType().getDimNames();
    SmallVector<StringRef> valueDims = tensorOf(write.getValue()).getDimNames();
    LayoutAttr want = blockedFor(memoryDims, valueDims);
    LayoutAttr have = layouts_.lookup(write.getValue());
    if (!have || memoryDims.empty()) {
      demand(op, 0, want);
      return success();
    }
    // Keep the value's layout unless it would scatter what coalesced runs write together.
    const unsigned inner = indexOf(valueDims, memoryDims.back());
    auto runs = [&](LayoutAttr l) { return registerRuns(l, inner, 16).front().length; };
    if (runs(have) == 1 && runs(want) > 1 && !sameElementsPerThread(have, want)) demand(op, 0, want);
    return success();
  }
  return op->emitOpError("is not yet supported by the layout pipeline (memory-bound kernels: read, write, "
                         "register, cast, elementwise math, select, broadcast, permute, self_index, apply_expr, "
                         "reductions)");
}

LogicalResult LayoutAssigner::run() {
  makeBroadcastsExplicit();
  SmallVector<Operation*> ops;
  for (Operation& op : kernel_.getBody().front().without_terminator()) ops.push_back(&op);
  for (Operation* op : ops)
    if (failed(visit(op))) return failure();
  // What no consumer placed (unused values) takes coalesced runs.
  for (Operation* op : ops)
    for (Value r : op->getResults())
      if (isa<dialect::TensorType>(r.getType()) && !layouts_.count(r)) assign(op, blocked(tensorOf(r).getDimNames()));
  return success();
}

struct WaveAssignLayoutsPass : impl::WaveAssignLayoutsBase<WaveAssignLayoutsPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (!kernel->hasAttr("wave.constraints")) return;
    // Loops and MMAs still take the kernel-shaped lowerings.
    if (kernel.walk([](Operation* op) {
                return isa<dialect::IterateOp, dialect::MmaOp, dialect::AllocateOp>(op) ? WalkResult::interrupt()
                                                                                         : WalkResult::advance();
              })
            .wasInterrupted())
      return;
    auto grid = kernelGrid(kernel);
    if (failed(grid) || failed(LayoutAssigner(kernel, std::move(*grid)).run())) return signalPassFailure();
  }
};

}  // namespace
}  // namespace wave::jit
