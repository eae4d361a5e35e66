//===- DistributeKernel.cpp - wave ops with layouts -> per-thread vector code ---===//
//
// After wave-assign-layouts, a value's layout says which of its elements each thread
// holds: the thread keeps them as one vector, register r of the layout at element r. Each
// op is lowered on its own from its operands' and result's layouts:
//
//   read / write     per run of registers contiguous in memory: one vector access at the
//                    run's position (workgroup offset + the layout's map), masked where a
//                    dim may end inside the workgroup's tile; through an index mapping
//                    into a static shape, at one simplified offset of the flat tensor
//   elementwise      the same arith/math op on the vectors (operands share the layout)
//   broadcast        a register gather: each result register takes the input register
//                    that holds its element with the broadcast dims dropped
//   permute          nothing: the layout was permuted, the registers are the same
//   reductions       in the thread over registers that differ along the reduced dim, then
//                    xor shuffles over the lane bits that move along it, then through
//                    shared memory over the wave axes that do
//   convert_layout   nothing, a register permutation, or a shared-memory round trip
//   allocate         a view of the dynamic shared memory; reads and writes of it address
//                    the tile at the layout's positions, unmasked
//   iterate          an scf.for over the dim's tiles, its carried values the vectors
//   mma              per instruction tile of the wave: the fragments sliced out of the
//                    operands' and accumulator's registers, one mma.sync each
//                    (DistributeMma.cpp)
//   print            DistributePrint.cpp
//
// The state the op families share is the Distributor (Distributor.h).
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

// A mapped memory index with its symbols replaced by their static values, over the
// mapping's iterators; nothing where a symbol's value is known only at launch.
std::optional<AffineExpr> withStaticSymbols(func::FuncOp kernel, dialect::ExprAttr e) {
  SmallVector<AffineExpr> symbols;
  for (StringAttr sym : e.getSymbols()) {
    std::optional<int64_t> v = staticSize(kernel, sym.getValue());
    if (!v) return std::nullopt;
    symbols.push_back(getAffineConstantExpr(*v, kernel.getContext()));
  }
  AffineMap map = e.getMap();
  return simplifyAffineExpr(map.getResult(0).replaceSymbols(symbols), map.getNumDims(), 0);
}

// Through a mapping into a tensor of static shape: the element's offset from the tensor's
// start, one expression over the iterators, simplified as a whole. Index arithmetic that
// the dims' strides undo disappears (conv2d's weights: ((hf * WF + wf) * C + c) * NF + f
// with hf, wf and c taken apart from k is k * NF + f), and what stays is summed once
// instead of per dim.
std::optional<AffineExpr> linearMappedOffset(func::FuncOp kernel, const llvm::StringMap<dialect::ExprAttr>& memoryExpr,
                                             ArrayRef<StringRef> memoryDims, MemRefType type, unsigned iterators) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() || memoryDims.size() != type.getShape().size())
    return std::nullopt;
  AffineExpr offset = getAffineConstantExpr(0, kernel.getContext());
  int64_t stride = 1;
  for (int64_t m = static_cast<int64_t>(memoryDims.size()) - 1; m >= 0; --m) {
    std::optional<AffineExpr> index = withStaticSymbols(kernel, memoryExpr.lookup(memoryDims[m]));
    if (!index) return std::nullopt;
    offset = offset + *index * stride;
    stride *= type.getShape()[m];
  }
  return simplifyAffineExpr(offset, iterators, 0);
}

// The terms of a sum (an expression that is no sum is its one term).
SmallVector<AffineExpr> additiveTerms(AffineExpr e) {
  SmallVector<AffineExpr> out, work{e};
  while (!work.empty()) {
    AffineExpr t = work.pop_back_val();
    if (t.getKind() == AffineExprKind::Add) {
      auto add = cast<AffineBinaryOpExpr>(t);
      work.append({add.getLHS(), add.getRHS()});
    } else {
      out.push_back(t);
    }
  }
  return out;
}

// The dims (a mapping's iterators) an expression uses.
llvm::SmallBitVector iteratorsOf(AffineExpr e) {
  llvm::SmallBitVector used(64);
  e.walk([&](AffineExpr x) {
    if (auto d = dyn_cast<AffineDimExpr>(x)) used.set(d.getPosition());
  });
  return used;
}

// Through a mapping whose innermost memory index is not an iterator (conv2d's `$1 mod C`):
// the value dim along which runs of `run` elements stay contiguous in memory, or -1. Each
// memory index must be a sum of terms of one iterator each (symbols known); along the
// run's iterator, checked at every aligned start of its dim, the innermost index steps by
// one from a multiple of `run` and the others stay put.
int contiguousMappedDim(func::FuncOp kernel, const llvm::StringMap<dialect::ExprAttr>& memoryExpr,
                        ArrayRef<StringRef> memoryDims, ArrayRef<int> iteratorDim, ArrayRef<StringRef> valueDims,
                        int64_t run) {
  if (run < 2 || memoryDims.empty()) return -1;
  MLIRContext* ctx = kernel.getContext();
  std::optional<AffineExpr> inner = withStaticSymbols(kernel, memoryExpr.lookup(memoryDims.back()));
  if (!inner) return -1;
  llvm::SmallBitVector innerIterators = iteratorsOf(*inner);
  if (innerIterators.count() != 1) return -1;
  const unsigned k = innerIterators.find_first();
  const int valueDim = iteratorDim[k];
  std::optional<int64_t> extent = valueDim < 0 ? std::nullopt : staticSize(kernel, valueDims[valueDim]);
  if (!extent) return -1;
  // Per memory dim, its terms in the run's iterator (the rest do not move along the run).
  // (The innermost keeps its constant terms too: they shift the run's alignment.)
  SmallVector<AffineExpr> along;
  for (StringRef d : memoryDims) {
    std::optional<AffineExpr> e = withStaticSymbols(kernel, memoryExpr.lookup(d));
    if (!e) return -1;
    AffineExpr sum = getAffineConstantExpr(0, ctx);
    for (AffineExpr t : additiveTerms(*e)) {
      llvm::SmallBitVector used = iteratorsOf(t);
      if (used.count() > 1 && used.test(k)) return -1;
      if (used.test(k) || d == memoryDims.back()) sum = sum + t;
    }
    along.push_back(sum);
  }
  SmallVector<int64_t> dims(iteratorDim.size(), 0);
  auto at = [&](unsigned d, int64_t j) {
    dims[k] = j;
    return evaluateAffine(along[d], dims);
  };
  const unsigned last = memoryDims.size() - 1;
  for (int64_t j0 = 0; j0 < *extent; j0 += run) {
    if (at(last, j0) % run != 0) return -1;
    for (int64_t e = 1; e < run && j0 + e < *extent; ++e)
      for (unsigned d = 0; d <= last; ++d)
        if (at(d, j0 + e) != at(d, j0) + (d == last ? e : 0)) return -1;
  }
  return valueDim;
}



