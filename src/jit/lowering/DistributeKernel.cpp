//===- DistributeKernel.cpp - wave ops with layouts -> per-thread vector code ---===//
//
// After wave-assign-layouts, a value's layout says which of its elements each thread
// holds: the thread keeps them as one vector, register r of the layout at element r. Each
// op is lowered on its own from its operands' and result's layouts, by the Distributor
// (Distributor.h), one file per op family:
//
//   read / write / allocate   DistributeMemory.cpp
//   tma_copy                  DistributeTmaCopy.cpp
//   reductions                DistributeReduction.cpp
//   cumsum                    DistributeScan.cpp
//   shuffle                   DistributeShuffle.cpp
//   extract_slice, reshape    DistributeGather.cpp
//   iterate                   DistributeLoop.cpp
//   mma                       DistributeMma.cpp
//   convert_layout            DistributeLayoutConversion.cpp
//   print                     DistributePrint.cpp
//   elementwise, casts        here: the same arith/math op on the vectors (operands share
//                             the layout)
//   broadcast                 here: a register gather, each result register the input's
//                             that holds its element with the broadcast dims dropped
//   permute                   here: nothing, the layout was permuted, the registers are
//                             the same
//
// and the kernel's frame: the gpu.func, the thread's lane and wave, the walk over the
// ops; the workgroup's tiles (one, or a persistent loop over them) are
// DistributeTiles.cpp's.
//
//===----------------------------------------------------------------------===//

#include "lowering/DistributeKernel.h"
#include "lowering/Distributor.h"

#include "analysis/AffineBounds.h"
#include "analysis/DistributedLayout.h"
#include "analysis/KernelGrid.h"
#include "analysis/MMAAnchors.h"
#include "analysis/SizeFacts.h"
#include "analysis/ThreadLayout.h"
#include "lowering/CrossThreadReduction.h"
#include "lowering/ElementConversion.h"
#include "lowering/ExprToArith.h"
#include "lowering/KernelSignature.h"
#include "lowering/LoweringBuilder.h"
#include "lowering/MMAInstructions.h"
#include "wave/print_format.hpp"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <set>

