//===- LowerToGPU.cpp - memory-bound wave kernels -> gpu.func --------------===//
//
// Every per-thread value is one vector of `elementsPerThread` elements running along the
// innermost iteration dim; a value without that dim is the same scalar in every lane (a
// splat). A loop over the thread's steps walks the wave tile.
//
//===----------------------------------------------------------------------===//

#include "dialect/WaveDialect.h"
#include "lowering/Distribution.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVELOWERTOGPU
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

class KernelEmitter {
 public:
  KernelEmitter(func::FuncOp kernel, const Distribution& dist)
      : kernel_(kernel), dist_(dist), b_(kernel.getContext()), loc_(kernel.getLoc()) {}

  // Builds the gpu.func inside `module` (a gpu.module).
  LogicalResult emit(gpu::GPUModuleOp module);

 private:
  Value index(int64_t v) { return b_.create<arith::ConstantIndexOp>(loc_, v); }
  Value andAll(ArrayRef<Value> conditions) {
    Value all = b_.create<arith::ConstantIntOp>(loc_, 1, 1);
    for (Value c : conditions) all = b_.create<arith::AndIOp>(loc_, all, c);
    return all;
  }
  int dimIndex(StringRef dim) const {
    for (auto [i, name] : llvm::enumerate(dist_.dims))
      if (name == dim) return static_cast<int>(i);
    return -1;
  }
  VectorType vectorOf(Type element) { return VectorType::get({dist_.elementsPerThread}, element); }

  // Where this step's run of each tensor lies, and whether it may be touched.
  struct Access {
    SmallVector<Value> indices;
    bool vectorized;        // the memory's innermost dim is the iteration's innermost dim
    llvm::Align alignment;  // of a whole run's first element, in bytes
  };
  FailureOr<Access> access(Operation* op, dialect::MemoryType memory);
  void emitStepPrologue(Value step, Value lane);

  LogicalResult emitRead(dialect::ReadOp read);
  LogicalResult emitWrite(dialect::WriteOp write);
  LogicalResult emitOp(Operation* op);

  func::FuncOp kernel_;
  const Distribution& dist_;
  OpBuilder b_;
  Location loc_;
  IRMapping memrefs_;              // kernel argument -> gpu.func memref argument
  DenseMap<Value, Value> vectors_; // wave value -> this step's per-thread vector
  SmallVector<Value> base_;        // per dim: the wave tile's first index in this block
  SmallVector<Value> global_;      // per dim: this step's first element
  Value inBounds_;                 // the whole run is inside every tensor
  Value outerInBounds_;            // the run's row is inside (all but the innermost dim)
  Value innerCount_;               // elements of the run inside the innermost dim
};

FailureOr<KernelEmitter::Access> KernelEmitter::access(Operation* op, dialect::MemoryType memory) {
  Access a;
  SmallVector<StringRef> dims = memory.getDimNames();
  for (StringRef d : dims) {
    int i = dimIndex(d);
    if (i < 0)
      return op->emitOpError("is not yet supported by wave-lower-to-gpu: memory dim ")
             << d << " is not a dim of the written tensors";
    a.indices.push_back(global_[i]);
  }
  const StringRef inner = dist_.dims.back();
  a.vectorized = !dims.empty() && dims.back() == inner;
  // Runs start at multiples of elementsPerThread along the innermost dim; with rows whose
  // length is such a multiple too, every run is aligned to its size, and loads can be whole
  // vectors. This assumes base pointers aligned to a run (device allocations are aligned
  // to 256 bytes), at most 16: CompiledKernel checks pointers passed in for that.
  const int64_t elementBytes = std::max<int64_t>(1, memory.getElementType().getIntOrFloatBitWidth() / 8);
  const bool rowsAligned = a.vectorized && dist_.sizes[dimIndex(inner)] % dist_.elementsPerThread == 0;
  a.alignment = llvm::Align(rowsAligned ? std::min<int64_t>(16, elementBytes * dist_.elementsPerThread) : elementBytes);
  if (!a.vectorized && llvm::is_contained(dims, inner))
    return op->emitOpError("is not yet supported by wave-lower-to-gpu: a tensor whose innermost dim is not ")
           << inner << " (a transposed access)";
  return a;
}

