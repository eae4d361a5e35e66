// Extend and tree attention on the host in float64 (kernels/extend_attention.hpp): each new
// token's query row against its sequence's prefix in the paged cache and the new tokens it
// sees (those up to it, or its ancestors in the draft tree).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "attention_reference.hpp"
#include "host_half.hpp"
#include "kernels/extend_attention.hpp"

namespace examples::host {

// The new tokens' [T, H, D] queries and [T, HKV, D] keys and values, and a cache of
// `pages` pages [pages, PAGE, HKV, D] (f16 bits) holding every sequence's prefix in
// shuffled pages, a few of them named by no table entry; block_table [B, MAXP], -1 where
// a sequence has no page. With a tree_mask [B, W, W] (W the longest new length; nonzero:
// visible), the new tokens see what it says instead of those up to them.
struct ExtendInputs {
  extend_attention::Shape shape;
  int pages = 0;
  std::vector<std::uint16_t> q, k, v, k_cache, v_cache;
  std::vector<std::int32_t> block_table;
  std::vector<std::int8_t> tree_mask;
  // Whether new token `row` of sequence `s` sees new token `j` of it.
  bool sees(int s, int row, int j) const {
    if (tree_mask.empty()) return j <= row;
    const std::size_t w = static_cast<std::size_t>(extend_attention::Shape::longest(shape.extend_lens));
    return tree_mask[(std::size_t(s) * w + std::size_t(row)) * w + std::size_t(j)] != 0;
  }
};

inline ExtendInputs random_extend(const extend_attention::Shape& shape, std::mt19937& rng) {
  ExtendInputs in{shape, 3, {}, {}, {}, {}, {}, {}};
  const int max_pages = shape.max_pages(), b = shape.sequences();
  for (int len : shape.prefix_lens) in.pages += (len + shape.page - 1) / shape.page;
  std::vector<std::int32_t> order(static_cast<std::size_t>(in.pages));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  in.block_table.assign(std::size_t(b) * max_pages, -1);
  std::size_t next = 0;
  for (int s = 0; s < b; ++s)
    for (int p = 0; p < (shape.prefix_lens[std::size_t(s)] + shape.page - 1) / shape.page; ++p)
      in.block_table[std::size_t(s) * max_pages + p] = order[next++];
  const std::size_t rows = static_cast<std::size_t>(shape.rows()), d = static_cast<std::size_t>(shape.head_dim);
  const std::size_t slots = std::size_t(in.pages) * shape.page;
  in.q.resize(rows * shape.heads * d);
  in.k.resize(rows * shape.kv_heads * d);
  in.v.resize(rows * shape.kv_heads * d);
  in.k_cache.resize(slots * shape.kv_heads * d);
  in.v_cache.resize(slots * shape.kv_heads * d);
  for (auto* t : {&in.q, &in.k, &in.v, &in.k_cache, &in.v_cache})
    for (auto& x : *t) x = random_half(rng);
  return in;
}

// random_extend's inputs with each sequence's new tokens a random draft tree (token 0 the
// root, token i's parent one of 0 .. i - 1): token i sees its ancestors and itself. Entries
// past a sequence's new tokens are 1, so that a kernel reading past the end shows.
inline ExtendInputs random_tree(const extend_attention::Shape& shape, std::mt19937& rng) {
  ExtendInputs in = random_extend(shape, rng);
  const int w = extend_attention::Shape::longest(shape.extend_lens);
  in.tree_mask.assign(std::size_t(shape.sequences()) * w * w, 1);
  for (int s = 0; s < shape.sequences(); ++s) {
    const int n = shape.extend_lens[std::size_t(s)];
    std::vector<int> parent(static_cast<std::size_t>(n), -1);
    for (int i = 1; i < n; ++i) parent[std::size_t(i)] = std::uniform_int_distribution<int>(0, i - 1)(rng);
    for (int i = 0; i < n; ++i) {
      std::int8_t* row = &in.tree_mask[(std::size_t(s) * w + std::size_t(i)) * w];
      std::fill(row, row + n, std::int8_t{0});
      for (int a = i; a >= 0; a = parent[std::size_t(a)]) row[a] = 1;
    }
  }
  return in;
}

// New token `row` of sequence `s` (its first new token packed at `first`) under head `h`,
// soft-capped at `cap` where cap > 0.
inline AttentionRow extend_row(const ExtendInputs& in, int s, int first, int row, int h, double cap = 0) {
  const auto& shape = in.shape;
  const int d = shape.head_dim, kvh = h / (shape.heads / shape.kv_heads);
  const int prefix = shape.prefix_lens[std::size_t(s)], keys = prefix + shape.extend_lens[std::size_t(s)];
  const double scale = 1.0 / std::sqrt(double(d));
  // Key j's (and value j's) first element: the prefix's through the block table, then the
  // new tokens'.
  auto key_at = [&](int j, const std::vector<std::uint16_t>& cache, const std::vector<std::uint16_t>& fresh) {
    if (j < prefix) {
      const std::int32_t page = in.block_table[std::size_t(s) * shape.max_pages() + j / shape.page];
      return &cache[((std::size_t(page) * shape.page + j % shape.page) * shape.kv_heads + kvh) * d];
    }
    return &fresh[(std::size_t(first + j - prefix) * shape.kv_heads + kvh) * d];
  };
  const std::uint16_t* query = &in.q[(std::size_t(first + row) * shape.heads + h) * d];
  std::vector<double> p(static_cast<std::size_t>(keys), -INFINITY);
  double top = -INFINITY;
  for (int j = 0; j < keys; ++j) {
    if (j >= prefix && !in.sees(s, row, j - prefix)) continue;
    const std::uint16_t* key = key_at(j, in.k_cache, in.k);
    double dot = 0;
    for (int x = 0; x < d; ++x) dot += double(half_to_float(query[x])) * half_to_float(key[x]);
    dot *= scale;
    if (cap > 0) dot = cap * std::tanh(dot / cap);
    p[std::size_t(j)] = dot;
    top = std::max(top, dot);
  }
  double total = 0;
  for (double& x : p) total += (x = std::exp(x - top));
  AttentionRow out{std::vector<double>(std::size_t(d), 0.0), std::vector<double>(std::size_t(d), 0.0)};
  for (int j = 0; j < keys; ++j) {
    if (p[std::size_t(j)] == 0) continue;  // (unseen: exp(-inf))
    const std::uint16_t* value = key_at(j, in.v_cache, in.v);
    for (int c = 0; c < d; ++c) {
      const double pv = p[std::size_t(j)] / total * half_to_float(value[c]);
      out.out[std::size_t(c)] += pv;
      out.magnitude[std::size_t(c)] += std::abs(pv);
    }
  }
  return out;
}

// How many elements of `out` ([rows, H, D], f16 bits or f32) differ from the reference
// (beyond the f16 roundings), or are written in the padding rows (which must keep `poison`).
template <class Element, class Decode>
std::size_t extend_mismatches(const ExtendInputs& in, const std::vector<Element>& out, Decode decode, bool f16_out,
                              Element poison, double cap = 0, std::size_t report = 5) {
  const std::vector<std::int32_t> cu = in.shape.offsets();
  return packed_mismatches(cu, in.shape.heads, in.shape.head_dim, out, decode, f16_out, poison,
                           [&](int s, int row, int h) { return extend_row(in, s, cu[std::size_t(s)], row, h, cap); },
                           report);
}

}  // namespace examples::host
