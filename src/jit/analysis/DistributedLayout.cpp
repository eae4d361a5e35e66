#include "analysis/DistributedLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace wave::jit {

using namespace mlir;

namespace {

// Splits `flat` row-major over `extents`, appending to `out`.
void unflatten(int64_t flat, ArrayRef<int64_t> extents, SmallVectorImpl<int64_t>& out) {
  SmallVector<int64_t> digits(extents.size());
  for (size_t i = extents.size(); i-- > 0;) {
    digits[i] = flat % extents[i];
    flat /= extents[i];
  }
  out.append(digits.begin(), digits.end());
}

// `flat` split row-major over `extents`, as affine expressions of `flat`.
void unflattenExpr(AffineExpr flat, ArrayRef<int64_t> extents, SmallVectorImpl<AffineExpr>& out) {
  int64_t stride = 1;
  SmallVector<AffineExpr> digits(extents.size());
  for (size_t i = extents.size(); i-- > 0;) {
    digits[i] = flat.floorDiv(stride) % extents[i];
    stride *= extents[i];
  }
  out.append(digits.begin(), digits.end());
}

// `l op r` with affine semantics (floordiv and ceildiv round toward -inf and +inf, mod
// is non-negative).
int64_t applyBinary(AffineExprKind kind, int64_t l, int64_t r) {
  switch (kind) {
    case AffineExprKind::Add:
      return l + r;
    case AffineExprKind::Mul:
      return l * r;
    case AffineExprKind::Mod:
      return ((l % r) + r) % r;
    case AffineExprKind::FloorDiv:
      return l / r - ((l % r != 0) && ((l < 0) != (r < 0)));
    case AffineExprKind::CeilDiv:
      return l / r + ((l % r != 0) && ((l < 0) == (r < 0)));
    default:
      llvm_unreachable("not a binary affine expression");
  }
}

// A map's results as one postfix program over the dims: a layout's points are evaluated
// in bulk, and walking the uniqued expression trees for each was most of the work.
class MapProgram {
 public:
  explicit MapProgram(AffineMap map) {
    for (AffineExpr e : map.getResults()) emit(e);
  }

  // Appends the map's results at `dims` to `out`.
  void evaluate(ArrayRef<int64_t> dims, SmallVectorImpl<int64_t>& out) const {
    const size_t base = out.size();
    for (const Step& step : steps_) {
      if (step.kind == AffineExprKind::Constant) {
        out.push_back(step.value);
      } else if (step.kind == AffineExprKind::DimId) {
        out.push_back(dims[step.value]);
      } else {
        const int64_t r = out.pop_back_val();
        out.back() = applyBinary(step.kind, out.back(), r);
      }
    }
    assert(out.size() - base == results_ && "one value per result");
    (void)base;
  }

 private:
  struct Step {
    AffineExprKind kind;
    int64_t value;  // the constant or the dim position
  };

  void emit(AffineExpr e) {
    emitOperand(e);
    ++results_;
  }
  void emitOperand(AffineExpr e) {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) return steps_.push_back({AffineExprKind::Constant, c.getValue()});
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return steps_.push_back({AffineExprKind::DimId, static_cast<int64_t>(d.getPosition())});
    auto binary = dyn_cast<AffineBinaryOpExpr>(e);
    if (!binary) llvm_unreachable("layout maps have no symbols");
    emitOperand(binary.getLHS());
    emitOperand(binary.getRHS());
    steps_.push_back({e.getKind(), 0});
  }

  SmallVector<Step> steps_;
  size_t results_ = 0;
};

}  // namespace

// A direct walk, where AffineMap::compose would build and simplify constant expressions.
int64_t evaluateAffine(AffineExpr e, ArrayRef<int64_t> dims) {
  switch (e.getKind()) {
    case AffineExprKind::Constant:
      return cast<AffineConstantExpr>(e).getValue();
    case AffineExprKind::DimId:
      return dims[cast<AffineDimExpr>(e).getPosition()];
    case AffineExprKind::SymbolId:
      llvm_unreachable("layout maps have no symbols");
    default:
      break;
  }
  auto binary = cast<AffineBinaryOpExpr>(e);
  return applyBinary(e.getKind(), evaluateAffine(binary.getLHS(), dims), evaluateAffine(binary.getRHS(), dims));
}

