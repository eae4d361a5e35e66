//===- AssignLayouts.cpp - a distributed layout on every tensor value -----===//
//
// Anchors: an mma fixes its operands' and accumulator's layouts (analysis/MMAAnchors), a
// reduction's result is its input's layout sliced along the reduced dim, a permute's is
// its input's permuted, a write into a shared tile spreads the tile over the whole
// workgroup in coalesced runs. Elementwise ops take their operands' layout. Reads,
// constants, indices and broadcasts cost the same in any layout: they take the layout
// their first consumer asks for (reads with none: coalesced runs along the memory's
// innermost dim); a read's or write's dynamic values follow its value, sliced to their
// dims. An iterate's carried values keep one layout through the loop: the
// init's, or what the body first asks of it, or what it yields. Where a value reaches a
// consumer in another layout than it needs (operands that disagree; a write whose value
// would scatter its runs, as in a transpose), a wave.convert_layout goes after the value,
// unless the value is cheaply computed again in the layout asked for (constants, indices
// and elementwise functions of them and of plain reads of the kernel's arguments).
//
// An mma may run transposed (computing acc^T, see wave.mma): where that lets its result
// reach its consumers without crossing threads (attention's scores into the second mma,
// the row statistics into its accumulator), it is worth choosing. A kernel's few mmas
// are tried in every orientation on a copy of the kernel, and the orientation whose
// conversions move the fewest elements between threads is kept; ties keep them as written.
//
//===----------------------------------------------------------------------===//

#include "analysis/DistributedLayout.h"
#include "analysis/KernelGrid.h"
#include "analysis/MMAAnchors.h"
#include "dialect/WaveDialect.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEASSIGNLAYOUTS
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

bool isElementwise(Operation* op) {
  return isa<dialect::AddOp, dialect::SubOp, dialect::MulOp, dialect::DivOp, dialect::MaximumOp, dialect::MinimumOp,
             dialect::NegOp, dialect::AbsOp, dialect::Exp2Op, dialect::Log2Op, dialect::ReciprocalOp, dialect::SqrtOp,
             dialect::RsqrtOp, dialect::TanhOp, dialect::TanhApproxOp, dialect::BitcastOp, dialect::SinOp, dialect::CosOp, dialect::SinhOp, dialect::CbrtOp,
             dialect::RoundEvenOp, dialect::Atan2Op, dialect::PowfOp, dialect::GtOp, dialect::GeOp, dialect::LtOp,
             dialect::LeOp, dialect::EqOp, dialect::NeOp, dialect::CastOp, dialect::SelectOp, dialect::ApplyExprOp,
             dialect::ShuffleOp>(op);
}

// Ops whose result takes the layout its consumer asks for.
bool takesConsumerLayout(Operation* op) {
  return isa<dialect::RegisterOp, dialect::SelfIndexOp, dialect::BroadcastOp, dialect::ReadOp>(op);
}

bool isSharedTile(Value memory) { return memory.getDefiningOp<dialect::AllocateOp>() != nullptr; }

dialect::TensorType tensorOf(Value v) { return cast<dialect::TensorType>(v.getType()); }

