// Packed variable-length attention on the host in float64 (kernels/varlen_attention.hpp):
// each token's query row against the keys of its own sequence.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
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
  const std::vector<std::int32_t> cu = in.shape.offsets();
  return packed_mismatches(cu, in.shape.heads, in.shape.head_dim, out, decode, f16_out, poison,
                           [&](int s, int row, int h) {
                             return varlen_row(in, cu[std::size_t(s)], cu[std::size_t(s) + 1] - cu[std::size_t(s)],
                                               row, h);
                           },
                           report);
}

}  // namespace examples::host
