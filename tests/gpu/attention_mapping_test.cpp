// Attention whose K and V come through index mappings, as a user writes them beside the
// example: grouped-query and multi-query attention (query head h reads KV head h / GROUP)
// and V stored [B, H, N, K2] (the seeds' layout) read as [B, H, K2, N]. The distribution
// is the example's; only the reads change. Every output element is compared with a
// float64 host reference on random data, at odd and even lengths, two tilings, causal
// and not, the output poisoned first.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "attention_reference.hpp"
#include "fixtures/device_run.hpp"
#include "fixtures/random_data.hpp"
#include "attention_schedule.hpp"

using namespace wave;
using namespace examples::flash_attention;
using namespace attention_tests;
using examples::host::half_to_float;
using examples::host::random_half;
using fixtures::poisoned;
using fixtures::run_on_device;

namespace {

WAVE_SYMBOL(HKV);    // key/value heads
WAVE_SYMBOL(GROUP);  // query heads per key/value head: H = HKV * GROUP

constexpr auto i = iterator(0);
constexpr auto j = iterator(1);
constexpr auto k = iterator(2);
constexpr auto l = iterator(3);

// softmax(q k^T / sqrt(D) [+ causal mask]) v in base 2, K and V read through `k_map` and
// `v_map` from memories of dims KDims and VDims.
template <class KDims, class VDims>
auto attention_through(const char* name, int head_dim, bool causal, IndexMapping<dims<B, H, K2, K1>> k_map,
                       IndexMapping<dims<B, H, K2, N>> v_map, Constraints constraints = attention_constraints()) {
  const double scale = 1.0 / std::sqrt(double(head_dim)) * kLog2e;
  return kernel(name,
                constraints,
                [=](Memory<dims<B, H, M, K1>, f16> q, Memory<KDims, f16> kmem, Memory<VDims, f16> vmem,
                    Memory<dims<B, H, M, N>, f32> out) {
                  Register<dims<B, H, N, M>, f32> acc0(0.0);
                  Register<dims<B, H, M>, f32> sum0(0.0);
                  Register<dims<B, H, M>, f32> max0(-1e6);
                  auto [res_max, res_sum, res_acc] = iterate<K2>(
                      std::tuple{max0, sum0, acc0}, [&](auto partial_max, auto partial_sum, auto acc) {
                        Register<dims<B, H, K2, M>, f32> zero_scores(0.0);
                        auto scores = mma(read(kmem, k_map), read(q), zero_scores);
                        Register<dims<B, H, M, K2>, f32> x = permute<dims<B, H, M, K2>>(scores) * scale;
                        auto key = self_index<K2, i64>();
                        auto in_bounds = apply_expr(key, [](auto c) { return c < K2; });
                        Register<dims<M, K2>, f32> zero(0.0), min_inf(-1e6);
                        x = x + select(cast<i1>(broadcast<dims<M, K2>>(in_bounds)), zero, min_inf);
                        if (causal) {  // query m sees keys <= m
                          auto query = broadcast<dims<M, K2>>(self_index<M, i64>());
                          auto visible = apply_expr(broadcast<dims<M, K2>>(key) - query,
                                                    [](auto d) { return d <= 0; });
                          x = x + select(cast<i1>(visible), zero, min_inf);
                        }
                        auto m_j = max<K2>(x, partial_max);
                        auto e_delta_max = exp2(partial_max - m_j);
                        auto e_delta = exp2(x - m_j);
                        auto d_j = sum<K2>(e_delta, partial_sum * e_delta_max);
                        auto next = mma(read(vmem, v_map), cast<f16>(e_delta), acc * e_delta_max);
                        return std::tuple{m_j, d_j, next};
                      });
                  write(permute<dims<B, H, M, N>>(res_acc * reciprocal(res_sum)), out);
                });
}

// Q, K, V of f16 bits; K and V hold `hkv` heads, V stored [B, HKV, N, K2] when transposed.
struct Inputs {
  int b, h, hkv, m, k2, d;
  bool v_transposed;
  std::vector<std::uint16_t> q, k, v;