namespace {

// The digits of each flat index below `count`, row-major over `extents`, one row each.
SmallVector<int64_t> digitTable(int64_t count, ArrayRef<int64_t> extents) {
  SmallVector<int64_t> table;
  table.reserve(count * extents.size());
  for (int64_t flat = 0; flat < count; ++flat) unflatten(flat, extents, table);
  return table;
}

// The terms `e` sums (itself, where it is no sum).
SmallVector<AffineExpr> addends(AffineExpr e) {
  SmallVector<AffineExpr> pending = {e}, terms;
  while (!pending.empty()) {
    AffineExpr t = pending.pop_back_val();
    if (t.getKind() != AffineExprKind::Add) {
      terms.push_back(t);
      continue;
    }
    auto sum = cast<AffineBinaryOpExpr>(t);
    pending.append({sum.getLHS(), sum.getRHS()});
  }
  return terms;
}

// Each result of `map` as three sums: of the terms over register dims only (the first
// `registerDims`, constants too), over lane and wave dims only, and the rest. Layout maps
// mostly add a register part to a thread part, so a point costs a few additions.
struct SplitMap {
  AffineMap registerPart, threadPart, mixedPart;
  bool mixed = false;
};

SplitMap splitByInputs(AffineMap map, unsigned registerDims) {
  MLIRContext* ctx = map.getContext();
  SplitMap split;
  SmallVector<AffineExpr> registerSums, threadSums, mixedSums;
  for (AffineExpr result : map.getResults()) {
    AffineExpr sums[3] = {getAffineConstantExpr(0, ctx), getAffineConstantExpr(0, ctx), getAffineConstantExpr(0, ctx)};
    for (AffineExpr t : addends(result)) {
      bool overRegisters = false, overThreads = false;
      for (unsigned d = 0; d < map.getNumDims(); ++d)
        if (t.isFunctionOfDim(d)) (d < registerDims ? overRegisters : overThreads) = true;
      const int part = overRegisters && overThreads ? 2 : overThreads ? 1 : 0;
      sums[part] = sums[part] + t;
      split.mixed |= part == 2;
    }
    registerSums.push_back(sums[0]);
    threadSums.push_back(sums[1]);
    mixedSums.push_back(sums[2]);
  }
  split.registerPart = AffineMap::get(map.getNumDims(), 0, registerSums, ctx);
  split.threadPart = AffineMap::get(map.getNumDims(), 0, threadSums, ctx);
  split.mixedPart = AffineMap::get(map.getNumDims(), 0, mixedSums, ctx);
  return split;
}

template <class Fn>
void forEachPoint(LayoutAttr layout, Fn fn) {
  const size_t nr = layout.getRegisters().size(), nl = layout.getLanes().size(), nw = layout.getWaves().size();
  const int64_t rank = layout.getMap().getNumResults(), numRegisters = layout.getNumRegisters();
  const SplitMap split = splitByInputs(layout.getMap(), nr);
  const MapProgram threadProgram(split.threadPart), mixedProgram(split.mixedPart);
  // Split once per axis rather than once per point.
  const SmallVector<int64_t> registers = digitTable(numRegisters, layout.getRegisters()),
                             lanes = digitTable(layout.getNumLanes(), layout.getLanes()),
                             waves = digitTable(layout.getNumWaves(), layout.getWaves());
  SmallVector<int64_t> inputs(nr + nl + nw, 0), registerValues, threadValues, mixedValues, position(rank);
  {
    const MapProgram registerProgram(split.registerPart);
    for (int64_t r = 0; r < numRegisters; ++r) {
      std::copy_n(registers.begin() + r * nr, nr, inputs.begin());
      registerProgram.evaluate(inputs, registerValues);
    }
  }
  for (int64_t w = 0; w < layout.getNumWaves(); ++w) {
    std::copy_n(waves.begin() + w * nw, nw, inputs.begin() + nr + nl);
    for (int64_t l = 0; l < layout.getNumLanes(); ++l) {
      std::copy_n(lanes.begin() + l * nl, nl, inputs.begin() + nr);
      threadValues.clear();
      threadProgram.evaluate(inputs, threadValues);
      for (int64_t r = 0; r < numRegisters; ++r) {
        if (split.mixed) {
          std::copy_n(registers.begin() + r * nr, nr, inputs.begin());
          mixedValues.clear();
          mixedProgram.evaluate(inputs, mixedValues);
        }
        for (int64_t d = 0; d < rank; ++d)
          position[d] = registerValues[r * rank + d] + threadValues[d] + (split.mixed ? mixedValues[d] : 0);
        fn(r, l, w, ArrayRef<int64_t>(position));
      }
    }
  }
}

}  // namespace

