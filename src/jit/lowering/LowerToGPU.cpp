//===- LowerToGPU.cpp - memory-bound wave kernels -> gpu.func --------------===//
//
// Every per-thread value is one vector of `elementsPerThread` elements running along the
// innermost iteration dim; a value without that dim is the same scalar in every lane (a
// splat). A loop over the thread's steps walks the wave tile; in kernels with reductions
// (over the innermost dim) the steps are unrolled instead, so that a reduction sees all
// of them.
//
//===----------------------------------------------------------------------===//

#include "dialect/WaveDialect.h"
#include "analysis/MMAAnchors.h"
#include "analysis/SizeFacts.h"
#include "analysis/ThreadLayout.h"
#include "lowering/CrossThreadReduction.h"
#include "lowering/DistributeKernel.h"
#include "lowering/ElementConversion.h"
#include "lowering/ExprToArith.h"
#include "lowering/KernelSignature.h"
#include "lowering/LowerAttentionKernel.h"
#include "lowering/LoweringBuilder.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringMap.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVELOWERTOGPU
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

class KernelEmitter : LoweringBuilder {
 public:
  KernelEmitter(func::FuncOp kernel, dialect::ThreadLayoutAttr layout)
      : LoweringBuilder(kernel), kernel_(kernel), layout_(layout) {}

  // Builds the gpu.func inside `module` (a gpu.module).
  LogicalResult emit(gpu::GPUModuleOp module);

 private:
  int dimIndex(StringRef dim) const {
    for (auto [i, name] : llvm::enumerate(layout_.getDims()))
      if (cast<StringAttr>(name).getValue() == dim) return static_cast<int>(i);
    return -1;
  }
  size_t rank() const { return layout_.getDims().size(); }
  StringRef dimName(size_t k) const { return cast<StringAttr>(layout_.getDims()[k]).getValue(); }
  int64_t ept() const { return layout_.getElementsPerThread(); }
  VectorType vectorOf(Type element) { return VectorType::get({ept()}, element); }
  // Whether dim `k` may run past its size in the last tile (then accesses are masked).
  bool mayOverrun(size_t k) const { return !isKnownMultiple(kernel_, dimName(k), layout_.getBlockTile()[k]); }

  // `expr` over the thread symbols, as an affine.apply on their values.
  Value applyOverSymbols(AffineExpr expr, ArrayRef<StringAttr> symbols);
  LogicalResult lookupSizes(gpu::GPUFuncOp func);

  // Where this step's run of each tensor lies, and whether it may be touched.
  struct Access {
    SmallVector<Value> indices;
    bool vectorized;        // the memory's innermost dim is the iteration's innermost dim
    llvm::Align alignment;  // of a whole run's first element, in bytes
    Value whole;            // the run can be one aligned vector access (null: it always can)
  };
  FailureOr<Access> access(Operation* op, dialect::MemoryType memory);
  void emitStepPrologue(Value step);

  LogicalResult emitRead(dialect::ReadOp read);
  LogicalResult emitWrite(dialect::WriteOp write);
  LogicalResult emitOp(Operation* op);
  LogicalResult emitReduction(Operation* op);
  FailureOr<Value> emitSelfIndex(dialect::SelfIndexOp op);
  FailureOr<Value> emitApplyExpr(dialect::ApplyExprOp op, Value input);

  func::FuncOp kernel_;
  gpu::GPUFuncOp func_;  // what emit() builds
  dialect::ThreadLayoutAttr layout_;
  IRMapping memrefs_;                                // kernel argument -> gpu.func memref argument
  llvm::StringMap<Value> symbols_;                   // thread symbol -> its value
  SmallVector<std::optional<int64_t>> staticSizes_;  // per dim: its size, when known at compile time
  SmallVector<Value> sizes_;                         // per dim: its size
  Value rowsAligned_;                                // the innermost dim's size is a multiple of a run
  // Where a step's run lies; emitStepPrologue computes it.
  struct Step {
    Value index;                   // which step (the _STEP symbol's value)
    SmallVector<Value> global;     // per dim: the run's first element
    Value inBounds;                // the whole run is inside every tensor
    bool alwaysInBounds = false;   // no dim can run past its size
    Value outerInBounds;           // the run's row is inside (all but the innermost dim)
    Value innerCount;              // elements of the run inside the innermost dim
    DenseMap<Value, Value> values; // wave value -> the step's per-thread vector
  };
  SmallVector<Step> steps_;  // one (a loop over the steps), or every step (unrolled)
  Step* step_ = nullptr;     // the step being emitted
  // Makes `step` the one ops are emitted for (its values, and _STEP in index expressions).
  void enterStep(Step& step) {
    step_ = &step;
    symbols_[thread_symbol::step] = step.index;
  }
};

