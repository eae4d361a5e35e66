//===- DistributeShuffle.cpp - wave.shuffle per thread ---------------------===//
//
// Element k along the dim takes element k xor mask. Where the layout keeps each pair in
// one wave, every register of the result is one register of the input, from this thread
// or from the lane whose index differs by a fixed xor (a shfl.bfly); otherwise the value
// goes through shared memory. Aligned groups of the power of two above the mask hold the
// pairs, so a tile that is a multiple of the group keeps them in the workgroup.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/DistributedLayout.h"
#include "analysis/SizeFacts.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

namespace wave::jit::distribution {

namespace {

// Where each register of the result comes from: the input's register, in the lane whose
// index is this thread's xor `laneXor`.
struct PairSource {
  int64_t reg = -1;
  int64_t laneXor = 0;
};

// Per register of `layout`, the register and lane xor holding its partner (the position
// with `dim`'s coordinate xor `mask`) in every thread; none where a partner lies in
// another wave or no single lane xor reaches it.
std::optional<SmallVector<PairSource>> sourcesWithinWaves(LayoutAttr layout, int k, int64_t mask) {
  const LayoutPoints points(layout);
  const int64_t registers = layout.getNumRegisters(), lanes = layout.getNumLanes(), waves = layout.getNumWaves();
  const size_t rank = points.at(0, 0, 0).size();
  auto partner = [&](int64_t r, int64_t l, int64_t w) {
    SmallVector<int64_t> p = points.at(r, l, w);
    p[k] ^= mask;
    return p;
  };
  auto holdsEverywhere = [&](int64_t r, int64_t s, int64_t laneXor) {
    for (int64_t w = 0; w < waves; ++w)
      for (int64_t l = 0; l < lanes; ++l) {
        if ((l ^ laneXor) >= lanes) return false;
        SmallVector<int64_t> want = partner(r, l, w);
        if (!std::equal(want.begin(), want.end(), points.data(s, l ^ laneXor, w))) return false;
      }
    return true;
  };
  SmallVector<PairSource> sources(registers);
  for (int64_t r = 0; r < registers; ++r) {
    SmallVector<int64_t> want = partner(r, 0, 0);
    for (int64_t s = 0; s < registers && sources[r].reg < 0; ++s)
      for (int64_t l = 0; l < lanes && sources[r].reg < 0; ++l)
        if (std::equal(want.begin(), want.begin() + rank, points.data(s, l, 0)) && holdsEverywhere(r, s, l))
          sources[r] = {s, l};
    if (sources[r].reg < 0) return std::nullopt;
  }
  return sources;
}

// Whether the positions `layout` holds include each one's partner.
bool holdsEveryPartner(LayoutAttr layout, int k, int64_t mask) {
  const LayoutPoints points(layout);
  SmallVector<int64_t> extent = points.extent();
  const int64_t rank = extent.size();
  auto key = [&](const int64_t* p, bool flip) {
    int64_t v = 0;
    for (int64_t d = 0; d < rank; ++d) v = v * extent[d] + (flip && d == k ? p[d] ^ mask : p[d]);
    return v;
  };
  llvm::DenseSet<int64_t> held;
  for (int64_t w = 0; w < layout.getNumWaves(); ++w)
    for (int64_t l = 0; l < layout.getNumLanes(); ++l)
      for (int64_t r = 0; r < layout.getNumRegisters(); ++r) held.insert(key(points.data(r, l, w), false));
  for (int64_t w = 0; w < layout.getNumWaves(); ++w)
    for (int64_t l = 0; l < layout.getNumLanes(); ++l)
      for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
        const int64_t* p = points.data(r, l, w);
        if (p[k] >= extent[k] || (p[k] ^ mask) >= extent[k] || !held.contains(key(p, true))) return false;
      }
  return true;
}

}  // namespace

