// Flash attention forward, [B, H, S, D] layout: O = softmax(Q K^T * scale [+ causal mask]) V,
// computed in one pass over the keys with an online softmax (running max and sum, base-2
// exponentials), as the seeds write it.
//
// Dims: B batch, H heads, M query positions, K2 key positions, K1 the q/k head dim, N the
// v/o head dim. Each workgroup owns BLOCK_M queries of one (batch, head), each wave
// BLOCK_M / WAVES of them; the loop walks the keys BLOCK_K2 at a time.
#pragma once

#include <cmath>

#include <wave/wave.hpp>

namespace examples::flash_attention {
using namespace wave;

WAVE_SYMBOL(B);
WAVE_SYMBOL(H);
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K1);
WAVE_SYMBOL(K2);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_K2);

struct Variant {
  int head_dim = 128;  // sets the softmax scale 1/sqrt(head_dim), folded with log2(e) for exp2
  bool causal = false;  // query m sees keys k <= m (top-left aligned, as torch's is_causal)
  int waves = 8;        // waves per workgroup, each BLOCK_M / waves queries
};

// The kernel body, apart from its schedule (decode attention reuses it): `scale` is the
// softmax scale with log2(e) folded in; `Out` the output's dtype (f32 or f16). `Staged`:
// whether Q, K and V go through shared memory (SHARED_ADDRESS_SPACE, as the seeds write
// it: the waves of a workgroup share each K and V tile) or are read from global memory
// straight into registers.
template <class Out, AddressSpace Staged = SHARED_ADDRESS_SPACE>
auto attention_body(double scale, bool causal) {
  return [scale, causal](Memory<dims<B, H, M, K1>, f16, Staged> q, Memory<dims<B, H, K2, K1>, f16, Staged> k,
                         Memory<dims<B, H, K2, N>, f16, Staged> v, Memory<dims<B, H, M, N>, Out> out) {
    Register<dims<B, H, N, M>, f32> acc0(0.0);
    Register<dims<B, H, M>, f32> sum0(0.0);
    Register<dims<B, H, M>, f32> max0(-1e6);

    auto [res_max, res_sum, res_acc] = iterate<K2>(
        std::tuple{max0, sum0, acc0}, [&](auto partial_max, auto partial_sum, auto acc) {
          Register<dims<B, H, K2, M>, f32> zero_scores(0.0);
          auto scores = mma(read(k), read(q), zero_scores);       // [B, H, K2, M]
          auto x_j = permute<dims<B, H, M, K2>>(scores) * scale;  // log2-scaled logits

          // Keys past the end of K2 (the last, partial tile) get -inf-like scores.
          auto k2_index = self_index<K2, i32>();
          auto in_bounds = apply_expr(k2_index, [](auto j) { return j < K2; });
          auto mask = cast<i1>(broadcast<dims<M, K2>>(in_bounds));
          Register<dims<M, K2>, f32> zero(0.0), min_inf(-1e6);
          x_j = x_j + select(mask, zero, min_inf);
          if (causal) {  // and so do keys after the query
            auto m_at = broadcast<dims<M, K2>>(self_index<M, i32>());
            auto k_at = broadcast<dims<M, K2>>(self_index<K2, i32>());
            auto visible = apply_expr(k_at - m_at, [](auto d) { return d <= 0; });
            x_j = x_j + select(cast<i1>(visible), zero, min_inf);
          }

          auto m_j = max<K2>(x_j, partial_max);
          auto e_delta_max = exp2(partial_max - m_j);
          auto e_delta = exp2(x_j - m_j);
          auto d_j = sum<K2>(e_delta, partial_sum * e_delta_max);
          auto p = cast<f16>(e_delta);                            // [B, H, M, K2]
          auto next = mma(read(v), p, acc * e_delta_max);         // [B, H, N, M]
          return std::tuple{m_j, d_j, next};
        });
    write(cast<Out>(res_acc * reciprocal(res_sum)), out);
  };
}

// 1/sqrt(head_dim), with log2(e) folded in for exp2.
inline double softmax_scale(int head_dim) { return 1.0 / std::sqrt(static_cast<double>(head_dim)) * M_LOG2E; }

template <class Out = f32>
auto make_kernel(Variant variant = {}) {
  return kernel(variant.causal ? "flash_attention_causal" : "flash_attention",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(H, 1, 1),
                            WorkgroupConstraint(B, 1, 2), TilingConstraint(K2, BLOCK_K2),
                            WaveConstraint(M, BLOCK_M / variant.waves),
                            HardwareConstraint{.vector_shapes = {{B, 0}, {H, 0}}}},
                attention_body<Out>(softmax_scale(variant.head_dim), variant.causal));
}

// The fastest schedule measured for this shape: 128 queries by 128 keys per step on 8 waves,
// a producer warpgroup issuing the TMA copies, each step's P V running during the next
// step's softmax (overlap_mma, on by default): 518 TFLOP/s with an f16 output on an H100,
// 0.90x SDPA's cuDNN back end; the software pipeline over 128 x 64 reached 379
// (bench/RESULTS.md, runs 131-132).
inline CompileOptions default_options() {
  return {.subs = {{B, 4}, {H, 16}, {M, 4096}, {K2, 4096}, {K1, 128}, {N, 128},
                   {BLOCK_M, 128}, {BLOCK_K2, 128}},
          .warp_specialize = true};
}

}  // namespace examples::flash_attention
