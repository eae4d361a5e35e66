//===- DistributeLayoutConversion.cpp - wave.convert_layout per thread ---===//
//
// Nothing, a register permutation (a gather of the registers that hold each element),
// shuffles within each wave (analysis/LayoutBases.h: lane steps exchanged with register
// steps), or a round trip through shared memory.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/DistributedLayout.h"
#include "analysis/LayoutBases.h"
#include "analysis/ThreadLayout.h"
#include "lowering/ExprToArith.h"
#include "lowering/KernelSignature.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SmallBitVector.h"

namespace wave::jit::distribution {

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
  if (Value shuffled = shuffleWithinWaves(lookup(op.getInput()), from, to)) {
    values_[op.getResult()] = shuffled;
    return success();
  }
  // Through shared memory: every thread stores its elements at their tile positions, then
  // loads the ones the new layout gives it (wave-insert-barriers puts a barrier between).
  SmallVector<int64_t> extent = layoutExtent(from), other = layoutExtent(to);
  SmallVector<int64_t> shape;
  for (auto [a, c] : llvm::zip(extent, other)) shape.push_back(std::max(a, c));
  // Rows one element longer spread a column's elements over the banks.
  if (shape.size() > 1) shape.back() += 1;
  Value buffer = sharedBuffer(shape, elementOf(op.getInput()));
  Value in = lookup(op.getInput());
  for (int64_t r = 0; r < from.getNumRegisters(); ++r)
    memref::StoreOp::create(b_, loc_, vector::ExtractOp::create(b_, loc_, in, ArrayRef<int64_t>{r}), buffer,
                            positionInTile(from, r));
  VectorType outType = registersOf(op.getResult());
  Value out = arith::ConstantOp::create(b_, loc_, outType, b_.getZeroAttr(outType));
  for (int64_t r = 0; r < to.getNumRegisters(); ++r)
    out = vector::InsertOp::create(b_, loc_, memref::LoadOp::create(b_, loc_, buffer, positionInTile(to, r)), out,
                                   ArrayRef<int64_t>{r});
  values_[op.getResult()] = out;
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

// Each exchange of lane bit i with register bit j swaps, between lanes that differ in
// bit i, the register pair that differs in bit j: the lane with the bit clear sends the
// upper register and keeps the lower, its partner the reverse, one shuffle per pair.
// Registers narrower than 32 bits travel packed where the exchanges leave them together.
Value Distributor::shuffleWithinWaves(Value from, LayoutAttr fromLayout, LayoutAttr toLayout) {
  std::optional<WaveLocalConversion> plan = waveLocalConversion(fromLayout, toLayout);
  auto type = cast<VectorType>(from.getType());
  const unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (!plan || bits > 32) return {};
  const int64_t registers = type.getNumElements();
  unsigned packBits = 0;  // log2 of the registers per word
  auto keepsTogether = [&](unsigned b) {
    return llvm::all_of(plan->exchanges, [&](const LaneExchange& e) { return e.registerBit >= b; });
  };
  while ((bits << (packBits + 1)) <= 32 && (int64_t{2} << packBits) <= registers && keepsTogether(packBits + 1))
    ++packBits;
  const int64_t pack = int64_t{1} << packBits;
  auto packed = VectorType::get({pack}, type.getElementType());
  auto wordType = b_.getIntegerType(bits * pack), i32 = b_.getI32Type();
  SmallVector<Value> words;
  for (int64_t r = 0; r < registers; r += pack) {
    Value piece = vector::ExtractStridedSliceOp::create(b_, loc_, from, ArrayRef<int64_t>{r}, ArrayRef<int64_t>{pack},
                                                        ArrayRef<int64_t>{1});
    Value word = vector::ExtractOp::create(
        b_, loc_, vector::BitCastOp::create(b_, loc_, VectorType::get({1}, wordType), piece), ArrayRef<int64_t>{0});
    if (wordType != i32) word = arith::ExtUIOp::create(b_, loc_, i32, word);
    words.push_back(word);
  }
  for (const LaneExchange& e : plan->exchanges) {
    Value laneBit = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne,
                                          threadIndex(b_.getAffineDimExpr(0).floorDiv(int64_t{1} << e.laneBit) % 2),
                                          index(0));
    const int64_t stride = int64_t{1} << (e.registerBit - packBits);
    for (int64_t w = 0; w < static_cast<int64_t>(words.size()); ++w) {
      if (w & stride) continue;
      Value& lower = words[w];
      Value& upper = words[w | stride];
      Value send = arith::SelectOp::create(b_, loc_, laneBit, lower, upper);
      Value received = gpu::ShuffleOp::create(b_, loc_, send, static_cast<int32_t>(int64_t{1} << e.laneBit),
                                              static_cast<int32_t>(toLayout.getNumLanes()), gpu::ShuffleMode::XOR)
                           .getShuffleResult();
      Value newLower = arith::SelectOp::create(b_, loc_, laneBit, received, lower);
      upper = arith::SelectOp::create(b_, loc_, laneBit, upper, received);
      lower = newLower;
    }
  }
  Value out = arith::ConstantOp::create(b_, loc_, type, b_.getZeroAttr(type));
  for (auto [w, word] : llvm::enumerate(words)) {
    if (wordType != i32) word = arith::TruncIOp::create(b_, loc_, wordType, word);
    Value piece = vector::BitCastOp::create(
        b_, loc_, packed, vector::BroadcastOp::create(b_, loc_, VectorType::get({1}, wordType), word));
    out = vector::InsertStridedSliceOp::create(b_, loc_, piece, out, ArrayRef<int64_t>{static_cast<int64_t>(w) * pack},
                                               ArrayRef<int64_t>{1});
  }
  if (llvm::equal(plan->gather, llvm::seq<int64_t>(0, registers))) return out;
  return vector::ShuffleOp::create(b_, loc_, out, out, plan->gather);
}

}  // namespace wave::jit::distribution