SmallVector<int64_t> layoutInputs(LayoutAttr layout, int64_t reg, int64_t lane, int64_t wave) {
  SmallVector<int64_t> inputs;
  unflatten(reg, layout.getRegisters(), inputs);
  unflatten(lane, layout.getLanes(), inputs);
  unflatten(wave, layout.getWaves(), inputs);
  return inputs;
}

SmallVector<int64_t> layoutPosition(LayoutAttr layout, int64_t reg, int64_t lane, int64_t wave) {
  SmallVector<int64_t> inputs = layoutInputs(layout, reg, lane, wave);
  SmallVector<int64_t> position;
  for (AffineExpr e : layout.getMap().getResults()) position.push_back(evaluateAffine(e, inputs));
  return position;
}

LayoutPoints::LayoutPoints(LayoutAttr layout)
    : registers_(layout.getNumRegisters()), lanes_(layout.getNumLanes()), rank_(layout.getMap().getNumResults()) {
  static const SelfOwningTypeID kind;
  auto& dialect = static_cast<dialect::WaveDialect&>(layout.getDialect());
  positions_ = std::static_pointer_cast<const std::vector<int64_t>>(
      dialect.derived(layout, kind.getTypeID(), [&]() -> std::shared_ptr<const void> {
        auto positions = std::make_shared<std::vector<int64_t>>();
        const size_t points = layout.getNumWaves() * lanes_ * registers_ * rank_;
        positions->reserve(points + rank_);
        forEachPoint(layout, [&](int64_t, int64_t, int64_t, ArrayRef<int64_t> p) { llvm::append_range(*positions, p); });
        // The extent after the points: asked for often, and a pass over all of them.
        positions->resize(points + rank_, 0);
        for (size_t i = 0; i < points; ++i)
          (*positions)[points + i % rank_] = std::max((*positions)[points + i % rank_], (*positions)[i] + 1);
        return positions;
      }));
}

const int64_t* LayoutPoints::data(int64_t reg, int64_t lane, int64_t wave) const {
  return positions_->data() + ((wave * lanes_ + lane) * registers_ + reg) * rank_;
}

SmallVector<int64_t> LayoutPoints::at(int64_t reg, int64_t lane, int64_t wave) const {
  const int64_t* first = data(reg, lane, wave);
  return SmallVector<int64_t>(first, first + rank_);
}

SmallVector<int64_t> LayoutPoints::extent() const {
  return SmallVector<int64_t>(positions_->end() - rank_, positions_->end());
}

std::map<SmallVector<int64_t>, PositionHolders> positionHolders(LayoutAttr layout) {
  const int64_t registers = layout.getNumRegisters(), lanes = layout.getNumLanes();
  LayoutPoints points(layout);
  std::map<SmallVector<int64_t>, PositionHolders> holders;
  for (int64_t t = 0; t < lanes * layout.getNumWaves(); ++t)
    for (int64_t r = 0; r < registers; ++r) {
      PositionHolders& h = holders[points.at(r, t % lanes, t / lanes)];
      if (h.count++ == 0) std::tie(h.thread, h.reg) = std::pair{t, r};
    }
  return holders;
}

