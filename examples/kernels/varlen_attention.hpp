// Variable-length (packed) prefill attention, as flash-attn's varlen entry point and an LLM
// server's prefill take it: the tokens of several sequences of different lengths packed
// one after another, [T, H, D], and cu_seqlens [B + 1] where sequence b holds tokens
// cu_seqlens[b] .. cu_seqlens[b + 1] - 1. Each sequence attends to itself only, causally
// or not; query heads grouped over fewer kv heads (GQA) read kv head h / G.
//
// A workgroup computes BLOCK_M queries of one (sequence, head). M and K2, a query's and a
// key's position in its sequence, are launched at the longest sequence's length and end
// at the sequence's own (set_symbol): the key loop walks only the sequence's tiles, and
// no row past its end is read or written (the next sequence's rows stay untouched). The
// sequence's first token (a value read from cu_seqlens) offsets every row through the
// mappings' dynamic value.
//
// Dims: B sequences (B1 = B + 1 offsets), T packed tokens, H query heads, HKV kv heads
// (G = H / HKV), M and K2 positions in a sequence, K1 the q/k head dim, N the v head dim.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include <wave/wave.hpp>

namespace examples::varlen_attention {
using namespace wave;

WAVE_SYMBOL(B);
WAVE_SYMBOL(B1);
WAVE_SYMBOL(T);
WAVE_SYMBOL(H);
WAVE_SYMBOL(HKV);
WAVE_SYMBOL(G);
WAVE_SYMBOL(M);
WAVE_SYMBOL(K2);
WAVE_SYMBOL(K1);
WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_K2);

struct Variant {
  int head_dim = 128;   // sets the softmax scale 1/sqrt(head_dim)
  bool causal = true;   // query m sees keys k <= m of its sequence
  int waves = 4;        // waves per workgroup, each BLOCK_M / waves queries
};

template <class Out>
auto varlen_body(Variant variant) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(variant.head_dim)) * M_LOG2E;
  const bool causal = variant.causal;
  return [scale, causal](Memory<dims<T, H, K1>, f16, SHARED_ADDRESS_SPACE> q,
                         Memory<dims<T, HKV, K1>, f16, SHARED_ADDRESS_SPACE> k,
                         Memory<dims<T, HKV, N>, f16, SHARED_ADDRESS_SPACE> v, Memory<dims<B1>, i32> cu_seqlens,
                         Memory<dims<T, H, N>, Out> out) {
    constexpr auto b = iterator(0), h = iterator(1), row = iterator(2), d = iterator(3);
    const IndexMapping<dims<B>> first_token{.inputs = {{B1, b}}, .outputs = {{B, b}}};
    const IndexMapping<dims<B>> end_token{.inputs = {{B1, b + 1}}, .outputs = {{B, b}}};
    // Row `row` of a sequence is token start + row (the dynamic value) of the packed tensors.
    const IndexMapping<dims<B, H, M, K1>> q_rows{.inputs = {{T, dynamic_val(0) + row}, {H, h}, {K1, d}},
                                                 .outputs = {{B, b}, {H, h}, {M, row}, {K1, d}}};
    const IndexMapping<dims<B, H, K2, K1>> k_rows{.inputs = {{T, dynamic_val(0) + row}, {HKV, h / G}, {K1, d}},
                                                  .outputs = {{B, b}, {H, h}, {K2, row}, {K1, d}}};
    const IndexMapping<dims<B, H, K2, N>> v_rows{.inputs = {{T, dynamic_val(0) + row}, {HKV, h / G}, {N, d}},
                                                 .outputs = {{B, b}, {H, h}, {K2, row}, {N, d}}};
    constexpr auto n = iterator(2), m = iterator(3);
    const IndexMapping<dims<B, H, N, M>> out_rows{.inputs = {{B, b}, {H, h}, {N, n}, {M, m}},
                                                  .outputs = {{T, dynamic_val(0) + m}, {H, h}, {N, n}}};

    auto start = read(cu_seqlens, first_token);  // [B]
    auto length = read(cu_seqlens, end_token) - start;
    set_symbol<M>(length);
    set_symbol<K2>(length);

    Register<dims<B, H, N, M>, f32> acc0(0.0);
    Register<dims<B, H, M>, f32> sum0(0.0);
    Register<dims<B, H, M>, f32> max0(-1e6);
    auto [res_max, res_sum, res_acc] = iterate<K2>(
        std::tuple{max0, sum0, acc0}, [&](auto partial_max, auto partial_sum, auto acc) {
          // The queries are read beside each key tile, as flash attention reads them: the
          // compiler stages them in shared memory once, before the loop, where wgmma reads
          // them.
          auto queries = read(q, q_rows.with_values(start));
          Register<dims<B, H, K2, M>, f32> zero_scores(0.0);
          auto scores = mma(read(k, k_rows.with_values(start)), queries, zero_scores);  // [B, H, K2, M]
          auto x = permute<dims<B, H, M, K2>>(scores) * scale;
          // Keys past the sequence's end are none of the tile's (reductions and products
          // leave them out); under the causal mask, keys after the query are hidden.
          if (causal) {
            auto m_at = broadcast<dims<M, K2>>(self_index<M, i64>());
            auto k_at = broadcast<dims<M, K2>>(self_index<K2, i64>());
            auto visible = apply_expr(k_at - m_at, [](auto delta) { return delta <= 0; });
            Register<dims<M, K2>, f32> zero(0.0), hidden(-1e6);
            x = x + select(cast<i1>(visible), zero, hidden);
          }
          auto m_j = max<K2>(x, partial_max);
          auto rescale = exp2(partial_max - m_j);
          auto e = exp2(x - m_j);
          auto l = sum<K2>(e, partial_sum * rescale);
          auto next = mma(read(v, v_rows.with_values(start)), cast<f16>(e), acc * rescale);  // [B, H, N, M]
          return std::tuple{m_j, l, next};
        });
    write(cast<Out>(res_acc * reciprocal(res_sum)), out, out_rows.with_values(start));
  };
}

