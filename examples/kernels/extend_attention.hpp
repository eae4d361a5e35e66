// Extend attention, as an LLM server's prefill runs it on a batch whose sequences already
// hold tokens in the paged KV cache (a chat's earlier turns, a shared system prompt): the
// new ("extend") tokens of several sequences, packed [T, H, D] one sequence after another,
// each attending to all of its sequence's prefix in the cache and causally to the new
// tokens before it, as SGLang's extend attention does.
//
// Inputs: the new tokens' queries, keys and values ([T, H, D] and [T, HKV, D]); the cache
// in pages of PAGE tokens, [PAGES, PAGE, HKV, D] (vLLM's layout), a sequence's prefix
// token t living in page block_table[b, t / PAGE], slot t % PAGE; qo_offsets [B + 1]
// (sequence b's new tokens are qo_offsets[b] .. qo_offsets[b + 1] - 1) and prefix_lens [B].
//
// A workgroup computes BLOCK_M new queries of one (sequence, head): a first loop walks the
// prefix's keys through the block table (every one visible), a second the sequence's new
// keys under the causal mask, carrying the first's running maximum, sum and output. M and
// K2 (a new token's position among its sequence's new ones) and KP (a prefix position) are
// launched at the longest and end at each sequence's own (set_symbol), so the loops walk
// only the sequence's tiles and no row past its end is read or written.
//
// Tree attention, speculative decoding's verification step, is the same kernel with the
// new tokens a draft tree per request: instead of the causal mask, a tensor
// tree_mask [B, M, K2] says which draft tokens each one sees (its ancestors and itself).
//
// Bad input: a prefix length past MAXP * PAGE (KP's launch size) or a new-token count past
// the longest launched ends there (set_symbol clamps); a negative one counts as 0. Block
// table entries are read as they are for the prefix's positions only: one naming no page
// of the cache reads outside it (nothing checks the table's contents on the device).
//
// Dims: B sequences (B1 = B + 1 offsets), T packed new tokens, H query heads, HKV kv heads
// (G = H / HKV), K1 the q/k head dim, N the v head dim, MAXP the block table's pages per
// sequence.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include <wave/wave.hpp>

namespace examples::extend_attention {
using namespace wave;

WAVE_SYMBOL(B);
WAVE_SYMBOL(B1);
WAVE_SYMBOL(T);
WAVE_SYMBOL(H);
WAVE_SYMBOL(HKV);
WAVE_SYMBOL(G);
WAVE_SYMBOL(M);
WAVE_SYMBOL(K2);
WAVE_SYMBOL(KP);
WAVE_SYMBOL(K1);
WAVE_SYMBOL(N);
WAVE_SYMBOL(PAGES);
WAVE_SYMBOL(PAGE);
WAVE_SYMBOL(MAXP);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_K2);

struct Variant {
  int head_dim = 128;     // sets the softmax scale 1/sqrt(head_dim)
  int waves = 4;          // waves per workgroup, each BLOCK_M / waves queries
  double logit_cap = 0;   // > 0: scores become cap * tanh(score / cap) (Gemma's, Grok's soft cap)
};