FailureOr<SmallVector<FirstHolders>> firstHolders(LayoutAttr layout) {
  const int64_t registers = layout.getNumRegisters(), threads = layout.getNumLanes() * layout.getNumWaves();
  const int64_t lanes = layout.getNumLanes();
  LayoutPoints points(layout);
  const auto first = positionHolders(layout);
  SmallVector<FirstHolders> holders;
  for (int64_t r = 0; r < registers; ++r) {
    SmallVector<int64_t> owners;
    for (int64_t t = 0; t < threads; ++t) {
      const PositionHolders& h = first.at(points.at(r, t % lanes, t / lanes));
      if (h.thread == t && h.reg == r) owners.push_back(t);
    }
    if (owners.empty()) {
      holders.push_back({.none = true});
      continue;
    }
    // The bits every owner shares with the first; the set must be all threads with them.
    int64_t differ = 0;
    for (int64_t t : owners) differ |= t ^ owners.front();
    const int64_t bits = llvm::PowerOf2Ceil(threads) - 1, mask = ~differ & bits, value = owners.front() & mask;
    int64_t matching = 0;
    for (int64_t t = 0; t < threads; ++t) matching += (t & mask) == value;
    if (matching != static_cast<int64_t>(owners.size())) return failure();
    holders.push_back({.none = false, .mask = mask, .value = value});
  }
  return holders;
}

SmallVector<AffineExpr> positionOfRegister(LayoutAttr layout, int64_t reg) {
  MLIRContext* ctx = layout.getContext();
  SmallVector<AffineExpr> inputs;
  SmallVector<int64_t> regDigits;
  unflatten(reg, layout.getRegisters(), regDigits);
  for (int64_t d : regDigits) inputs.push_back(getAffineConstantExpr(d, ctx));
  unflattenExpr(getAffineDimExpr(0, ctx), layout.getLanes(), inputs);
  unflattenExpr(getAffineDimExpr(1, ctx), layout.getWaves(), inputs);
  AffineMap map = simplifyAffineMap(layout.getMap().replaceDimsAndSymbols(inputs, {}, 2, 0));
  return llvm::to_vector(map.getResults());
}

SmallVector<int64_t> layoutExtent(LayoutAttr layout) { return LayoutPoints(layout).extent(); }

bool sameElementsPerThread(LayoutAttr a, LayoutAttr b) {
  if (a == b) return true;
  if (a.getNumLanes() != b.getNumLanes() || a.getNumWaves() != b.getNumWaves()) return false;
  if (a.getMap().getNumResults() != b.getMap().getNumResults()) return false;
  const LayoutPoints pointsA(a), pointsB(b);
  const int64_t rank = a.getMap().getNumResults();
  // Each thread's positions as row-major numbers over the extents both cover, sorted.
  SmallVector<int64_t> extent = pointsA.extent(), other = pointsB.extent();
  for (auto [e, o] : llvm::zip(extent, other)) e = std::max(e, o);
  auto held = [&](const LayoutPoints& points, int64_t registers, int64_t l, int64_t w, std::vector<int64_t>& out) {
    out.clear();
    for (int64_t r = 0; r < registers; ++r) {
      const int64_t* p = points.data(r, l, w);
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d) flat = flat * extent[d] + p[d];
      out.push_back(flat);
    }
    llvm::sort(out);
    out.erase(std::unique(out.begin(), out.end()), out.end());
  };
  std::vector<int64_t> pa, pb;
  for (int64_t w = 0; w < a.getNumWaves(); ++w)
    for (int64_t l = 0; l < a.getNumLanes(); ++l) {
      held(pointsA, a.getNumRegisters(), l, w, pa);
      held(pointsB, b.getNumRegisters(), l, w, pb);
      if (pa != pb) return false;
    }
  return true;
}

std::optional<SmallVector<int64_t>> registerPermutation(LayoutAttr from, LayoutAttr to) {
  if (from.getNumLanes() != to.getNumLanes() || from.getNumWaves() != to.getNumWaves()) return std::nullopt;
  const LayoutPoints fromPoints(from), toPoints(to);
  SmallVector<int64_t> source(to.getNumRegisters(), -1);
  for (int64_t r = 0; r < to.getNumRegisters(); ++r) {
    SmallVector<int64_t> want = toPoints.at(r, 0, 0);
    for (int64_t s = 0; s < from.getNumRegisters() && source[r] < 0; ++s)
      if (fromPoints.at(s, 0, 0) == want) source[r] = s;
    if (source[r] < 0) return std::nullopt;
  }
  for (int64_t w = 0; w < to.getNumWaves(); ++w)
    for (int64_t l = 0; l < to.getNumLanes(); ++l)
      for (int64_t r = 0; r < to.getNumRegisters(); ++r)
        if (toPoints.at(r, l, w) != fromPoints.at(source[r], l, w)) return std::nullopt;
  return source;
}