// `layout` (over `from`'s dims) with the dims `to` lacks sliced away and the rest in `to`'s
// order.
LayoutAttr restrictLayout(LayoutAttr layout, ArrayRef<StringRef> from, ArrayRef<StringRef> to) {
  SmallVector<StringRef> kept(from);
  for (int i = static_cast<int>(from.size()) - 1; i >= 0; --i)
    if (dimIndex(to, from[i]) < 0) {
      layout = sliceLayout(layout, i);
      kept.erase(kept.begin() + i);
    }
  SmallVector<unsigned> order;
  for (StringRef d : to) order.push_back(dimIndex(kept, d));
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
  // Coalesced runs over a shared tile of `dims`, the whole workgroup's threads on it.
  LayoutAttr tileFill(dialect::MemoryType tile);
  void makeBroadcastsExplicit();
  LogicalResult visitBlock(Block& block);
  LogicalResult visit(Operation* op);
  LogicalResult visitIterate(dialect::IterateOp loop);
  LogicalResult visitConditional(dialect::ConditionalOp conditional);
  LogicalResult visitWrite(dialect::WriteOp write);
  // Makes `op`'s operand `i` arrive in `want`.
  void demand(Operation* user, unsigned i, LayoutAttr want);
  // Whether `v` is cheaper computed again in another layout than moved between threads:
  // elementwise ops and broadcasts (at most kMaxRecomputed deep) of constants, indices and
  // plain reads of kernel arguments (an index chain such as a key's position).
  bool recomputable(Value v, int depth = 0);
  static constexpr int kMaxRecomputed = 8;
  // Makes a read's or write's dynamic values (its operands from `first` on) arrive in
  // `layout`, the accessed value's, sliced to their dims: each thread then holds the
  // indices of the elements it moves.
  void demandDynamicValues(Operation* access, unsigned first, LayoutAttr layout, ArrayRef<StringRef> valueDims);
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

LayoutAttr LayoutAssigner::tileFill(dialect::MemoryType tile) {
  SmallVector<StringRef> dims = tile.getDimNames();
  SmallVector<int64_t> tileExtent;
  for (StringRef d : dims) tileExtent.push_back(grid_.tiling(d).blockTile);
  const int64_t count = grid_.waves.count(), lanes = grid_.waves.lanes;
  const unsigned bits = tile.getElementType().getIntOrFloatBitWidth();
  const int64_t widest = coalescedRun(tileExtent.back(), bits);
  // The waves split the outermost dim that divides among them (the innermost only in
  // whole runs); where none does, the workgroup's threads share the tile's runs. A wave
  // whose runs do not fill its lanes' last step would wrap around and copy some elements
  // twice (two cp.async to one address): shorter runs (of 4 bytes at least, what cp.async
  // copies) are taken first where they fill every step.
  auto split = [&](int64_t run, SmallVector<int64_t>& extent, WaveGrid& waves) {
    extent.assign(tileExtent.begin(), tileExtent.end());
    waves = WaveGrid{.dims = {}, .waves = {count}, .waveTile = {1}, .lanes = lanes};
    for (size_t k = 0; k < dims.size() && waves.dims.empty(); ++k) {
      const bool inner = k + 1 == dims.size();
      if (extent[k] % count != 0 || (inner && (extent[k] / count) % run != 0)) continue;
      extent[k] /= count;
      waves.dims = {dims[k].str()};
      waves.waveTile = {extent[k]};
    }
    return (count == 1 || !waves.dims.empty()) && runCount(extent, run) % lanes == 0;
  };
  SmallVector<int64_t> extent;
  WaveGrid waves;
  for (int64_t run = widest; run >= 1 && run * bits >= 32; run /= 2)
    if (widest % run == 0 && split(run, extent, waves)) return blockedLayout(kernel_.getContext(), dims, extent, run, waves);
  split(widest, extent, waves);
  if (count > 1 && waves.dims.empty()) {
    // No dim divides among the waves (twelve waves on a 256 x 64 tile): rather than every
    // wave copying the whole tile, the workgroup's threads take its runs in turn, in runs
    // that fill every step where some do.
    for (int64_t run = widest; run >= 1 && run * bits >= 32; run /= 2)
      if (widest % run == 0 && runCount(tileExtent, run) % (count * lanes) == 0)
        return spreadLayout(kernel_.getContext(), tileExtent, run, count, lanes);
    return spreadLayout(kernel_.getContext(), tileExtent, widest, count, lanes);
  }
  return blockedLayout(kernel_.getContext(), dims, extent, widest, waves);
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

bool LayoutAssigner::recomputable(Value v, int depth) {
  Operation* def = v.getDefiningOp();
  if (!def || depth > kMaxRecomputed) return false;
  if (isa<dialect::RegisterOp, dialect::SelfIndexOp>(def)) return true;
  if (auto read = dyn_cast<dialect::ReadOp>(def))
    return read.getDynamic().empty() && isa<BlockArgument>(read.getMemory()) && !read.getWaitAtLeast();
  if (!isElementwise(def) && !isa<dialect::BroadcastOp>(def)) return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) { return recomputable(operand, depth + 1); });
}

void LayoutAssigner::demandDynamicValues(Operation* access, unsigned first, LayoutAttr layout,
                                         ArrayRef<StringRef> valueDims) {
  for (unsigned i = first; i < access->getNumOperands(); ++i)
    demand(access, i, restrictLayout(layout, valueDims, tensorOf(access->getOperand(i)).getDimNames()));
}

