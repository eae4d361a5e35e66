// simplifyWithinBounds and rangeWithinBounds: affine expressions of a lane (d0 in [0, 32))
// and a wave (d1 in [0, waves)) folded by those ranges. Each rewrite must keep the value at
// every point of the box, and each range must hold every value.
#include <catch2/catch.hpp>

#include <random>

#include "analysis/AffineBounds.h"
#include "analysis/DistributedLayout.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;
using wave::jit::evaluateAffine;
using wave::jit::rangeWithinBounds;
using wave::jit::simplifyWithinBounds;

namespace {

std::string str(AffineExpr e) {
  std::string text;
  llvm::raw_string_ostream os(text);
  e.print(os);
  return text;
}

// A random expression of d0 and d1: sums, products, floordiv and mod by small constants.
AffineExpr randomExpr(MLIRContext* ctx, std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, depth > 0 ? 5 : 1), constant(1, 9);
  switch (pick(rng)) {
    case 0:
      return getAffineDimExpr(rng() % 2, ctx);
    case 1:
      return getAffineConstantExpr(constant(rng) - 3, ctx);
    case 2:
      return randomExpr(ctx, rng, depth - 1) + randomExpr(ctx, rng, depth - 1);
    case 3:
      return randomExpr(ctx, rng, depth - 1) * (constant(rng) - 4);
    case 4:
      return randomExpr(ctx, rng, depth - 1).floorDiv(constant(rng));
    default:
      return randomExpr(ctx, rng, depth - 1) % constant(rng);
  }
}

}  // namespace

TEST_CASE("bounded affine simplification folds lane and wave digits", "[layout][bounds]") {
  MLIRContext ctx;
  AffineExpr lane = getAffineDimExpr(0, &ctx), wave = getAffineDimExpr(1, &ctx);
  // The outermost digit of four waves needs no mod; a lane's quotient by 32 is 0.
  CHECK(str(simplifyWithinBounds((wave.floorDiv(2)) % 2, {32, 4})) == str(wave.floorDiv(2)));
  CHECK(str(simplifyWithinBounds(lane.floorDiv(32) * 16 + wave, {32, 4})) == str(wave));
  // An inner digit keeps its mod; an unbounded dim keeps everything.
  CHECK(str(simplifyWithinBounds(lane.floorDiv(4) % 4, {32, 4})) == str(lane.floorDiv(4) % 4));
  CHECK(str(simplifyWithinBounds(wave.floorDiv(2) % 2, {32})) == str(wave.floorDiv(2) % 2));
  // A mod over one block past the first is the operand less the block's start.
  CHECK(str(simplifyWithinBounds((lane + 32) % 64, {32, 4})) == str(lane + 32));
  CHECK(str(simplifyWithinBounds((lane.floorDiv(16) + 2) % 2, {32, 4})) == str(lane.floorDiv(16)));
  CHECK(str(simplifyWithinBounds((lane.floorDiv(16) + 3) % 4, {32, 4})) == str((lane.floorDiv(16) + 3) % 4));

  auto range = rangeWithinBounds(wave * 4 + lane.floorDiv(16) + 2, {32, 4});
  REQUIRE(range);
  CHECK(range->first == 2);
  CHECK(range->second == 15);
  CHECK_FALSE(rangeWithinBounds(wave + getAffineSymbolExpr(0, &ctx), {32, 4}));
}

TEST_CASE("bounded affine simplification keeps every value of random expressions", "[layout][bounds]") {
  MLIRContext ctx;
  std::mt19937 rng(Catch::rngSeed());
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<int64_t> extents = {int64_t(1 + rng() % 40), int64_t(1 + rng() % 8)};
    AffineExpr e = randomExpr(&ctx, rng, 4);
    AffineExpr simplified = simplifyWithinBounds(e, extents);
    auto range = rangeWithinBounds(e, extents);
    REQUIRE(range);
    for (int64_t l = 0; l < extents[0]; ++l)
      for (int64_t w = 0; w < extents[1]; ++w) {
        const int64_t v = evaluateAffine(e, {l, w});
        INFO(trial << ": " << str(e) << " -> " << str(simplified) << " at (" << l << ", " << w << ")");
        REQUIRE(evaluateAffine(simplified, {l, w}) == v);
        REQUIRE(v >= range->first);
        REQUIRE(v <= range->second);
      }
  }
}
