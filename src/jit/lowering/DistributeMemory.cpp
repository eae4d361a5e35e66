//===- DistributeMemory.cpp - read, write and shared tiles per thread ----===//
//
// read / write: per run of registers contiguous in memory, one vector access at the run's
// position (workgroup offset + the layout's map), masked where a dim may end inside the
// workgroup's tile; through an index mapping into a static shape, at one simplified
// offset of the flat tensor, masked along the memory dims whose index a masking mapping
// may take outside the tensor; a write that combines, by atomics (vector red.global.add on
// sm_90). allocate: a view of the dynamic shared memory, whose reads
// and writes address the tile at the layout's positions, unmasked.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/AffineBounds.h"
#include "analysis/DistributedLayout.h"
#include "analysis/ThreadLayout.h"
#include "lowering/ExprToArith.h"
#include "lowering/NarrowIndexExpr.h"
#include "lowering/KernelSignature.h"
#include "lowering/MMAInstructions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"

namespace wave::jit::distribution {

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

// The dims (a mapping's iterators) an expression uses.
llvm::SmallBitVector iteratorsOf(AffineExpr e) {
  llvm::SmallBitVector used(64);
  e.walk([&](AffineExpr x) {
    if (auto d = dyn_cast<AffineDimExpr>(x)) used.set(d.getPosition());
  });
  return used;
}

// Through a mapping whose innermost memory index is not an iterator (conv2d's `$1 mod C`,
// a row-major slot's `(i mod R) * N + j`): the value dim along which runs of `run` elements
// stay contiguous in memory, or -1. Each memory index must be a sum of terms of one
// iterator each (symbols known); along the run's iterator, checked at every aligned start
// of its dim, the innermost index steps by one from a multiple of `run` and the others
// stay put; the innermost index's terms in other iterators are multiples of `run`.
int contiguousMappedDim(func::FuncOp kernel, const llvm::StringMap<dialect::ExprAttr>& memoryExpr,
                        ArrayRef<StringRef> memoryDims, ArrayRef<int> iteratorDim, ArrayRef<StringRef> valueDims,
                        int64_t run) {
  if (run < 2 || memoryDims.empty()) return -1;
  MLIRContext* ctx = kernel.getContext();
  std::optional<AffineExpr> inner = withStaticSymbols(kernel, memoryExpr.lookup(memoryDims.back()));
  if (!inner) return -1;
  // The run's iterator k: one of the innermost index's.
  auto runsAlong = [&](unsigned k) -> int {
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
        const bool innermost = d == memoryDims.back();
        if (innermost && used.any() && !used.test(k) && !t.isMultipleOf(run)) return -1;
        if (used.test(k) || (innermost && used.none())) sum = sum + t;
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
  };
  llvm::SmallBitVector innerIterators = iteratorsOf(*inner);
  for (int k = innerIterators.find_first(); k >= 0; k = innerIterators.find_next(k))
    if (int valueDim = runsAlong(static_cast<unsigned>(k)); valueDim >= 0) return valueDim;
  return -1;
}

// An access's index mapping taken apart (none: each memory dim is the value dim of its
// name). Each memory index is an expression of the iterators, one per value dim; runs stay
// whole only where the innermost memory dim is its value dim's own iterator.
FailureOr<MemoryMapping> Distributor::mappingOf(Operation* op, Value tensor, bool isRead, ArrayRef<StringRef> valueDims,
                                                ArrayRef<StringRef> memoryDims) {
  MemoryMapping m;
  m.mapping = isRead ? cast<dialect::ReadOp>(op).getMappingAttr() : cast<dialect::WriteOp>(op).getMappingAttr();
  dialect::IndexMappingAttr mapping = m.mapping;
  SmallVector<int>& iteratorDim = m.iteratorDim;
  llvm::StringMap<dialect::ExprAttr>& memoryExpr = m.memoryExpr;
  llvm::StringMap<SmallVector<Value>>& memorySymbols = m.memorySymbols;
  bool& innerIsIterator = m.innerIsIterator;
  innerIsIterator = !mapping;
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
      // (A dim past the iterators is a dynamic value: no run follows it.)
      const int walked = it && it.getPosition() < iteratorDim.size() ? iteratorDim[it.getPosition()] : -1;
      innerIsIterator = walked >= 0 && e.getMap().getNumSymbols() == 0 && valueDims[walked] == memoryDims.back();
    }
  }
  return m;
}