SmallVector<Value> Distributor::indexOf(LayoutAttr layout, ArrayRef<StringRef> dims, int64_t reg, bool inTile) {
  SmallVector<Value> index;
  for (auto [k, expr] : llvm::enumerate(positionOfRegister(layout, reg))) {
    Value p = threadIndex(expr);
    index.push_back(inTile ? p : arith::AddIOp::create(b_, loc_, offsets_.lookup(dims[k]), p).getResult());
  }
  return index;
}

LogicalResult Distributor::access(Operation* op, Value memoryValue, Value tensor, bool isRead) {
  auto memory = cast<dialect::MemoryType>(memoryValue.getType());
  Value memref = memrefs_.lookup(memoryValue);
  // A shared tile is addressed at the tile's positions, all of them inside it.
  const bool inTile = sharedTiles_.contains(memoryValue);
  if (isRead && inTile) {
    auto read = cast<dialect::ReadOp>(op);
    if (loadsAtUse(read))
      if (std::optional<FragmentSource> source = fragmentSource(read)) {
        atUse_.try_emplace(read.getResult(), std::move(*source));
        return success();
      }
    if (Value fragments = loadFragments(read)) {
      values_[op->getResult(0)] = fragments;
      return success();
    }
  }
  auto mayOverrun = [&](StringRef dim) { return !inTile && this->mayOverrun(dim); };
  LayoutAttr layout = layoutOf(tensor);
  SmallVector<StringRef> valueDims = dimsOf(tensor), memoryDims = memory.getDimNames();
  Type element = memory.getElementType();
  const int64_t bytes = std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  // Through an index mapping, each memory index is an expression of the iterators, one per
  // value dim; runs stay whole only where the innermost memory dim is its value dim's own
  // iterator.
  dialect::IndexMappingAttr mapping = isRead ? cast<dialect::ReadOp>(op).getMappingAttr()
                                             : cast<dialect::WriteOp>(op).getMappingAttr();
  SmallVector<int> iteratorDim;  // iterator k -> the value dim it walks
  llvm::StringMap<dialect::ExprAttr> memoryExpr;
  llvm::StringMap<SmallVector<Value>> memorySymbols;  // the values of each expression's symbols
  bool innerIsIterator = !mapping;
  if (mapping) {
    DictionaryAttr registerSide = isRead ? mapping.getOutputs() : mapping.getInputs();
    DictionaryAttr memorySide = isRead ? mapping.getInputs() : mapping.getOutputs();
    iteratorDim.assign(mapping.getIterators(), -1);
    for (NamedAttribute entry : registerSide) {
      auto e = cast<dialect::ExprAttr>(entry.getValue());
      auto it = dyn_cast<AffineDimExpr>(e.getMap().getResult(0));
      if (!it || e.getMap().getNumSymbols() != 0)
        return op->emitOpError("is not yet supported by the layout pipeline: an index mapping whose register side "
                               "is not one iterator per dim (")
               << entry.getName() << " = " << e << ")";
      iteratorDim[it.getPosition()] = dimIndex(valueDims, entry.getName().getValue());
    }
    if (llvm::is_contained(iteratorDim, -1))
      return op->emitOpError("expected an index mapping with one iterator per dim of the value, but ")
             << mapping << " has an iterator no dim of " << tensor.getType() << " walks";
    for (NamedAttribute entry : memorySide) {
      auto e = cast<dialect::ExprAttr>(entry.getValue());
      memoryExpr[entry.getName().getValue()] = e;
      SmallVector<Value>& values = memorySymbols[entry.getName().getValue()];
      for (StringAttr symbol : e.getSymbols()) {
        auto size = dimSize(b_, kernel_, func_, symbol.getValue());
        if (failed(size)) return failure();
        values.push_back(*size);
      }
    }
    if (!memoryDims.empty()) {
      dialect::ExprAttr e = memoryExpr.lookup(memoryDims.back());
      auto it = dyn_cast<AffineDimExpr>(e.getMap().getResult(0));
      const int walked = it ? iteratorDim[it.getPosition()] : -1;
      innerIsIterator = walked >= 0 && e.getMap().getNumSymbols() == 0 && valueDims[walked] == memoryDims.back();
    }
  }
  // Runs along the memory's innermost dim, as long as 16 bytes and the row length allow.
  int inner = memoryDims.empty() || !innerIsIterator ? -1 : dimIndex(valueDims, memoryDims.back());
  int64_t maxRun = std::max<int64_t>(1, 16 / bytes);
  const bool rows = memoryDims.size() > 1;
  StringRef innerDim = memoryDims.empty() ? StringRef() : memoryDims.back();
  std::optional<int64_t> innerSize = staticSize(kernel_, innerDim);
  if (inTile) innerSize = cast<MemRefType>(memref.getType()).getShape().back();
  if (rows && innerSize)
    while (maxRun > 1 && *innerSize % maxRun != 0) maxRun /= 2;
  if (mapping && !innerIsIterator && innerSize) {
    // The run must also divide the row (checked with the rest in contiguousMappedDim).
    for (int64_t run = maxRun; run > 1 && inner < 0; run /= 2)
      if ((inner = contiguousMappedDim(kernel_, memoryExpr, memoryDims, iteratorDim, valueDims, run)) >= 0)
        maxRun = run;
  }
  if (inner < 0) innerSize = std::nullopt;
  // Global memory through a mapping: addressed as one flat array at the simplified offset.
  std::optional<AffineExpr> linear;
  if (mapping && !inTile)
    linear = linearMappedOffset(kernel_, memoryExpr, memoryDims, cast<MemRefType>(memref.getType()),
                                mapping.getIterators());
  if (linear) memref = flattened(memref);
  SmallVector<RegisterRun> runs;
  if (inner >= 0)
    runs = registerRuns(layout, inner, maxRun);
  else
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) runs.push_back({r, 1});

  VectorType all = registersOf(tensor);
  Value result = isRead ? arith::ConstantOp::create(b_, loc_, all, b_.getZeroAttr(all)).getResult() : Value();
  Value source = isRead ? Value() : lookup(tensor);
  for (const RegisterRun& run : runs) {
    SmallVector<Value> at = indexOf(layout, valueDims, run.first, inTile);
    SmallVector<Value> indices;
    if (!mapping) {
      for (StringRef d : memoryDims) indices.push_back(at[dimIndex(valueDims, d)]);
    } else {
      SmallVector<Value> iterators;
      for (int d : iteratorDim) iterators.push_back(at[d]);
      if (linear)
        indices.push_back(applyByIterators(*linear, iterators));
      else
        for (StringRef d : memoryDims)
          indices.push_back(buildExpr(b_, loc_, memoryExpr.lookup(d), iterators, memorySymbols.lookup(d)));
    }
    // Masked where a value dim may end inside the tile (a mapping keeps the memory index
    // inside the tensor when its iterators are).
    SmallVector<Value> outer;
    for (auto [k, d] : llvm::enumerate(valueDims))
      if (static_cast<int>(k) != inner || run.length == 1)
        if (mayOverrun(d))
          if (Value inside = beforeEnd(layout, run.first, k, d, at[k])) outer.push_back(inside);
    Value rowIn = outer.empty() ? Value() : andAll(outer);
    auto vec = VectorType::get({run.length}, element);
    if (run.length == 1) {
      // One element, guarded when its position may be outside the tensor.
      if (isRead) {
        Value v;
        if (!rowIn) {
          v = memref::LoadOp::create(b_, loc_, memref, indices);
        } else {
          auto branch = scf::IfOp::create(b_, loc_, TypeRange{element}, rowIn, /*withElse=*/true);
          OpBuilder::InsertionGuard guard(b_);
          b_.setInsertionPointToStart(branch.thenBlock());
          scf::YieldOp::create(b_, loc_, ValueRange{memref::LoadOp::create(b_, loc_, memref, indices).getResult()});
          b_.setInsertionPointToStart(branch.elseBlock());
          scf::YieldOp::create(b_, loc_,
                               ValueRange{arith::ConstantOp::create(b_, loc_, element, b_.getZeroAttr(element))
                                              .getResult()});
          b_.setInsertionPointAfter(branch);
          v = branch.getResult(0);
        }
        result = vector::InsertOp::create(b_, loc_, v, result, ArrayRef<int64_t>{run.first});
      } else {
        Value v = vector::ExtractOp::create(b_, loc_, source, ArrayRef<int64_t>{run.first});
        if (!rowIn)
          memref::StoreOp::create(b_, loc_, v, memref, indices);
        else
          ifThen(rowIn, [&] { memref::StoreOp::create(b_, loc_, v, memref, indices); });
      }
      continue;
    }
    // A run of several: whole and aligned, one vector access; at the edge a masked one.
    SmallVector<Value> conditions;
    if (rowIn) conditions.push_back(rowIn);
    Value count;
    // The run walks value dim `inner`; where it may end inside the tile, fewer are read.
    if (mayOverrun(valueDims[inner])) {
      Value left = arith::SubIOp::create(b_, loc_, sizes_.lookup(valueDims[inner]), at[inner]);
      Value clamped = arith::MaxSIOp::create(b_, loc_, left, index(0));
      count = arith::MinSIOp::create(b_, loc_, clamped, index(run.length));
      conditions.push_back(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, count, index(run.length)));
    }
    // A dynamic innermost dim: rows start aligned to the run only if their length is a
    // multiple of it (checked here; CSE keeps one check).
    const bool checkRows = rows && !inTile && !innerSize && !isKnownMultiple(kernel_, innerDim, run.length);
    if (checkRows) {
      Value rem = arith::RemUIOp::create(b_, loc_, sizes_.lookup(innerDim), index(run.length));
      conditions.push_back(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, rem, index(0)));
    }
    const llvm::Align alignment(bytes * run.length);
    auto wholeRead = [&]() -> Value {
      return vector::LoadOp::create(b_, loc_, vec, memref, indices, /*nontemporal=*/false, alignment);
    };
    Value piece = isRead ? Value()
                         : vector::ExtractStridedSliceOp::create(b_, loc_, source, ArrayRef<int64_t>{run.first},
                                                                 ArrayRef<int64_t>{run.length}, ArrayRef<int64_t>{1})
                               .getResult();
    auto wholeWrite = [&] {
      vector::StoreOp::create(b_, loc_, piece, memref, indices, /*nontemporal=*/false, alignment);
    };
    // The masked path: elements inside the row (none where the row is outside).
    auto maskFor = [&]() -> Value {
      Value n = count ? count : index(run.length);
      if (rowIn) n = arith::SelectOp::create(b_, loc_, rowIn, n, index(0));
      return vector::CreateMaskOp::create(b_, loc_, VectorType::get({run.length}, b_.getI1Type()), ValueRange{n});
    };
    Value loaded;
    if (conditions.empty()) {
      if (isRead)
        loaded = wholeRead();
      else
        wholeWrite();
    } else {
      Value whole = andAll(conditions);
      auto branch = scf::IfOp::create(b_, loc_, isRead ? TypeRange{vec} : TypeRange{}, whole, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard guard(b_);
        b_.setInsertionPointToStart(branch.thenBlock());
        if (isRead)
          scf::YieldOp::create(b_, loc_, wholeRead());
        else
          wholeWrite();
        b_.setInsertionPointToStart(branch.elseBlock());
        if (isRead) {
          Value zero = arith::ConstantOp::create(b_, loc_, vec, b_.getZeroAttr(vec));
          scf::YieldOp::create(b_, loc_,
                               vector::MaskedLoadOp::create(b_, loc_, vec, memref, indices, maskFor(), zero).getResult());
        } else {
          vector::MaskedStoreOp::create(b_, loc_, memref, indices, maskFor(), piece);
        }
      }
      if (isRead) loaded = branch.getResult(0);
    }
    if (isRead)
      result = vector::InsertStridedSliceOp::create(b_, loc_, loaded, result, ArrayRef<int64_t>{run.first},
                                                    ArrayRef<int64_t>{1});
  }
  if (isRead) values_[op->getResult(0)] = result;
  return success();
}