namespace wave::jit {

using namespace mlir;

Operation* firstWithoutLayout(func::FuncOp kernel) {
  Operation* found = nullptr;
  kernel.walk([&](Operation* op) {
    for (Type t : op->getResultTypes())
      if (auto tensor = dyn_cast<dialect::TensorType>(t); tensor && !tensor.getLayout()) {
        found = op;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

namespace distribution {

SmallVector<Value> Distributor::indexOf(LayoutAttr layout, ArrayRef<StringRef> dims, int64_t reg, bool inTile) {
  SmallVector<Value> index;
  for (auto [k, expr] : llvm::enumerate(positionOfRegister(layout, reg))) {
    Value p = threadIndex(expr);
    index.push_back(inTile ? p : arith::AddIOp::create(b_, loc_, offsets_.lookup(dims[k]), p).getResult());
  }
  return index;
}

Value Distributor::waveDigit(int axis) {
  ArrayRef<int64_t> waves = grid_.waves.waves;
  AffineExpr w = getAffineDimExpr(0, b_.getContext());
  return apply(w.floorDiv(waveAxisStrides(waves)[axis]) % waves[axis], {wave_});
}

// Whether `v` is zero wherever its position along a dim lies past the dim's end: reads
// fill those positions with zeros, and casts and products keep them zero.
bool zeroFilledPastEnd(Value v) {
  Operation* def = v.getDefiningOp();
  if (!def) return false;
  if (auto read = dyn_cast<dialect::ReadOp>(def)) {
    auto tile = read.getMemory().getDefiningOp<dialect::AllocateOp>();
    if (!tile) return isa<BlockArgument>(read.getMemory());
    return llvm::all_of(tile->getUsers(), [](Operation* user) {
      auto write = dyn_cast<dialect::WriteOp>(user);
      return !write || zeroFilledPastEnd(write.getValue());
    });
  }
  if (isa<dialect::CastOp, dialect::ConvertLayoutOp>(def)) return zeroFilledPastEnd(def->getOperand(0));
  if (isa<dialect::MulOp>(def)) return zeroFilledPastEnd(def->getOperand(0)) || zeroFilledPastEnd(def->getOperand(1));
  return false;
}

SmallVector<Value> Distributor::positionInTile(LayoutAttr layout, int64_t reg) {
  SmallVector<Value> p;
  for (AffineExpr e : positionOfRegister(layout, reg)) p.push_back(threadIndex(e));
  return p;
}

Value Distributor::tanhApprox(Value x) {
  if (!options_.ptxTanh) return math::TanhOp::create(b_, loc_, x);
  auto type = cast<VectorType>(x.getType());
  Type f32 = b_.getF32Type();
  Value result = arith::ConstantOp::create(b_, loc_, type, b_.getZeroAttr(type));
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    Value e = vector::ExtractOp::create(b_, loc_, x, ArrayRef<int64_t>{i});
    if (e.getType() != f32) e = arith::ExtFOp::create(b_, loc_, f32, e);
    Value t = LLVM::InlineAsmOp::create(b_, loc_, TypeRange{f32}, ValueRange{e}, "tanh.approx.f32 $0, $1;", "=f,f",
                                        /*has_side_effects=*/false, /*is_align_stack=*/false, LLVM::TailCallKind::None,
                                        LLVM::AsmDialectAttr::get(b_.getContext(), LLVM::AsmDialect::AD_ATT),
                                        /*operand_attrs=*/ArrayAttr())
                  .getResult(0);
    if (type.getElementType() != f32) t = arith::TruncFOp::create(b_, loc_, type.getElementType(), t);
    result = vector::InsertOp::create(b_, loc_, t, result, ArrayRef<int64_t>{i});
  }
  return result;
}

// A comparison's i1 vector: ordered float predicates (NaN false) but for ne (unordered: NaN
// true), signed integer ones.
Value Distributor::compareElements(Operation* op, Value lhs, Value rhs) {
  using F = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  auto [f, i] = llvm::TypeSwitch<Operation*, std::pair<F, I>>(op)
                    .Case([](dialect::GtOp) { return std::pair{F::OGT, I::sgt}; })
                    .Case([](dialect::GeOp) { return std::pair{F::OGE, I::sge}; })
                    .Case([](dialect::LtOp) { return std::pair{F::OLT, I::slt}; })
                    .Case([](dialect::LeOp) { return std::pair{F::OLE, I::sle}; })
                    .Case([](dialect::EqOp) { return std::pair{F::OEQ, I::eq}; })
                    .Default([](Operation*) { return std::pair{F::UNE, I::ne}; });
  if (isa<FloatType>(getElementTypeOrSelf(lhs))) return arith::CmpFOp::create(b_, loc_, f, lhs, rhs);
  return arith::CmpIOp::create(b_, loc_, i, lhs, rhs);
}

LogicalResult Distributor::lowerOp(Operation* op) {
  auto operand = [&](unsigned i) { return lookup(op->getOperand(i)); };
  auto done = [&](Value v) {
    values_[op->getResult(0)] = v;
    return success();
  };
  auto constantLike = [&](Value like, double value) {
    auto type = cast<VectorType>(like.getType());
    return arith::ConstantOp::create(
        b_, loc_, type, DenseElementsAttr::get(type, b_.getFloatAttr(type.getElementType(), value)));
  };
  return llvm::TypeSwitch<Operation*, LogicalResult>(op)
      .Case([&](dialect::ReadOp read) { return access(read, read.getMemory(), read.getResult(), true); })
      .Case([&](dialect::WriteOp write) { return access(write, write.getMemory(), write.getValue(), false); })
      .Case([&](dialect::AllocateOp a) { return lowerAllocate(a); })
      .Case([&](dialect::TmaCopyOp c) { return lowerTmaCopy(c); })
      .Case([&](dialect::IterateOp loop) { return lowerIterate(loop); })
      .Case([&](dialect::MmaOp mma) { return lowerMma(mma); })
      .Case([&](dialect::RegisterOp reg) {
        VectorType vec = registersOf(reg.getResult());
        return done(arith::ConstantOp::create(b_, loc_, vec, DenseElementsAttr::get(vec, reg.getValue())));
      })
      .Case([&](dialect::AddOp) { return done(binary<arith::AddFOp, arith::AddIOp>(b_, loc_, operand(0), operand(1))); })
      .Case([&](dialect::SubOp) { return done(binary<arith::SubFOp, arith::SubIOp>(b_, loc_, operand(0), operand(1))); })
      .Case([&](dialect::MulOp) { return done(binary<arith::MulFOp, arith::MulIOp>(b_, loc_, operand(0), operand(1))); })
      .Case([&](dialect::DivOp) { return done(binary<arith::DivFOp, arith::DivSIOp>(b_, loc_, operand(0), operand(1))); })
      .Case([&](dialect::MaximumOp) {
        return done(binary<arith::MaximumFOp, arith::MaxSIOp>(b_, loc_, operand(0), operand(1)));
      })
      .Case([&](dialect::MinimumOp) {
        return done(binary<arith::MinimumFOp, arith::MinSIOp>(b_, loc_, operand(0), operand(1)));
      })
      .Case([&](dialect::NegOp) {
        Value x = operand(0);
        if (isa<FloatType>(getElementTypeOrSelf(x))) return done(arith::NegFOp::create(b_, loc_, x));
        Value zero = arith::ConstantOp::create(b_, loc_, x.getType(), b_.getZeroAttr(x.getType()));
        return done(arith::SubIOp::create(b_, loc_, zero, x));
      })
      .Case([&](dialect::AbsOp) {
        Value x = operand(0);
        if (isa<FloatType>(getElementTypeOrSelf(x))) return done(math::AbsFOp::create(b_, loc_, x));
        return done(math::AbsIOp::create(b_, loc_, x));
      })
      .Case([&](dialect::Exp2Op) { return done(math::Exp2Op::create(b_, loc_, operand(0))); })
      .Case([&](dialect::Log2Op) { return done(math::Log2Op::create(b_, loc_, operand(0))); })
      .Case([&](dialect::SqrtOp) { return done(math::SqrtOp::create(b_, loc_, operand(0))); })
      .Case([&](dialect::RsqrtOp) { return done(math::RsqrtOp::create(b_, loc_, operand(0))); })
      .Case([&](dialect::TanhOp) { return done(math::TanhOp::create(b_, loc_, operand(0))); })
      .Case([&](dialect::SinOp) { return done(math::SinOp::create(b_, loc_, operand(0))); })
      .Case([&](dialect::CosOp) { return done(math::CosOp::create(b_, loc_, operand(0))); })
      .Case([&](dialect::SinhOp) { return done(math::SinhOp::create(b_, loc_, operand(0))); })
      .Case([&](dialect::CbrtOp) { return done(math::CbrtOp::create(b_, loc_, operand(0))); })
      .Case([&](dialect::RoundEvenOp) { return done(math::RoundEvenOp::create(b_, loc_, operand(0))); })
      .Case([&](dialect::Atan2Op) { return done(math::Atan2Op::create(b_, loc_, operand(0), operand(1))); })
      .Case([&](dialect::PowfOp) { return done(math::PowFOp::create(b_, loc_, operand(0), operand(1))); })
      .Case<dialect::GtOp, dialect::GeOp, dialect::LtOp, dialect::LeOp, dialect::EqOp, dialect::NeOp>(
          [&](Operation* c) { return done(compareElements(c, operand(0), operand(1))); })
      .Case([&](dialect::ReciprocalOp) {
        return done(arith::DivFOp::create(b_, loc_, constantLike(operand(0), 1.0), operand(0)));
      })
      .Case([&](dialect::CastOp c) { return done(convertElements(b_, loc_, operand(0), registersOf(c.getResult()))); })
      .Case([&](dialect::BitcastOp c) { return done(arith::BitcastOp::create(b_, loc_, registersOf(c.getResult()), operand(0))); })
      .Case([&](dialect::TanhApproxOp) { return done(tanhApprox(operand(0))); })
      .Case([&](dialect::SelectOp) {
        return done(arith::SelectOp::create(b_, loc_, operand(0), operand(1), operand(2)));
      })
      .Case([&](dialect::PermuteOp) { return done(operand(0)); })
      .Case([&](dialect::BroadcastOp b) -> LogicalResult {
        Value g = gather(operand(0), layoutOf(b.getInput()), layoutOf(b.getResult()), dimsOf(b.getInput()),
                         dimsOf(b.getResult()));
        if (!g)
          return op->emitOpError("expected an input layout that holds each result element's row in its thread");
        return done(g);
      })
      .Case([&](dialect::SelfIndexOp s) {
        LayoutAttr layout = layoutOf(s.getResult());
        VectorType vec = registersOf(s.getResult());
        Value v = arith::ConstantOp::create(b_, loc_, vec, b_.getZeroAttr(vec));
        for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
          Value at = indexOf(layout, {s.getDim()}, r).front();
          v = vector::InsertOp::create(b_, loc_, arith::IndexCastOp::create(b_, loc_, vec.getElementType(), at), v,
                                       ArrayRef<int64_t>{r});
        }
        return done(v);
      })
      .Case([&](dialect::ApplyExprOp a) -> LogicalResult {
        if (Value mask = comparePositions(a)) return done(mask);
        Value input = operand(0);
        auto vec = cast<VectorType>(input.getType());
        SmallVector<Value> symbols;
        for (StringAttr s : a.getExpr().getSymbols()) {
          auto size = dimSize(b_, kernel_, func_, s.getValue());
          if (failed(size)) return failure();
          symbols.push_back(vector::BroadcastOp::create(
              b_, loc_, vec, arith::IndexCastOp::create(b_, loc_, vec.getElementType(), *size)));
        }
        // The expression computes in the input's type; a result of another (an i1 mask
        // from a comparison) takes it as a cast does.
        Value result = buildExpr(b_, loc_, a.getExpr(), input, symbols);
        VectorType want = registersOf(a.getResult());
        return done(result.getType() == want ? result : convertElements(b_, loc_, result, want));
      })
      .Case([&](dialect::ReductionOpInterface r) { return lowerReduction(r); })
      .Case([&](dialect::ConvertLayoutOp c) { return lowerConvert(c); })
      .Case([&](dialect::CombineWavesOp c) { return lowerCombineWaves(c); })
      .Case([&](dialect::CumsumOp c) { return lowerCumsum(c); })
      .Case([&](dialect::PrintOp p) { return lowerPrint(p); })
      .Case([&](dialect::SetSymbolOp s) { return lowerSetSymbol(s); })
      .Case([&](dialect::ShuffleOp s) { return lowerShuffle(s); })
      .Case([&](dialect::ExtractSliceOp s) { return lowerExtractSlice(s); })
      .Case([&](dialect::ReshapeOp r) { return lowerReshape(r); })
      .Case([&](dialect::ConditionalOp c) { return lowerConditional(c); })
      .Case([&](dialect::WorkgroupBarrierOp) {
        gpu::BarrierOp::create(b_, loc_);
        return success();
      })
      .Case([&](dialect::SetWavePrioOp p) {
        if (options_.wavePriority)
          ROCDL::SetPrioOp::create(b_, loc_, b_.getI16IntegerAttr(static_cast<int16_t>(p.getPriority())));
        return success();
      })
      .Default([&](Operation*) {
        return op->emitOpError("is not yet supported by the layout pipeline's distribution");
      });
}

LogicalResult Distributor::emit(gpu::GPUModuleOp module) {
  func_ = createKernelFunc(b_, kernel_, module, grid_.threads());
  SmallVector<LaunchDim> launch;
  llvm::StringMap<int64_t> rankSlices;
  for (auto& [dim, t] : grid_.dims) {
    launch.push_back({dim, t.gridStep(), t.waveTile, t.gridAxis});
    if (t.rankSlice) rankSlices[dim] = t.rankSlice;
  }
  setLaunchShape(b_, kernel_, func_, launchLayout(b_.getContext(), launch, grid_.waves.lanes, 1, 1), rankSlices);
  for (auto [from, to] : llvm::zip(kernel_.getArguments(), func_.getArguments())) memrefs_.map(from, to);
  Value tid = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
  lane_ = arith::RemUIOp::create(b_, loc_, tid, index(grid_.waves.lanes));
  wave_ = arith::DivUIOp::create(b_, loc_, tid, index(grid_.waves.lanes));
  if (failed(enterTiles())) return failure();
  if (failed(lowerBlock(kernel_.getBody().front()))) return failure();
  if (failed(exitTiles())) return failure();
  if (sharedBytes_) func_->setAttr("wave.shared_memory_bytes", b_.getI64IntegerAttr(sharedBytes_));
  gpu::ReturnOp::create(b_, loc_);
  return success();
}

LogicalResult Distributor::lowerBlock(Block& block) {
  for (Operation& op : block.without_terminator()) {
    if (deferred_.contains(&op)) continue;  // lowered where its mask is (lowerHidingMask)
    loc_ = op.getLoc();
    // What a wave's partials compute stays a partial until wave.combine_waves; memory
    // never sees one (wave-split-loop-across-waves combines every loop result first).
    const bool takesPartials =
        !isa<dialect::CombineWavesOp>(op) && llvm::any_of(op.getOperands(), [&](Value v) { return partials_.contains(v); });
    if (takesPartials && isa<dialect::WriteOp, dialect::PrintOp>(op))
      return op.emitOpError("expected values combined across the waves that fold their parts apart, but found a "
                            "wave's own partial");
    if (failed(checkUseOfSplitSums(&op))) return failure();
    if (failed(op.hasAttr("wave.hiding_mask") ? lowerHidingMask(cast<dialect::AddOp>(op)) : lowerOp(&op)))
      return failure();
    if (takesPartials) partials_.insert(op.getResults().begin(), op.getResults().end());
  }
  return success();
}

// A workgroup's part of a sum split across workgroups stays one through linear ops; the
// parts meet only in memory, by writes that add. Anything else would see one part as if
// it were the whole sum.
LogicalResult Distributor::checkUseOfSplitSums(Operation* op) {
  SmallVector<unsigned> parts;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (splitSums_.count(v)) parts.push_back(i);
  if (parts.empty()) return success();
  dialect::IterateOp loop = splitSums_.lookup(op->getOperand(parts.front()));
  auto floatCast = [&] {
    auto cast = dyn_cast<dialect::CastOp>(op);
    return cast && isa<FloatType>(elementOf(cast.getResult())) && isa<FloatType>(elementOf(cast->getOperand(0)));
  };
  const bool linear =
      isa<dialect::ConvertLayoutOp, dialect::NegOp, dialect::BroadcastOp, dialect::PermuteOp>(op) || floatCast() ||
      (isa<dialect::MulOp>(op) && parts.size() == 1) || (isa<dialect::DivOp>(op) && parts == SmallVector<unsigned>{0}) ||
      (isa<dialect::AddOp, dialect::SubOp>(op) && parts.size() == 2);
  if (linear) {
    for (Value r : op->getResults()) splitSums_[r] = loop;
    return success();
  }
  auto write = dyn_cast<dialect::WriteOp>(op);
  const bool adds = write && write.getCombine() == dialect::WriteCombine::add;
  if (adds && parts == SmallVector<unsigned>{0}) return success();  // the value added, not an index
  const std::string part = "one workgroup's part of the sums of iterate<" + loop.getDim().str() +
                           "> (a WorkgroupConstraint splits " + loop.getDim().str() + " across workgroups)";
  if (adds)
    return op->emitOpError("expected ") << part << " only as the value atomic_add adds, but found it among the "
                                                   "indices (dynamic values) of its mapping";
  if (write && write.getCombine())
    return op->emitOpError("expected atomic_add to take ")
           << part << ", but found atomic_" << dialect::stringifyWriteCombine(*write.getCombine())
           << ", which would combine the workgroups' parts, not their sum";
  if (write)
    return op->emitOpError("expected atomic_add to store ")
           << part << ", but found a write, which would keep one workgroup's part only";
  return op->emitOpError("expected only linear ops (float casts, negation, products with or quotients by other "
                         "values, sums of such parts) or atomic_add to take ")
         << part << ", but found " << op->getName();
}

}  // namespace distribution

LogicalResult emitDistributedKernel(func::FuncOp kernel, gpu::GPUModuleOp module, const DistributionOptions& options) {
  auto grid = kernelGrid(kernel);
  if (failed(grid)) return failure();
  return distribution::Distributor(kernel, std::move(*grid), options).emit(module);
}

}  // namespace wave::jit