void KernelEmitter::emitStepPrologue(Value step, Value lane) {
  const int64_t ept = dist_.elementsPerThread, perStep = dist_.threadsPerWave * ept;
  const size_t rank = dist_.dims.size();
  // Offset of the thread's run in the wave tile, row-major over the wave tile.
  Value offset = b_.create<arith::AddIOp>(loc_, b_.create<arith::MulIOp>(loc_, step, index(perStep)),
                                          b_.create<arith::MulIOp>(loc_, lane, index(ept)));
  SmallVector<Value> conditions, outer;
  if (dist_.waveElements() % perStep != 0)
    outer.push_back(b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, offset, index(dist_.waveElements())));
  global_.assign(rank, Value());
  Value rest = offset;
  for (size_t k = rank; k-- > 0;) {
    Value local = b_.create<arith::RemUIOp>(loc_, rest, index(dist_.waveTile[k]));
    rest = b_.create<arith::DivUIOp>(loc_, rest, index(dist_.waveTile[k]));
    global_[k] = b_.create<arith::AddIOp>(loc_, base_[k], local);
    if (k + 1 != rank && dist_.mayOverrun(k))
      outer.push_back(b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::ult, global_[k], index(dist_.sizes[k])));
  }
  outerInBounds_ = andAll(outer);
  const size_t inner = rank - 1;
  Value count = index(ept);
  conditions = outer;
  if (dist_.mayOverrun(inner)) {
    // Elements left in the innermost dim, clamped to [0, ept].
    Value left = b_.create<arith::SubIOp>(loc_, index(dist_.sizes[inner]), global_[inner]);
    Value signedLeft = b_.create<arith::MaxSIOp>(loc_, left, index(0));
    count = b_.create<arith::MinSIOp>(loc_, signedLeft, index(ept));
    conditions.push_back(b_.create<arith::CmpIOp>(loc_, arith::CmpIPredicate::eq, count, index(ept)));
  }
  inBounds_ = andAll(conditions);
  innerCount_ = b_.create<arith::SelectOp>(loc_, outerInBounds_, count, index(0));
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
  if (a->vectorized) {
    // Whole runs take one vector load; runs at the edge a masked one.
    auto branch = b_.create<scf::IfOp>(loc_, TypeRange{vec}, inBounds_, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPointToStart(branch.thenBlock());
      b_.create<scf::YieldOp>(loc_, ValueRange{b_.create<vector::LoadOp>(loc_, vec, memref, a->indices, /*nontemporal=*/false, a->alignment).getResult()});
      b_.setInsertionPointToStart(branch.elseBlock());
      Value mask = b_.create<vector::CreateMaskOp>(loc_, VectorType::get(vec.getShape(), b_.getI1Type()),
                                                   ValueRange{innerCount_});
      Value zero = b_.create<arith::ConstantOp>(loc_, vec, b_.getZeroAttr(vec));
      Value masked = b_.create<vector::MaskedLoadOp>(loc_, vec, memref, a->indices, mask, zero);
      b_.create<scf::YieldOp>(loc_, masked);
    }
    result = branch.getResult(0);
  } else {
    // One element for the whole run, when the row is inside the tensor.
    auto branch = b_.create<scf::IfOp>(loc_, TypeRange{element}, outerInBounds_, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPointToStart(branch.thenBlock());
      b_.create<scf::YieldOp>(loc_, ValueRange{b_.create<memref::LoadOp>(loc_, memref, a->indices).getResult()});
      b_.setInsertionPointToStart(branch.elseBlock());
      b_.create<scf::YieldOp>(loc_, ValueRange{b_.create<arith::ConstantOp>(loc_, element, b_.getZeroAttr(element)).getResult()});
    }
    result = b_.create<vector::BroadcastOp>(loc_, vec, branch.getResult(0));
  }
  vectors_[read.getResult()] = result;
  return success();
}