// Each register of `toLayout` (over `toDims`) from the register of `fromLayout` (over
// `fromDims`, a subset) holding its element with the other dims dropped, the same in
// every thread. Null when some thread does not hold it.
Value Distributor::gather(Value from, LayoutAttr fromLayout, LayoutAttr toLayout, ArrayRef<StringRef> fromDims,
                          ArrayRef<StringRef> toDims) {
  auto project = [&](ArrayRef<int64_t> p) {
    SmallVector<int64_t> q;
    for (StringRef d : fromDims) q.push_back(p[dimIndex(toDims, d)]);
    return q;
  };
  if (fromLayout.getNumLanes() != toLayout.getNumLanes() || fromLayout.getNumWaves() != toLayout.getNumWaves())
    return {};
  const LayoutPoints fromPoints(fromLayout), toPoints(toLayout);
  SmallVector<int64_t> source(toLayout.getNumRegisters(), -1);
  for (int64_t r = 0; r < toLayout.getNumRegisters(); ++r) {
    SmallVector<int64_t> want = project(toPoints.at(r, 0, 0));
    for (int64_t s = 0; s < fromLayout.getNumRegisters() && source[r] < 0; ++s)
      if (fromPoints.at(s, 0, 0) == want) source[r] = s;
    if (source[r] < 0) return {};
  }
  for (int64_t w = 0; w < toLayout.getNumWaves(); ++w)
    for (int64_t l = 0; l < toLayout.getNumLanes(); ++l)
      for (int64_t r = 0; r < toLayout.getNumRegisters(); ++r)
        if (project(toPoints.at(r, l, w)) != fromPoints.at(source[r], l, w)) return {};
  bool identity = fromLayout.getNumRegisters() == toLayout.getNumRegisters();
  for (int64_t r = 0; r < static_cast<int64_t>(source.size()); ++r) identity &= source[r] == r;
  if (identity) return from;
  return vector::ShuffleOp::create(b_, loc_, from, from, source);
}

