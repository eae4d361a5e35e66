//===- DistributeGather.cpp - wave.extract_slice and wave.reshape per thread -===//
//
// Each element of the result is one element of the input, at a position computed from
// its own: a window along a dim (extract_slice) or the same row-major place under
// regrouped dims (reshape). The input's workgroup tile goes to shared memory, each thread
// storing what it holds; after a barrier (wave-insert-barriers places it) each thread
// loads the elements its result registers take. The dims a position is computed along
// must lie whole in the workgroup's tile; the other dims keep their places in it. A
// reshape whose sources every thread holds itself is a permutation of its registers.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/DistributedLayout.h"
#include "analysis/SizeFacts.h"
#include "lowering/KernelSignature.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace wave::jit::distribution {

namespace {

// Per register of `out`, the register of `in` holding, in every thread, the element
// `sourceOf` gives for it (tile positions of the result to those of the input); none
// where some thread lacks it or holds it in another register (the gather then crosses
// threads).
std::optional<SmallVector<int64_t>> registerSources(LayoutAttr in, LayoutAttr out,
                                                    function_ref<SmallVector<int64_t>(ArrayRef<int64_t>)> sourceOf) {
  if (in.getNumLanes() != out.getNumLanes() || in.getNumWaves() != out.getNumWaves()) return std::nullopt;
  const LayoutPoints from(in), to(out);
  const size_t rank = layoutExtent(in).size();
  SmallVector<int64_t> sources(out.getNumRegisters(), -1);
  for (int64_t w = 0; w < in.getNumWaves(); ++w)
    for (int64_t l = 0; l < in.getNumLanes(); ++l) {
      std::map<SmallVector<int64_t>, int64_t> held;
      for (int64_t r = in.getNumRegisters(); r-- > 0;) {
        const int64_t* p = from.data(r, l, w);
        held[SmallVector<int64_t>(p, p + rank)] = r;  // the first register holding it wins
      }
      for (int64_t r = 0; r < out.getNumRegisters(); ++r) {
        auto it = held.find(sourceOf(to.at(r, l, w)));
        if (it == held.end() || (sources[r] >= 0 && sources[r] != it->second)) return std::nullopt;
        sources[r] = it->second;
      }
    }
  return sources;
}

}  // namespace

LogicalResult Distributor::checkGatheredWhole(Operation* op, StringRef dim) {
  if (grid_.tiling(dim).loop)
    return op->emitOpError("expected ")
           << dim << ", whose positions it computes, held whole by each workgroup, but an iterate walks it "
           << grid_.tiling(dim).blockTile << " at a time";
  if (failed(checkOneWorkgroupCovers(op, dim, "takes elements along"))) return failure();
  LayoutAttr in = layoutOf(op->getOperand(0));
  const int k = dimIndex(dimsOf(op->getOperand(0)), dim);
  if (layoutExtent(in)[k] < grid_.tiling(dim).blockTile)
    return op->emitOpError("is not yet supported: an input layout holding ")
           << layoutExtent(in)[k] << " positions of " << dim << " of a tile of " << grid_.tiling(dim).blockTile
           << " (" << in << ")";
  return success();
}

LogicalResult Distributor::gatherInTile(Operation* op, function_ref<GatherSource(int64_t reg)> sourceOf) {
  Value input = op->getOperand(0), result = op->getResult(0);
  if (partials_.contains(input))
    return op->emitOpError("is not yet supported: moving a wave's own partials between waves");
  LayoutAttr in = layoutOf(input), out = layoutOf(result);
  Type element = elementOf(input);
  SmallVector<int64_t> extent = layoutExtent(in), shape = extent;
  // Rows one element longer spread a column's elements over the banks.
  if (shape.size() > 1) shape.back() += 1;
  Value buffer = sharedBuffer(shape, element);
  Value held = lookup(input);
  for (int64_t r = 0; r < in.getNumRegisters(); ++r)
    memref::StoreOp::create(b_, loc_, vector::ExtractOp::create(b_, loc_, held, ArrayRef<int64_t>{r}), buffer,
                            positionInTile(in, r));
  Value zero = arith::ConstantOp::create(b_, loc_, element, b_.getZeroAttr(element));
  VectorType outType = registersOf(result);
  Value gathered = arith::ConstantOp::create(b_, loc_, outType, b_.getZeroAttr(outType));
  for (int64_t r = 0; r < out.getNumRegisters(); ++r) {
    GatherSource source = sourceOf(r);
    // Positions outside the stored tile (a negative one compares as a large unsigned
    // number) take 0, loading the tile's first element instead.
    Value valid = source.valid;
    for (auto [d, at] : llvm::enumerate(source.at)) {
      Value inside = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ult, at, index(extent[d]));
      valid = valid ? arith::AndIOp::create(b_, loc_, valid, inside).getResult() : inside;
    }
    SmallVector<Value> at;
    for (Value p : source.at) at.push_back(valid ? arith::SelectOp::create(b_, loc_, valid, p, index(0)) : p);
    Value v = memref::LoadOp::create(b_, loc_, buffer, at);
    if (valid) v = arith::SelectOp::create(b_, loc_, valid, v, zero);
    gathered = vector::InsertOp::create(b_, loc_, v, gathered, ArrayRef<int64_t>{r});
  }
  values_[result] = gathered;
  return success();
}