LogicalResult Distributor::access(Operation* op, Value memoryValue, Value tensor, bool isRead) {
  auto memory = cast<dialect::MemoryType>(memoryValue.getType());
  Value memref = memrefs_.lookup(memoryValue);
  // A shared tile is addressed at the tile's positions, all of them inside it.
  const bool inTile = sharedTiles_.contains(memoryValue);
  auto tile = memoryValue.getDefiningOp<dialect::AllocateOp>();
  const int64_t swizzle = tile ? static_cast<int64_t>(tile.getSwizzle().value_or(0)) : 0;
  if (isRead && swizzle) {
    // wgmma reads a swizzled tile itself (one or more of them); nothing else reads one.
    const bool warpgroupOnly = !op->use_empty() && llvm::all_of(op->getUsers(), [](Operation* user) {
      auto mma = dyn_cast<dialect::MmaOp>(user);
      return mma && mma.getWarpgroup();
    });
    if (!warpgroupOnly)
      return op->emitOpError("expected a swizzled shared tile to be read only by a warpgroup mma (wave.mma's "
                             "warpgroup), but found another reader");
    warpgroupOperands_.insert(op->getResult(0));
    return success();
  }
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
  FailureOr<MemoryMapping> mapped = mappingOf(op, tensor, isRead, valueDims, memoryDims);
  if (failed(mapped)) return failure();
  dialect::IndexMappingAttr mapping = mapped->mapping;
  const SmallVector<int>& iteratorDim = mapped->iteratorDim;
  const llvm::StringMap<dialect::ExprAttr>& memoryExpr = mapped->memoryExpr;
  const llvm::StringMap<SmallVector<Value>>& memorySymbols = mapped->memorySymbols;
  const bool innerIsIterator = mapped->innerIsIterator;
  // Runs along the memory's innermost dim, as long as 16 bytes and the row length allow.
  int inner = memoryDims.empty() || !innerIsIterator ? -1 : dimIndex(valueDims, memoryDims.back());
  int64_t maxRun = std::max<int64_t>(1, 16 / bytes);
  const bool rows = memoryDims.size() > 1;
  StringRef innerDim = memoryDims.empty() ? StringRef() : memoryDims.back();
  std::optional<int64_t> innerSize = staticSize(kernel_, innerDim);
  if (inTile) innerSize = cast<MemRefType>(memref.getType()).getShape().back();
  if (rows && innerSize)
    while (maxRun > 1 && *innerSize % maxRun != 0) maxRun /= 2;
  // Indices read at run time (the mapping's dynamic values), one per register of the
  // access's layout; a run stays whole only where none of them varies along it.
  ValueRange dynamicValues = isRead ? cast<dialect::ReadOp>(op).getDynamic() : cast<dialect::WriteOp>(op).getDynamic();
  SmallVector<Value> dynamic;
  for (auto [k, v] : llvm::enumerate(dynamicValues)) {
    Value g = gather(lookup(v), layoutOf(v), layout, dimsOf(v), valueDims);
    if (!g)
      return op->emitOpError("expected dynamic value ")
             << k << " in a layout that holds, in each thread, the index of every element the thread moves";
    dynamic.push_back(g);
    if (inner >= 0 && llvm::is_contained(dimsOf(v), valueDims[inner])) inner = -1;
  }
  bool runStaysPut = false;  // along a run, every memory index but the innermost stays put
  if (mapping && !innerIsIterator && innerSize && dynamic.empty()) {
    // The run must also divide the row (checked with the rest in contiguousMappedDim).
    for (int64_t run = maxRun; run > 1 && inner < 0; run /= 2)
      if ((inner = contiguousMappedDim(kernel_, memoryExpr, memoryDims, iteratorDim, valueDims, run)) >= 0)
        maxRun = run;
    runStaysPut = inner >= 0;
  }
  // A mapping that masks its points outside the memory: the memory dims whose index may
  // leave it, checked once per run (at its first element) against 0 where it may fall
  // below and against the dim's extent where it may reach it.
  struct MaskedDim {
    StringRef dim;
    bool below;    // may be negative
    Value extent;  // null where it stays under the extent
    // The index's expression where it and its extent fit 32 bits (NarrowIndexExpr.h).
    std::optional<AffineExpr> narrow;
    int64_t size;
  };
  SmallVector<MaskedDim> maskedDims;
  SmallVector<int64_t> extents;  // of the mapping's iterators (0: known only at launch)
  if (mapping)
    for (int d : iteratorDim) extents.push_back(staticSize(kernel_, valueDims[d]).value_or(0));
  if (mapping && mapping.getMasked()) {
    auto type = cast<MemRefType>(memref.getType());
    for (auto [m, d] : llvm::enumerate(memoryDims)) {
      std::optional<AffineExpr> e = withStaticSymbols(kernel_, memoryExpr.lookup(d));
      // The dim's own iterator: kept inside by the value's masks.
      if (auto it = dyn_cast<AffineDimExpr>(memoryExpr.lookup(d).getMap().getResult(0));
          it && it.getPosition() < iteratorDim.size() && valueDims[iteratorDim[it.getPosition()]] == d)
        continue;
      const int64_t size = type.getShape()[m];
      llvm::SmallBitVector used = e ? iteratorsOf(*e) : llvm::SmallBitVector();
      bool bounded = e.has_value();
      for (int k = used.find_first(); bounded && k >= 0; k = used.find_next(k))
        bounded = static_cast<size_t>(k) < extents.size() && extents[k] > 0;
      std::optional<std::pair<int64_t, int64_t>> range = bounded ? rangeWithinBounds(*e, extents) : std::nullopt;
      const bool below = !range || range->first < 0;
      const bool above = !range || ShapedType::isDynamic(size) || range->second >= size;
      if (!below && !above) continue;
      const bool narrow = range && !ShapedType::isDynamic(size) && size < (int64_t(1) << 30) && fitsNarrow(*e, extents);
      maskedDims.push_back(
          {d, below, above ? memref::DimOp::create(b_, loc_, memref, static_cast<int64_t>(m)).getResult() : Value(),
           narrow ? e : std::optional<AffineExpr>(), size});
      // A run is all inside or all outside where its memory indices but the innermost stay
      // put (contiguousMappedDim checked it) and the innermost steps inside aligned runs of
      // a static extent; elsewhere the elements are checked one by one.
      if (inner < 0) continue;
      const bool innermost = m + 1 == memoryDims.size();
      const bool aligned = !ShapedType::isDynamic(size) && size % maxRun == 0;
      const bool wholeRuns = innermost ? aligned && (runStaysPut || innerIsIterator) : runStaysPut;
      auto runIterator = llvm::find(iteratorDim, inner);
      const bool moves = !e || used.test(static_cast<unsigned>(runIterator - iteratorDim.begin()));
      if (moves && !wholeRuns) inner = -1;
    }
  }
  // A wait or a signal moves one flag at a time.
  auto read = dyn_cast<dialect::ReadOp>(op);
  auto write = dyn_cast<dialect::WriteOp>(op);
  const dialect::ExprAttr waitAtLeast = read ? read.getWaitAtLeastAttr() : nullptr;
  const bool release = write && write.getRelease();
  if (waitAtLeast || release) inner = -1;
  FailureOr<Value> least = waitAtLeast ? flagThreshold(op, waitAtLeast, element) : FailureOr<Value>(Value());
  if (failed(least)) return failure();
  // Where a mapping sends several elements of the tile to one flag, the first along the
  // value's last dim stores or waits for it; the others' registers read it after the wait.
  const bool oncePerFlag = (waitAtLeast || release) && mapping && dynamic.empty() && !valueDims.empty();
  struct LateFlag {
    int64_t reg;
    SmallVector<Value> indices;
    Value when;
  };
  SmallVector<LateFlag> lateFlags;
  if (inner < 0) innerSize = std::nullopt;
  // Global memory through a mapping: addressed as one flat array at the simplified offset.
  std::optional<AffineExpr> linear;
  if (mapping && !inTile)
    linear = linearMappedOffset(kernel_, memoryExpr, memoryDims, cast<MemRefType>(memref.getType()),
                                mapping.getIterators() + mapping.getDynamic());
  if (linear) memref = flattened(memref);
  // A write that combines (atomic add, min, max) or signals lands once per element: where
  // the layout repeats elements, each register's first holder writes it, one register at a
  // time.
  const std::optional<dialect::WriteCombine> combine = write ? write.getCombine() : std::nullopt;
  const bool combines = combine.has_value();
  const bool take = read && read.getTake();
  SmallVector<Value> addsHere;
  if (combines || release || take) {
    FailureOr<SmallVector<Value>> adders = addersOf(op, layout);
    if (failed(adders)) return failure();
    addsHere = std::move(*adders);
  }
  const bool repeats = llvm::any_of(addsHere, [](Value owner) { return owner != nullptr; });
  // On a dim split over the GPUs, runs start at the rank's slice plus multiples of their
  // length: aligned only where that length divides the slice's start.
  if (inner >= 0 && !inTile)
    while (maxRun > 1 && grid_.tiling(valueDims[inner]).rankOffset % maxRun != 0) maxRun /= 2;
  SmallVector<RegisterRun> runs;
  if (inner >= 0 && !repeats)
    runs = registerRuns(layout, inner, maxRun);
  else
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) runs.push_back({r, 1});

  if (release) beforeRelease();
  VectorType all = registersOf(tensor);
  Value result = isRead ? arith::ConstantOp::create(b_, loc_, all, b_.getZeroAttr(all)).getResult() : Value();
  Value source = isRead ? Value() : lookup(tensor);
  // The mapping's variables at value positions `at`: its iterators, then register `reg`'s
  // dynamic values.
  auto mappingVariables = [&](ArrayRef<Value> at, int64_t reg) {
    SmallVector<Value> iterators;
    for (int d : iteratorDim) iterators.push_back(at[d]);
    for (Value registers : dynamic)
      iterators.push_back(arith::IndexCastOp::create(
          b_, loc_, b_.getIndexType(), vector::ExtractOp::create(b_, loc_, registers, ArrayRef<int64_t>{reg})));
    return iterators;
  };
  // The memory indices of the element at value positions `at` (through the mapping).
  auto mappedIndices = [&](ArrayRef<Value> at, int64_t reg) {
    SmallVector<Value> iterators = mappingVariables(at, reg), indices;
    if (linear)
      indices.push_back(applyByIterators(*linear, iterators, extents));
    else
      for (StringRef d : memoryDims)
        indices.push_back(buildExpr(b_, loc_, memoryExpr.lookup(d), iterators, memorySymbols.lookup(d)));
    return indices;
  };
  // Whether the element at value positions `at` lies inside the memory along each masked dim.
  auto insideMemory = [&](ArrayRef<Value> at, int64_t reg) {
    SmallVector<Value> iterators = mappingVariables(at, reg), inside;
    for (const MaskedDim& m : maskedDims) {
      Value i = m.narrow ? buildNarrowExpr(b_, loc_, *m.narrow, iterators, extents)
                         : buildExpr(b_, loc_, memoryExpr.lookup(m.dim), iterators, memorySymbols.lookup(m.dim));
      auto i32 = [&](int64_t c) -> Value { return arith::ConstantIntOp::create(b_, loc_, c, 32); };
      // Both sides in one compare: a negative index is past the extent as an unsigned number.
      if (m.extent)
        inside.push_back(arith::CmpIOp::create(b_, loc_, m.below ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
                                               i, m.narrow ? i32(m.size) : m.extent));
      else
        inside.push_back(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sge, i, m.narrow ? i32(0) : index(0)));
    }
    return andAll(inside);
  };
  // A dynamic innermost dim: rows start aligned to a run only if their length is a
  // multiple of it (checked per run; CSE keeps one check).
  auto checksRows = [&](int64_t length) {
    return rows && !inTile && !innerSize && !isKnownMultiple(kernel_, innerDim, length);
  };
  // On AMDGPU, global memory through a buffer: a run moved whole or not at all needs no
  // branch, and no mask where the buffer's end is the dim's (DistributeBufferAccesses.cpp).
  const bool buffered =
      !waitAtLeast && !take && !release && !combines && !inTile && throughBuffer(memref, element, memoryDims);
  // Run `run` of the registers written: one element as a scalar, several as a vector.
  auto sourceRun = [&](const RegisterRun& run) -> Value {
    if (run.length == 1) return vector::ExtractOp::create(b_, loc_, source, ArrayRef<int64_t>{run.first});
    return vector::ExtractStridedSliceOp::create(b_, loc_, source, ArrayRef<int64_t>{run.first},
                                                 ArrayRef<int64_t>{run.length}, ArrayRef<int64_t>{1});
  };
  // The registers read so far with run `run` set to `loaded` (sourceRun's shape).
  auto withRun = [&](const RegisterRun& run, Value loaded) -> Value {
    if (run.length == 1) return vector::InsertOp::create(b_, loc_, loaded, result, ArrayRef<int64_t>{run.first});
    return vector::InsertStridedSliceOp::create(b_, loc_, loaded, result, ArrayRef<int64_t>{run.first},
                                                ArrayRef<int64_t>{1});
  };
  // Whether `run` lies wholly inside its row or wholly past the row's end.
  auto wholeOrPast = [&](const RegisterRun& run) {
    if (run.length == 1) return true;
    if (checksRows(run.length)) return false;
    StringRef d = valueDims[inner];
    if (!mayOverrun(d)) return true;
    return !mapping && !ends_.count(d) && !grid_.tiling(d).rankSlice && innerSize && *innerSize % run.length == 0;
  };
  for (const RegisterRun& run : runs) {
    SmallVector<Value> at = indexOf(layout, valueDims, run.first, inTile);
    SmallVector<Value> indices;
    if (swizzle) {
      // Rows: the tile's other dims, row-major (all but one hold one element).
      Value row = index(0);
      int64_t tileRows = 1;
      for (StringRef d : ArrayRef(memoryDims).drop_back()) {
        const int64_t extent = grid_.tiling(d).blockTile;
        row = arith::AddIOp::create(b_, loc_, arith::MulIOp::create(b_, loc_, row, index(extent)),
                                    at[dimIndex(valueDims, d)]);
        tileRows *= extent;
      }
      indices.push_back(swizzledOffset(row, at[dimIndex(valueDims, memoryDims.back())], tileRows, swizzle, element));
    } else if (!mapping) {
      for (StringRef d : memoryDims) indices.push_back(at[dimIndex(valueDims, d)]);
    } else {
      indices = mappedIndices(at, run.first);
    }
    // This register's flag is the previous element's (in the tile, along the last dim).
    Value flagDoneBefore;
    if (oncePerFlag) {
      const unsigned last = valueDims.size() - 1;
      SmallVector<Value> before(at);
      before[last] = arith::SubIOp::create(b_, loc_, at[last], index(1));
      SmallVector<Value> conditions{arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sgt,
                                                          indexOf(layout, valueDims, run.first, /*inTile=*/true)[last],
                                                          index(0))};
      for (auto [now, earlier] : llvm::zip_equal(indices, mappedIndices(before, run.first)))
        conditions.push_back(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, now, earlier));
      flagDoneBefore = andAll(conditions);
    }
    // Masked where a value dim may end inside the tile, and where a masking mapping's
    // memory index may leave the tensor (any other mapping stays inside it, as checked
    // before compiling where the sizes allow).
    const bool branchFree = buffered && wholeOrPast(run);
    bool checkedByBuffer = false;
    SmallVector<Value> outer;
    if (!maskedDims.empty()) outer.push_back(insideMemory(at, run.first));
    for (auto [k, d] : llvm::enumerate(valueDims)) {
      if ((static_cast<int>(k) == inner && run.length > 1 && !branchFree) || !mayOverrun(d)) continue;
      if (branchFree && !mapping && bufferChecksEnd(memref, d, memoryDims))
        checkedByBuffer = true;
      else if (Value inside = beforeEnd(layout, run.first, k, d, at[k]))
        outer.push_back(inside);
    }
    // Another register or thread moves this element (or its flag): a write skips it, a
    // wait reads the flag once after the workgroup's barrier.
    Value elsewhere = flagDoneBefore;
    if (repeats && addsHere[run.first]) {
      if (!isRead && matchPattern(addsHere[run.first], m_Zero())) continue;  // another register combines it
      Value notHere = negate(addsHere[run.first]);
      elsewhere = elsewhere ? arith::OrIOp::create(b_, loc_, elsewhere, notHere).getResult() : notHere;
    }
    if (elsewhere) {
      if (isRead && !op->getResult(0).use_empty()) {
        SmallVector<Value> late(outer);
        late.push_back(elsewhere);
        lateFlags.push_back({run.first, indices, andAll(late)});
      }
      outer.push_back(negate(elsewhere));
    }
    Value rowIn = outer.empty() ? Value() : andAll(outer);
    auto vec = VectorType::get({run.length}, element);
    // Through the buffer where something is masked (a plain access addresses with fewer
    // instructions: 64-bit pointers take immediate offsets).
    if (branchFree && (checkedByBuffer || !outer.empty())) {
      if (isRead)
        result = withRun(run, bufferLoad(run.length == 1 ? element : Type(vec), memref, indices, rowIn));
      else
        bufferStore(sourceRun(run), memref, indices, rowIn);
      continue;
    }
    if (run.length == 1) {
      // One element, guarded when its position may be outside the tensor.
      if (isRead) {
        Value v;
        auto load = [&]() -> Value {
          if (waitAtLeast) return waitForFlag(memref, indices, *least, take);
          return memref::LoadOp::create(b_, loc_, memref, indices);
        };
        if (!rowIn) {
          v = load();
        } else {
          auto branch = scf::IfOp::create(b_, loc_, TypeRange{element}, rowIn, /*withElse=*/true);
          OpBuilder::InsertionGuard guard(b_);
          b_.setInsertionPointToStart(branch.thenBlock());
          scf::YieldOp::create(b_, loc_, ValueRange{load()});
          b_.setInsertionPointToStart(branch.elseBlock());
          scf::YieldOp::create(b_, loc_,
                               ValueRange{arith::ConstantOp::create(b_, loc_, element, b_.getZeroAttr(element))
                                              .getResult()});
          b_.setInsertionPointAfter(branch);
          v = branch.getResult(0);
        }
        result = withRun(run, v);
      } else {
        Value v = sourceRun(run);
        auto store = [&] {
          if (release)
            storeRelease(v, memref, indices);
          else if (combines)
            combineIntoMemory(*combine, v, memref, indices);
          else
            memref::StoreOp::create(b_, loc_, v, memref, indices);
        };
        if (!rowIn)
          store();
        else
          ifThen(rowIn, store);
      }
      continue;
    }
    // A run of several: whole and aligned, one vector access; at the edge a masked one.
    SmallVector<Value> conditions;
    if (rowIn) conditions.push_back(rowIn);
    Value count;
    // The run walks value dim `inner`; where it may end inside the tile, fewer are read.
    if (mayOverrun(valueDims[inner])) {
      Value left = arith::SubIOp::create(b_, loc_, endOf(valueDims[inner]), at[inner]);
      Value clamped = arith::MaxSIOp::create(b_, loc_, left, index(0));
      count = arith::MinSIOp::create(b_, loc_, clamped, index(run.length));
      conditions.push_back(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, count, index(run.length)));
    }
    if (checksRows(run.length)) {
      Value rem = arith::RemUIOp::create(b_, loc_, sizes_.lookup(innerDim), index(run.length));
      conditions.push_back(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, rem, index(0)));
    }
    const llvm::Align alignment(bytes * run.length);
    auto wholeRead = [&]() -> Value {
      return vector::LoadOp::create(b_, loc_, vec, memref, indices, /*nontemporal=*/false, alignment);
    };
    Value piece = isRead ? Value() : sourceRun(run);
    auto wholeWrite = [&] {
      if (combines)
        combineIntoMemory(*combine, piece, memref, indices);
      else
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
        } else if (combines) {
          Value n = count ? count : index(run.length);
          if (rowIn) n = arith::SelectOp::create(b_, loc_, rowIn, n, index(0));
          combineIntoMemory(*combine, piece, memref, indices, n);
        } else {
          vector::MaskedStoreOp::create(b_, loc_, memref, indices, maskFor(), piece);
        }
      }
      if (isRead) loaded = branch.getResult(0);
    }
    if (isRead) result = withRun(run, loaded);
  }
  if (waitAtLeast) {
    afterWait();
    for (const LateFlag& flag : lateFlags)
      result = vector::InsertOp::create(
          b_, loc_,
          readFlagIf(flag.when, memref, flag.indices,
                     vector::ExtractOp::create(b_, loc_, result, ArrayRef<int64_t>{flag.reg})),
          result, ArrayRef<int64_t>{flag.reg});
  }
  if (isRead) values_[op->getResult(0)] = result;
  return success();
}