  std::size_t q_at(int bi, int hi, int mi, int x) const { return ((std::size_t(bi) * h + hi) * m + mi) * d + x; }
  std::size_t k_at(int bi, int g, int ki, int x) const { return ((std::size_t(bi) * hkv + g) * k2 + ki) * d + x; }
  std::size_t v_at(int bi, int g, int ki, int c) const {
    return v_transposed ? ((std::size_t(bi) * hkv + g) * d + c) * k2 + ki : ((std::size_t(bi) * hkv + g) * k2 + ki) * d + c;
  }
};

std::size_t check(const Inputs& in, bool causal, const std::vector<float>& out) {
  const int group = in.h / in.hkv;
  std::size_t wrong = 0;
  for (int bi = 0; bi < in.b; ++bi)
    for (int hi = 0; hi < in.h; ++hi)
      for (int mi = 0; mi < in.m; ++mi) {
        const int g = hi / group;
        const int keys = causal ? std::min(mi + 1, in.k2) : in.k2;
        std::vector<double> s(keys);
        double top = -INFINITY;
        for (int kj = 0; kj < keys; ++kj) {
          double dot = 0;
          for (int x = 0; x < in.d; ++x)
            dot += double(half_to_float(in.q[in.q_at(bi, hi, mi, x)])) * half_to_float(in.k[in.k_at(bi, g, kj, x)]);
          s[kj] = dot / std::sqrt(double(in.d));
          top = std::max(top, s[kj]);
        }
        double total = 0;
        for (double& x : s) total += (x = std::exp(x - top));
        for (int c = 0; c < in.d; ++c) {
          double want = 0, magnitude = 0;
          for (int kj = 0; kj < keys; ++kj) {
            const double pv = s[kj] / total * half_to_float(in.v[in.v_at(bi, g, kj, c)]);
            want += pv;
            magnitude += std::abs(pv);
          }
          const double got = out[((std::size_t(bi) * in.h + hi) * in.m + mi) * in.d + c];
          if (!examples::host::attention_close(got, want, magnitude, false)) {
            if (wrong < 5) UNSCOPED_INFO("O[" << bi << ", " << hi << ", " << mi << ", " << c << "] = " << got
                                              << ", expected " << want);
            ++wrong;
          }
        }
      }
  return wrong;
}

// `waves` over the queries (WAVE_M = block_m / waves); 0 for a schedule without WAVE_M.
struct Case {
  int b, m, k2, block_m, waves, block_k2;
};

template <class Kernel>
void run_cases(const Kernel& kern, int h, int hkv, bool v_transposed, bool causal, std::mt19937& rng,
               std::initializer_list<Case> cases = {Case{1, 200, 201, 64, 4, 32}, Case{2, 128, 256, 128, 8, 64}}) {
  for (Case c : cases) {
    const int m = c.m;
    INFO(kern.name() << ": B " << c.b << ", H " << h << ", HKV " << hkv << ", M " << m << ", K2 " << c.k2
                     << ", BLOCK_M " << c.block_m << " over " << c.waves << " waves, BLOCK_K2 " << c.block_k2);
    const int d = 64;
    CompileOptions options{.subs = {{B, c.b}, {H, h}, {M, m}, {K2, c.k2}, {K1, d}, {N, d}, {BLOCK_M, c.block_m},
                                    {BLOCK_K2, c.block_k2}}};
    if (c.waves > 0) options.subs.push_back({WAVE_M, c.block_m / c.waves});
    if (hkv != h) {
      options.subs.push_back({HKV, hkv});
      options.subs.push_back({GROUP, h / hkv});
    }
    const auto compiled = compile(kern, options);
    Inputs in{c.b, h, hkv, m, c.k2, d, v_transposed, {}, {}, {}};
    in.q.resize(std::size_t(c.b) * h * m * d);
    in.k.resize(std::size_t(c.b) * hkv * c.k2 * d);
    in.v.resize(in.k.size());
    for (auto* t : {&in.q, &in.k, &in.v})
      for (auto& x : *t) x = random_half(rng);
    auto out = poisoned<float>(std::size_t(c.b) * h * m * d);
    run_on_device(compiled, {}, in.q, in.k, in.v, out);
    CHECK(check(in, causal, out) == 0);
  }
}

// K and V heads through h -> h / GROUP.
const IndexMapping<dims<B, H, K2, K1>> k_grouped{.inputs = {{B, i}, {HKV, j / GROUP}, {K2, k}, {K1, l}},
                                                 .outputs = {{B, i}, {H, j}, {K2, k}, {K1, l}}};
const IndexMapping<dims<B, H, K2, N>> v_grouped{.inputs = {{B, i}, {HKV, j / GROUP}, {K2, k}, {N, l}},
                                                .outputs = {{B, i}, {H, j}, {K2, k}, {N, l}}};

}  // namespace