Value Distributor::fromLane(Value element, int64_t laneXor, int64_t lanes) {
  Type type = element.getType();
  const unsigned bits = type.getIntOrFloatBitWidth();
  auto i32 = b_.getI32Type();
  auto shuffle = [&](Value word) {
    return gpu::ShuffleOp::create(b_, loc_, word, static_cast<int32_t>(laneXor), static_cast<int32_t>(lanes),
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  Type bitsType = b_.getIntegerType(bits);
  Value word = isa<FloatType>(type) ? arith::BitcastOp::create(b_, loc_, bitsType, element).getResult() : element;
  Value moved;
  if (bits == 64) {
    auto i64 = b_.getI64Type();
    Value low = arith::TruncIOp::create(b_, loc_, i32, word);
    Value high = arith::TruncIOp::create(b_, loc_, i32,
                                         arith::ShRUIOp::create(b_, loc_, word, arith::ConstantIntOp::create(b_, loc_, i64, 32)));
    Value lowMoved = arith::ExtUIOp::create(b_, loc_, i64, shuffle(low));
    Value highMoved = arith::ExtUIOp::create(b_, loc_, i64, shuffle(high));
    moved = arith::OrIOp::create(
        b_, loc_, lowMoved, arith::ShLIOp::create(b_, loc_, highMoved, arith::ConstantIntOp::create(b_, loc_, i64, 32)));
  } else if (bits == 32) {
    moved = shuffle(word);
  } else {
    moved = arith::TruncIOp::create(b_, loc_, bitsType, shuffle(arith::ExtUIOp::create(b_, loc_, i32, word)));
  }
  return isa<FloatType>(type) ? arith::BitcastOp::create(b_, loc_, type, moved).getResult() : moved;
}

LogicalResult Distributor::lowerShuffle(dialect::ShuffleOp op) {
  StringRef dim = op.getDim();
  const int64_t mask = op.getMask();
  const int64_t group = static_cast<int64_t>(llvm::NextPowerOf2(static_cast<uint64_t>(mask)));
  const int64_t tile = grid_.tiling(dim).blockTile;
  if (tile % group != 0)
    return op.emitOpError("expected a tile of ")
           << dim << " that is a multiple of " << group << " (the pairs of xor " << mask
           << " form in aligned groups of " << group << "), but a workgroup's tile of " << dim << " is " << tile;
  LayoutAttr layout = layoutOf(op.getInput());
  const int k = dimIndex(dimsOf(op.getInput()), dim);
  if (layoutExtent(layout)[k] % group != 0 || !holdsEveryPartner(layout, k, mask))
    return op.emitOpError("is not yet supported: a layout whose threads hold some element of ")
           << dim << " without its partner xor " << mask << " (" << layout << ")";
  Value in = lookup(op.getInput());
  Type element = elementOf(op.getInput());
  const int64_t registers = layout.getNumRegisters();
  SmallVector<Value> moved(registers);
  if (std::optional<SmallVector<PairSource>> sources = sourcesWithinWaves(layout, k, mask)) {
    // Registers that come from the same other lane travel together, as many to a 32-bit
    // word as fit (two f16s, four i8s).
    const unsigned bits = element.getIntOrFloatBitWidth();
    const int64_t perWord = bits < 32 && 32 % bits == 0 ? 32 / bits : 1;
    auto bitsType = b_.getIntegerType(bits), i32 = b_.getI32Type();
    auto asBits = [&](Value v) {
      return isa<FloatType>(element) ? arith::BitcastOp::create(b_, loc_, bitsType, v).getResult() : v;
    };
    auto fromBits = [&](Value v) {
      return isa<FloatType>(element) ? arith::BitcastOp::create(b_, loc_, element, v).getResult() : v;
    };
    llvm::MapVector<int64_t, SmallVector<int64_t>> byLane;
    for (int64_t r = 0; r < registers; ++r) {
      const PairSource& from = (*sources)[r];
      Value v = vector::ExtractOp::create(b_, loc_, in, ArrayRef<int64_t>{from.reg});
      if (from.laneXor == 0 || perWord == 1) {
        moved[r] = from.laneXor ? fromLane(v, from.laneXor, layout.getNumLanes()) : v;
        continue;
      }
      moved[r] = v;
      byLane[from.laneXor].push_back(r);
    }
    for (auto& [laneXor, regs] : byLane)
      for (size_t first = 0; first < regs.size(); first += perWord) {
        const size_t count = std::min<size_t>(perWord, regs.size() - first);
        Value word = arith::ConstantIntOp::create(b_, loc_, i32, 0);
        for (size_t i = 0; i < count; ++i) {
          Value part = arith::ExtUIOp::create(b_, loc_, i32, asBits(moved[regs[first + i]]));
          if (i) part = arith::ShLIOp::create(b_, loc_, part, arith::ConstantIntOp::create(b_, loc_, i32, i * bits));
          word = arith::OrIOp::create(b_, loc_, word, part);
        }
        Value received = fromLane(word, laneXor, layout.getNumLanes());
        for (size_t i = 0; i < count; ++i) {
          Value part = i ? arith::ShRUIOp::create(b_, loc_, received, arith::ConstantIntOp::create(b_, loc_, i32, i * bits))
                               .getResult()
                         : received;
          moved[regs[first + i]] = fromBits(arith::TruncIOp::create(b_, loc_, bitsType, part));
        }
      }
    if (partials_.contains(op.getInput())) partials_.insert(op.getResult());
  } else {
    if (partials_.contains(op.getInput()))
      return op.emitOpError("is not yet supported: exchanging a wave's own partials between waves");
    // Every thread stores its elements at their tile positions, then loads its partners
    // (wave-insert-barriers puts a barrier between).
    SmallVector<int64_t> shape = layoutExtent(layout);
    // Rows one element longer spread a column's elements over the banks.
    if (shape.size() > 1) shape.back() += 1;
    Value buffer = sharedBuffer(shape, element);
    for (int64_t r = 0; r < registers; ++r)
      memref::StoreOp::create(b_, loc_, vector::ExtractOp::create(b_, loc_, in, ArrayRef<int64_t>{r}), buffer,
                              positionInTile(layout, r));
    for (int64_t r = 0; r < registers; ++r) {
      SmallVector<Value> at = positionInTile(layout, r);
      at[k] = arith::XOrIOp::create(b_, loc_, at[k], index(mask));
      moved[r] = memref::LoadOp::create(b_, loc_, buffer, at);
    }
  }
  // A partner at or past the dim's end is 0 (the tile is aligned to the group, so the
  // partner's index is the element's xor the mask).
  if (mayOverrun(dim)) {
    Value offset = offsets_.lookup(dim);
    if (!offset) offset = index(0);
    Value zero = arith::ConstantOp::create(b_, loc_, element, b_.getZeroAttr(element));
    for (int64_t r = 0; r < registers; ++r) {
      Value at = arith::AddIOp::create(b_, loc_, offset, threadIndex(positionOfRegister(layout, r)[k]));
      Value partner = arith::XOrIOp::create(b_, loc_, at, index(mask));
      moved[r] = arith::SelectOp::create(b_, loc_, lessThan(partner, endOf(dim)), moved[r], zero);
    }
  }
  VectorType outType = registersOf(op.getResult());
  Value out = arith::ConstantOp::create(b_, loc_, outType, b_.getZeroAttr(outType));
  for (int64_t r = 0; r < registers; ++r) out = vector::InsertOp::create(b_, loc_, moved[r], out, ArrayRef<int64_t>{r});
  values_[op.getResult()] = out;
  return success();
}

}  // namespace wave::jit::distribution