FailureOr<SmallVector<Value>> Distributor::addersOf(Operation* op, LayoutAttr layout) {
  FailureOr<SmallVector<FirstHolders>> holders = firstHolders(layout);
  if (failed(holders))
    return op->emitOpError("is not yet supported for a value whose layout repeats elements irregularly across "
                           "threads (each element must be added once): ")
           << layout;
  const int64_t layoutThreads = layout.getNumLanes() * layout.getNumWaves();
  Value tid;
  SmallVector<Value> adders;
  for (const FirstHolders& first : *holders) {
    if (first.none) {
      adders.push_back(arith::ConstantIntOp::create(b_, loc_, 0, 1));
      continue;
    }
    if (!first.mask && grid_.threads() <= layoutThreads) {
      adders.push_back(Value());
      continue;
    }
    if (!tid)
      tid = arith::AddIOp::create(b_, loc_, arith::MulIOp::create(b_, loc_, wave_, index(grid_.waves.lanes)), lane_);
    SmallVector<Value> conditions;
    if (first.mask) {
      Value bits = arith::AndIOp::create(b_, loc_, tid, index(first.mask));
      conditions.push_back(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, bits, index(first.value)));
    }
    if (grid_.threads() > layoutThreads) conditions.push_back(lessThan(tid, index(layoutThreads)));
    adders.push_back(andAll(conditions));
  }
  return adders;
}