// A buffer of its own in the workgroup's dynamic shared memory, after the ones before it:
// one account of the shared memory a kernel uses (the stage count of wave-pipeline-
// shared-copies reads it), and no 48 KiB limit of static shared memory.
Value Distributor::sharedBuffer(ArrayRef<int64_t> shape, Type element) {
  auto workgroup = gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup);
  if (!sharedMemory_) {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(&func_.getBody().front());
    sharedMemory_ = gpu::DynamicSharedMemoryOp::create(
        b_, loc_, MemRefType::get({ShapedType::kDynamic}, b_.getI8Type(), AffineMap(), workgroup));
  }
  auto type = MemRefType::get(shape, element, AffineMap(), workgroup);
  // Each buffer starts 128-byte aligned: vector accesses and ldmatrix rows stay aligned.
  const int64_t offset = llvm::alignTo(sharedBytes_, 128);
  sharedBytes_ = offset + type.getNumElements() * std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  return memref::ViewOp::create(b_, loc_, type, sharedMemory_, index(offset), ValueRange{});
}

// `sum` (over `iterators`) as one affine.apply per set of iterators its terms use, added
// up: the part of an address that only a loop-invariant iterator moves stays apart from
// the loop's, and is computed once before the loop.
Value Distributor::applyByIterators(AffineExpr sum, ValueRange iterators) {
  std::map<SmallVector<unsigned>, AffineExpr> groups;  // by the iterators a term uses
  for (AffineExpr t : additiveTerms(sum)) {
    llvm::SmallBitVector used = iteratorsOf(t);
    auto [it, fresh] = groups.try_emplace(SmallVector<unsigned>(used.set_bits_begin(), used.set_bits_end()), t);
    if (!fresh) it->second = it->second + t;
  }
  Value total;
  for (auto& [used, terms] : groups) {
    Value part = apply(terms, iterators);
    total = total ? arith::AddIOp::create(b_, loc_, total, part).getResult() : part;
  }
  return total;
}

// A memref of static shape as one flat array, made once where the memref is defined.
Value Distributor::flattened(Value memref) {
  Value& flat = flat_[memref];
  if (!flat) {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointAfterValue(memref);
    auto type = cast<MemRefType>(memref.getType());
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d) all.front().push_back(d);
    flat = memref::CollapseShapeOp::create(b_, loc_, memref, all);
  }
  return flat;
}

LogicalResult Distributor::lowerAllocate(dialect::AllocateOp op) {
  dialect::MemoryType type = op.getResult().getType();
  SmallVector<int64_t> shape;
  for (auto [dim, extent] : llvm::zip(type.getDimNames(), op.getTile())) {
    auto size = tileSize(kernel_, cast<dialect::ExprAttr>(extent), dim, "shared tile");
    if (failed(size)) return failure();
    // Layouts place elements in the workgroup's tile of each dim; the tile must hold it.
    if (*size != grid_.tiling(dim).blockTile)
      return op.emitOpError("is not yet supported by the layout pipeline: a shared tile whose extent along ")
             << dim << " (" << *size << ") is not the workgroup's tile (" << grid_.tiling(dim).blockTile << ")";
    shape.push_back(*size);
  }
  if (!shape.empty()) shape.back() += op.getPadding();
  memrefs_.map(op.getResult(), sharedBuffer(shape, type.getElementType()));
  sharedTiles_.insert(op.getResult());
  return success();
}

LogicalResult Distributor::lowerIterate(dialect::IterateOp loop) {
  StringRef dim = loop.getDim();
  const DimTiling& tiling = grid_.tiling(dim);
  if (!tiling.loop)
    return loop.emitOpError("expected a TilingConstraint on ") << dim << ", the dim it walks, but found none";
  AffineExpr d0 = getAffineDimExpr(0, b_.getContext());
  // The tiles past `end` cannot change the results (wave-skip-masked-tiles).
  FailureOr<Value> extent = endingAt(loop, sizes_.lookup(dim), loop.getEndAttr(), loop.getEndDimsAttr(), "end_dims");
  if (failed(extent)) return failure();
  Value tiles = apply(d0.ceilDiv(tiling.blockTile), *extent);
  FailureOr<Value> firstMasked = firstMaskedTile(loop, tiles);
  if (failed(firstMasked)) return failure();
  SmallVector<Value> inits;
  for (Value v : loop.getIterArgs()) inits.push_back(lookup(v));
  ArrayAttr folds = loop.getWaveFoldsAttr();
  if (folds) {
    // Waves folding apart: the initial value of a sum counts once, in the first wave
    // along the dim; the others start from zero.
    Value first = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, waveDigit(grid_.waves.axisOf(dim)),
                                        index(0));
    for (auto [init, fold] : llvm::zip(inits, folds)) {
      if (dialect::symbolizeFoldKind(cast<StringAttr>(fold).getValue()) != dialect::FoldKind::sum) continue;
      Value zero = arith::ConstantOp::create(b_, loc_, init.getType(), b_.getZeroAttr(init.getType()));
      init = arith::SelectOp::create(b_, loc_, first, init, zero);
    }
  }
  auto forOp = scf::ForOp::create(b_, loc_, index(0), tiles, index(1), inits);
  Block& body = loop.getBody().front();
  {
    OpBuilder::InsertionGuard guard(b_);
    if (inits.empty())
      b_.setInsertionPoint(forOp.getBody()->getTerminator());
    else
      b_.setInsertionPointToStart(forOp.getBody());
    Value outside = offsets_.lookup(dim);
    offsets_[dim] = arith::MulIOp::create(b_, loc_, forOp.getInductionVar(), index(tiling.blockTile));
    std::optional<std::pair<int64_t, int64_t>> outsideRange;
    if (auto it = offsetRanges_.find(dim); it != offsetRanges_.end()) {
      outsideRange = it->second;
      offsetRanges_.erase(it);
    }
    for (auto [arg, carried] : llvm::zip(body.getArguments(), forOp.getRegionIterArgs())) {
      values_[arg] = carried;
      if (folds) partials_.insert(arg);
    }
    if (folds) foldingApart_.insert(dim);
    if (*firstMasked)
      tileIsMasked_[&body] = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sge, forOp.getInductionVar(),
                                                   *firstMasked);
    if (failed(lowerBlock(body))) return failure();
    foldingApart_.erase(dim);
    offsets_[dim] = outside;
    if (outsideRange) offsetRanges_[dim] = *outsideRange;
    if (!inits.empty()) {
      SmallVector<Value> next;
      for (Value v : body.getTerminator()->getOperands()) next.push_back(lookup(v));
      scf::YieldOp::create(b_, loc_, next);
    }
  }
  for (auto [result, value] : llvm::zip(loop.getResults(), forOp.getResults())) {
    values_[result] = value;
    if (folds) partials_.insert(result);
  }
  return success();
}

