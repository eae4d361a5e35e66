// The attention kernel with modified and masked scores that attention_variants_test and
// attention_masks_test write (q, k, v and a score bias [M, K2] in, f32 out), and its
// float64 reference: random inputs (normal or the examples' halves), the kernel run at a
// shape and tiling, and every output element compared with softmax(score(q k^T /
// sqrt(D))) v.
//
// Tolerance (attention_close): 2e-3 of the sum of |p v| that an output element is made
// of. The probabilities are rounded to f16 before the second mma (2^-11 relative each),
// the row sum and scores are f32: about four f16 rounding errors, whatever the inputs.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "attention_reference.hpp"
#include "attention_schedule.hpp"
#include "fixtures/device_run.hpp"

namespace attention_tests {

using examples::host::AttentionInputs;
using examples::host::half_to_float;

using Scores = Register<dims<B, H, M, K2>, f32>;
using Mask = Register<dims<M, K2>, f32>;

// The keys' and queries' own indices over [M, K2], as a mask is written from them.
inline auto key_at() { return broadcast<dims<M, K2>>(self_index<K2, i64>()); }
inline auto query_at() { return broadcast<dims<M, K2>>(self_index<M, i64>()); }

// 0 where `visible`, -1e6 elsewhere: the additive spelling of a mask.
template <class Visible>
inline Mask additive(Visible visible) {
  Mask zero(0.0), min_inf(-1e6);
  return select(cast<i1>(visible), zero, min_inf);
}

// How a kernel folds a tile's scores into its running max.
enum class RunningMax { Fold, Maximum };

// softmax(scores) v with the example's online softmax in base 2, as a user writes it
// beside the example: `scores(raw, bias)` takes the unscaled q k^T [B, H, M, K2] and the
// bias memory [M, K2] and returns log2-scaled, modified and masked scores.
template <RunningMax running = RunningMax::Fold, class ScoreFn>
auto masked_attention(const char* name, ScoreFn scores_of) {
  return kernel(name, attention_constraints(),
                [scores_of](Memory<dims<B, H, M, K1>, f16> q, Memory<dims<B, H, K2, K1>, f16> k,
                            Memory<dims<B, H, K2, N>, f16> v, Memory<dims<M, K2>, f32> bias,
                            Memory<dims<B, H, M, N>, f32> out) {
                  Register<dims<B, H, N, M>, f32> acc0(0.0);
                  Register<dims<B, H, M>, f32> sum0(0.0), max0(-1e6);
                  auto [res_max, res_sum, res_acc] = iterate<K2>(
                      std::tuple{max0, sum0, acc0}, [&](auto partial_max, auto partial_sum, auto acc) {
                        Register<dims<B, H, K2, M>, f32> zero_scores(0.0);
                        auto raw = permute<dims<B, H, M, K2>>(mma(read(k), read(q), zero_scores));
                        Scores x = scores_of(raw, bias);
                        x = x + additive(apply_expr(self_index<K2, i64>(), [](auto j) { return j < K2; }));
                        auto m_j = [&] {
                          if constexpr (running == RunningMax::Fold) return max<K2>(x, partial_max);
                          else return maximum(partial_max, max<K2>(x));
                        }();
                        auto e_delta_max = exp2(partial_max - m_j);
                        auto e_delta = exp2(x - m_j);
                        auto d_j = sum<K2>(e_delta, partial_sum * e_delta_max);
                        auto next = mma(read(v), cast<f16>(e_delta), acc * e_delta_max);
                        return std::tuple{m_j, d_j, next};
                      });
                  write(permute<dims<B, H, M, N>>(res_acc * reciprocal(res_sum)), out);
                });
}

// The softmax scale 1/sqrt(D) with log2(e) folded in, for exp2.
inline double scale_log2(int head_dim) { return 1.0 / std::sqrt(double(head_dim)) * kLog2e; }

// f16 bits of normal(0, sigma) values, or of the examples' random halves (|x| in
// [0.125, 1), random signs) where sigma is 0.
inline void fill(std::vector<std::uint16_t>& t, double sigma, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, float(sigma));
  for (auto& x : t) {
    if (sigma == 0) {
      x = examples::host::random_half(rng);
      continue;
    }
    const _Float16 h = static_cast<_Float16>(normal(rng));
    std::memcpy(&x, &h, 2);
  }
}