// The attention of one workgroup's new queries: the prefix's keys through the block table,
// then the new tokens' keys, where `visible(x)` hides the scores x [B, H, M, K2] a query
// must not see (k > m under the causal mask, a draft tree's edges for tree attention).
template <class Out, class Visible>
void attend(double scale, double cap, Memory<dims<T, H, K1>, f16, SHARED_ADDRESS_SPACE> q,
            Memory<dims<T, HKV, K1>, f16, SHARED_ADDRESS_SPACE> k, Memory<dims<T, HKV, N>, f16, SHARED_ADDRESS_SPACE> v,
            Memory<dims<PAGES, PAGE, HKV, K1>, f16, SHARED_ADDRESS_SPACE> k_cache,
            Memory<dims<PAGES, PAGE, HKV, N>, f16, SHARED_ADDRESS_SPACE> v_cache, Memory<dims<B, MAXP>, i32> block_table,
            Memory<dims<B1>, i32> qo_offsets, Memory<dims<B>, i32> prefix_lens, Memory<dims<T, H, N>, Out> out,
            Visible visible) {
  constexpr auto b = iterator(0), h = iterator(1), row = iterator(2), d = iterator(3);
  const IndexMapping<dims<B>> first_token{.inputs = {{B1, b}}, .outputs = {{B, b}}};
  const IndexMapping<dims<B>> end_token{.inputs = {{B1, b + 1}}, .outputs = {{B, b}}};
  // New token `row` of a sequence is packed row start + row (the dynamic value).
  const IndexMapping<dims<B, H, M, K1>> q_rows{.inputs = {{T, dynamic_val(0) + row}, {H, h}, {K1, d}},
                                               .outputs = {{B, b}, {H, h}, {M, row}, {K1, d}}};
  const IndexMapping<dims<B, H, K2, K1>> k_rows{.inputs = {{T, dynamic_val(0) + row}, {HKV, h / G}, {K1, d}},
                                                .outputs = {{B, b}, {H, h}, {K2, row}, {K1, d}}};
  const IndexMapping<dims<B, H, K2, N>> v_rows{.inputs = {{T, dynamic_val(0) + row}, {HKV, h / G}, {N, d}},
                                               .outputs = {{B, b}, {H, h}, {K2, row}, {N, d}}};
  // Prefix key `row`: its page from the block table (the dynamic value), its slot in it.
  constexpr auto t_b = iterator(0), t_kp = iterator(1);
  const IndexMapping<dims<B, KP>> table_entry{.inputs = {{B, t_b}, {MAXP, floordiv(t_kp, PAGE)}},
                                              .outputs = {{B, t_b}, {KP, t_kp}}};
  const IndexMapping<dims<B, H, KP, K1>> k_slot{
      .inputs = {{PAGES, dynamic_val(0)}, {PAGE, row % PAGE}, {HKV, h / G}, {K1, d}},
      .outputs = {{B, b}, {H, h}, {KP, row}, {K1, d}}};
  const IndexMapping<dims<B, H, KP, N>> v_slot{
      .inputs = {{PAGES, dynamic_val(0)}, {PAGE, row % PAGE}, {HKV, h / G}, {N, d}},
      .outputs = {{B, b}, {H, h}, {KP, row}, {N, d}}};
  constexpr auto n = iterator(2), m = iterator(3);
  const IndexMapping<dims<B, H, N, M>> out_rows{.inputs = {{B, b}, {H, h}, {N, n}, {M, m}},
                                                .outputs = {{T, dynamic_val(0) + m}, {H, h}, {N, n}}};

  auto start = read(qo_offsets, first_token);  // [B]
  auto length = read(qo_offsets, end_token) - start;
  set_symbol<M>(length);
  set_symbol<K2>(length);
  set_symbol<KP>(read(prefix_lens));

  // Scores in base-2 units, soft-capped first where asked.
  auto logits = [&](auto scores) {
    if (cap > 0) scores = tanh(scores * (scale / cap)) * (cap * M_LOG2E);
    else scores = scores * (scale * M_LOG2E);
    return scores;
  };

  Register<dims<B, H, N, M>, f32> acc0(0.0);
  Register<dims<B, H, M>, f32> sum0(0.0);
  Register<dims<B, H, M>, f32> max0(-1e6);
  // The prefix: every key visible. Keys past the prefix's end are none of the tile's.
  auto [prefix_max, prefix_sum, prefix_acc] = iterate<KP>(
      std::tuple{max0, sum0, acc0}, [&](auto partial_max, auto partial_sum, auto acc) {
        auto queries = read(q, q_rows.with_values(start));
        auto pages = read(block_table, table_entry);  // [B, KP]
        Register<dims<B, H, KP, M>, f32> zero_scores(0.0);
        auto scores = mma(read(k_cache, k_slot.with_values(pages)), queries, zero_scores);  // [B, H, KP, M]
        auto x = logits(permute<dims<B, H, M, KP>>(scores));
        auto m_j = max<KP>(x, partial_max);
        auto rescale = exp2(partial_max - m_j);
        auto e = exp2(x - m_j);
        auto l = sum<KP>(e, partial_sum * rescale);
        auto next = mma(read(v_cache, v_slot.with_values(pages)), cast<f16>(e), acc * rescale);  // [B, H, N, M]
        return std::tuple{m_j, l, next};
      });
  // The new tokens: the keys `visible` leaves each query.
  auto [res_max, res_sum, res_acc] = iterate<K2>(
      std::tuple{prefix_max, prefix_sum, prefix_acc}, [&](auto partial_max, auto partial_sum, auto acc) {
        auto queries = read(q, q_rows.with_values(start));
        Register<dims<B, H, K2, M>, f32> zero_scores(0.0);
        auto scores = mma(read(k, k_rows.with_values(start)), queries, zero_scores);  // [B, H, K2, M]
        auto x = logits(permute<dims<B, H, M, K2>>(scores));
        x = visible(x);
        auto m_j = max<K2>(x, partial_max);
        auto rescale = exp2(partial_max - m_j);
        auto e = exp2(x - m_j);
        auto l = sum<K2>(e, partial_sum * rescale);
        auto next = mma(read(v, v_rows.with_values(start)), cast<f16>(e), acc * rescale);  // [B, H, N, M]
        return std::tuple{m_j, l, next};
      });
  write(cast<Out>(res_acc * reciprocal(res_sum)), out, out_rows.with_values(start));
}