void LayoutAssigner::assign(Operation* op, LayoutAttr want) {
  Value result = op->getResult(0);
  set(result, want);
  if (isa<dialect::ReadOp>(op)) {
    demandDynamicValues(op, 1, want, tensorOf(result).getDimNames());
    return;
  }
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
    // A carried value the body asks for first: the loop keeps it in that layout.
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
  // So is what is computed from them (and from reads of kernel arguments, loaded again):
  // the copy's operands are asked for in its layout in turn.
  if (def && recomputable(v)) {
    OpBuilder b(kernel_.getContext());
    b.setInsertionPointAfter(def);
    Operation* copy = b.clone(*def);
    user->setOperand(i, copy->getResult(0));
    assign(copy, want);
    return;
  }
  // One conversion per value and layout, right after the value so that it dominates
  // every consumer (outside a loop for a value the loop only reads).
  Value& convert = converts_[{v, want}];
  if (!convert) {
    OpBuilder b(kernel_.getContext());
    if (def)
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
    convert = dialect::ConvertLayoutOp::create(b, user->getLoc(), tensorOf(v).withLayout(want), v);
    layouts_[convert] = want;
  }
  user->setOperand(i, convert);
}

LogicalResult LayoutAssigner::visitWrite(dialect::WriteOp write) {
  dialect::MemoryType memory = write.getMemory().getType();
  SmallVector<StringRef> memoryDims = memory.getDimNames();
  SmallVector<StringRef> valueDims = tensorOf(write.getValue()).getDimNames();
  // Through an index mapping the memory's dims are not the value's: runs over the value.
  if (write.getMapping()) {
    if (!layouts_.count(write.getValue())) demand(write, 0, blocked(valueDims));
    demandDynamicValues(write, 2, layouts_.lookup(write.getValue()), valueDims);
    return success();
  }
  LayoutAttr want = isSharedTile(write.getMemory())
                        ? restrictLayout(tileFill(memory), memoryDims, valueDims)
                        : blockedFor(memoryDims, valueDims);
  LayoutAttr have = layouts_.lookup(write.getValue());
  if (!have || memoryDims.empty()) {
    demand(write, 0, want);
    return success();
  }
  // Keep the value's layout unless it would scatter what coalesced runs write together.
  const unsigned inner = dimIndex(valueDims, memoryDims.back());
  auto runs = [&](LayoutAttr l) { return registerRuns(l, inner, 16).front().length; };
  if (runs(have) == 1 && runs(want) > 1 && !sameElementsPerThread(have, want)) demand(write, 0, want);
  return success();
}

LogicalResult LayoutAssigner::visitIterate(dialect::IterateOp loop) {
  Block& body = loop.getBody().front();
  for (auto [init, arg] : llvm::zip(loop.getIterArgs(), body.getArguments()))
    if (LayoutAttr l = layouts_.lookup(init)) set(arg, l);
  if (failed(visitBlock(body))) return failure();
  Operation* yield = body.getTerminator();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    LayoutAttr want = layouts_.lookup(arg);
    if (!want) want = layouts_.lookup(yield->getOperand(i));
    if (!want) want = blocked(tensorOf(arg).getDimNames());
    if (!layouts_.count(arg)) set(arg, want);
    demand(yield, i, want);
    demand(loop, i, want);
    set(loop.getResult(i), want);
  }
  return success();
}

// The condition's one element in every thread (as set_symbol's size); each result in
// the layout its yielded value took (else the otherwise value's, else coalesced runs).
LogicalResult LayoutAssigner::visitConditional(dialect::ConditionalOp conditional) {
  demand(conditional, 0,
         replicatedLayout(kernel_.getContext(), tensorOf(conditional.getCondition()).getDims().size(), grid_.waves));
  Block& body = conditional.getBody().front();
  if (failed(visitBlock(body))) return failure();
  Operation* yield = body.getTerminator();
  for (auto [i, result] : llvm::enumerate(conditional.getResults())) {
    LayoutAttr want = layouts_.lookup(yield->getOperand(i));
    if (!want) want = layouts_.lookup(conditional.getOtherwise()[i]);
    if (!want) want = blocked(tensorOf(result).getDimNames());
    demand(yield, i, want);
    demand(conditional, 1 + i, want);
    set(result, want);
  }
  return success();
}