Value Distributor::waveDigit(int axis) {
  ArrayRef<int64_t> waves = grid_.waves.waves;
  AffineExpr w = getAffineDimExpr(0, b_.getContext());
  return apply(w.floorDiv(waveAxisStrides(waves)[axis]) % waves[axis], {wave_});
}

FailureOr<Value> Distributor::endingAt(dialect::IterateOp loop, Value extent, dialect::ExprAttr end, ArrayAttr endDims,
                                       StringRef what) {
  if (!end) return extent;
  SmallVector<Value> starts;
  for (Attribute d : endDims) starts.push_back(offsets_.lookup(cast<StringAttr>(d).getValue()));
  if (llvm::is_contained(starts, Value()))
    return loop.emitOpError("expected workgroup positions for its ") << what << ", but found a dim without one";
  return arith::MinSIOp::create(b_, loc_, extent, buildExpr(b_, loc_, end, starts, {})).getResult();
}

FailureOr<Value> Distributor::firstMaskedTile(dialect::IterateOp loop, Value tiles) {
  Block& body = loop.getBody().front();
  SmallVector<Operation*> adds;
  for (Operation& op : body)
    if (op.hasAttr("wave.hiding_mask")) adds.push_back(&op);
  if (adds.empty()) return Value();
  // The ops only a mask needs: walking the body backwards, users come before what they
  // use; a pure op joins when all its users have (the add first).
  for (Operation* add : adds) {
    SetVector<Operation*> only;
    only.insert(add);
    for (Operation& op : llvm::reverse(body)) {
      if (&op == add || !op.isBeforeInBlock(add) || deferred_.contains(&op) || op.getNumRegions() != 0 ||
          !isMemoryEffectFree(&op) || op.use_empty())
        continue;
      const bool feedsMask = llvm::all_of(op.getUsers(), [&](Operation* user) {
        return only.contains(user) && (user != add || op.getResult(0) == add->getOperand(1));
      });
      if (feedsMask) only.insert(&op);
    }
    SmallVector<Operation*> ordered(only.begin() + 1, only.end());
    llvm::sort(ordered, [](Operation* a, Operation* b) { return a->isBeforeInBlock(b); });
    deferred_.insert(ordered.begin(), ordered.end());
    maskOnly_[add] = std::move(ordered);
  }
  // Tiles ending at or before both the dim's end and unmasked_end see zeros in every mask.
  StringRef dim = loop.getDim();
  FailureOr<Value> unmaskedEnd = endingAt(loop, sizes_.lookup(dim), loop.getUnmaskedEndAttr(),
                                          loop.getUnmaskedEndDimsAttr(), "unmasked_end_dims");
  if (failed(unmaskedEnd)) return failure();
  AffineExpr d0 = getAffineDimExpr(0, b_.getContext());
  Value whole = apply(d0.floorDiv(grid_.tiling(dim).blockTile), *unmaskedEnd);
  return arith::MinSIOp::create(b_, loc_, whole, tiles).getResult();
}

// A marked add: in the tiles its mask touches, the mask (and what only it needs) and the
// sum; in the others the scores as they are.
LogicalResult Distributor::lowerHidingMask(dialect::AddOp add) {
  Value masked = tileIsMasked_.lookup(add->getBlock());
  Value scores = lookup(add.getLhs());
  auto branch = scf::IfOp::create(b_, loc_, TypeRange{scores.getType()}, masked, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(branch.thenBlock());
    for (Operation* op : maskOnly_.lookup(add)) {
      loc_ = op->getLoc();
      if (failed(lowerOp(op))) return failure();
    }
    loc_ = add.getLoc();
    scf::YieldOp::create(b_, loc_, binary<arith::AddFOp, arith::AddIOp>(b_, loc_, scores, lookup(add.getRhs())));
    b_.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b_, loc_, scores);
  }
  values_[add.getResult()] = branch.getResult(0);
  return success();
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

LogicalResult Distributor::lowerConvert(dialect::ConvertLayoutOp op) {
  LayoutAttr from = layoutOf(op.getInput()), to = layoutOf(op.getResult());
  SmallVector<StringRef> dims = dimsOf(op.getInput());
  if (Value g = gather(lookup(op.getInput()), from, to, dims, dims)) {
    values_[op.getResult()] = g;
    return success();
  }
  if (partials_.contains(op.getInput()))
    return op.emitOpError("is not yet supported: moving a wave's own partials between threads (layouts ")
           << from << " to " << to << ")";
  // Through shared memory: every thread stores its elements at their tile positions, then
  // loads the ones the new layout gives it (wave-insert-barriers puts a barrier between).
  SmallVector<int64_t> extent = layoutExtent(from), other = layoutExtent(to);
  SmallVector<int64_t> shape;
  for (auto [a, c] : llvm::zip(extent, other)) shape.push_back(std::max(a, c));
  // Rows one element longer spread a column's elements over the banks.
  if (shape.size() > 1) shape.back() += 1;
  Value buffer = sharedBuffer(shape, elementOf(op.getInput()));
  auto position = [&](LayoutAttr layout, int64_t reg) {
    SmallVector<Value> p;
    for (AffineExpr e : positionOfRegister(layout, reg)) p.push_back(threadIndex(e));
    return p;
  };
  Value in = lookup(op.getInput());
  for (int64_t r = 0; r < from.getNumRegisters(); ++r)
    memref::StoreOp::create(b_, loc_, vector::ExtractOp::create(b_, loc_, in, ArrayRef<int64_t>{r}), buffer,
                            position(from, r));
  VectorType outType = registersOf(op.getResult());
  Value out = arith::ConstantOp::create(b_, loc_, outType, b_.getZeroAttr(outType));
  for (int64_t r = 0; r < to.getNumRegisters(); ++r)
    out = vector::InsertOp::create(b_, loc_, memref::LoadOp::create(b_, loc_, buffer, position(to, r)), out,
                                   ArrayRef<int64_t>{r});
  values_[op.getResult()] = out;
  return success();
}

