//===- LayoutBases.cpp - a layout as one step per index bit ---------------===//

#include "analysis/LayoutBases.h"

#include "llvm/ADT/bit.h"

namespace wave::jit {

using namespace mlir;

namespace {

using Step = LayoutBases::Step;

bool isZero(const Step& s) {
  return llvm::all_of(s, [](int64_t x) { return x == 0; });
}

// log2 of `n` where it is a power of two; none otherwise.
std::optional<unsigned> bitsOf(int64_t n) {
  if (n <= 0 || !llvm::has_single_bit(static_cast<uint64_t>(n))) return std::nullopt;
  return llvm::countr_zero(static_cast<uint64_t>(n));
}

// `bases`'s steps, each nonzero and none repeated: each element held once.
bool holdsOnce(const LayoutBases& bases) {
  SmallVector<Step> all;
  for (const auto* group : {&bases.registers, &bases.lanes, &bases.waves}) llvm::append_range(all, *group);
  llvm::sort(all);
  return llvm::none_of(all, isZero) && std::adjacent_find(all.begin(), all.end()) == all.end();
}

// Where each bit of a flat index over axes of power-of-two extents lives: its axis (an
// input of the map) and its place in it.
struct IndexBit {
  unsigned input, bit, axisBits;
};
SmallVector<IndexBit> indexBits(ArrayRef<int64_t> axes, unsigned firstInput) {
  SmallVector<IndexBit> bits;
  for (size_t a = axes.size(); a-- > 0;) {
    const unsigned n = llvm::countr_zero(static_cast<uint64_t>(axes[a]));
    for (unsigned b = 0; b < n; ++b) bits.push_back({firstInput + static_cast<unsigned>(a), b, n});
  }
  return bits;
}

// The sum over `bits` of their steps along `dim`: bits of one axis that double the step
// fold into one digit of it (`(d floordiv 2^b) mod 2^n`, without what the range makes moot).
AffineExpr stepsAlong(ArrayRef<IndexBit> bits, ArrayRef<Step> steps, unsigned dim, MLIRContext* ctx) {
  AffineExpr sum = getAffineConstantExpr(0, ctx);
  for (size_t k = 0; k < steps.size();) {
    const int64_t step = steps[k][dim];
    size_t end = k + 1;
    if (step != 0)
      while (end < steps.size() && bits[end].input == bits[k].input && bits[end].bit == bits[k].bit + (end - k) &&
             steps[end][dim] == step << (end - k))
        ++end;
    if (step != 0) {
      AffineExpr digit = getAffineDimExpr(bits[k].input, ctx);
      if (bits[k].bit) digit = digit.floorDiv(int64_t{1} << bits[k].bit);
      if (bits[k].bit + (end - k) < bits[k].axisBits) digit = digit % (int64_t{1} << (end - k));
      sum = sum + digit * step;
    }
    k = end;
  }
  return sum;
}

Step unitStep(size_t rank, unsigned dim, int64_t length) {
  Step s(rank, 0);
  s[dim] = length;
  return s;
}

}  // namespace

std::optional<LayoutBases> layoutBases(LayoutAttr layout) {
  const int64_t registers = layout.getNumRegisters(), lanes = layout.getNumLanes(), waves = layout.getNumWaves();
  std::optional<unsigned> registerBits = bitsOf(registers), laneBits = bitsOf(lanes), waveBits = bitsOf(waves);
  if (!registerBits || !laneBits || !waveBits) return std::nullopt;
  const LayoutPoints points(layout);
  const size_t rank = layout.getMap().getNumResults();
  LayoutBases bases;
  for (unsigned k = 0; k < *registerBits; ++k) bases.registers.push_back(Step(points.at(int64_t{1} << k, 0, 0)));
  for (unsigned k = 0; k < *laneBits; ++k) bases.lanes.push_back(Step(points.at(0, int64_t{1} << k, 0)));
  for (unsigned k = 0; k < *waveBits; ++k) bases.waves.push_back(Step(points.at(0, 0, int64_t{1} << k)));
  // Linear where each point is the point with its lowest set bit cleared plus that bit's
  // step (by induction from the origin).
  for (int64_t w = 0; w < waves; ++w)
    for (int64_t l = 0; l < lanes; ++l)
      for (int64_t r = 0; r < registers; ++r) {
        const int64_t* p = points.data(r, l, w);
        const int64_t* q;
        const Step* step;
        if (r) {
          q = points.data(r & (r - 1), l, w);
          step = &bases.registers[llvm::countr_zero(static_cast<uint64_t>(r))];
        } else if (l) {
          q = points.data(r, l & (l - 1), w);
          step = &bases.lanes[llvm::countr_zero(static_cast<uint64_t>(l))];
        } else if (w) {
          q = points.data(r, l, w & (w - 1));
          step = &bases.waves[llvm::countr_zero(static_cast<uint64_t>(w))];
        } else {
          if (llvm::any_of(ArrayRef(p, rank), [](int64_t x) { return x != 0; })) return std::nullopt;
          continue;
        }
        for (size_t d = 0; d < rank; ++d)
          if (p[d] != q[d] + (*step)[d]) return std::nullopt;
      }
  return bases;
}

LayoutAttr layoutFromBases(LayoutAttr like, const LayoutBases& bases) {
  MLIRContext* ctx = like.getContext();
  ArrayRef<int64_t> laneAxes = like.getLanes(), waveAxes = like.getWaves();
  const int64_t registers = int64_t{1} << bases.registers.size();
  SmallVector<IndexBit> registerBits = indexBits({registers}, 0), laneBits = indexBits(laneAxes, 1),
                        waveBits = indexBits(waveAxes, 1 + laneAxes.size());
  SmallVector<AffineExpr> results;
  for (unsigned d = 0; d < like.getMap().getNumResults(); ++d)
    results.push_back(stepsAlong(registerBits, bases.registers, d, ctx) + stepsAlong(laneBits, bases.lanes, d, ctx) +
                      stepsAlong(waveBits, bases.waves, d, ctx));
  const unsigned inputs = 1 + laneAxes.size() + waveAxes.size();
  return LayoutAttr::get(ctx, {registers}, laneAxes, waveAxes,
                         simplifyAffineMap(AffineMap::get(inputs, 0, results, ctx)));
}

std::optional<WaveLocalConversion> waveLocalConversion(LayoutAttr from, LayoutAttr to) {
  std::optional<LayoutBases> have = layoutBases(from), want = layoutBases(to);
  if (!have || !want || !holdsOnce(*have) || !holdsOnce(*want)) return std::nullopt;
  if (have->waves != want->waves || have->lanes.size() != want->lanes.size() ||
      have->registers.size() != want->registers.size())
    return std::nullopt;
  WaveLocalConversion conversion;
  for (unsigned i = 0; i < want->lanes.size(); ++i) {
    if (have->lanes[i] == want->lanes[i]) continue;
    auto it = llvm::find(have->registers, want->lanes[i]);
    if (it == have->registers.end()) return std::nullopt;
    const auto j = static_cast<unsigned>(it - have->registers.begin());
    std::swap(have->lanes[i], have->registers[j]);
    conversion.exchanges.push_back({i, j});
  }
  // Same lane and wave steps now, so the register steps are the same set: a permutation.
  SmallVector<unsigned> source;
  for (const Step& s : want->registers) {
    auto it = llvm::find(have->registers, s);
    if (it == have->registers.end()) return std::nullopt;
    source.push_back(static_cast<unsigned>(it - have->registers.begin()));
  }
  for (int64_t r = 0; r < (int64_t{1} << source.size()); ++r) {
    int64_t g = 0;
    for (auto [k, bit] : llvm::enumerate(source))
      if (r >> k & 1) g |= int64_t{1} << bit;
    conversion.gather.push_back(g);
  }
  return conversion;
}

LayoutAttr widenRuns(LayoutAttr layout, unsigned dim, int64_t maxLength) {
  std::optional<LayoutBases> bases = layoutBases(layout);
  std::optional<unsigned> maxBits = bitsOf(maxLength);
  if (!bases || !maxBits || !holdsOnce(*bases)) return {};
  const size_t rank = layout.getMap().getNumResults();
  auto& regs = bases->registers;
  // Whether register step `s` goes along `dim` only, further than `length`.
  auto further = [&](const Step& s, int64_t length) {
    return s[dim] > length && llvm::all_of(llvm::seq<size_t>(0, rank), [&](size_t d) { return d == dim || !s[d]; });
  };
  unsigned k = 0;
  for (; k < *maxBits && k < regs.size(); ++k) {
    const Step next = unitStep(rank, dim, int64_t{1} << k);
    auto inRegister = std::find(regs.begin() + k, regs.end(), next);
    if (inRegister == regs.end()) {
      // Held by a lane: that lane takes the nearest register step further along `dim`
      // (the lanes still walk `dim`, their accesses still adjacent).
      auto lane = llvm::find(bases->lanes, next);
      if (lane == bases->lanes.end()) break;
      auto candidate = regs.end();
      for (auto it = regs.begin() + k; it != regs.end(); ++it)
        if (further(*it, next[dim]) && (candidate == regs.end() || (*it)[dim] < (*candidate)[dim])) candidate = it;
      if (candidate == regs.end()) break;
      std::swap(*lane, *candidate);
      inRegister = candidate;
    }
    std::rotate(regs.begin() + k, inRegister, inRegister + 1);
  }
  if ((int64_t{1} << k) <= registerRuns(layout, dim, maxLength).front().length) return {};
  return layoutFromBases(layout, *bases);
}

}  // namespace wave::jit