LogicalResult LayoutAssigner::visit(Operation* op) {
  if (isa<dialect::ReadOp>(op)) return success();  // placed by its first consumer
  if (takesConsumerLayout(op)) return success();
  if (isa<dialect::AllocateOp, dialect::TmaCopyOp, dialect::WorkgroupBarrierOp, dialect::SetWavePrioOp>(op))
    return success();  // no tensor values
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
  if (isa<dialect::ReductionOpInterface>(op)) {
    LayoutAttr in = needInput(op->getOperand(0));
    int k = dimIndex(tensorOf(op->getOperand(0)).getDimNames(), op->getAttrOfType<StringAttr>("dim").getValue());
    LayoutAttr out = sliceLayout(in, k);
    set(op->getResult(0), out);
    if (op->getNumOperands() > 1) demand(op, 1, out);
    return success();
  }
  if (auto combine = dyn_cast<dialect::CombineWavesOp>(op)) {
    set(combine.getResult(), needInput(combine.getInput()));
    return success();
  }
  // Prefix sums work in any layout (through shared memory); the result keeps the input's.
  if (auto cumsum = dyn_cast<dialect::CumsumOp>(op)) {
    set(cumsum.getResult(), needInput(cumsum.getInput()));
    return success();
  }
  // Gathers within the workgroup, through shared memory: the input as it comes, the
  // result (and an offset per element) in coalesced runs.
  if (isa<dialect::ExtractSliceOp, dialect::ReshapeOp>(op)) {
    needInput(op->getOperand(0));
    LayoutAttr out = blocked(tensorOf(op->getResult(0)).getDimNames());
    set(op->getResult(0), out);
    if (isa<dialect::ExtractSliceOp>(op)) demand(op, 1, out);
    return success();
  }
  if (auto permute = dyn_cast<dialect::PermuteOp>(op)) {
    LayoutAttr in = needInput(permute.getInput());
    SmallVector<StringRef> from = tensorOf(permute.getInput()).getDimNames();
    SmallVector<unsigned> order;
    for (StringRef d : tensorOf(permute.getResult()).getDimNames()) order.push_back(dimIndex(from, d));
    set(permute.getResult(), permuteLayout(in, order));
    return success();
  }
  if (auto mma = dyn_cast<dialect::MmaOp>(op)) {
    auto anchors = mmaAnchors(mma, grid_);
    if (failed(anchors)) return failure();
    demand(op, 0, anchors->lhs);
    demand(op, 1, anchors->rhs);
    demand(op, 2, anchors->acc);
    set(mma.getResult(), anchors->acc);
    return success();
  }
  if (auto print = dyn_cast<dialect::PrintOp>(op)) {
    // Printed where it is; the mask follows the value.
    LayoutAttr in = needInput(print.getValue());
    if (print.getMask()) demand(op, 1, in);
    return success();
  }
  // A size set at run time: the workgroup's one element, in every thread.
  if (auto set = dyn_cast<dialect::SetSymbolOp>(op)) {
    demand(op, 0, replicatedLayout(kernel_.getContext(), tensorOf(set.getSize()).getDims().size(), grid_.waves));
    return success();
  }
  if (auto loop = dyn_cast<dialect::IterateOp>(op)) return visitIterate(loop);
  if (auto conditional = dyn_cast<dialect::ConditionalOp>(op)) return visitConditional(conditional);
  if (auto write = dyn_cast<dialect::WriteOp>(op)) return visitWrite(write);
  return op->emitOpError("is not yet supported by the layout pipeline");
}

LogicalResult LayoutAssigner::visitBlock(Block& block) {
  SmallVector<Operation*> ops;
  for (Operation& op : block.without_terminator()) ops.push_back(&op);
  for (Operation* op : ops)
    if (failed(visit(op))) return failure();
  return success();
}

LogicalResult LayoutAssigner::run() {
  makeBroadcastsExplicit();
  if (failed(visitBlock(kernel_.getBody().front()))) return failure();
  // What no consumer placed (unused values) takes coalesced runs.
  SmallVector<Operation*> unplaced;
  kernel_.walk([&](Operation* op) {
    for (Value r : op->getResults())
      if (isa<dialect::TensorType>(r.getType()) && !layouts_.count(r)) unplaced.push_back(op);
  });
  for (Operation* op : unplaced)
    if (!layouts_.count(op->getResult(0))) assign(op, blocked(tensorOf(op->getResult(0)).getDimNames()));
  return success();
}

// What an assignment's conversions cost: the registers of each that moves elements between
// threads (a register permutation is free), sixteen times over inside a loop.
int64_t conversionCost(func::FuncOp kernel) {
  int64_t cost = 0;
  kernel.walk([&](dialect::ConvertLayoutOp convert) {
    LayoutAttr from = tensorOf(convert.getInput()).getLayout(), to = tensorOf(convert.getResult()).getLayout();
    if (!from || !to || sameElementsPerThread(from, to)) return;
    cost += to.getNumRegisters() * (convert->getParentOfType<dialect::IterateOp>() ? 16 : 1);
  });
  return cost;
}