SmallVector<Value> Distributor::combineAcrossWaves(ArrayRef<Value> partial, ReductionKind kind, ArrayRef<bool> axes,
                                                   LayoutAttr layout) {
  // Slot [wave][register][lane]: each wave's partials, then each thread combines those of
  // the waves that differ from its own only along `axes`.
  ArrayRef<int64_t> waveAxes = layout.getWaves();
  const int64_t lanes = layout.getNumLanes(), waves = layout.getNumWaves(), regs = layout.getNumRegisters();
  Value buffer = sharedBuffer({waves * regs * lanes}, partial.front().getType());
  AffineExpr l = getAffineDimExpr(0, b_.getContext()), w = getAffineDimExpr(1, b_.getContext());
  for (int64_t r = 0; r < regs; ++r)
    memref::StoreOp::create(b_, loc_, partial[r], buffer, threadIndex((w * regs + r) * lanes + l));
  // The waves of this thread's group: its own wave with the digits along `axes` replaced.
  SmallVector<int64_t> strides = waveAxisStrides(waveAxes);
  AffineExpr base = w;
  for (size_t a = 0; a < waveAxes.size(); ++a)
    if (axes[a]) base = base - (w.floorDiv(strides[a]) % waveAxes[a]) * strides[a];
  SmallVector<AffineExpr> group = {base};
  for (size_t a = 0; a < waveAxes.size(); ++a) {
    if (!axes[a]) continue;
    SmallVector<AffineExpr> next;
    for (AffineExpr e : group)
      for (int64_t d = 0; d < waveAxes[a]; ++d) next.push_back(e + d * strides[a]);
    group = next;
  }
  SmallVector<Value> combined;
  for (int64_t r = 0; r < regs; ++r) {
    Value acc;
    for (AffineExpr wave : group) {
      Value v = memref::LoadOp::create(b_, loc_, buffer, threadIndex((wave * regs + r) * lanes + l));
      acc = acc ? combine(b_, loc_, kind, acc, v) : v;
    }
    combined.push_back(acc);
  }
  return combined;
}

LogicalResult Distributor::lowerCombineWaves(dialect::CombineWavesOp op) {
  LayoutAttr layout = layoutOf(op.getInput());
  const int axis = grid_.waves.axisOf(op.getDim());
  if (axis < 0 || layout.getWaves().size() != grid_.waves.dims.size())
    return op.emitOpError("expected waves split along ") << op.getDim() << ", but no WaveConstraint splits it";
  SmallVector<bool> axes(grid_.waves.dims.size(), false);
  axes[axis] = true;
  const ReductionKind kind = op.getKind() == dialect::FoldKind::max ? ReductionKind::max : ReductionKind::sum;
  Type element = elementOf(op.getInput());
  // Narrow floats combine in f32.
  Type work = isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32 ? b_.getF32Type() : element;
  Value in = lookup(op.getInput());
  SmallVector<Value> partial;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    Value v = vector::ExtractOp::create(b_, loc_, in, ArrayRef<int64_t>{r});
    partial.push_back(v.getType() == work ? v : arith::ExtFOp::create(b_, loc_, work, v).getResult());
  }
  Value out = in;
  for (auto [r, v] : llvm::enumerate(combineAcrossWaves(partial, kind, axes, layout))) {
    if (v.getType() != element) v = arith::TruncFOp::create(b_, loc_, element, v);
    out = vector::InsertOp::create(b_, loc_, v, out, ArrayRef<int64_t>{int64_t(r)});
  }
  values_[op.getResult()] = out;
  return success();
}

