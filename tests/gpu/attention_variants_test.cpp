// Attention with score modifications a user writes beside the example: a score bias
// tensor [M, K2] read inside the loop, tanh soft-capping, ALiBi (a per-head linear bias on
// the query-key distance), a causal sliding window (attention_score_mods.hpp). The layout
// pipeline lowers them as any kernel. Every output element is compared with a float64 host reference
// on random data, at odd and even lengths and two tilings, the output poisoned first.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "attention_score_mods.hpp"
#include "fixtures/random_data.hpp"

using namespace wave;
using namespace examples::flash_attention;
using namespace attention_tests;
using fixtures::random_floats;

namespace {

// Runs `k` at an unaligned shape on four waves and an aligned one on eight (the examples'
// random halves, a random bias) against the float64 reference of `mod(s, h, m, j, bias)`
// on the natural-log score s of query m and key j in head h.
template <class Kernel>
void check_variant(const Kernel& k, const HostScore& mod, std::mt19937& rng) {
  for (const Shape& c : kVariantShapes) {
    INFO(k.name() << ": B " << c.b << ", H " << c.h << ", M " << c.m << ", K2 " << c.k2 << ", BLOCK_M " << c.block_m
                  << " over " << c.waves << " waves, BLOCK_K2 " << c.block_k2);
    auto random_bias = [&](int m, int k2) { return random_floats(std::size_t(m) * k2, rng); };
    CHECK(wrong_elements(k, c, mod, random_bias, rng) == 0);
  }
}

}  // namespace

TEST_CASE("attention with a score bias tensor [M, K2] read inside the loop", "[gpu][attention][variants]") {
  std::mt19937 rng(Catch::rngSeed());
  check_variant(score_bias_attention(), [](double s, int, int, int, double bias) { return s + bias; }, rng);
}

TEST_CASE("attention with tanh soft-capping of the scores", "[gpu][attention][variants]") {
  std::mt19937 rng(Catch::rngSeed());
  // s -> cap * tanh(s / cap), cap = 2 (small, so that the cap shapes the result).
  constexpr double cap = 2.0;
  check_variant(softcap_attention(cap), [](double s, int, int, int, double) { return cap * std::tanh(s / cap); }, rng);
}

TEST_CASE("attention with ALiBi: a per-head slope times the query-key distance", "[gpu][attention][variants]") {
  std::mt19937 rng(Catch::rngSeed());
  // s -> s - slope_h |m - k|, slope_h = 2^-(h + 1) for head h.
  check_variant(
      alibi_attention(),
      [](double s, int h, int m, int j, double) { return s - std::ldexp(1.0, -(h + 1)) * std::abs(m - j); }, rng);
}

TEST_CASE("attention with a causal sliding window: each query sees its last 48 keys", "[gpu][attention][variants]") {
  std::mt19937 rng(Catch::rngSeed());
  constexpr int window = 48;
  check_variant(
      sliding_window_attention<window>(),
      [](double s, int, int m, int j, double) { return j <= m && m - j < window ? s : s - 1e6; }, rng);
}

TEST_CASE("causal attention with ALiBi subtracted after the mask", "[gpu][attention][variants]") {
  std::mt19937 rng(Catch::rngSeed());
  check_variant(
      causal_alibi_attention(),
      [](double s, int h, int m, int j, double) {
        const double alibi = std::ldexp(1.0, -(h + 1)) * (m - j);
        return j <= m ? s - alibi : s - 1e6;
      },
      rng);
}