// Sets each mma's `transposed` to bit i of `orientation`, in walk order.
void orient(func::FuncOp kernel, unsigned orientation) {
  unsigned i = 0;
  kernel.walk([&](dialect::MmaOp mma) { mma.setTransposed((orientation >> i++) & 1); });
}

// Assigns layouts to `kernel` with its mmas in the orientation whose conversions cost
// least: each is tried on a copy of the kernel (as written first; a free one ends the
// search), and the cheapest copy's body replaces the kernel's. A kernel without mmas,
// with too many to try, or that states its choice already is assigned as it is.
LogicalResult assignCheapest(func::FuncOp kernel, const KernelGrid& grid) {
  unsigned mmas = 0;
  bool stated = false;
  kernel.walk([&](dialect::MmaOp mma) {
    ++mmas;
    stated |= mma.getTransposed();
  });
  if (mmas == 0 || mmas > 4 || stated) return LayoutAssigner(kernel, grid).run();
  func::FuncOp best;
  int64_t bestCost = 0;
  for (unsigned orientation = 0; orientation < (1u << mmas) && !(best && bestCost == 0); ++orientation) {
    auto trial = cast<func::FuncOp>(kernel->clone());
    orient(trial, orientation);
    bool assigned;
    {
      // An orientation whose tiles do not fit the instruction just is not a candidate.
      ScopedDiagnosticHandler silence(kernel.getContext(), [](Diagnostic&) { return success(); });
      assigned = succeeded(LayoutAssigner(trial, grid).run());
    }
    const int64_t cost = assigned ? conversionCost(trial) : 0;
    if (assigned && (!best || cost < bestCost)) {
      if (best) best->erase();
      best = trial;
      bestCost = cost;
    } else {
      trial->erase();
    }
  }
  // No orientation fits: the kernel as written says why, its warpgroup mmas in one they
  // fit (wave-select-warpgroup-mma chose them for one; the error is another op's).
  if (!best) {
    kernel.walk([&](dialect::MmaOp mma) {
      if (!mma.getWarpgroup()) return;
      ScopedDiagnosticHandler silence(kernel.getContext(), [](Diagnostic&) { return success(); });
      mma.setTransposed(failed(mmaAnchors(mma, grid)));
    });
    return LayoutAssigner(kernel, grid).run();
  }
  kernel.getBody().takeBody(best.getBody());
  best->erase();
  return success();
}

// A value a thread holds more than this many elements of cannot live in its registers (an
// H100 thread has 255); the lowering's questions about its layout also grow with the square
// of it. Such a tiling is the user's to change, so it is an error at the first op making one.
// Reads of the swizzled tiles a warpgroup mma takes from shared memory hold no registers.
constexpr int64_t kMaxElementsPerThread = 512;

LogicalResult checkElementsPerThread(func::FuncOp kernel, const KernelGrid& grid) {
  WalkResult walk = kernel.walk([&](Operation* op) {
    for (Value r : op->getResults()) {
      auto type = dyn_cast<dialect::TensorType>(r.getType());
      if (!type || !type.getLayout() || type.getLayout().getNumRegisters() <= kMaxElementsPerThread) continue;
      if (swizzledTileOf(r)) continue;  // wgmma reads it from shared memory: never in registers
      InFlightDiagnostic diag = op->emitOpError("expected each thread to hold at most ")
                                << kMaxElementsPerThread << " elements of its result, but the tiles of [";
      llvm::interleaveComma(type.getDimNames(), diag, [&](StringRef d) { diag << d << ": " << grid.tiling(d).blockTile; });
      diag << "] over " << grid.threads() << " threads give each " << type.getLayout().getNumRegisters()
           << " (make the workgroup tiles smaller or add waves with a WaveConstraint)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

struct WaveAssignLayoutsPass : impl::WaveAssignLayoutsBase<WaveAssignLayoutsPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (kernel.isExternal() || !kernel->hasAttr("wave.constraints")) return;
    auto grid = kernelGrid(kernel);
    if (failed(grid) || failed(assignCheapest(kernel, *grid)) || failed(checkElementsPerThread(kernel, *grid)))
      return signalPassFailure();
  }
};

}  // namespace
}  // namespace wave::jit