Value KernelEmitter::applyOverSymbols(AffineExpr expr, ArrayRef<StringAttr> symbols) {
  // Symbols become dims: affine.apply takes any index value as a dim.
  SmallVector<AffineExpr> dims;
  SmallVector<Value> operands;
  for (auto [i, s] : llvm::enumerate(symbols)) {
    dims.push_back(getAffineDimExpr(i, b_.getContext()));
    operands.push_back(symbols_.lookup(s.getValue()));
  }
  return apply(expr.replaceSymbols(dims), operands);
}

FailureOr<KernelEmitter::Access> KernelEmitter::access(Operation* op, dialect::MemoryType memory) {
  auto index = op->getAttrOfType<DictionaryAttr>("wave.index");
  if (!index) return op->emitOpError("expected a wave.index attribute (from wave-infer-index), but found none");
  Access a;
  SmallVector<StringRef> dims = memory.getDimNames();
  for (StringRef d : dims) {
    auto e = index.getAs<dialect::ExprAttr>(d);
    if (dimIndex(d) < 0 || !e)
      return op->emitOpError("is not yet supported by wave-lower-to-gpu: memory dim ")
             << d << " is not a dim of the written tensors";
    for (StringAttr s : e.getSymbols())
      if (!symbols_.count(s.getValue()))
        return op->emitOpError("expected an index over thread symbols, but found ") << s << " in " << e;
    a.indices.push_back(applyOverSymbols(e.getMap().getResult(0), e.getSymbols()));
  }
  const size_t inner = rank() - 1;
  a.vectorized = !dims.empty() && dims.back() == dimName(inner);
  if (!a.vectorized && llvm::is_contained(dims, dimName(inner)))
    return op->emitOpError("is not yet supported by wave-lower-to-gpu: a tensor whose innermost dim is not ")
           << dimName(inner) << " (a transposed access)";
  // Runs start at multiples of a run along the innermost dim; when rows are a multiple of
  // a run too, every run is aligned to its size, and loads can be whole vectors. This
  // assumes base pointers aligned to a run (device allocations are aligned to 256 bytes),
  // at most 16: CompiledKernel checks pointers passed in for that. Rows of a dynamic
  // length are checked at run time, unless an Assumption says they divide.
  const int64_t elementBytes = std::max<int64_t>(1, memory.getElementType().getIntOrFloatBitWidth() / 8);
  const bool oneRow = dims.size() == 1;
  const bool rowsAligned = oneRow || isKnownMultiple(kernel_, dimName(inner), ept());
  const bool rowsChecked = !rowsAligned && !staticSizes_[inner];
  a.alignment = llvm::Align(a.vectorized && (rowsAligned || rowsChecked) ? std::min<int64_t>(16, elementBytes * ept())
                                                                         : elementBytes);
  if (rowsChecked && a.vectorized)
    a.whole = arith::AndIOp::create(b_, loc_, step_->inBounds, rowsAligned_);
  else if (!step_->alwaysInBounds)
    a.whole = step_->inBounds;
  return a;
}

void KernelEmitter::emitStepPrologue(Value step) {
  step_->index = step;
  symbols_[thread_symbol::step] = step;
  SmallVector<StringAttr> symbols = indexSymbols(b_.getContext());
  SmallVector<Value> outer;
  const int64_t perStep = layout_.getThreadsPerWave() * ept();
  if (waveElements(layout_) % perStep != 0)
    outer.push_back(lessThan(applyOverSymbols(runOffset(layout_), symbols), index(waveElements(layout_))));
  step_->global.clear();
  for (AffineExpr start : runStart(layout_)) step_->global.push_back(applyOverSymbols(start, symbols));
  const size_t inner = rank() - 1;
  for (size_t k = 0; k < inner; ++k)
    if (mayOverrun(k)) outer.push_back(lessThan(step_->global[k], sizes_[k]));
  step_->outerInBounds = andAll(outer);
  Value count = index(ept());
  SmallVector<Value> conditions = outer;
  if (mayOverrun(inner)) {
    // Elements left in the innermost dim, clamped to [0, ept].
    Value left = arith::SubIOp::create(b_, loc_, sizes_[inner], step_->global[inner]);
    Value signedLeft = arith::MaxSIOp::create(b_, loc_, left, index(0));
    count = arith::MinSIOp::create(b_, loc_, signedLeft, index(ept()));
    conditions.push_back(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, count, index(ept())));
  }
  step_->inBounds = andAll(conditions);
  step_->alwaysInBounds = conditions.empty();
  step_->innerCount = arith::SelectOp::create(b_, loc_, step_->outerInBounds, count, index(0));
}