LogicalResult Distributor::lowerExtractSlice(dialect::ExtractSliceOp op) {
  StringRef dim = op.getDim();
  if (failed(checkGatheredWhole(op, dim))) return failure();
  LayoutAttr out = layoutOf(op.getResult());
  SmallVector<StringRef> outDims = dimsOf(op.getResult());
  const int k = dimIndex(dimsOf(op.getInput()), dim);
  Value offsets = lookup(op.getOffset());
  const int64_t step = op.getStep();
  return gatherInTile(op, [&](int64_t r) {
    GatherSource source;
    source.at = positionInTile(out, r);
    // The slice dim's position in the tensor, then the input's along `dim` (one tile, so
    // its place in the tile).
    Value s = indexOf(out, outDims, r)[k];
    Value offset = arith::IndexCastOp::create(b_, loc_, b_.getIndexType(),
                                              vector::ExtractOp::create(b_, loc_, offsets, ArrayRef<int64_t>{r}));
    Value at = arith::AddIOp::create(b_, loc_, offset, arith::MulIOp::create(b_, loc_, s, index(step)));
    source.at[k] = at;
    Value notNegative = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sge, at, index(0));
    Value beforeEnd = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, at, endOf(dim));
    source.valid = arith::AndIOp::create(b_, loc_, notNegative, beforeEnd);
    return source;
  });
}

LogicalResult Distributor::lowerReshape(dialect::ReshapeOp op) {
  SmallVector<StringRef> from = dimsOf(op.getInput()), to = dimsOf(op.getResult());
  size_t lead = 0, tail = 0;
  while (lead < from.size() && lead < to.size() && from[lead] == to[lead]) ++lead;
  while (tail < from.size() - lead && tail < to.size() - lead && from[from.size() - 1 - tail] == to[to.size() - 1 - tail])
    ++tail;
  ArrayRef<StringRef> regrouped = ArrayRef(from).slice(lead, from.size() - lead - tail);
  ArrayRef<StringRef> into = ArrayRef(to).slice(lead, to.size() - lead - tail);
  for (StringRef dim : regrouped)
    if (failed(checkGatheredWhole(op, dim))) return failure();
  // The products of the regrouped sizes, where known.
  auto product = [&](ArrayRef<StringRef> dims) -> std::optional<int64_t> {
    int64_t total = 1;
    for (StringRef d : dims) {
      std::optional<int64_t> size = staticSize(kernel_, d);
      if (!size) return std::nullopt;
      total *= *size;
    }
    return total;
  };
  std::optional<int64_t> before = product(regrouped), after = product(into);
  if (before && after && *before != *after)
    return op.emitOpError("expected the regrouped dims [")
           << llvm::join(into, ", ") << "] to hold as many elements as [" << llvm::join(regrouped, ", ") << "], "
           << *before << ", but they hold " << *after;
  LayoutAttr out = layoutOf(op.getResult());
  // Where every size is known and the result's regrouped dims lie whole in the workgroup
  // too, each element's source is known when the kernel compiles: if every thread holds
  // its result's sources itself (a split of the innermost dim whose runs stay in their
  // threads), the reshape is a permutation of its registers.
  SmallVector<int64_t> fromSizes, toSizes;
  for (StringRef d : regrouped) fromSizes.push_back(staticSize(kernel_, d).value_or(0));
  for (StringRef d : into) toSizes.push_back(staticSize(kernel_, d).value_or(0));
  const bool known = !llvm::is_contained(fromSizes, 0) && !llvm::is_contained(toSizes, 0) &&
                     llvm::all_of(into, [&](StringRef d) {
                       return !grid_.tiling(d).loop && isKnownAtMost(kernel_, d, grid_.tiling(d).blockTile);
                     });
  if (known && !partials_.contains(op.getInput())) {
    auto sourceOf = [&](ArrayRef<int64_t> at) {
      SmallVector<int64_t> source(from.size());
      for (size_t d = 0; d < lead; ++d) source[d] = at[d];
      for (size_t d = 0; d < tail; ++d) source[from.size() - 1 - d] = at[to.size() - 1 - d];
      int64_t linear = 0;
      for (size_t d = 0; d < into.size(); ++d) linear = linear * toSizes[d] + at[lead + d];
      for (size_t d = regrouped.size(); d-- > 0;) {
        source[lead + d] = linear % fromSizes[d];
        linear /= fromSizes[d];
      }
      if (linear != 0) source.assign(from.size(), -1);  // past the regrouped dims: no source
      return source;
    };
    if (std::optional<SmallVector<int64_t>> sources = registerSources(layoutOf(op.getInput()), out, sourceOf)) {
      Value in = lookup(op.getInput());
      values_[op.getResult()] = vector::ShuffleOp::create(b_, loc_, in, in, *sources);
      return success();
    }
  }
  return gatherInTile(op, [&](int64_t r) {
    SmallVector<Value> inTile = positionInTile(out, r), inTensor = indexOf(out, to, r);
    GatherSource source;
    source.at.resize(from.size());
    for (size_t d = 0; d < lead; ++d) source.at[d] = inTile[d];
    for (size_t d = 0; d < tail; ++d) source.at[from.size() - 1 - d] = inTile[to.size() - 1 - d];
    // The element's row-major place over the result's regrouped dims, then its digits
    // over the input's (innermost first); what is left is 0 unless it lies past them.
    Value linear = index(0);
    for (size_t d = 0; d < into.size(); ++d)
      linear = arith::AddIOp::create(b_, loc_, arith::MulIOp::create(b_, loc_, linear, sizes_.lookup(into[d])),
                                     inTensor[lead + d]);
    for (size_t d = regrouped.size(); d-- > 0;) {
      Value size = sizes_.lookup(regrouped[d]);
      source.at[lead + d] = arith::RemUIOp::create(b_, loc_, linear, size);
      linear = arith::DivUIOp::create(b_, loc_, linear, size);
    }
    source.valid = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, linear, index(0));
    return source;
  });
}

}  // namespace wave::jit::distribution