namespace {

// PTX's name for a `red` of `combine` on `element` (".add.f32", ".min.s32", ...); empty
// where PTX has none (float min/max: compare-and-swap loops).
std::string redOperation(dialect::WriteCombine combine, Type element) {
  if (combine == dialect::WriteCombine::add) {
    if (element.isF32()) return ".add.f32";
    if (element.isF64()) return ".add.f64";
    if (element.isF16()) return ".add.noftz.f16";
    if (element.isBF16()) return ".add.noftz.bf16";
    if (element.isInteger(32)) return ".add.u32";
    if (element.isInteger(64)) return ".add.u64";
    return "";
  }
  const std::string op = combine == dialect::WriteCombine::min ? ".min" : ".max";
  if (element.isInteger(32)) return op + ".s32";
  if (element.isInteger(64)) return op + ".s64";
  return "";
}

// The inline-asm register constraint of an operand of `element`.
StringRef registerConstraint(Type element) {
  if (element.isF32()) return "f";
  if (element.isF64()) return "d";
  if (element.getIntOrFloatBitWidth() == 16) return "h";
  return element.getIntOrFloatBitWidth() == 64 ? "l" : "r";
}

}  // namespace

Value Distributor::globalAddress(Value memref, ArrayRef<Value> indices) {
  // The memref's aligned pointer plus its offset and strides, in elements of its type.
  auto meta = memref::ExtractStridedMetadataOp::create(b_, loc_, memref);
  Value linear = meta.getOffset();
  for (auto [i, stride] : llvm::zip(indices, meta.getStrides()))
    linear = arith::AddIOp::create(b_, loc_, linear, arith::MulIOp::create(b_, loc_, i, stride));
  const int64_t bytes = getElementTypeOrSelf(memref).getIntOrFloatBitWidth() / 8;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b_, loc_, memref);
  Value address = arith::AddIOp::create(b_, loc_, base, arith::MulIOp::create(b_, loc_, linear, index(bytes)));
  return arith::IndexCastUIOp::create(b_, loc_, b_.getI64Type(), address);
}