LogicalResult KernelEmitter::emitRead(dialect::ReadOp read) {
  if (read.getMapping()) return read.emitOpError("is not yet supported by wave-lower-to-gpu: index mappings");
  auto memoryType = read.getMemory().getType();
  auto a = access(read, memoryType);
  if (failed(a)) return failure();
  Value memref = memrefs_.lookup(read.getMemory());
  Type element = memoryType.getElementType();
  VectorType vec = vectorOf(element);
  Value result;
  if (a->vectorized && !a->whole) {
    result = vector::LoadOp::create(b_, loc_, vec, memref, a->indices, /*nontemporal=*/false, a->alignment);
  } else if (a->vectorized) {
    // Whole runs take one vector load; runs at the edge a masked one.
    auto branch = scf::IfOp::create(b_, loc_, TypeRange{vec}, a->whole, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(
          b_, loc_,
          ValueRange{vector::LoadOp::create(b_, loc_, vec, memref, a->indices, /*nontemporal=*/false, a->alignment)
                         .getResult()});
      b_.setInsertionPointToStart(branch.elseBlock());
      Value mask = vector::CreateMaskOp::create(b_, loc_, VectorType::get(vec.getShape(), b_.getI1Type()),
                                                ValueRange{step_->innerCount});
      Value zero = arith::ConstantOp::create(b_, loc_, vec, b_.getZeroAttr(vec));
      Value masked = vector::MaskedLoadOp::create(b_, loc_, vec, memref, a->indices, mask, zero);
      scf::YieldOp::create(b_, loc_, masked);
    }
    result = branch.getResult(0);
  } else {
    // One element for the whole run, when the row is inside the tensor.
    auto branch = scf::IfOp::create(b_, loc_, TypeRange{element}, step_->outerInBounds, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(b_, loc_, ValueRange{memref::LoadOp::create(b_, loc_, memref, a->indices).getResult()});
      b_.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(
          b_, loc_, ValueRange{arith::ConstantOp::create(b_, loc_, element, b_.getZeroAttr(element)).getResult()});
    }
    result = vector::BroadcastOp::create(b_, loc_, vec, branch.getResult(0));
  }
  step_->values[read.getResult()] = result;
  return success();
}

LogicalResult KernelEmitter::emitWrite(dialect::WriteOp write) {
  if (write.getMapping()) return write.emitOpError("is not yet supported by wave-lower-to-gpu: index mappings");
  auto a = access(write, write.getMemory().getType());
  if (failed(a)) return failure();
  if (!a->vectorized)
    return write.emitOpError("is not yet supported by wave-lower-to-gpu: a tensor without the innermost dim ")
           << dimName(rank() - 1);
  Value memref = memrefs_.lookup(write.getMemory());
  Value value = step_->values.lookup(write.getValue());
  if (!a->whole) {
    vector::StoreOp::create(b_, loc_, value, memref, a->indices, /*nontemporal=*/false, a->alignment);
    return success();
  }
  auto branch = scf::IfOp::create(b_, loc_, TypeRange{}, a->whole, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToStart(branch.thenBlock());
  vector::StoreOp::create(b_, loc_, value, memref, a->indices, /*nontemporal=*/false, a->alignment);
  b_.setInsertionPointToStart(branch.elseBlock());
  Value mask =
      vector::CreateMaskOp::create(b_, loc_, VectorType::get({ept()}, b_.getI1Type()), ValueRange{step_->innerCount});
  vector::MaskedStoreOp::create(b_, loc_, memref, a->indices, mask, value);
  return success();
}

template <class FloatOp, class IntOp>
Value binary(OpBuilder& b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(cast<VectorType>(lhs.getType()).getElementType())) return FloatOp::create(b, loc, lhs, rhs);
  return IntOp::create(b, loc, lhs, rhs);
}

