// Attention kernels with the score modifications a user writes beside the example (a score
// bias tensor [M, K2] read inside the loop, tanh soft-capping, ALiBi, a causal sliding
// window, causal ALiBi), on the distribution the variant tests share; attention_variants_test runs them
// against float64, tests/hsaco compiles them for gfx942.
#pragma once

#include "attention_scores_reference.hpp"

namespace attention_tests {

// The shapes the variants run at: unaligned on four waves, aligned on eight.
inline const Shape kVariantShapes[] = {{1, 2, 200, 201, 64, 4, 32, 0.0}, {2, 2, 128, 256, 128, 8, 64, 0.0}};

// softmax(mod(q k^T / sqrt(D))) v; `mod` takes the log2-scaled scores [B, H, M, K2] and
// the bias memory and returns new ones.
template <class Mod>
auto attention_with(const char* name, Mod mod) {
  const double scale = scale_log2(kHeadDim);
  return masked_attention(name,
                          [scale, mod](auto raw, Memory<dims<M, K2>, f32> bias) { return mod(raw * scale, bias); });
}

// s -> s + bias[m, k].
inline auto score_bias_attention() {
  return attention_with("attention_score_bias",
                        [](auto x, Memory<dims<M, K2>, f32> bias) { return x + read(bias) * kLog2e; });
}

// s -> cap * tanh(s / cap).
inline auto softcap_attention(double cap) {
  return attention_with("attention_softcap", [cap](auto x, Memory<dims<M, K2>, f32>) {
    return tanh(x * (1.0 / (cap * kLog2e))) * (cap * kLog2e);
  });
}

// s -> s - slope_h |m - k|, slope_h = 2^-(h + 1) for head h.
inline auto alibi_attention() {
  return attention_with("attention_alibi", [](auto x, Memory<dims<M, K2>, f32>) {
    auto m_at = cast<f32>(broadcast<dims<M, K2>>(self_index<M, i64>()));
    auto k_at = cast<f32>(broadcast<dims<M, K2>>(self_index<K2, i64>()));
    auto slope = exp2(cast<f32>(self_index<H, i64>()) * -1.0 - 1.0);  // [H]
    return x - broadcast<dims<B, H, M, K2>>(abs(m_at - k_at)) * broadcast<dims<B, H, M, K2>>(slope) * kLog2e;
  });
}

// Keys k <= m within the last `window` of query m: two masks added, the causal one the
// compiler recognizes (the loop ends at the diagonal, the mask only on the tiles it cuts)
// and a window it does not know.
template <int window>
auto sliding_window_attention() {
  return attention_with("attention_sliding_window", [](auto x, Memory<dims<M, K2>, f32>) {
    auto m_at = broadcast<dims<M, K2>>(self_index<M, i64>());
    auto k_at = broadcast<dims<M, K2>>(self_index<K2, i64>());
    Register<dims<M, K2>, f32> zero(0.0), min_inf(-1e6);
    auto causal = select(cast<i1>(apply_expr(k_at - m_at, [](auto d) { return d <= 0; })), zero, min_inf);
    auto recent = select(cast<i1>(apply_expr(m_at - k_at, [](auto d) { return d < window; })), zero, min_inf);
    return x + causal + recent;
  });
}

// The causal mask first, then ALiBi subtracted from the masked scores: the mask is not
// the last term, so the compiler's causal handling (the loop ended at the diagonal, the
// mask moved before the softmax scale) must see through the subtraction after it.
inline auto causal_alibi_attention() {
  return attention_with("attention_causal_alibi", [](auto x, Memory<dims<M, K2>, f32>) {
    auto causal = additive(apply_expr(key_at() - query_at(), [](auto d) { return d <= 0; }));
    auto distance = abs(cast<f32>(query_at()) - cast<f32>(key_at()));
    auto slope = exp2(cast<f32>(self_index<H, i64>()) * -1.0 - 1.0);  // [H]
    return (x + broadcast<dims<B, H, M, K2>>(causal)) -
           broadcast<dims<B, H, M, K2>>(distance) * broadcast<dims<B, H, M, K2>>(slope) * kLog2e;
  });
}

}  // namespace attention_tests
