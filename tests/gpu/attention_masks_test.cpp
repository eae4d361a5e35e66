// Masked attention as users spell it, where the compiler may end the key loop early
// (wave-skip-masked-tiles) or keep every tile: each causal spelling the pass recognizes,
// bottom-right causal, a loop that also carries a value the mask does not hide (the pass
// must keep every tile), rows that see one key only, and peaky scores (q and k drawn
// from normal distributions of sigma 1 and 3, where one key dominates a row's softmax).
// Every output element is compared with a float64 host reference, at an unaligned and an
// aligned shape, outputs poisoned first.
// The reference and its tolerance: attention_scores_reference.hpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "attention_reference.hpp"
#include "attention_schedule.hpp"
#include "attention_scores_reference.hpp"
#include "fixtures/device_run.hpp"

using namespace wave;
using namespace examples::flash_attention;
using namespace attention_tests;
using examples::host::AttentionInputs;
using examples::host::half_to_float;
using fixtures::poisoned;
using fixtures::run_on_device;

namespace {


// The shapes each variant runs at: unaligned (M and K2 end inside tiles) on four waves,
// aligned on eight; normal inputs of sigma 1 and 3, and the examples' halves.
const std::vector<Shape> kShapes{{1, 2, 200, 201, 64, 4, 32, 1.0}, {2, 2, 128, 256, 128, 8, 64, 3.0},
                                 {1, 1, 77, 77, 64, 4, 64, 0.0}};

std::vector<float> no_bias(int m, int k2) { return std::vector<float>(std::size_t(m) * k2, 0.0f); }

template <class Kernel>
void check_masked(const Kernel& k, const HostScore& score, const std::vector<Shape>& shapes = kShapes) {
  std::mt19937 rng(Catch::rngSeed());
  for (const Shape& c : shapes) {
    INFO(k.name() << ": B " << c.b << ", H " << c.h << ", M " << c.m << ", K2 " << c.k2 << ", BLOCK_M " << c.block_m
                  << " over " << c.waves << " waves, BLOCK_K2 " << c.block_k2 << ", sigma " << c.sigma);
    CHECK(wrong_elements(k, c, score, no_bias, rng) == 0);
  }
}

double causal(double s, int m, int j) { return j <= m ? s : -INFINITY; }

}  // namespace

TEST_CASE("causal attention in each spelling the compiler recognizes", "[gpu][attention][masks]") {
  const double scale = scale_log2(64);
  auto host = [](double s, int, int m, int j, double) { return causal(s, m, j); };
  SECTION("k - m <= 0, added to the scores") {
    check_masked(masked_attention("causal_k_minus_m_le",
                                  [=](auto raw, auto) {
                                    return raw * scale + (additive(apply_expr(
                                                             key_at() - query_at(), [](auto d) { return d <= 0; })));
                                  }),
                 host);
  }
  SECTION("k - m < 1") {
    check_masked(masked_attention("causal_k_minus_m_lt",
                                  [=](auto raw, auto) {
                                    return raw * scale + (additive(apply_expr(
                                                             key_at() - query_at(), [](auto d) { return d < 1; })));
                                  }),
                 host);
  }
  SECTION("m - k >= 0") {
    check_masked(masked_attention("causal_m_minus_k_ge",
                                  [=](auto raw, auto) {
                                    return raw * scale + (additive(apply_expr(
                                                             query_at() - key_at(), [](auto d) { return d >= 0; })));
                                  }),
                 host);
  }
  SECTION("m - k > -1") {
    check_masked(masked_attention("causal_m_minus_k_gt",
                                  [=](auto raw, auto) {
                                    return raw * scale + (additive(apply_expr(
                                                             query_at() - key_at(), [](auto d) { return d > -1; })));
                                  }),
                 host);
  }
  SECTION("select(visible, scores, min_inf)") {
    check_masked(masked_attention("causal_select_scores",
                                  [=](auto raw, auto) {
                                    auto visible = cast<i1>(broadcast<dims<B, H, M, K2>>(
                                        apply_expr(key_at() - query_at(), [](auto d) { return d <= 0; })));
                                    Scores min_inf(-1e6);
                                    return select(visible, Scores(raw * scale), min_inf);
                                  }),
                 host);
  }
  SECTION("the scale applied after the mask") {
    check_masked(masked_attention("causal_scale_after_mask",
                                  [=](auto raw, auto) {
                                    auto mask = additive(apply_expr(key_at() - query_at(), [](auto d) { return d <= 0; }));
                                    return (raw + mask) * scale;
                                  }),
                 host);
  }
  SECTION("the running max as maximum(old, max<K2>(x))") {
    check_masked(masked_attention<RunningMax::Maximum>("causal_maximum_of_tile_max",
                                                       [=](auto raw, auto) {
                                                         return raw * scale + additive(apply_expr(
                                                                                  key_at() - query_at(),
                                                                                  [](auto d) { return d <= 0; }));
                                                       }),
                 host);
  }
}