SmallVector<RegisterRun> registerRuns(LayoutAttr layout, unsigned dim, int64_t maxLength) {
  const int64_t registers = layout.getNumRegisters();
  auto ones = [&] {
    SmallVector<RegisterRun> runs;
    for (int64_t r = 0; r < registers; ++r) runs.push_back({r, 1});
    return runs;
  };
  if (layout.getRegisters().empty()) return ones();
  const int64_t last = layout.getRegisters().back();
  int64_t length = 1;
  while (length * 2 <= std::min(last, maxLength) && last % (length * 2) == 0) length *= 2;
  // Consecutive registers of the last axis must step by one along `dim` and stay put along
  // the others, and each run must start at a multiple of its length (aligned accesses).
  const LayoutPoints points(layout);
  auto runsOf = [&](int64_t length) {
    for (int64_t w = 0; w < layout.getNumWaves(); ++w)
      for (int64_t l = 0; l < layout.getNumLanes(); ++l)
        for (int64_t r = 0; r < registers; ++r) {
          SmallVector<int64_t> p = points.at(r, l, w);
          const int64_t i = r % length;
          if (i == 0) {
            if (p[dim] % length != 0) return false;
            continue;
          }
          SmallVector<int64_t> first = points.at(r - i, l, w);
          first[dim] += i;
          if (first != p) return false;
        }
    return true;
  };
  while (length > 1 && !runsOf(length)) length /= 2;
  SmallVector<RegisterRun> runs;
  for (int64_t r = 0; r < registers; r += length) runs.push_back({r, length});
  return runs;
}

int64_t WaveGrid::count() const {
  int64_t n = 1;
  for (int64_t w : waves) n *= w;
  return n;
}

int dimIndex(ArrayRef<StringRef> dims, StringRef dim) {
  auto it = llvm::find(dims, dim);
  return it == dims.end() ? -1 : static_cast<int>(it - dims.begin());
}

int WaveGrid::axisOf(StringRef dim) const {
  for (auto [i, d] : llvm::enumerate(dims))
    if (d == dim) return static_cast<int>(i);
  return -1;
}

SmallVector<int64_t> waveAxisStrides(ArrayRef<int64_t> waveAxes) {
  SmallVector<int64_t> strides(waveAxes.size());
  for (int64_t a = static_cast<int64_t>(waveAxes.size()) - 1, stride = 1; a >= 0; --a)
    strides[a] = stride, stride *= waveAxes[a];
  return strides;
}

int64_t coalescedRun(int64_t extent, unsigned elementBits) {
  int64_t run = std::max<int64_t>(1, 128 / std::max(8u, elementBits));
  while (run > 1 && extent % run != 0) run /= 2;
  return run;
}

namespace {

// The position of run `q` (an expression of the layout's inputs) when a tile of `extent`
// is walked row-major in runs of `run` along its last dim, `element` the run's element;
// wrapping past the tile's end.
SmallVector<AffineExpr> runPosition(AffineExpr q, AffineExpr element, ArrayRef<int64_t> extent, int64_t run) {
  const size_t rank = extent.size();
  SmallVector<AffineExpr> results(rank);
  int64_t stride = 1;  // runs per unit of dim k
  for (size_t k = rank; k-- > 0;) {
    const bool inner = k + 1 == rank;
    const int64_t runsAlong = inner ? extent[k] / run : extent[k];
    AffineExpr e = q.floorDiv(stride) % runsAlong;
    if (inner) e = e * run + element;
    results[k] = e;
    stride *= runsAlong;
  }
  return results;
}

}  // namespace

int64_t runCount(ArrayRef<int64_t> extent, int64_t run) {
  int64_t runs = 1;
  for (size_t k = 0; k < extent.size(); ++k) runs *= k + 1 == extent.size() ? extent[k] / run : extent[k];
  return runs;
}

