// Layouts as one step per index bit (analysis/LayoutBases.h), enumerated: the hardware's
// accumulators are linear and rebuild from their steps point for point; a widened layout
// holds the same elements in the same waves in runs of the length asked; the conversion
// within waves, applied to the points as the lowering's shuffles apply it to registers,
// lands every element where the target layout wants it.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "analysis/LayoutBases.h"

#include "mlir/IR/MLIRContext.h"

using namespace wave;
using jit::LayoutAttr;

namespace {

struct Context {
  mlir::MLIRContext ctx;
  Context() { ctx.loadDialect<dialect::WaveDialect>(); }
};

using Point = std::array<int64_t, 3>;  // register, lane, wave

std::map<llvm::SmallVector<int64_t>, Point> whereEach(LayoutAttr layout) {
  std::map<llvm::SmallVector<int64_t>, Point> where;
  for (int64_t w = 0; w < layout.getNumWaves(); ++w)
    for (int64_t l = 0; l < layout.getNumLanes(); ++l)
      for (int64_t r = 0; r < layout.getNumRegisters(); ++r) where[jit::layoutPosition(layout, r, l, w)] = {r, l, w};
  return where;
}

void checkSamePoints(LayoutAttr a, LayoutAttr b) {
  REQUIRE(a.getNumRegisters() == b.getNumRegisters());
  for (int64_t w = 0; w < a.getNumWaves(); ++w)
    for (int64_t l = 0; l < a.getNumLanes(); ++l)
      for (int64_t r = 0; r < a.getNumRegisters(); ++r)
        REQUIRE(jit::layoutPosition(a, r, l, w) == jit::layoutPosition(b, r, l, w));
}

// Runs `conversion` on a table of (register, lane) -> element position, per wave, the way
// the lowering's selects and xor shuffles run it on registers.
void checkConversion(LayoutAttr from, LayoutAttr to, const jit::WaveLocalConversion& conversion) {
  const int64_t registers = from.getNumRegisters(), lanes = from.getNumLanes();
  for (int64_t w = 0; w < from.getNumWaves(); ++w) {
    std::vector<std::vector<llvm::SmallVector<int64_t>>> held(lanes);
    for (int64_t l = 0; l < lanes; ++l)
      for (int64_t r = 0; r < registers; ++r) held[l].push_back(jit::layoutPosition(from, r, l, w));
    for (const jit::LaneExchange& e : conversion.exchanges) {
      const int64_t laneStride = int64_t{1} << e.laneBit, regStride = int64_t{1} << e.registerBit;
      auto next = held;
      for (int64_t l = 0; l < lanes; ++l)
        for (int64_t r = 0; r < registers; ++r) {
          if (r & regStride) continue;
          const bool set = l & laneStride;
          const auto& sent = set ? held[l ^ laneStride][r | regStride] : held[l ^ laneStride][r];
          if (set)
            next[l][r] = sent;
          else
            next[l][r | regStride] = sent;
        }
      held = std::move(next);
    }
    for (int64_t l = 0; l < lanes; ++l)
      for (int64_t r = 0; r < registers; ++r)
        REQUIRE(held[l][conversion.gather[r]] == jit::layoutPosition(to, r, l, w));
  }
}

}  // namespace

TEST_CASE("wgmma accumulators are linear: their steps rebuild them", "[layout][bases]") {
  Context c;
  auto mma = jit::getMMALayout(&c.ctx, dialect::MMAKind::f32_16x8x16_f16);
  REQUIRE(succeeded(mma));
  LayoutAttr acc = jit::warpgroupLayout(&c.ctx, mma->c, 32, {2, 4}, {1, 64, 8, 8, true, 0, 64});
  std::optional<jit::LayoutBases> bases = jit::layoutBases(acc);
  REQUIRE(bases);
  CHECK(bases->registers.size() == 5);  // 32 registers
  CHECK(bases->registers[0] == jit::LayoutBases::Step{0, 1});  // the pair's second column
  CHECK(bases->registers[1] == jit::LayoutBases::Step{8, 0});  // the fragment's lower half
  CHECK(bases->lanes[0] == jit::LayoutBases::Step{0, 2});
  CHECK(bases->lanes[2] == jit::LayoutBases::Step{1, 0});
  checkSamePoints(acc, jit::layoutFromBases(acc, *bases));
  // Three waves are not a power of two's bits.
  LayoutAttr three = jit::blockedLayout(&c.ctx, {"M", "N"}, {16, 64}, 8, {{"M"}, {3}, {16}, 32});
  CHECK_FALSE(jit::layoutBases(three));
}