LogicalResult KernelEmitter::emitOp(Operation* op) {
  auto operand = [&](unsigned i) { return step_->values.lookup(op->getOperand(i)); };
  Value result;
  if (auto read = dyn_cast<dialect::ReadOp>(op)) return emitRead(read);
  if (auto write = dyn_cast<dialect::WriteOp>(op)) return emitWrite(write);
  if (auto reg = dyn_cast<dialect::RegisterOp>(op)) {
    auto type = cast<dialect::TensorType>(reg.getResult().getType());
    VectorType vec = vectorOf(type.getElementType());
    result = arith::ConstantOp::create(b_, loc_, vec, DenseElementsAttr::get(vec, reg.getValue()));
  } else if (isa<dialect::AddOp>(op)) {
    result = binary<arith::AddFOp, arith::AddIOp>(b_, loc_, operand(0), operand(1));
  } else if (isa<dialect::SubOp>(op)) {
    result = binary<arith::SubFOp, arith::SubIOp>(b_, loc_, operand(0), operand(1));
  } else if (isa<dialect::MulOp>(op)) {
    result = binary<arith::MulFOp, arith::MulIOp>(b_, loc_, operand(0), operand(1));
  } else if (isa<dialect::DivOp>(op)) {
    result = binary<arith::DivFOp, arith::DivSIOp>(b_, loc_, operand(0), operand(1));
  } else if (isa<dialect::MaximumOp>(op)) {
    result = binary<arith::MaximumFOp, arith::MaxSIOp>(b_, loc_, operand(0), operand(1));
  } else if (isa<dialect::MinimumOp>(op)) {
    result = binary<arith::MinimumFOp, arith::MinSIOp>(b_, loc_, operand(0), operand(1));
  } else if (isa<dialect::NegOp>(op)) {
    Value x = operand(0);
    result = isa<FloatType>(cast<VectorType>(x.getType()).getElementType())
                 ? arith::NegFOp::create(b_, loc_, x).getResult()
                 : arith::SubIOp::create(
                       b_, loc_, arith::ConstantOp::create(b_, loc_, x.getType(), b_.getZeroAttr(x.getType())), x)
                       .getResult();
  } else if (isa<dialect::Exp2Op>(op)) {
    result = math::Exp2Op::create(b_, loc_, operand(0));
  } else if (isa<dialect::Log2Op>(op)) {
    result = math::Log2Op::create(b_, loc_, operand(0));
  } else if (isa<dialect::SqrtOp>(op)) {
    result = math::SqrtOp::create(b_, loc_, operand(0));
  } else if (isa<dialect::RsqrtOp>(op)) {
    result = math::RsqrtOp::create(b_, loc_, operand(0));
  } else if (isa<dialect::TanhOp>(op)) {
    result = math::TanhOp::create(b_, loc_, operand(0));
  } else if (isa<dialect::AbsOp>(op)) {
    Value x = operand(0);
    result = isa<FloatType>(cast<VectorType>(x.getType()).getElementType())
                 ? math::AbsFOp::create(b_, loc_, x).getResult()
                 : math::AbsIOp::create(b_, loc_, x).getResult();
  } else if (isa<dialect::ReciprocalOp>(op)) {
    Value x = operand(0);
    Value one = arith::ConstantOp::create(
        b_, loc_, x.getType(),
        DenseElementsAttr::get(cast<ShapedType>(x.getType()),
                               b_.getFloatAttr(cast<VectorType>(x.getType()).getElementType(), 1.0)));
    result = arith::DivFOp::create(b_, loc_, one, x);
  } else if (auto c = dyn_cast<dialect::CastOp>(op)) {
    result = convertElements(b_, loc_, operand(0), vectorOf(c.getResult().getType().getElementType()));
  } else if (isa<dialect::PermuteOp, dialect::BroadcastOp>(op)) {
    // Values are held at the thread's positions in the iteration space whatever their
    // dims' order, and a value without a dim is already the same along it.
    result = operand(0);
  } else if (auto select = dyn_cast<dialect::SelectOp>(op)) {
    result = arith::SelectOp::create(b_, loc_, operand(0), operand(1), operand(2));
  } else if (auto selfIndex = dyn_cast<dialect::SelfIndexOp>(op)) {
    auto r = emitSelfIndex(selfIndex);
    if (failed(r)) return failure();
    result = *r;
  } else if (auto applyExpr = dyn_cast<dialect::ApplyExprOp>(op)) {
    auto r = emitApplyExpr(applyExpr, operand(0));
    if (failed(r)) return failure();
    result = *r;
  } else {
    return op->emitOpError(
        "is not yet supported by wave-lower-to-gpu (memory-bound kernels: read, write, register, cast, "
        "elementwise math, select, broadcast, permute, self_index, apply_expr and reductions)");
  }
  step_->values[op->getResult(0)] = result;
  return success();
}