LogicalResult KernelEmitter::emitWrite(dialect::WriteOp write) {
  if (write.getMapping()) return write.emitOpError("is not yet supported by wave-lower-to-gpu: index mappings");
  auto a = access(write, write.getMemory().getType());
  if (failed(a)) return failure();
  if (!a->vectorized)
    return write.emitOpError("is not yet supported by wave-lower-to-gpu: a tensor without the innermost dim ")
           << dist_.dims.back();
  Value memref = memrefs_.lookup(write.getMemory());
  Value value = vectors_.lookup(write.getValue());
  auto branch = b_.create<scf::IfOp>(loc_, TypeRange{}, inBounds_, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToStart(branch.thenBlock());
  b_.create<vector::StoreOp>(loc_, value, memref, a->indices, /*nontemporal=*/false, a->alignment);
  b_.setInsertionPointToStart(branch.elseBlock());
  Value mask = b_.create<vector::CreateMaskOp>(
      loc_, VectorType::get({dist_.elementsPerThread}, b_.getI1Type()), ValueRange{innerCount_});
  b_.create<vector::MaskedStoreOp>(loc_, memref, a->indices, mask, value);
  return success();
}

// Element conversion between any two of the kernel's integer and float types.
Value convert(OpBuilder& b, Location loc, Value v, VectorType to) {
  Type from = cast<VectorType>(v.getType()).getElementType(), dst = to.getElementType();
  if (from == dst) return v;
  const bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(dst);
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < dst.getIntOrFloatBitWidth()
               ? b.create<arith::ExtFOp>(loc, to, v).getResult()
               : b.create<arith::TruncFOp>(loc, to, v).getResult();
  if (fromFloat) return b.create<arith::FPToSIOp>(loc, to, v);
  if (toFloat) return b.create<arith::SIToFPOp>(loc, to, v);
  if (dst.isInteger(1)) {  // to i1: nonzero is true
    Value zero = b.create<arith::ConstantOp>(loc, v.getType(), b.getZeroAttr(v.getType()));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v, zero);
  }
  return from.getIntOrFloatBitWidth() < dst.getIntOrFloatBitWidth()
             ? b.create<arith::ExtSIOp>(loc, to, v).getResult()
             : b.create<arith::TruncIOp>(loc, to, v).getResult();
}

template <class FloatOp, class IntOp>
Value binary(OpBuilder& b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(cast<VectorType>(lhs.getType()).getElementType()))
    return b.create<FloatOp>(loc, lhs, rhs);
  return b.create<IntOp>(loc, lhs, rhs);
}

LogicalResult KernelEmitter::emitOp(Operation* op) {
  auto operand = [&](unsigned i) { return vectors_.lookup(op->getOperand(i)); };
  Value result;
  if (auto read = dyn_cast<dialect::ReadOp>(op)) return emitRead(read);
  if (auto write = dyn_cast<dialect::WriteOp>(op)) return emitWrite(write);
  if (auto reg = dyn_cast<dialect::RegisterOp>(op)) {
    auto type = cast<dialect::TensorType>(reg.getResult().getType());
    VectorType vec = vectorOf(type.getElementType());
    result = b_.create<arith::ConstantOp>(loc_, vec, DenseElementsAttr::get(vec, reg.getValue()));
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
                 ? b_.create<arith::NegFOp>(loc_, x).getResult()
                 : b_.create<arith::SubIOp>(loc_, b_.create<arith::ConstantOp>(loc_, x.getType(), b_.getZeroAttr(x.getType())), x).getResult();
  } else if (isa<dialect::Exp2Op>(op)) {
    result = b_.create<math::Exp2Op>(loc_, operand(0));
  } else if (isa<dialect::Log2Op>(op)) {
    result = b_.create<math::Log2Op>(loc_, operand(0));
  } else if (isa<dialect::SqrtOp>(op)) {
    result = b_.create<math::SqrtOp>(loc_, operand(0));
  } else if (isa<dialect::RsqrtOp>(op)) {
    result = b_.create<math::RsqrtOp>(loc_, operand(0));
  } else if (isa<dialect::TanhOp>(op)) {
    result = b_.create<math::TanhOp>(loc_, operand(0));
  } else if (isa<dialect::AbsOp>(op)) {
    Value x = operand(0);
    result = isa<FloatType>(cast<VectorType>(x.getType()).getElementType())
                 ? b_.create<math::AbsFOp>(loc_, x).getResult()
                 : b_.create<math::AbsIOp>(loc_, x).getResult();
  } else if (isa<dialect::ReciprocalOp>(op)) {
    Value x = operand(0);
    Value one = b_.create<arith::ConstantOp>(loc_, x.getType(), DenseElementsAttr::get(cast<ShapedType>(x.getType()), b_.getFloatAttr(cast<VectorType>(x.getType()).getElementType(), 1.0)));
    result = b_.create<arith::DivFOp>(loc_, one, x);
  } else if (auto c = dyn_cast<dialect::CastOp>(op)) {
    result = convert(b_, loc_, operand(0), vectorOf(c.getResult().getType().getElementType()));
  } else {
    return op->emitOpError("is not yet supported by wave-lower-to-gpu (memory-bound kernels: read, write, "
                           "register, cast and elementwise math)");
  }
  vectors_[op->getResult(0)] = result;
  return success();
}