template <class Out = f16>
auto make_kernel(Variant variant = {}) {
  return kernel(variant.causal ? "varlen_attention_causal" : "varlen_attention",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(H, 1, 1),
                            WorkgroupConstraint(B, 1, 2), TilingConstraint(K2, BLOCK_K2),
                            WaveConstraint(M, BLOCK_M / variant.waves),
                            HardwareConstraint{.vector_shapes = {{B, 0}, {H, 0}}}},
                varlen_body<Out>(variant));
}

// A batch: the sequences' lengths, heads and kv heads, the head dim, and rows of the
// packed tensors past the last sequence's tokens (none's).
struct Shape {
  std::vector<int> lengths;
  int heads = 32, kv_heads = 8, head_dim = 128, padding = 0;
  int rows() const { return tokens() + padding; }
  int tokens() const {
    int t = 0;
    for (int len : lengths) t += len;
    return t;
  }
  int longest() const {
    int most = 1;
    for (int len : lengths) most = len > most ? len : most;
    return most;
  }
  // cu_seqlens: each sequence's first token, then the total.
  std::vector<std::int32_t> offsets() const {
    std::vector<std::int32_t> cu{0};
    for (int len : lengths) cu.push_back(cu.back() + len);
    return cu;
  }
};

inline std::vector<Sub> sizes(const Shape& s, int block_m = 128, int block_k2 = 64) {
  const int b = static_cast<int>(s.lengths.size());
  return {{B, b},           {B1, b + 1},          {T, s.rows()},       {H, s.heads},
          {HKV, s.kv_heads}, {G, s.heads / s.kv_heads}, {M, s.longest()}, {K2, s.longest()},
          {K1, s.head_dim}, {N, s.head_dim},       {BLOCK_M, block_m},    {BLOCK_K2, block_k2}};
}

}  // namespace examples::varlen_attention