LayoutAttr blockedLayout(MLIRContext* ctx, ArrayRef<StringRef> dims, ArrayRef<int64_t> waveTile, int64_t run,
                         const WaveGrid& grid) {
  const size_t rank = dims.size();
  const int64_t steps = std::max<int64_t>(1, (runCount(waveTile, run) + grid.lanes - 1) / grid.lanes);
  // Inputs: (step, element of the run, lane, wave axes...).
  AffineExpr step = getAffineDimExpr(0, ctx), element = getAffineDimExpr(1, ctx), lane = getAffineDimExpr(2, ctx);
  AffineExpr q = step * grid.lanes + lane;  // the run's number in the wave tile
  SmallVector<AffineExpr> results = runPosition(q, element, waveTile, run);
  for (size_t k = 0; k < rank; ++k)
    if (int axis = grid.axisOf(dims[k]); axis >= 0)
      results[k] = results[k] + getAffineDimExpr(3 + axis, ctx) * waveTile[k];
  auto map = AffineMap::get(3 + grid.waves.size(), 0, results, ctx);
  SmallVector<int64_t> registers = {steps, rank ? run : 1};
  return LayoutAttr::get(ctx, registers, {grid.lanes}, grid.waves, simplifyAffineMap(map));
}

LayoutAttr spreadLayout(MLIRContext* ctx, ArrayRef<int64_t> extent, int64_t run, int64_t waves, int64_t lanes) {
  const int64_t threads = waves * lanes;
  const int64_t steps = std::max<int64_t>(1, (runCount(extent, run) + threads - 1) / threads);
  // Inputs: (step, element of the run, lane, wave).
  AffineExpr step = getAffineDimExpr(0, ctx), element = getAffineDimExpr(1, ctx), lane = getAffineDimExpr(2, ctx),
             wave = getAffineDimExpr(3, ctx);
  AffineExpr q = step * threads + wave * lanes + lane;  // the run's number in the tile
  auto map = AffineMap::get(4, 0, runPosition(q, element, extent, run), ctx);
  return LayoutAttr::get(ctx, {steps, run}, {lanes}, {waves}, simplifyAffineMap(map));
}

LayoutAttr replicatedLayout(MLIRContext* ctx, size_t rank, const WaveGrid& grid) {
  // Inputs: (register, lane, wave axes...).
  SmallVector<AffineExpr> results(rank, getAffineConstantExpr(0, ctx));
  auto map = AffineMap::get(2 + grid.waves.size(), 0, results, ctx);
  return LayoutAttr::get(ctx, {1}, {grid.lanes}, grid.waves, map);
}

namespace {

// Whether `e` changes along `dim` (of extent `extent`, the other inputs held), where the
// expression shows it: `e` is a sum whose terms that mention `dim` mention no other input,
// so `e` = f(dim) + g(the rest) and evaluating f over the extent answers for every point.
// Unknown where a term mixes `dim` with other inputs (only evaluating everywhere tells).
enum class Dependence { none, changes, unknown };

Dependence dependenceOn(AffineExpr e, unsigned dim, int64_t extent, unsigned numDims) {
  if (!e.isFunctionOfDim(dim)) return Dependence::none;
  SmallVector<AffineExpr> own;
  for (AffineExpr t : addends(e)) {
    if (!t.isFunctionOfDim(dim)) continue;
    for (unsigned other = 0; other < numDims; ++other)
      if (other != dim && t.isFunctionOfDim(other)) return Dependence::unknown;
    own.push_back(t);
  }
  SmallVector<int64_t> inputs(numDims, 0);
  auto f = [&](int64_t v) {
    inputs[dim] = v;
    int64_t sum = 0;
    for (AffineExpr t : own) sum += evaluateAffine(t, inputs);
    return sum;
  };
  const int64_t first = f(0);
  for (int64_t v = 1; v < extent; ++v)
    if (f(v) != first) return Dependence::changes;
  return Dependence::none;
}

}  // namespace