LogicalResult KernelEmitter::emit(gpu::GPUModuleOp module) {
  // One static memref per tensor argument, its sizes from the symbol values.
  auto hyper = kernel_->getAttrOfType<DictionaryAttr>("wave.hyperparameters");
  SmallVector<Type> argTypes;
  for (BlockArgument arg : kernel_.getArguments()) {
    auto memory = cast<dialect::MemoryType>(arg.getType());
    SmallVector<int64_t> shape;
    for (StringRef d : memory.getDimNames()) {
      auto v = hyper ? hyper.getAs<IntegerAttr>(d) : IntegerAttr();
      if (!v) return kernel_.emitError("expected a value for dim ") << d << " in wave.hyperparameters, but found none";
      shape.push_back(v.getInt());
    }
    argTypes.push_back(MemRefType::get(shape, memory.getElementType()));
  }
  b_.setInsertionPointToEnd(module.getBody());
  auto func = b_.create<gpu::GPUFuncOp>(loc_, kernel_.getName(), b_.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b_.getUnitAttr());
  auto i32s = [&](std::array<int64_t, 3> v) {
    return b_.getDenseI32ArrayAttr({static_cast<int32_t>(v[0]), static_cast<int32_t>(v[1]), static_cast<int32_t>(v[2])});
  };
  func.setKnownBlockSizeAttr(i32s(dist_.block));
  func.setKnownGridSizeAttr(i32s(dist_.grid));
  for (auto [from, to] : llvm::zip(kernel_.getArguments(), func.getArguments())) memrefs_.map(from, to);

  b_.setInsertionPointToStart(&func.getBody().front());
  Value tid = b_.create<gpu::ThreadIdOp>(loc_, gpu::Dimension::x);
  Value lane = b_.create<arith::RemUIOp>(loc_, tid, index(dist_.threadsPerWave));
  Value wave = b_.create<arith::DivUIOp>(loc_, tid, index(dist_.threadsPerWave));
  const gpu::Dimension axes[] = {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
  // Waves tile the workgroup tile, the innermost dim fastest.
  for (size_t k = dist_.dims.size(); k-- > 0;) {
    const int64_t waves = dist_.blockTile[k] / dist_.waveTile[k];
    Value waveIndex = b_.create<arith::RemUIOp>(loc_, wave, index(waves));
    wave = b_.create<arith::DivUIOp>(loc_, wave, index(waves));
    Value start = b_.create<arith::MulIOp>(loc_, waveIndex, index(dist_.waveTile[k]));
    if (dist_.gridAxis[k] >= 0) {
      Value block = b_.create<gpu::BlockIdOp>(loc_, axes[dist_.gridAxis[k]]);
      start = b_.create<arith::AddIOp>(loc_, start, b_.create<arith::MulIOp>(loc_, block, index(dist_.blockTile[k])));
    }
    base_.insert(base_.begin(), start);
  }

  auto loop = b_.create<scf::ForOp>(loc_, index(0), index(dist_.steps), index(1));
  b_.setInsertionPointToStart(loop.getBody());
  emitStepPrologue(loop.getInductionVar(), lane);
  for (Operation& op : kernel_.getBody().front().without_terminator())
    if (failed(emitOp(&op))) return failure();
  b_.setInsertionPointAfter(loop);
  b_.create<gpu::ReturnOp>(loc_);
  return success();
}

// The dims the kernel writes: its iteration space.
FailureOr<SmallVector<StringRef>> iterationDims(func::FuncOp kernel) {
  std::optional<SmallVector<StringRef>> dims;
  WalkResult walk = kernel.walk([&](dialect::WriteOp write) {
    SmallVector<StringRef> these = write.getMemory().getType().getDimNames();
    if (dims && *dims != these) {
      write.emitOpError("is not yet supported by wave-lower-to-gpu: writes of different dims ");
      return WalkResult::interrupt();
    }
    dims = these;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted()) return failure();
  if (!dims || dims->empty()) return kernel.emitError("expected a kernel that writes a tensor with dims");
  return *dims;
}

struct WaveLowerToGPUPass : impl::WaveLowerToGPUBase<WaveLowerToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    module.walk([&](func::FuncOp f) {
      if (f->hasAttr("wave.constraints")) kernels.push_back(f);
    });
    if (kernels.empty()) return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = b.create<gpu::GPUModuleOp>(module.getLoc(), "wave_kernels");
    for (func::FuncOp kernel : kernels) {
      auto dims = iterationDims(kernel);
      if (failed(dims)) return signalPassFailure();
      unsigned bits = 8;
      kernel.walk([&](dialect::WriteOp w) {
        bits = std::max(bits, w.getMemory().getType().getElementType().getIntOrFloatBitWidth());
      });
      auto dist = Distribution::compute(kernel, *dims, bits);
      if (failed(dist) || failed(KernelEmitter(kernel, *dist).emit(gpuModule))) return signalPassFailure();
      kernel.erase();
    }
  }
};

}  // namespace
}  // namespace wave::jit