bool Distributor::addsAsOneVector(Type type) const {
  auto vec = dyn_cast<VectorType>(type);
  if (!vectorAtomics_ || !vec) return false;
  Type element = vec.getElementType();
  const int64_t length = vec.getNumElements();
  if (element.isF32()) return length == 2 || length == 4;
  return (element.isF16() || element.isBF16()) && length <= 8 && length % 2 == 0;
}

void Distributor::addVectorAt(Value address, Value values, bool systemScope) {
  auto vec = cast<VectorType>(values.getType());
  Type element = vec.getElementType();
  const bool halves = element.isF16() || element.isBF16();
  // f16 and bf16 travel as words of two.
  const int64_t words = halves ? vec.getNumElements() / 2 : vec.getNumElements();
  Value lanes = halves ? vector::BitCastOp::create(b_, loc_, VectorType::get({words}, b_.getI32Type()), values)
                       : values;
  SmallVector<Value> operands{address};
  std::string list, constraints = "l";
  for (int64_t w = 0; w < words; ++w) {
    operands.push_back(vector::ExtractOp::create(b_, loc_, lanes, w));
    list += (w ? ", $" : "$") + std::to_string(w + 1);
    constraints += halves ? ",r" : ",f";
  }
  const std::string shape = words > 1 ? ".v" + std::to_string(words) : "";
  const std::string type = halves ? (element.isF16() ? ".noftz" + shape + ".f16x2" : ".noftz" + shape + ".bf16x2")
                                  : shape + ".f32";
  const std::string red = systemScope ? "red.relaxed.sys.global" : "red.global";
  inlineAsm(b_, loc_, Type(), operands, red + ".add" + type + " [$0], " + (words > 1 ? "{" + list + "}" : list) + ";",
            constraints);
}