// The thread's positions along a dim: its run's (first + 0, 1, ..) along the innermost
// dim, the same position in every lane along the others.
FailureOr<Value> KernelEmitter::emitSelfIndex(dialect::SelfIndexOp op) {
  const int k = dimIndex(op.getDim());
  if (k < 0)
    return op.emitOpError("is not yet supported by wave-lower-to-gpu: the index of ")
           << op.getDim() << ", which is not a dim of the written tensors";
  auto vec = vectorOf(op.getResult().getType().getElementType());
  Value first = arith::IndexCastOp::create(b_, loc_, vec.getElementType(), step_->global[k]);
  Value result = vector::BroadcastOp::create(b_, loc_, vec, first);
  if (k == static_cast<int>(rank()) - 1) {
    SmallVector<Attribute> offsets;
    for (int64_t e = 0; e < ept(); ++e) offsets.push_back(b_.getIntegerAttr(vec.getElementType(), e));
    Value steps = arith::ConstantOp::create(b_, loc_, vec, DenseElementsAttr::get(vec, offsets));
    result = arith::AddIOp::create(b_, loc_, result, steps);
  }
  return result;
}

// `expr` evaluated on each element of `input` ($0), its symbols at their sizes.
FailureOr<Value> KernelEmitter::emitApplyExpr(dialect::ApplyExprOp op, Value input) {
  dialect::ExprAttr expr = op.getExpr();
  auto vec = cast<VectorType>(input.getType());
  SmallVector<Value> symbols;
  for (StringAttr s : expr.getSymbols()) {
    auto size = dimSize(b_, kernel_, func_, s.getValue());
    if (failed(size)) return failure();
    symbols.push_back(
        vector::BroadcastOp::create(b_, loc_, vec, arith::IndexCastOp::create(b_, loc_, vec.getElementType(), *size)));
  }
  return buildExpr(b_, loc_, expr, input, symbols);
}