TEST_CASE("widened accumulator runs: 16 bytes per thread, the same elements in each wave", "[layout][bases]") {
  Context c;
  auto mma = jit::getMMALayout(&c.ctx, dialect::MMAKind::f32_16x8x16_f16);
  REQUIRE(succeeded(mma));
  for (int64_t n : {16, 64, 256})
    for (int64_t length : {4, 8}) {
      INFO("N = " << n << ", runs of " << length);
      LayoutAttr acc = jit::warpgroupLayout(&c.ctx, mma->c, 32, {4}, {1, 64, n / 8, 8, true, 0, 0});
      LayoutAttr wide = jit::widenRuns(acc, 1, length);
      if (n == 16 && length == 8) {
        // Two tiles of 8 columns give one step to trade: runs of 4 at most.
        REQUIRE(wide);
        CHECK(jit::registerRuns(wide, 1, 8).front().length == 4);
        continue;
      }
      REQUIRE(wide);
      for (const jit::RegisterRun& run : jit::registerRuns(wide, 1, 8)) CHECK(run.length == length);
      // Every element once, in the wave that held it.
      auto before = whereEach(acc), after = whereEach(wide);
      REQUIRE(before.size() == after.size());
      for (const auto& [position, point] : before) CHECK(after.at(position)[2] == point[2]);
      // A warp's lanes 0..3 take adjacent runs of a row: 4 x length contiguous columns.
      std::set<int64_t> starts;
      for (int64_t q = 0; q < 4; ++q) {
        llvm::SmallVector<int64_t> p = jit::layoutPosition(wide, 0, q, 0);
        CHECK(p[0] == 0);
        starts.insert(p[1]);
      }
      CHECK(starts == std::set<int64_t>{0, length, 2 * length, 3 * length});
      std::optional<jit::WaveLocalConversion> conversion = jit::waveLocalConversion(acc, wide);
      REQUIRE(conversion);
      CHECK(conversion->exchanges.size() == (length == 4 ? 1u : 2u));
      checkConversion(acc, wide, *conversion);
    }
  // A layout already in runs of 8 has nothing to widen.
  LayoutAttr blocked = jit::blockedLayout(&c.ctx, {"M", "N"}, {16, 64}, 8, {{"M"}, {4}, {16}, 32});
  CHECK_FALSE(jit::widenRuns(blocked, 1, 8));
}

TEST_CASE("a conversion within waves needs the lane steps in registers", "[layout][bases]") {
  Context c;
  auto mma = jit::getMMALayout(&c.ctx, dialect::MMAKind::f32_16x8x16_f16);
  REQUIRE(succeeded(mma));
  LayoutAttr acc = jit::warpgroupLayout(&c.ctx, mma->c, 32, {4}, {1, 64, 8, 8, true, 0, 0});
  // The identity: no exchange, registers in place.
  std::optional<jit::WaveLocalConversion> same = jit::waveLocalConversion(acc, acc);
  REQUIRE(same);
  CHECK(same->exchanges.empty());
  for (int64_t r = 0; r < acc.getNumRegisters(); ++r) CHECK(same->gather[r] == r);
  // Coalesced runs of 8 over the same waves: five exchanges, the last three passing row
  // steps along from lane to register to lane.
  LayoutAttr blocked = jit::blockedLayout(&c.ctx, {"M", "N"}, {16, 64}, 8, {{"M"}, {4}, {16}, 32});
  std::optional<jit::WaveLocalConversion> toBlocked = jit::waveLocalConversion(acc, blocked);
  REQUIRE(toBlocked);
  CHECK(toBlocked->exchanges.size() == 5);
  checkConversion(acc, blocked, *toBlocked);
  // Waves along N hold other elements than the accumulator's waves along M.
  LayoutAttr columns = jit::blockedLayout(&c.ctx, {"M", "N"}, {64, 16}, 8, {{"N"}, {4}, {16}, 32});
  CHECK_FALSE(jit::waveLocalConversion(acc, columns));
}