TEST_CASE("bottom-right causal attention: k - m <= K2 - M, K2 >= M", "[gpu][attention][masks]") {
  const double scale = scale_log2(64);
  auto k = masked_attention("causal_bottom_right", [=](auto raw, auto) {
    return raw * scale +
           (additive(apply_expr(key_at() - query_at(), [](auto d) { return d <= K2 - M; })));
  });
  // K2 - M keys of context before the first query; K2 == M is the plain causal mask.
  for (auto [m, k2] : {std::pair{200, 328}, std::pair{128, 256}, std::pair{130, 130}}) {
    INFO("M " << m << ", K2 " << k2);
    check_masked(
        k, [m = m, k2 = k2](double s, int, int mi, int j, double) { return j - mi <= k2 - m ? s : -INFINITY; },
        {{1, 2, m, k2, 64, 4, 32, 1.0}, {1, 2, m, k2, 128, 8, 64, 3.0}});
  }
}

TEST_CASE("causal attention whose loop also carries the max over every key of the unmasked scores",
          "[gpu][attention][masks]") {
  // The carried unmasked max changes on tiles the causal mask hides: the loop must walk
  // every key tile, and the attention output stay causal.
  const double scale = scale_log2(64);
  auto k = kernel(
      "causal_with_all_keys_max", attention_constraints(),
      [=](Memory<dims<B, H, M, K1>, f16> q, Memory<dims<B, H, K2, K1>, f16> k, Memory<dims<B, H, K2, N>, f16> v,
          Memory<dims<B, H, M, N>, f32> out, Memory<dims<B, H, M>, f32> all_keys_max) {
        Register<dims<B, H, N, M>, f32> acc0(0.0);
        Register<dims<B, H, M>, f32> sum0(0.0), max0(-1e6), seen0(-1e6);
        auto [res_max, res_sum, res_acc, res_seen] = iterate<K2>(
            std::tuple{max0, sum0, acc0, seen0}, [&](auto partial_max, auto partial_sum, auto acc, auto seen) {
              Register<dims<B, H, K2, M>, f32> zero_scores(0.0);
              Scores x = permute<dims<B, H, M, K2>>(mma(read(k), read(q), zero_scores)) * scale;
              x = x + additive(apply_expr(self_index<K2, i64>(), [](auto j) { return j < K2; }));
              auto seen_j = max<K2>(x, seen);
              x = x + additive(apply_expr(key_at() - query_at(), [](auto d) { return d <= 0; }));
              auto m_j = max<K2>(x, partial_max);
              auto e_delta_max = exp2(partial_max - m_j);
              auto e_delta = exp2(x - m_j);
              auto d_j = sum<K2>(e_delta, partial_sum * e_delta_max);
              auto next = mma(read(v), cast<f16>(e_delta), acc * e_delta_max);
              return std::tuple{m_j, d_j, next, seen_j};
            });
        write(permute<dims<B, H, M, N>>(res_acc * reciprocal(res_sum)), out);
        write(res_seen, all_keys_max);
      });
  std::mt19937 rng(Catch::rngSeed());
  for (const Shape& c : kShapes) {
    INFO("B " << c.b << ", H " << c.h << ", M " << c.m << ", K2 " << c.k2 << ", BLOCK_M " << c.block_m << " over "
              << c.waves << " waves, BLOCK_K2 " << c.block_k2 << ", sigma " << c.sigma);
    const int d = 64;
    const auto compiled = compile(k, {.subs = {{B, c.b}, {H, c.h}, {M, c.m}, {K2, c.k2}, {K1, d}, {N, d},
                                               {BLOCK_M, c.block_m}, {BLOCK_K2, c.block_k2},
                                               {WAVE_M, c.block_m / c.waves}}});
    AttentionInputs in = random_inputs(c.b, c.h, c.m, c.k2, d, c.sigma, rng);
    auto out = poisoned<float>(std::size_t(c.b) * c.h * c.m * d);
    auto maxima = poisoned<float>(std::size_t(c.b) * c.h * c.m);
    run_on_device(compiled, {}, in.q, in.k, in.v, out, maxima);
    in.causal = true;
    std::size_t wrong_out = 0, wrong_max = 0;
    for (int bi = 0; bi < c.b; ++bi)
      for (int hi = 0; hi < c.h; ++hi)
        for (int mi = 0; mi < c.m; ++mi) {
          const auto row = examples::host::attention_row(in, bi, hi, mi);
          for (int col = 0; col < d; ++col)
            wrong_out += !examples::host::attention_close(out[in.out_at(bi, hi, mi, col)], row.out[col],
                                                          row.magnitude[col], false);
          // The max of f32 scores: each a 64-term f32 dot product, so within 64 f32 roundings
          // (1e-5 relative) of the sum of its terms' magnitudes.
          double want = -INFINITY, slack = 0;
          for (int j = 0; j < c.k2; ++j) {
            double dot = 0, magnitude = 0;
            for (int x = 0; x < d; ++x) {
              const double t =
                  double(half_to_float(in.q[in.q_at(bi, hi, mi, x)])) * half_to_float(in.k[in.k_at(bi, hi, j, x)]);
              dot += t;
              magnitude += std::abs(t);
            }
            if (dot * scale > want) want = dot * scale;
            slack = std::max(slack, magnitude * scale);
          }
          const double got = maxima[(std::size_t(bi) * c.h + hi) * c.m + mi];
          if (!(std::abs(got - want) <= 1e-5 * slack + 1e-6)) {
            if (wrong_max < 5) UNSCOPED_INFO("max[" << bi << ", " << hi << ", " << mi << "] = " << got << ", expected " << want);
            ++wrong_max;
          }
        }
    CHECK(wrong_out == 0);
    CHECK(wrong_max == 0);
  }
}