// Extend attention: each new token sees the prefix and the new tokens up to itself.
template <class Out>
auto extend_body(Variant variant) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(variant.head_dim)), cap = variant.logit_cap;
  return [scale, cap](Memory<dims<T, H, K1>, f16, SHARED_ADDRESS_SPACE> q,
                      Memory<dims<T, HKV, K1>, f16, SHARED_ADDRESS_SPACE> k,
                      Memory<dims<T, HKV, N>, f16, SHARED_ADDRESS_SPACE> v,
                      Memory<dims<PAGES, PAGE, HKV, K1>, f16, SHARED_ADDRESS_SPACE> k_cache,
                      Memory<dims<PAGES, PAGE, HKV, N>, f16, SHARED_ADDRESS_SPACE> v_cache,
                      Memory<dims<B, MAXP>, i32> block_table, Memory<dims<B1>, i32> qo_offsets,
                      Memory<dims<B>, i32> prefix_lens, Memory<dims<T, H, N>, Out> out) {
    attend<Out>(scale, cap, q, k, v, k_cache, v_cache, block_table, qo_offsets, prefix_lens, out, [](auto x) {
      auto m_at = broadcast<dims<M, K2>>(self_index<M, i64>());
      auto k_at = broadcast<dims<M, K2>>(self_index<K2, i64>());
      auto causal = apply_expr(k_at - m_at, [](auto delta) { return delta <= 0; });
      Register<dims<M, K2>, f32> zero(0.0), hidden(-1e6);
      return x + select(cast<i1>(causal), zero, hidden);
    });
  };
}

// Tree attention (speculative decoding's verification): the new tokens are a draft tree
// of each request, and draft token m sees draft token k where tree_mask[b, m, k] is
// nonzero (its ancestors and itself), besides the whole prefix.
template <class Out>
auto tree_body(Variant variant) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(variant.head_dim)), cap = variant.logit_cap;
  return [scale, cap](Memory<dims<T, H, K1>, f16, SHARED_ADDRESS_SPACE> q,
                      Memory<dims<T, HKV, K1>, f16, SHARED_ADDRESS_SPACE> k,
                      Memory<dims<T, HKV, N>, f16, SHARED_ADDRESS_SPACE> v,
                      Memory<dims<PAGES, PAGE, HKV, K1>, f16, SHARED_ADDRESS_SPACE> k_cache,
                      Memory<dims<PAGES, PAGE, HKV, N>, f16, SHARED_ADDRESS_SPACE> v_cache,
                      Memory<dims<B, MAXP>, i32> block_table, Memory<dims<B1>, i32> qo_offsets,
                      Memory<dims<B>, i32> prefix_lens, Memory<dims<B, M, K2>, i8> tree_mask,
                      Memory<dims<T, H, N>, Out> out) {
    attend<Out>(scale, cap, q, k, v, k_cache, v_cache, block_table, qo_offsets, prefix_lens, out, [&](auto x) {
      Register<dims<B, M, K2>, f32> zero(0.0), hidden(-1e6);
      return x + select(cast<i1>(read(tree_mask)), zero, hidden);
    });
  };
}

inline Constraints constraints(const Variant& variant) {
  return {WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(H, 1, 1), WorkgroupConstraint(B, 1, 2),
          TilingConstraint(K2, BLOCK_K2), TilingConstraint(KP, BLOCK_K2), WaveConstraint(M, BLOCK_M / variant.waves),
          HardwareConstraint{.vector_shapes = {{B, 0}, {H, 0}}}};
}

template <class Out = f16>
auto make_kernel(Variant variant = {}) {
  return kernel("extend_attention", constraints(variant), extend_body<Out>(variant));
}

// Tree attention's kernel takes tree_mask [B, M, K2] (i8) after prefix_lens.
template <class Out = f16>
auto make_tree_kernel(Variant variant = {}) {
  return kernel("tree_attention", constraints(variant), tree_body<Out>(variant));
}

// A batch: each sequence's prefix (tokens in the cache) and new tokens, heads, kv heads,
// the head dim, the cache's page size, and rows of the packed tensors past the last
// sequence's new tokens (none's).
struct Shape {
  std::vector<int> prefix_lens, extend_lens;
  int heads = 32, kv_heads = 8, head_dim = 128, page = 16, padding = 0;
  int sequences() const { return static_cast<int>(extend_lens.size()); }
  int tokens() const {
    int t = 0;
    for (int len : extend_lens) t += len;
    return t;
  }
  int rows() const { return tokens() + padding; }
  static int longest(const std::vector<int>& lens) {
    int most = 1;
    for (int len : lens) most = len > most ? len : most;
    return most;
  }
  int max_pages() const { return (longest(prefix_lens) + page - 1) / page; }
  // qo_offsets: each sequence's first new token, then the total.
  std::vector<std::int32_t> offsets() const {
    std::vector<std::int32_t> cu{0};
    for (int len : extend_lens) cu.push_back(cu.back() + len);
    return cu;
  }
};

// The cache's page count (PAGES) is given at launch.
inline std::vector<Sub> sizes(const Shape& s, int block_m = 128, int block_k2 = 64) {
  const int b = s.sequences(), longest = Shape::longest(s.extend_lens);
  return {{B, b},
          {B1, b + 1},
          {T, s.rows()},
          {H, s.heads},
          {HKV, s.kv_heads},
          {G, s.heads / s.kv_heads},
          {M, longest},
          {K2, longest},
          {KP, s.max_pages() * s.page},
          {K1, s.head_dim},
          {N, s.head_dim},
          {PAGE, s.page},
          {MAXP, s.max_pages()},
          {BLOCK_M, block_m},
          {BLOCK_K2, block_k2}};
}

}  // namespace examples::extend_attention