void Distributor::combineIntoMemory(dialect::WriteCombine combine, Value values, Value memref,
                                    ArrayRef<Value> indices, Value count) {
  auto vec = dyn_cast<VectorType>(values.getType());
  Type element = getElementTypeOrSelf(values);
  const bool isFloat = isa<FloatType>(element);
  arith::AtomicRMWKind kind = isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
  if (combine == dialect::WriteCombine::min) kind = isFloat ? arith::AtomicRMWKind::minimumf : arith::AtomicRMWKind::mins;
  if (combine == dialect::WriteCombine::max) kind = isFloat ? arith::AtomicRMWKind::maximumf : arith::AtomicRMWKind::maxs;
  const int64_t length = vec ? vec.getNumElements() : 1;
  const bool halves = element.isF16() || element.isBF16();
  if (combine == dialect::WriteCombine::add && !count && addsAsOneVector(values.getType())) {
    // System scope where asked: a symmetric buffer's slot may be another GPU's memory, and
    // the other GPUs' kernels may add to the same elements.
    addVectorAt(globalAddress(memref, indices), values, systemAtomics_);
    return;
  }
  // Element by element (those before `count`); at system scope through PTX's red.
  const std::string scalarRed = systemAtomics_ ? redOperation(combine, element) : "";
  for (int64_t e = 0; e < length; ++e) {
    Value v = vec ? vector::ExtractOp::create(b_, loc_, values, e).getResult() : values;
    SmallVector<Value> at(indices.begin(), indices.end());
    at.back() = add(at.back(), e);
    auto one = [&] {
      if (scalarRed.empty()) {
        memref::AtomicRMWOp::create(b_, loc_, kind, v, memref, at);
        return;
      }
      // 16-bit floats travel in 16-bit integer registers.
      Value operand = halves ? arith::BitcastOp::create(b_, loc_, b_.getI16Type(), v).getResult() : v;
      inlineAsm(b_, loc_, Type(), {globalAddress(memref, at), operand}, "red.relaxed.sys.global" + scalarRed + " [$0], $1;",
                ("l," + registerConstraint(element)).str());
    };
    if (count)
      ifThen(lessThan(index(e), count), one);
    else
      one();
  }
}