LogicalResult Distributor::lowerReduction(Operation* op) {
  const ReductionKind kind = isa<dialect::ReduceMaxOp>(op) ? ReductionKind::max : ReductionKind::sum;
  Value input = op->getOperand(0), result = op->getResult(0);
  StringRef dim = op->getAttrOfType<StringAttr>("dim").getValue();
  const int k = dimIndex(dimsOf(input), dim);
  LayoutAttr in = layoutOf(input), out = layoutOf(result);
  const int64_t blockTile = grid_.tiling(dim).blockTile;
  // Inside a loop over `dim`, the reduction is over the loop's tile.
  if (!grid_.tiling(dim).loop && !isKnownAtMost(kernel_, dim, blockTile)) {
    auto diag = op->emitOpError("expected one workgroup to cover the dim it reduces over, ")
                << dim << ", whose workgroup tile is " << blockTile;
    if (auto size = staticSize(kernel_, dim)) return diag << ", but " << dim << " is " << *size;
    return diag << ", but " << dim << " is dynamic and not known to be at most that (state it: Assumption(" << dim
                << " <= " << blockTile << "))";
  }
  Type element = elementOf(result);
  Type work = isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32 ? b_.getF32Type() : element;
  if (work.getIntOrFloatBitWidth() != 32)
    return op->emitOpError("is not yet supported: a reduction of ")
           << element << " (32-bit or narrower floats, 32-bit integers)";
  // A row (a position but for `dim`) as one number: a key mixing the other dims' places.
  const LayoutPoints inPoints(in), outPoints(out);
  const int64_t inRegisters = in.getNumRegisters(), outRegisters = out.getNumRegisters();
  const int64_t inWaves = in.getNumWaves(), lanes = in.getNumLanes();
  const int64_t rank = dimsOf(input).size();
  SmallVector<int64_t> rowExtent;  // per dim of the result
  {
    SmallVector<int64_t> inExtent = inPoints.extent(), outExtent = outPoints.extent();
    for (int64_t d = 0, o = 0; d < rank; ++d)
      if (d != k) rowExtent.push_back(std::max(inExtent[d], outExtent[o++]));
  }
  // The row of a position with `skipped` dims among `dims` (the input's: `dim`; the
  // output's: none).
  auto rowKey = [&](const int64_t* p, int64_t dims, int64_t skipped) {
    int64_t key = 0;
    for (int64_t d = 0, o = 0; d < dims; ++d)
      if (d != skipped) key = key * rowExtent[o++] + p[d];
    return key;
  };
  auto rowOfInput = [&](const int64_t* p) { return rowKey(p, rank, k); };
  auto rowOfOutput = [&](const int64_t* p) { return rowKey(p, rank - 1, -1); };
  // In the thread: for each result register, the input registers of its row, each
  // position along `dim` once.
  SmallVector<SmallVector<int64_t>> members(outRegisters);
  for (int64_t r = 0; r < outRegisters; ++r) {
    const int64_t row = rowOfOutput(outPoints.data(r, 0, 0));
    SmallVector<int64_t> seen;
    for (int64_t s = 0; s < inRegisters; ++s) {
      const int64_t* p = inPoints.data(s, 0, 0);
      if (rowOfInput(p) != row || llvm::is_contained(seen, p[k])) continue;
      seen.push_back(p[k]);
      members[r].push_back(s);
    }
  }
  // The same grouping must hold in every thread.
  for (int64_t w = 0; w < inWaves; ++w)
    for (int64_t l = 0; l < lanes; ++l)
      for (int64_t r = 0; r < outRegisters; ++r)
        for (int64_t s : members[r])
          if (rowOfInput(inPoints.data(s, l, w)) != rowOfOutput(outPoints.data(r, l, w)))
            return op->emitOpError("is not yet supported: a reduction over a layout whose rows differ between threads");
  // Which lane bits and wave axes move only along `dim` (combine), only repeat elements
  // (skip) or change the row (skip).
  auto classify = [&](auto flip) -> FailureOr<bool> {
    bool alongOnly = true, moves = false;
    for (int64_t w = 0; w < inWaves; ++w)
      for (int64_t l = 0; l < lanes; ++l) {
        auto [l2, w2] = flip(l, w);
        for (int64_t s = 0; s < inRegisters; ++s) {
          const int64_t *p = inPoints.data(s, l, w), *q = inPoints.data(s, l2, w2);
          if (std::equal(p, p + rank, q)) continue;
          moves = true;
          if (rowOfInput(p) != rowOfInput(q)) alongOnly = false;
        }
      }
    return moves && alongOnly;
  };
  SmallVector<int64_t> laneBits;
  for (int64_t bit = 1; bit < lanes; bit *= 2) {
    auto c = classify([&](int64_t l, int64_t w) { return std::pair{l ^ bit, w}; });
    if (*c) laneBits.push_back(bit);
  }
  ArrayRef<int64_t> waveAxes = in.getWaves();
  SmallVector<int64_t> strides = waveAxisStrides(waveAxes);
  SmallVector<bool> reduceAxis(waveAxes.size(), false);
  for (size_t a = 0; a < waveAxes.size(); ++a) {
    const int64_t stride = strides[a];
    auto c = classify([&](int64_t l, int64_t w) {
      int64_t digit = w / stride % waveAxes[a];
      return std::pair{l, w + ((digit + 1) % waveAxes[a] - digit) * stride};
    });
    reduceAxis[a] = *c;
  }
  // Waves that fold their parts of the dim apart keep their own partials.
  SmallVector<bool> apart(waveAxes.size(), false);
  if (waveAxes.size() == grid_.waves.dims.size())
    for (size_t a = 0; a < waveAxes.size(); ++a) apart[a] = foldingApart_.contains(grid_.waves.dims[a]);
  bool keepsPartials = false;
  for (size_t a = 0; a < waveAxes.size(); ++a) {
    keepsPartials |= reduceAxis[a] && apart[a];
    reduceAxis[a] = reduceAxis[a] && !apart[a];
  }

  // Every element of a row must be counted once: each thread's group (its registers, the
  // lanes over the combined bits, the waves over the combined axes) must hold each of the
  // row's positions exactly once (of its own part, where waves fold apart). Layouts that
  // repeat elements irregularly fail here. A group only reaches its own row (the lane bits
  // and wave axes combined move along `dim` alone), so holding as many distinct positions
  // as the row has is holding each once.
  {
    // A row, and the wave's digits along the axes folding apart.
    auto partOf = [&](int64_t row, int64_t w) {
      for (size_t a = 0; a < waveAxes.size(); ++a)
        if (apart[a]) row = row * waveAxes[a] + w / strides[a] % waveAxes[a];
      return row;
    };
    DenseMap<int64_t, SmallVector<int64_t>> rowPositions;
    for (int64_t w = 0; w < inWaves; ++w)
      for (int64_t l = 0; l < lanes; ++l)
        for (int64_t s = 0; s < inRegisters; ++s) {
          const int64_t* p = inPoints.data(s, l, w);
          rowPositions[partOf(rowOfInput(p), w)].push_back(p[k]);
        }
    DenseMap<int64_t, size_t> rowLength;
    for (auto& [row, positions] : rowPositions) {
      llvm::sort(positions);
      rowLength[row] = std::unique(positions.begin(), positions.end()) - positions.begin();
    }
    SmallVector<int64_t> groupLanes = {0};
    for (int64_t bit : laneBits)
      for (int64_t i = 0, n = groupLanes.size(); i < n; ++i) groupLanes.push_back(groupLanes[i] ^ bit);
    SmallVector<int64_t> counted;
    for (int64_t w = 0; w < inWaves; ++w) {
      SmallVector<int64_t> groupWaves = {w};
      for (size_t a = 0; a < waveAxes.size(); ++a) {
        if (!reduceAxis[a]) continue;
        SmallVector<int64_t> next;
        for (int64_t g : groupWaves)
          for (int64_t d = 0; d < waveAxes[a]; ++d) next.push_back(g + (d - g / strides[a] % waveAxes[a]) * strides[a]);
        groupWaves = next;
      }
      for (int64_t l = 0; l < lanes; ++l)
        for (int64_t r = 0; r < outRegisters; ++r) {
          counted.clear();
          for (int64_t gw : groupWaves)
            for (int64_t gl : groupLanes)
              for (int64_t s : members[r]) counted.push_back(inPoints.data(s, l ^ gl, gw)[k]);
          llvm::sort(counted);
          if (std::adjacent_find(counted.begin(), counted.end()) != counted.end() ||
              counted.size() != rowLength.lookup(partOf(rowOfOutput(outPoints.data(r, l, w)), w)))
            return op->emitOpError("is not yet supported: a reduction over ")
                   << dim << " in a layout that repeats some of a row's elements across threads (tile the dims "
                   << "so that each wave's tile is a multiple of a wave's " << lanes << " lanes' runs)";
        }
    }
  }

  Value x = lookup(input);
  Value reducedIndex = offsets_.lookup(dim);
  SmallVector<Value> partial;
  for (int64_t r = 0; r < out.getNumRegisters(); ++r) {
    Value acc;
    for (int64_t s : members[r]) {
      Value v = vector::ExtractOp::create(b_, loc_, x, ArrayRef<int64_t>{s});
      if (mayOverrun(dim)) {
        Value at = arith::AddIOp::create(b_, loc_, reducedIndex, threadIndex(positionOfRegister(in, s)[k]));
        v = arith::SelectOp::create(b_, loc_, lessThan(at, sizes_.lookup(dim)), v,
                                    reductionIdentity(b_, loc_, kind, element));
      }
      if (v.getType() != work) v = arith::ExtFOp::create(b_, loc_, work, v);
      acc = acc ? combine(b_, loc_, kind, acc, v) : v;
    }
    for (int64_t bit : laneBits) {
      auto shuffle = gpu::ShuffleOp::create(b_, loc_, acc, static_cast<int32_t>(bit), static_cast<int32_t>(lanes),
                                            gpu::ShuffleMode::XOR);
      acc = combine(b_, loc_, kind, acc, shuffle.getShuffleResult());
    }
    partial.push_back(acc);
  }
  if (llvm::is_contained(reduceAxis, true)) partial = combineAcrossWaves(partial, kind, reduceAxis, out);
  if (keepsPartials) partials_.insert(result);
  VectorType outType = registersOf(result);
  Value init = op->getNumOperands() > 1 ? lookup(op->getOperand(1)) : Value();
  Value vec = arith::ConstantOp::create(b_, loc_, outType, b_.getZeroAttr(outType));
  for (int64_t r = 0; r < out.getNumRegisters(); ++r) {
    Value v = partial[r];
    if (init) {
      Value i = vector::ExtractOp::create(b_, loc_, init, ArrayRef<int64_t>{r});
      if (i.getType() != work) i = arith::ExtFOp::create(b_, loc_, work, i);
      v = combine(b_, loc_, kind, v, i);
    }
    if (v.getType() != element) v = arith::TruncFOp::create(b_, loc_, element, v);
    vec = vector::InsertOp::create(b_, loc_, v, vec, ArrayRef<int64_t>{r});
  }
  values_[result] = vec;
  return success();
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
      .Case([&](dialect::ReciprocalOp) {
        return done(arith::DivFOp::create(b_, loc_, constantLike(operand(0), 1.0), operand(0)));
      })
      .Case([&](dialect::CastOp c) { return done(convertElements(b_, loc_, operand(0), registersOf(c.getResult()))); })
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
      .Case<dialect::ReduceMaxOp, dialect::ReduceSumOp>([&](Operation* r) { return lowerReduction(r); })
      .Case([&](dialect::ConvertLayoutOp c) { return lowerConvert(c); })
      .Case([&](dialect::CombineWavesOp c) { return lowerCombineWaves(c); })
      .Case([&](dialect::PrintOp p) { return lowerPrint(p); })
      .Default([&](Operation*) {
        return op->emitOpError("is not yet supported by the layout pipeline's distribution");
      });
}