LayoutAttr sliceLayout(LayoutAttr layout, unsigned index) {
  MLIRContext* ctx = layout.getContext();
  ArrayRef<int64_t> registers = layout.getRegisters();
  const size_t axes = registers.size();
  // An axis goes when moving along it changes nothing but the sliced dim's position. Most
  // maps show it (the axis is absent from the other results, or enters them apart from the
  // other inputs); the rest are evaluated: the moved point is another register of the same
  // thread, looked up.
  SmallVector<bool> keep(axes, false), decided(axes, true);
  AffineMap map = layout.getMap();
  const int64_t rank = map.getNumResults();
  bool evaluate = false;
  for (size_t a = 0; a < axes; ++a) {
    if (registers[a] == 1) continue;
    bool unknown = false;
    for (int64_t d = 0; d < rank && !keep[a]; ++d) {
      if (d == static_cast<int64_t>(index)) continue;
      Dependence dep = dependenceOn(map.getResult(d), a, registers[a], map.getNumDims());
      keep[a] = dep == Dependence::changes;
      unknown |= dep == Dependence::unknown;
    }
    decided[a] = keep[a] || !unknown;
    evaluate |= !decided[a];
  }
  if (evaluate) {
    SmallVector<int64_t> stride(axes, 1);
    for (int a = static_cast<int>(axes) - 2; a >= 0; --a) stride[a] = stride[a + 1] * registers[a + 1];
    const LayoutPoints points(layout);
    for (int64_t w = 0; w < layout.getNumWaves(); ++w)
      for (int64_t l = 0; l < layout.getNumLanes(); ++l)
        for (int64_t r = 0; r < layout.getNumRegisters(); ++r)
          for (size_t a = 0; a < axes; ++a) {
            if (decided[a] || keep[a] || (r / stride[a]) % registers[a] != 0) continue;
            const int64_t* p = points.data(r, l, w);
            for (int64_t v = 1; v < registers[a] && !keep[a]; ++v) {
              const int64_t* q = points.data(r + v * stride[a], l, w);
              for (int64_t d = 0; d < rank; ++d)
                if (d != static_cast<int64_t>(index) && q[d] != p[d]) keep[a] = true;
            }
          }
  }
  // With no register axis left, one register (an axis of extent 1, dim 0) stands in.
  SmallVector<int64_t> kept;
  for (size_t a = 0; a < axes; ++a)
    if (keep[a]) kept.push_back(registers[a]);
  const bool placeholder = kept.empty();
  if (placeholder) kept.push_back(1);
  unsigned next = placeholder ? 1 : 0;
  SmallVector<AffineExpr> replacements;
  for (size_t a = 0; a < axes; ++a)
    replacements.push_back(keep[a] ? getAffineDimExpr(next++, ctx) : getAffineConstantExpr(0, ctx));
  const unsigned others = layout.getLanes().size() + layout.getWaves().size();
  for (unsigned i = 0; i < others; ++i) replacements.push_back(getAffineDimExpr(next++, ctx));
  AffineMap sliced = map.dropResult(index).replaceDimsAndSymbols(replacements, {}, next, 0);
  return LayoutAttr::get(ctx, kept, layout.getLanes(), layout.getWaves(), simplifyAffineMap(sliced));
}

LayoutAttr permuteLayout(LayoutAttr layout, ArrayRef<unsigned> order) {
  SmallVector<AffineExpr> results;
  for (unsigned i : order) results.push_back(layout.getMap().getResult(i));
  AffineMap map = AffineMap::get(layout.getMap().getNumDims(), 0, results, layout.getContext());
  return LayoutAttr::get(layout.getContext(), layout.getRegisters(), layout.getLanes(), layout.getWaves(), map);
}

LayoutAttr placeLayout(LayoutAttr layout, ArrayRef<StringRef> layoutDims, ArrayRef<StringRef> valueDims) {
  MLIRContext* ctx = layout.getContext();
  AffineMap map = layout.getMap();
  SmallVector<AffineExpr> results;
  for (StringRef d : valueDims) {
    auto it = llvm::find(layoutDims, d);
    results.push_back(it == layoutDims.end() ? getAffineConstantExpr(0, ctx) : map.getResult(it - layoutDims.begin()));
  }
  return LayoutAttr::get(ctx, layout.getRegisters(), layout.getLanes(), layout.getWaves(),
                         AffineMap::get(map.getNumDims(), 0, results, ctx));
}