Value Distributor::beforeEnd(LayoutAttr layout, int64_t reg, unsigned k, StringRef dim, Value at) {
  auto offset = offsetRanges_.find(dim);
  std::optional<int64_t> size = staticSize(kernel_, dim);
  if (offset != offsetRanges_.end() && size) {
    AffineExpr position = positionOfRegister(layout, reg)[k];
    if (auto range = rangeWithinBounds(position, threadExtents())) {
      // (Before the size is not before an end set at run time.)
      if (offset->second.second + range->second < *size && !ends_.count(dim)) return Value();
      if (offset->second.first + range->first >= *size) return arith::ConstantIntOp::create(b_, loc_, 0, 1);
    }
  }
  return lessThan(at, endOf(dim));
}

// A buffer of its own in the workgroup's dynamic shared memory, after the ones before it:
// one account of the shared memory a kernel uses (the stage count of wave-pipeline-
// shared-copies reads it), and no 48 KiB limit of static shared memory.
Value Distributor::sharedBuffer(ArrayRef<int64_t> shape, Type element, int64_t alignment) {
  auto workgroup = gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup);
  if (!sharedMemory_) {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(&func_.getBody().front());
    sharedMemory_ = gpu::DynamicSharedMemoryOp::create(
        b_, loc_, MemRefType::get({ShapedType::kDynamic}, b_.getI8Type(), AffineMap(), workgroup));
  }
  auto type = MemRefType::get(shape, element, AffineMap(), workgroup);
  // Each buffer starts at least 128-byte aligned: vector accesses and ldmatrix rows stay
  // aligned (swizzled tiles: at their swizzle's period, 1024 bytes).
  const int64_t offset = llvm::alignTo(sharedBytes_, alignment);
  sharedBytes_ = offset + type.getNumElements() * std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  return memref::ViewOp::create(b_, loc_, type, sharedMemory_, index(offset), ValueRange{});
}