TEST_CASE("attention where each row sees one key only, through a bias of -1e6 elsewhere",
          "[gpu][attention][masks]") {
  // The softmax of one visible key is 1: each output row is that key's value row, however
  // large the hidden scores (normal inputs of sigma 3 give scores far above the visible one).
  const double scale = scale_log2(64);
  auto k = masked_attention("attention_one_key_per_row",
                            [=](auto raw, Memory<dims<M, K2>, f32> bias) { return raw * scale + read(bias); });
  std::mt19937 pick(Catch::rngSeed() + 1);
  std::vector<int> visible_key;
  auto one_key = [&](int m, int k2) {
    std::vector<float> bias(std::size_t(m) * k2, -1e6f);
    visible_key.assign(m, 0);
    for (int row = 0; row < m; ++row) {
      visible_key[row] = std::uniform_int_distribution<int>(0, k2 - 1)(pick);
      bias[std::size_t(row) * k2 + visible_key[row]] = 0.0f;
    }
    return bias;
  };
  std::mt19937 rng(Catch::rngSeed());
  for (const Shape& c : kShapes) {
    INFO("M " << c.m << ", K2 " << c.k2 << ", BLOCK_M " << c.block_m << ", BLOCK_K2 " << c.block_k2 << ", sigma "
              << c.sigma);
    // The bias is in log2 units, scaled by the kernel's log2(e) as the scores are; only
    // whether a key is hidden matters to the reference.
    CHECK(wrong_elements(
              k, c,
              [&](double s, int, int m, int j, double) { return j == visible_key[m] ? s : -INFINITY; }, one_key, rng) == 0);
  }
}