LayoutAttr mmaLayout(MLIRContext* ctx, const MMAOperandLayout& operand, int64_t lanes, int64_t tileRows,
                     int64_t tileCols, ArrayRef<int64_t> waves, int waveRowAxis, int waveColAxis) {
  // Inputs: (tile row, tile col, element, lane, wave axes...).
  AffineExpr tr = getAffineDimExpr(0, ctx), tc = getAffineDimExpr(1, ctx), e = getAffineDimExpr(2, ctx),
             lane = getAffineDimExpr(3, ctx);
  AffineMap inTile = operand.map.replaceDimsAndSymbols({lane, e}, {}, 4 + waves.size(), 0);
  AffineExpr row = tr * operand.rows + inTile.getResult(0);
  AffineExpr col = tc * operand.cols + inTile.getResult(1);
  if (waveRowAxis >= 0) row = row + getAffineDimExpr(4 + waveRowAxis, ctx) * (tileRows * operand.rows);
  if (waveColAxis >= 0) col = col + getAffineDimExpr(4 + waveColAxis, ctx) * (tileCols * operand.cols);
  auto map = AffineMap::get(4 + waves.size(), 0, {row, col}, ctx);
  return LayoutAttr::get(ctx, {tileRows, tileCols, operand.elementsPerLane()}, {lanes}, waves,
                         simplifyAffineMap(map));
}

LayoutAttr warpgroupLayout(MLIRContext* ctx, const MMAOperandLayout& fragment, int64_t lanes, ArrayRef<int64_t> waves,
                           const WarpgroupPlacement& p) {
  // Inputs: (tile row, tile col, element, lane, wave axes...).
  AffineExpr tr = getAffineDimExpr(0, ctx), tc = getAffineDimExpr(1, ctx), e = getAffineDimExpr(2, ctx),
             lane = getAffineDimExpr(3, ctx);
  AffineExpr wave = getAffineConstantExpr(0, ctx);
  for (auto [axis, stride] : llvm::enumerate(waveAxisStrides(waves)))
    wave = wave + getAffineDimExpr(4 + axis, ctx) * stride;
  // One warpgroup: its warps are the waves. Where warpgroups hold one 64-row strip each,
  // warp q of group g starts 16 (4g + q) rows in: stated as 16 w, the form mma.sync's
  // layouts over waves take, so that values computed from both compare equal.
  const bool oneGroup = llvm::product_of(waves) == 4;
  AffineExpr warp = oneGroup ? wave : wave % 4, group = oneGroup ? getAffineConstantExpr(0, ctx) : wave.floorDiv(4);
  AffineMap inTile = fragment.map.replaceDimsAndSymbols({lane, e}, {}, 4 + waves.size(), 0);
  AffineExpr row = tr * p.rowStep + inTile.getResult(0);
  if (p.warpRows && p.groupRows == 64)
    row = row + wave * 16;
  else
    row = row + group * p.groupRows + (p.warpRows ? warp * 16 : getAffineConstantExpr(0, ctx));
  AffineExpr col = group * p.groupCols + tc * p.colStep + inTile.getResult(1);
  auto map = AffineMap::get(4 + waves.size(), 0, {row, col}, ctx);
  return LayoutAttr::get(ctx, {p.tileRows, p.tileCols, fragment.elementsPerLane()}, {lanes}, waves,
                         simplifyAffineMap(map));
}

LayoutAttr mfmaAccumulatorLayout(MLIRContext* ctx, int64_t m) {
  AffineExpr lane = getAffineDimExpr(m == 16 ? 1 : 2, ctx);
  if (m == 16) {
    // 16x16x16: lane l holds column l mod 16, rows 4 (l / 16) .. +3.
    AffineExpr i = getAffineDimExpr(0, ctx);
    return LayoutAttr::get(ctx, {4}, {64}, {1},
                           AffineMap::get(3, 0, {lane.floorDiv(16) * 4 + i, lane % 16}, ctx));
  }
  // 32x32x8: lane l holds column l mod 32; register group g, element i: row 8g + 4 (l / 32) + i.
  AffineExpr g = getAffineDimExpr(0, ctx), i = getAffineDimExpr(1, ctx);
  return LayoutAttr::get(ctx, {4, 4}, {64}, {1},
                         AffineMap::get(4, 0, {g * 8 + lane.floorDiv(32) * 4 + i, lane % 32}, ctx));
}

}  // namespace wave::jit