// `sum` (over `iterators`) as one affine.apply per set of iterators its terms use, added
// up: the part of an address that only a loop-invariant iterator moves stays apart from
// the loop's, and is computed once before the loop. A part with a division or a mod that
// fits 32 bits over the iterators' `extents` is computed in i32 (NarrowIndexExpr.h), then
// widened: there it sheds 64-bit sign fix-ups.
Value Distributor::applyByIterators(AffineExpr sum, ValueRange iterators, ArrayRef<int64_t> extents) {
  std::map<SmallVector<unsigned>, AffineExpr> groups;  // by the iterators a term uses
  for (AffineExpr t : additiveTerms(sum)) {
    llvm::SmallBitVector used = iteratorsOf(t);
    auto [it, fresh] = groups.try_emplace(SmallVector<unsigned>(used.set_bits_begin(), used.set_bits_end()), t);
    if (!fresh) it->second = it->second + t;
  }
  Value total;
  for (auto& [used, terms] : groups) {
    Value part = !extents.empty() && dividesOrWraps(terms) && fitsNarrow(terms, extents)
                     ? arith::IndexCastOp::create(b_, loc_, b_.getIndexType(),
                                                  buildNarrowExpr(b_, loc_, terms, iterators, extents))
                           .getResult()
                     : apply(terms, iterators);
    total = total ? arith::AddIOp::create(b_, loc_, total, part).getResult() : part;
  }
  return total;
}

Value Distributor::swizzledOffset(Value row, Value col, int64_t rows, int64_t swizzle, Type element) {
  const int64_t bytes = element.getIntOrFloatBitWidth() / 8, block = swizzle / bytes;
  MLIRContext* ctx = b_.getContext();
  AffineExpr r = getAffineDimExpr(0, ctx), c = getAffineDimExpr(1, ctx);
  // [column blocks][rows][block], then the 16-byte chunk bits XOR the row-in-8 bits (the
  // byte offset's bits 7 and up, as many as the swizzle has chunks per row, into bits 4 and up).
  Value linear = apply(c.floorDiv(block) * (rows * block) + r * block + c % block, {row, col});
  const int64_t chunkShift = llvm::Log2_64(16 / bytes), rowShift = llvm::Log2_64(128 / bytes);
  Value rowBits = arith::AndIOp::create(b_, loc_, arith::ShRUIOp::create(b_, loc_, linear, index(rowShift)),
                                        index(swizzle / 16 - 1));
  return arith::XOrIOp::create(b_, loc_, linear, arith::ShLIOp::create(b_, loc_, rowBits, index(chunkShift)));
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
  // A swizzled tile is addressed as one flat array (swizzledOffset).
  if (op.getSwizzle()) shape = {ShapedType::getNumElements(shape)};
  memrefs_.map(op.getResult(), sharedBuffer(shape, type.getElementType(), op.getSwizzle() ? 1024 : 128));
  sharedTiles_.insert(op.getResult());
  return success();
}

}  // namespace wave::jit::distribution
