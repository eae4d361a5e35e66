// Packed variable-length attention on the host in float64 (kernels/varlen_attention.hpp):
// each token's query row against the keys of its own sequence.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "attention_reference.hpp"
#include "host_half.hpp"
#include "kernels/varlen_attention.hpp"

namespace examples::host {

// [T, H, D] queries and [T, HKV, D] keys and values of f16 bits (T the shape's rows).
struct VarlenInputs {
  varlen_attention::Shape shape;
  bool causal = true;
  std::vector<std::uint16_t> q, k, v;
};

inline VarlenInputs random_varlen(const varlen_attention::Shape& shape, bool causal, std::mt19937& rng) {
  VarlenInputs in{shape, causal, {}, {}, {}};
  const std::size_t rows = static_cast<std::size_t>(shape.rows()), d = static_cast<std::size_t>(shape.head_dim);
  in.q.resize(rows * shape.heads * d);
  in.k.resize(rows * shape.kv_heads * d);
  in.v.resize(rows * shape.kv_heads * d);
  for (auto* t : {&in.q, &in.k, &in.v})
    for (auto& x : *t) x = random_half(rng);
  return in;
}

// Row `row` of the sequence of `length` tokens from token `first`, under head `h`.
inline AttentionRow varlen_row(const VarlenInputs& in, int first, int length, int row, int h) {
  const int d = in.shape.head_dim, kvh = h / (in.shape.heads / in.shape.kv_heads);
  const int keys = in.causal ? row + 1 : length;
  const double scale = 1.0 / std::sqrt(double(d));
  auto at = [&](int token, int heads, int head) { return (std::size_t(token) * heads + head) * d; };
  std::vector<double> s(static_cast<std::size_t>(keys));
  double top = -INFINITY;
  for (int j = 0; j < keys; ++j) {
    double dot = 0;
    for (int x = 0; x < d; ++x)
      dot += double(half_to_float(in.q[at(first + row, in.shape.heads, h) + x])) *
             half_to_float(in.k[at(first + j, in.shape.kv_heads, kvh) + x]);
    s[std::size_t(j)] = dot * scale;
    top = std::max(top, s[std::size_t(j)]);
  }
  double total = 0;
  for (double& x : s) total += (x = std::exp(x - top));
  AttentionRow out{std::vector<double>(std::size_t(d), 0.0), std::vector<double>(std::size_t(d), 0.0)};
  for (int j = 0; j < keys; ++j)
    for (int c = 0; c < d; ++c) {
      const double pv = s[std::size_t(j)] / total * half_to_float(in.v[at(first + j, in.shape.kv_heads, kvh) + c]);
      out.out[std::size_t(c)] += pv;
      out.magnitude[std::size_t(c)] += std::abs(pv);
    }
  return out;
}

// How many elements of `out` ([rows, H, D], f16 bits or f32) differ from the reference
// (beyond the f16 roundings), or are written in the padding rows (which must keep `poison`).
template <class Element, class Decode>
std::size_t varlen_mismatches(const VarlenInputs& in, const std::vector<Element>& out, Decode decode, bool f16_out,
                              Element poison, std::size_t report = 5) {
  const int d = in.shape.head_dim, heads = in.shape.heads;
  const std::vector<std::int32_t> cu = in.shape.offsets();
  std::size_t wrong = 0;
  for (std::size_t s = 0; s + 1 < cu.size(); ++s)
    for (int row = 0; row < cu[s + 1] - cu[s]; ++row)
      for (int h = 0; h < heads; ++h) {
        const AttentionRow want = varlen_row(in, cu[s], cu[s + 1] - cu[s], row, h);
        for (int c = 0; c < d; ++c) {
          const double got = decode(out[(std::size_t(cu[s] + row) * heads + h) * d + c]);
          if (!attention_close(got, want.out[std::size_t(c)], want.magnitude[std::size_t(c)], f16_out) &&
              wrong++ < report)
            std::fprintf(stderr, "sequence %zu row %d head %d [%d]: %g, expected %g\n", s, row, h, c, got,
                         want.out[std::size_t(c)]);
        }
      }
  for (std::size_t e = std::size_t(in.shape.tokens()) * heads * d; e < out.size(); ++e)
    if (std::memcmp(&out[e], &poison, sizeof(Element)) != 0 && wrong++ < report)
      std::fprintf(stderr, "padding element %zu written\n", e);
  return wrong;
}

}  // namespace examples::host
