// Attention with score modifications a user writes beside the example: a score bias
// tensor [M, K2] read inside the loop, tanh soft-capping, ALiBi (a per-head linear bias on
// the query-key distance), a causal sliding window. The attention lowering matches none of them; the layout
// pipeline lowers them. Every output element is compared with a float64 host reference
// on random data, at odd and even lengths and two tilings, the output poisoned first.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "attention_schedule.hpp"
#include "attention_scores_reference.hpp"
#include "fixtures/random_data.hpp"

using namespace wave;
using namespace examples::flash_attention;
using namespace attention_tests;
using fixtures::random_floats;

namespace {

// softmax(mod(q k^T / sqrt(D))) v; `mod` takes the log2-scaled scores [B, H, M, K2] and
// the bias memory and returns new ones.
template <class Mod>
auto attention_with(const char* name, int head_dim, Mod mod) {
  const double scale = scale_log2(head_dim);
  return masked_attention(name, [scale, mod](auto raw, Memory<dims<M, K2>, f32> bias) { return mod(raw * scale, bias); });
}

// Runs `k` at an unaligned shape on four waves and an aligned one on eight (the examples'
// random halves, a random bias) against the float64 reference of `mod(s, h, m, j, bias)`
// on the natural-log score s of query m and key j in head h.
template <class Kernel>
void check_variant(const Kernel& k, const HostScore& mod, std::mt19937& rng) {
  for (Shape c : {Shape{1, 2, 200, 201, 64, 4, 32, 0.0}, Shape{2, 2, 128, 256, 128, 8, 64, 0.0}}) {
    INFO(k.name() << ": B " << c.b << ", H " << c.h << ", M " << c.m << ", K2 " << c.k2 << ", BLOCK_M " << c.block_m
                  << " over " << c.waves << " waves, BLOCK_K2 " << c.block_k2);
    auto random_bias = [&](int m, int k2) { return random_floats(std::size_t(m) * k2, rng); };
    CHECK(wrong_elements(k, c, mod, random_bias, rng) == 0);
  }
}

}  // namespace

TEST_CASE("attention with a score bias tensor [M, K2] read inside the loop", "[gpu][attention][variants]") {
  std::mt19937 rng(Catch::rngSeed());
  auto k = attention_with("attention_score_bias", 64, [](auto x, Memory<dims<M, K2>, f32> bias) {
    return x + read(bias) * kLog2e;
  });
  check_variant(k, [](double s, int, int, int, double bias) { return s + bias; }, rng);
}

TEST_CASE("attention with tanh soft-capping of the scores", "[gpu][attention][variants]") {
  std::mt19937 rng(Catch::rngSeed());
  // s -> cap * tanh(s / cap), cap = 2 (small, so that the cap shapes the result).
  constexpr double cap = 2.0;
  auto k = attention_with("attention_softcap", 64, [](auto x, Memory<dims<M, K2>, f32>) {
    return tanh(x * (1.0 / (cap * kLog2e))) * (cap * kLog2e);
  });
  check_variant(k, [](double s, int, int, int, double) { return cap * std::tanh(s / cap); }, rng);
}

TEST_CASE("attention with ALiBi: a per-head slope times the query-key distance", "[gpu][attention][variants]") {
  std::mt19937 rng(Catch::rngSeed());
  // s -> s - slope_h |m - k|, slope_h = 2^-(h + 1) for head h.
  auto k = attention_with("attention_alibi", 64, [](auto x, Memory<dims<M, K2>, f32>) {
    auto m_at = cast<f32>(broadcast<dims<M, K2>>(self_index<M, i64>()));
    auto k_at = cast<f32>(broadcast<dims<M, K2>>(self_index<K2, i64>()));
    auto slope = exp2(cast<f32>(self_index<H, i64>()) * -1.0 - 1.0);  // [H]
    return x - broadcast<dims<B, H, M, K2>>(abs(m_at - k_at)) * broadcast<dims<B, H, M, K2>>(slope) * kLog2e;
  });
  check_variant(k, [](double s, int h, int m, int j, double) { return s - std::ldexp(1.0, -(h + 1)) * std::abs(m - j); },
                rng);
}

TEST_CASE("attention with a causal sliding window: each query sees its last 48 keys", "[gpu][attention][variants]") {
  std::mt19937 rng(Catch::rngSeed());
  // Two masks added: the causal one the compiler recognizes (the loop ends at the
  // diagonal, the mask only on the tiles it cuts) and a window it does not know.
  constexpr int window = 48;
  auto k = attention_with("attention_sliding_window", 64, [](auto x, Memory<dims<M, K2>, f32>) {
    auto m_at = broadcast<dims<M, K2>>(self_index<M, i64>());
    auto k_at = broadcast<dims<M, K2>>(self_index<K2, i64>());
    Register<dims<M, K2>, f32> zero(0.0), min_inf(-1e6);
    auto causal = select(cast<i1>(apply_expr(k_at - m_at, [](auto d) { return d <= 0; })), zero, min_inf);
    auto recent = select(cast<i1>(apply_expr(m_at - k_at, [](auto d) { return d < window; })), zero, min_inf);
    return x + causal + recent;
  });
  check_variant(k, [](double s, int, int m, int j, double) { return j <= m && m - j < window ? s : s - 1e6; }, rng);
}