LogicalResult Distributor::emit(gpu::GPUModuleOp module) {
  func_ = createKernelFunc(b_, kernel_, module, grid_.threads());
  SmallVector<LaunchDim> launch;
  for (auto& [dim, t] : grid_.dims) launch.push_back({dim, t.blockTile, t.waveTile, t.gridAxis});
  setLaunchShape(b_, kernel_, func_, launchLayout(b_.getContext(), launch, grid_.waves.lanes, 1, 1));
  for (auto [from, to] : llvm::zip(kernel_.getArguments(), func_.getArguments())) memrefs_.map(from, to);
  Value tid = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
  lane_ = arith::RemUIOp::create(b_, loc_, tid, index(grid_.waves.lanes));
  wave_ = arith::DivUIOp::create(b_, loc_, tid, index(grid_.waves.lanes));
  const gpu::Dimension axes[] = {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
  Value tile[3];
  // Along an axis of one workgroup the tile is 0, known where the addresses are built.
  std::optional<ArrayRef<int32_t>> knownGrid = func_.getKnownGridSize();
  for (int axis = 0; axis < 3; ++axis)
    tile[axis] = knownGrid && (*knownGrid)[axis] == 1 ? index(0) : gpu::BlockIdOp::create(b_, loc_, axes[axis]);
  // Tensor-core kernels reuse operand tiles across workgroups: those running at once take
  // them from L2 when they go in groups of 8 along x.
  if (computesWithMMA(kernel_))
    std::tie(tile[0], tile[1]) = groupedTileOrder(tile[0], tile[1], gridSize(axes[0]), gridSize(axes[1]), 8);
  // A loop that ends early by the workgroup's position (wave-skip-masked-tiles: causal
  // attention's later query tiles see more keys) makes those workgroups longer: they go
  // first, so the last to run are short ones.
  llvm::SmallDenseSet<int, 4> reversed;
  kernel_.walk([&](dialect::IterateOp loop) {
    if (!loop.getEndDimsAttr()) return;
    for (Attribute d : loop.getEndDimsAttr()) {
      auto it = grid_.dims.find(cast<StringAttr>(d).getValue());
      if (it == grid_.dims.end() || it->second.gridAxis < 0 || !reversed.insert(it->second.gridAxis).second) continue;
      const int axis = it->second.gridAxis;
      Value last = arith::SubIOp::create(b_, loc_, gridSize(axes[axis]), index(1));
      tile[axis] = arith::SubIOp::create(b_, loc_, last, tile[axis]);
    }
  });
  for (auto& [dim, t] : grid_.dims) {
    auto size = dimSize(b_, kernel_, func_, dim);
    if (failed(size)) return failure();
    sizes_[dim] = *size;
    offsets_[dim] = t.gridAxis < 0 ? index(0)
                                   : arith::MulIOp::create(b_, loc_, tile[t.gridAxis], index(t.blockTile)).getResult();
    if (t.gridAxis < 0)
      offsetRanges_[dim] = {0, 0};
    else if (std::optional<ArrayRef<int32_t>> known = func_.getKnownGridSize())
      offsetRanges_[dim] = {0, ((*known)[t.gridAxis] - 1) * t.blockTile};
  }
  if (failed(lowerBlock(kernel_.getBody().front()))) return failure();
  if (sharedBytes_) func_->setAttr("wave.shared_memory_bytes", b_.getI64IntegerAttr(sharedBytes_));
  gpu::ReturnOp::create(b_, loc_);
  return success();
}

Value Distributor::beforeEnd(LayoutAttr layout, int64_t reg, unsigned k, StringRef dim, Value at) {
  auto offset = offsetRanges_.find(dim);
  std::optional<int64_t> size = staticSize(kernel_, dim);
  if (offset != offsetRanges_.end() && size) {
    AffineExpr position = positionOfRegister(layout, reg)[k];
    if (auto range = rangeWithinBounds(position, threadExtents())) {
      if (offset->second.second + range->second < *size) return Value();
      if (offset->second.first + range->first >= *size) return arith::ConstantIntOp::create(b_, loc_, 0, 1);
    }
  }
  return lessThan(at, sizes_.lookup(dim));
}

Value Distributor::gridSize(gpu::Dimension axis) {
  if (std::optional<ArrayRef<int32_t>> known = func_.getKnownGridSize())
    return index((*known)[static_cast<int>(axis)]);
  return gpu::GridDimOp::create(b_, loc_, axis);
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
    if (failed(op.hasAttr("wave.hiding_mask") ? lowerHidingMask(cast<dialect::AddOp>(op)) : lowerOp(&op)))
      return failure();
    if (takesPartials) partials_.insert(op.getResults().begin(), op.getResults().end());
  }
  return success();
}

}  // namespace distribution

LogicalResult emitDistributedKernel(func::FuncOp kernel, gpu::GPUModuleOp module) {
  auto grid = kernelGrid(kernel);
  if (failed(grid)) return failure();
  return distribution::Distributor(kernel, std::move(*grid)).emit(module);
}

}  // namespace wave::jit