TEST_CASE("grouped-query attention: 8 query heads over 2 KV heads, causal and not", "[gpu][attention][mapping]") {
  std::mt19937 rng(71);
  for (bool causal : {false, true}) {
    auto kern = attention_through<dims<B, HKV, K2, K1>, dims<B, HKV, K2, N>>(
        causal ? "gqa_causal" : "gqa", 64, causal, k_grouped, v_grouped);
    run_cases(kern, 8, 2, false, causal, rng);
  }
}

TEST_CASE("multi-query attention: 4 query heads share one KV head", "[gpu][attention][mapping]") {
  std::mt19937 rng(72);
  auto kern = attention_through<dims<B, HKV, K2, K1>, dims<B, HKV, K2, N>>("mqa", 64, false, k_grouped, v_grouped);
  run_cases(kern, 4, 1, false, false, rng);
}

TEST_CASE("attention with V stored [B, H, N, K2], read through a mapping", "[gpu][attention][mapping]") {
  std::mt19937 rng(73);
  const IndexMapping<dims<B, H, K2, K1>> k_plain{.inputs = {{B, i}, {H, j}, {K2, k}, {K1, l}},
                                                 .outputs = {{B, i}, {H, j}, {K2, k}, {K1, l}}};
  const IndexMapping<dims<B, H, K2, N>> v_transposed{.inputs = {{B, i}, {H, j}, {N, l}, {K2, k}},
                                                     .outputs = {{B, i}, {H, j}, {K2, k}, {N, l}}};
  auto kern = attention_through<dims<B, H, K2, K1>, dims<B, H, N, K2>>("attention_v_nk", 64, false, k_plain,
                                                                        v_transposed);
  run_cases(kern, 2, 2, true, false, rng);
}

TEST_CASE("grouped-query decode attention: 8 query heads over 2 KV heads, keys split among waves",
          "[gpu][attention][mapping][decode]") {
  // Decode's schedule (kernels/decode_attention.hpp): one workgroup per (batch, head), the
  // queries in one wave tile, four waves over each key tile, each folding its keys apart.
  std::mt19937 rng(74);
  const Constraints decode{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(H, 1, 1),
                           WorkgroupConstraint(B, 1, 2), TilingConstraint(K2, BLOCK_K2), WaveConstraint(M, BLOCK_M),
                           WaveConstraint(K2, BLOCK_K2 / 4),
                           HardwareConstraint{.threads_per_wave = 32,
                                              .mma = MMA::F32_16x8x16_F16,
                                              .vector_shapes = {{B, 0}, {H, 0}}}};
  auto kern = attention_through<dims<B, HKV, K2, K1>, dims<B, HKV, K2, N>>("gqa_decode", 64, false, k_grouped,
                                                                           v_grouped, decode);
  // One query and 1001 keys over tiles of 128; five queries and 67 keys over tiles of 64
  // (three waves' parts of the only tile wholly past the end).
  run_cases(kern, 8, 2, false, false, rng, {Case{2, 1, 1001, 16, 0, 128}, Case{1, 5, 67, 16, 0, 64}});
}
