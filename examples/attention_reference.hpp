// Attention on the host in float64, row by row, for the checks of the attention example,
// tests and benches: softmax(q k^T * scale [+ causal mask]) v for one query row.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <wave/compile.hpp>
#include <wave/runtime.hpp>

#include "host_half.hpp"
#include "run_on_device.hpp"

namespace examples::host {

// [B, H, S, D] tensors of f16 bits.
struct AttentionInputs {
  int b = 1, h = 1, m = 1, k2 = 1, d = 64, n = 64;
  bool causal = false;
  std::vector<std::uint16_t> q, k, v;

  std::size_t q_at(int bi, int hi, int mi, int di) const { return ((std::size_t(bi) * h + hi) * m + mi) * d + di; }
  std::size_t k_at(int bi, int hi, int ki, int di) const { return ((std::size_t(bi) * h + hi) * k2 + ki) * d + di; }
  std::size_t v_at(int bi, int hi, int ki, int ni) const { return ((std::size_t(bi) * h + hi) * k2 + ki) * n + ni; }
  std::size_t out_at(int bi, int hi, int mi, int ni) const { return ((std::size_t(bi) * h + hi) * m + mi) * n + ni; }
};

// Random f16 inputs of the given shape.
inline AttentionInputs random_attention(int b, int h, int m, int k2, int d, int n, bool causal, std::mt19937& rng) {
  AttentionInputs in{b, h, m, k2, d, n, causal, {}, {}, {}};
  in.q.resize(std::size_t(b) * h * m * d);
  in.k.resize(std::size_t(b) * h * k2 * d);
  in.v.resize(std::size_t(b) * h * k2 * n);
  for (auto* t : {&in.q, &in.k, &in.v})
    for (auto& x : *t) x = random_half(rng);
  return in;
}

// One output row, and for each element the sum of |p v| it is made of (what rounding the
// probabilities to f16 perturbs it by, relatively).
struct AttentionRow {
  std::vector<double> out, magnitude;
};

inline AttentionRow attention_row(const AttentionInputs& in, int bi, int hi, int mi) {
  const double scale = 1.0 / std::sqrt(double(in.d));
  const int keys = in.causal ? std::min(mi + 1, in.k2) : in.k2;
  std::vector<double> s(keys);
  double top = -INFINITY;
  for (int j = 0; j < keys; ++j) {
    double dot = 0;
    for (int x = 0; x < in.d; ++x)
      dot += double(half_to_float(in.q[in.q_at(bi, hi, mi, x)])) * half_to_float(in.k[in.k_at(bi, hi, j, x)]);
    s[j] = dot * scale;
    top = std::max(top, s[j]);
  }
  double total = 0;
  for (double& x : s) total += (x = std::exp(x - top));
  AttentionRow row{std::vector<double>(in.n, 0.0), std::vector<double>(in.n, 0.0)};
  for (int j = 0; j < keys; ++j)
    for (int c = 0; c < in.n; ++c) {
      const double pv = s[j] / total * half_to_float(in.v[in.v_at(bi, hi, j, c)]);
      row.out[c] += pv;
      row.magnitude[c] += std::abs(pv);
    }
  return row;
}

// Whether `got` is the reference within the f16 rounding of the probabilities (and of the
// output where it is f16).
inline bool attention_close(double got, double want, double magnitude, bool f16_out) {
  return std::abs(got - want) <= 2e-3 * magnitude + (f16_out ? 1e-3 * std::abs(want) : 0.0) + 1e-6;
}

// How many elements of `out` ([rows, H, D] of sequences packed one after another, token
// cu[s] .. cu[s + 1] - 1 for sequence s; f16 bits or f32) differ from `want(s, row, h)`
// (an AttentionRow) beyond the f16 roundings, or are written past the last sequence's
// rows (which must keep `poison`). Prints the first `report`.
template <class Element, class Decode, class Want>
std::size_t packed_mismatches(const std::vector<std::int32_t>& cu, int heads, int d, const std::vector<Element>& out,
                              Decode decode, bool f16_out, Element poison, Want want, std::size_t report = 5) {
  std::size_t wrong = 0;
  for (std::size_t s = 0; s + 1 < cu.size(); ++s)
    for (int row = 0; row < cu[s + 1] - cu[s]; ++row)
      for (int h = 0; h < heads; ++h) {
        const AttentionRow expected = want(static_cast<int>(s), row, h);
        for (int c = 0; c < d; ++c) {
          const double got = decode(out[(std::size_t(cu[s] + row) * heads + h) * d + c]);
          if (!attention_close(got, expected.out[std::size_t(c)], expected.magnitude[std::size_t(c)], f16_out) &&
              wrong++ < report)
            std::fprintf(stderr, "sequence %zu row %d head %d [%d]: %g, expected %g\n", s, row, h, c, got,
                         expected.out[std::size_t(c)]);
        }
      }
  for (std::size_t e = std::size_t(cu.back()) * heads * d; e < out.size(); ++e)
    if (std::memcmp(&out[e], &poison, sizeof(Element)) != 0 && wrong++ < report)
      std::fprintf(stderr, "padding element %zu written\n", e);
  return wrong;
}

// Runs `attention` on `in` on the device; returns its f32 output, poisoned (NaN) first so
// unwritten elements show.
inline std::vector<float> run_attention(const wave::CompiledKernel& attention, const AttentionInputs& in) {
  std::vector<float> out = poisoned<float>(std::size_t(in.b) * in.h * in.m * in.n);
  run_on_device(attention, {}, in.q, in.k, in.v, out);
  return out;
}

}  // namespace examples::host