// A reduction over the innermost iteration dim. Each thread reduces its runs' elements
// inside the tensor (the rest count as the identity) over the steps that cover one row,
// then the lanes of a row combine theirs by shuffles, then, where several waves share a
// row, each wave's result goes through shared memory to the others (wave-insert-barriers
// orders that exchange). Every step ends up with its row's result, splat across its vector.
LogicalResult KernelEmitter::emitReduction(Operation* op) {
  const ReductionKind kind = isa<dialect::ReduceMaxOp>(op) ? ReductionKind::max : ReductionKind::sum;
  auto dim = op->getAttrOfType<StringAttr>("dim").getValue();
  const size_t inner = rank() - 1;
  if (dim != dimName(inner))
    return op->emitOpError("is not yet supported by wave-lower-to-gpu: a reduction over ")
           << dim << ", which is not the innermost dim (" << dimName(inner) << ") of the iteration space";
  const int64_t blockRow = layout_.getBlockTile()[inner];
  if (!isKnownAtMost(kernel_, dim, blockRow)) {
    auto diag = op->emitOpError("expected one workgroup to cover the dim it reduces over, ")
                << dim << ", whose workgroup tile is " << blockRow;
    if (auto size = staticSizes_[inner]) return diag << ", but " << dim << " is " << *size;
    return diag << ", but " << dim << " is dynamic and not known to be at most that (state it: Assumption(" << dim
                << " <= " << blockRow << "))";
  }
  Type element = cast<dialect::TensorType>(op->getResult(0).getType()).getElementType();
  // Shuffles move 32-bit words: narrower floats are reduced in f32.
  Type work = isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32 ? b_.getF32Type() : element;
  if (work.getIntOrFloatBitWidth() != 32)
    return op->emitOpError("is not yet supported by wave-lower-to-gpu: a reduction of ")
           << element << " (32-bit or narrower floats, 32-bit integers)";

  // Which steps and lanes share a row: a step covers perStep elements of the wave tile.
  const int64_t tpw = layout_.getThreadsPerWave(), perStep = tpw * ept();
  const int64_t waveRow = layout_.getWaveTile()[inner];
  int64_t stepsPerRow = 1, lanesPerRow = tpw;
  if (waveRow % perStep == 0)
    stepsPerRow = waveRow / perStep;
  else if (perStep % waveRow == 0)
    lanesPerRow = waveRow / ept();
  else
    return op->emitOpError("is not yet supported by wave-lower-to-gpu: a reduction over a wave tile of ")
           << waveRow << " elements, neither a multiple nor a divisor of a step's " << perStep;
  const int64_t groups = static_cast<int64_t>(steps_.size()) / stepsPerRow;

  auto widen = [&](Value v) {
    return v.getType() == work ? v : arith::ExtFOp::create(b_, loc_, work, v).getResult();
  };
  SmallVector<Value> partial(groups);
  for (auto [s, step] : llvm::enumerate(steps_)) {
    Value x = step.values.lookup(op->getOperand(0));
    if (!step.alwaysInBounds) {
      Value mask = vector::CreateMaskOp::create(b_, loc_, VectorType::get({ept()}, b_.getI1Type()),
                                                ValueRange{step.innerCount});
      Value identity = vector::BroadcastOp::create(b_, loc_, x.getType(),
                                                   reductionIdentity(b_, loc_, kind, getElementTypeOrSelf(x)));
      x = arith::SelectOp::create(b_, loc_, mask, x, identity);
    }
    Value r = widen(reduceElements(b_, loc_, kind, x));
    Value& p = partial[s / stepsPerRow];
    p = p ? combine(b_, loc_, kind, p, r) : r;
  }
  for (Value& p : partial) p = reduceAcrossLanes(b_, loc_, kind, p, lanesPerRow, tpw);

  if (const int64_t wavesPerRow = blockRow / waveRow; wavesPerRow > 1) {
    // Waves are numbered row-major over the workgroup tile, the innermost dim fastest: a
    // row's waves are wavesPerRow consecutive ones. Slot [wave][group][lane group].
    const int64_t laneGroups = tpw / lanesPerRow, waves = layout_.getThreadsPerBlock() / tpw;
    auto bufferType = MemRefType::get({waves * groups * laneGroups}, work, AffineMap(),
                                      gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup));
    Value buffer = func_.addWorkgroupAttribution(bufferType, loc_);
    Value tid = symbols_.lookup(thread_symbol::thread);
    AffineExpr t = getAffineDimExpr(0, b_.getContext()), g = getAffineDimExpr(1, b_.getContext());
    for (int64_t group = 0; group < groups; ++group) {
      Value slot = apply((t.floorDiv(tpw) * groups + g) * laneGroups + (t % tpw).floorDiv(lanesPerRow),
                         {tid, index(group)});
      ifThen(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, apply(t % lanesPerRow, tid), index(0)),
             [&] { memref::StoreOp::create(b_, loc_, partial[group], buffer, slot); });
    }
    for (int64_t group = 0; group < groups; ++group) {
      Value total;
      for (int64_t j = 0; j < wavesPerRow; ++j) {
        AffineExpr wave = t.floorDiv(tpw).floorDiv(wavesPerRow) * wavesPerRow + j;
        Value slot = apply((wave * groups + g) * laneGroups + (t % tpw).floorDiv(lanesPerRow), {tid, index(group)});
        Value v = memref::LoadOp::create(b_, loc_, buffer, slot);
        total = total ? combine(b_, loc_, kind, total, v) : v;
      }
      partial[group] = total;
    }
  }

  auto vec = vectorOf(element);
  for (auto [s, step] : llvm::enumerate(steps_)) {
    Value r = partial[s / stepsPerRow];
    if (op->getNumOperands() > 1) {  // the init value takes part once
      Value init = vector::ExtractOp::create(b_, loc_, step.values.lookup(op->getOperand(1)), ArrayRef<int64_t>{0});
      r = combine(b_, loc_, kind, r, widen(init));
    }
    if (r.getType() != element) r = arith::TruncFOp::create(b_, loc_, element, r);
    step.values[op->getResult(0)] = vector::BroadcastOp::create(b_, loc_, vec, r);
  }
  return success();
}