inline AttentionInputs random_inputs(int b, int h, int m, int k2, int d, double sigma, std::mt19937& rng) {
  AttentionInputs in{b, h, m, k2, d, d, false, {}, {}, {}};
  in.q.resize(std::size_t(b) * h * m * d);
  in.k.resize(std::size_t(b) * h * k2 * d);
  in.v.resize(std::size_t(b) * h * k2 * d);
  fill(in.q, sigma, rng);
  fill(in.k, sigma, rng);
  fill(in.v, sigma == 0 ? 0 : 1, rng);
  return in;
}

// The natural-log score of query m and key j in head h after the kernel's mods and masks,
// or -inf where the key is hidden; `s` is q.k / sqrt(D), `bias` the bias input at [m, j].
using HostScore = std::function<double(double s, int h, int m, int j, double bias)>;

struct Shape {
  int b, h, m, k2, block_m, waves, block_k2;
  double sigma;  // 0: the examples' random halves
};

// The head dim the tests' kernels run at.
inline constexpr int kHeadDim = 64;

// The kernels' sizes and tiling at `c`.
inline CompileOptions shape_options(const Shape& c) {
  const int d = kHeadDim;
  return {.subs = {{B, c.b}, {H, c.h}, {M, c.m}, {K2, c.k2}, {K1, d}, {N, d}, {BLOCK_M, c.block_m},
                   {BLOCK_K2, c.block_k2}, {WAVE_M, c.block_m / c.waves}}};
}

// Runs `k` at `shape` (bias from `make_bias(m, k2)`) and compares each element of its
// output with the float64 reference of `score`; returns the number of wrong elements.
// `schedule` sets options beyond the shape's (warp specialization, a persistent grid...).
template <class Kernel, class MakeBias>
std::size_t wrong_elements(const Kernel& k, const Shape& c, const HostScore& score, MakeBias make_bias,
                           std::mt19937& rng, const std::function<void(CompileOptions&)>& schedule = {}) {
  const int d = kHeadDim;
  CompileOptions options = shape_options(c);
  if (schedule) schedule(options);
  // The shape's sizes the schedule took out of `subs` are given at launch.
  LaunchOptions how;
  for (const Sub& sub : shape_options(c).subs)
    if (std::none_of(options.subs.begin(), options.subs.end(), [&](const Sub& s) { return s.symbol == sub.symbol; }))
      how.sizes.push_back(sub);
  const auto compiled = wave::compile(k, options);
  const AttentionInputs in = random_inputs(c.b, c.h, c.m, c.k2, d, c.sigma, rng);
  const std::vector<float> bias = make_bias(c.m, c.k2);
  auto out = wave::fixtures::poisoned<float>(std::size_t(c.b) * c.h * c.m * d);
  wave::fixtures::run_on_device(compiled, how, in.q, in.k, in.v, bias, out);
  std::size_t wrong = 0;
  for (int bi = 0; bi < c.b; ++bi)
    for (int hi = 0; hi < c.h; ++hi)
      for (int mi = 0; mi < c.m; ++mi) {
        std::vector<double> s(c.k2);
        double top = -INFINITY;
        for (int j = 0; j < c.k2; ++j) {
          double dot = 0;
          for (int x = 0; x < d; ++x)
            dot += double(half_to_float(in.q[in.q_at(bi, hi, mi, x)])) * half_to_float(in.k[in.k_at(bi, hi, j, x)]);
          s[j] = score(dot / std::sqrt(double(d)), hi, mi, j, bias[std::size_t(mi) * c.k2 + j]);
          top = std::max(top, s[j]);
        }
        REQUIRE(std::isfinite(top));  // every row sees a key: its output is defined
        double total = 0;
        for (double& x : s) total += (x = std::exp(x - top));
        for (int col = 0; col < d; ++col) {
          double want = 0, magnitude = 0;
          for (int j = 0; j < c.k2; ++j) {
            const double pv = s[j] / total * half_to_float(in.v[in.v_at(bi, hi, j, col)]);
            want += pv;
            magnitude += std::abs(pv);
          }
          const double got = out[in.out_at(bi, hi, mi, col)];
          if (!examples::host::attention_close(got, want, magnitude, false)) {
            if (wrong < 5)
              UNSCOPED_INFO("O[" << bi << ", " << hi << ", " << mi << ", " << col << "] = " << got << ", expected "
                                 << want);
            ++wrong;
          }
        }
      }
  return wrong;
}

}  // namespace attention_tests