// The size of each dim of the iteration space.
LogicalResult KernelEmitter::lookupSizes(gpu::GPUFuncOp func) {
  for (size_t k = 0; k < rank(); ++k) {
    staticSizes_.push_back(staticSize(kernel_, dimName(k)));
    auto size = dimSize(b_, kernel_, func, dimName(k));
    if (failed(size)) return failure();
    sizes_.push_back(*size);
  }
  const size_t inner = rank() - 1;
  if (!staticSizes_[inner] && !isKnownMultiple(kernel_, dimName(inner), ept()))
    rowsAligned_ = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq,
                                         arith::RemUIOp::create(b_, loc_, sizes_[inner], index(ept())), index(0));
  return success();
}

LogicalResult KernelEmitter::emit(gpu::GPUModuleOp module) {
  func_ = createKernelFunc(b_, kernel_, module, layout_.getThreadsPerBlock());
  auto func = func_;
  setLaunchShape(b_, kernel_, func, layout_);
  for (auto [from, to] : llvm::zip(kernel_.getArguments(), func.getArguments())) memrefs_.map(from, to);
  if (failed(lookupSizes(func))) return failure();

  symbols_[thread_symbol::thread] = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
  const gpu::Dimension axes[] = {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
  for (int axis = 0; axis < 3; ++axis)
    symbols_[thread_symbol::workgroup[axis]] = gpu::BlockIdOp::create(b_, loc_, axes[axis]);

  const bool reduces =
      kernel_.walk([](Operation* op) {
               return isa<dialect::ReduceMaxOp, dialect::ReduceSumOp>(op) ? WalkResult::interrupt()
                                                                           : WalkResult::advance();
             })
          .wasInterrupted();
  if (!reduces) {
    // A loop over the steps, every op emitted once inside it.
    auto loop = scf::ForOp::create(b_, loc_, index(0), index(layout_.getSteps()), index(1));
    b_.setInsertionPointToStart(loop.getBody());
    step_ = &steps_.emplace_back();
    emitStepPrologue(loop.getInductionVar());
    for (Operation& op : kernel_.getBody().front().without_terminator())
      if (failed(emitOp(&op))) return failure();
    b_.setInsertionPointAfter(loop);
  } else {
    // Reductions need every step's values at once: the steps are unrolled, each op emitted
    // for every step (a reduction once, over all of them).
    steps_.resize(layout_.getSteps());
    for (auto [s, step] : llvm::enumerate(steps_)) {
      step_ = &step;
      emitStepPrologue(index(s));
    }
    for (Operation& op : kernel_.getBody().front().without_terminator()) {
      if (isa<dialect::ReduceMaxOp, dialect::ReduceSumOp>(op)) {
        if (failed(emitReduction(&op))) return failure();
        continue;
      }
      for (Step& step : steps_) {
        enterStep(step);
        if (failed(emitOp(&op))) return failure();
      }
    }
  }
  gpu::ReturnOp::create(b_, loc_);
  return success();
}

struct WaveLowerToGPUPass : impl::WaveLowerToGPUBase<WaveLowerToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    module.walk([&](func::FuncOp f) {
      if (!f.isExternal() && f->hasAttr("wave.constraints")) kernels.push_back(f);
    });
    if (kernels.empty()) return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "wave_kernels");
    for (func::FuncOp kernel : kernels) {
      if (hasLayouts(kernel)) {
        if (failed(emitDistributedKernel(kernel, gpuModule))) return signalPassFailure();
        kernel.erase();
        continue;
      }
      if (isAttentionKernel(kernel)) {
        if (failed(emitAttentionKernel(kernel, gpuModule))) return signalPassFailure();
        kernel.erase();
        continue;
      }
      if (computesWithMMA(kernel)) {
        kernel.emitError("expected the layouts of wave-assign-layouts on a kernel with wave.mma, but found none");
        return signalPassFailure();
      }
      auto layout = kernel->getAttrOfType<dialect::ThreadLayoutAttr>("wave.thread_layout");
      if (!layout) {
        kernel.emitError("expected a wave.thread_layout attribute (from wave-infer-index), but found none");
        return signalPassFailure();
      }
      if (failed(KernelEmitter(kernel, layout).emit(gpuModule))) return signalPassFailure();
      kernel.erase();
    }
  }
};

}  // namespace
}  // namespace wave::jit
