// conditional: ops that run only in the workgroups whose condition holds, on the device
// against host references on random data: guarded writes (outputs of the other
// workgroups stay poisoned), results from either branch, a reduction across waves inside
// the branch (barriers inside it), and a batched GEMM whose inactive batches skip their
// whole K loop (shared tiles and pipelined copies inside the branch).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "fixtures/device_run.hpp"
#include "host_half.hpp"
#include "wave/wave.hpp"

using namespace wave;
using fixtures::poisoned;
using fixtures::run_on_device;

namespace {

WAVE_SYMBOL(B);
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(BLOCK_K);
WAVE_SYMBOL(WAVE_N);

// Per row b (a workgroup each): where counts[b] > 0, doubled = 2 x, shifted = x + 1 and
// total = the row's sum; elsewhere doubled untouched, shifted = x - 1, total = -5.
auto guarded_rows() {
  return kernel("guarded_rows",
                Constraints{WorkgroupConstraint(B, 1, 1), WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(B, 1),
                            WaveConstraint(N, WAVE_N), HardwareConstraint{.threads_per_wave = 32}},
                [](Memory<dims<B>, i32> counts, Memory<dims<B, N>, f32> x, Memory<dims<B, N>, f32> doubled,
                   Memory<dims<B, N>, f32> shifted, Memory<dims<B>, f32> total) {
                  auto ok = gt(read(counts), 0);
                  auto v = read(x);
                  conditional(ok, [&] { write(v * 2.0, doubled); });
                  auto [up, row_sum] = conditional(ok, [&] { return std::tuple{v + 1.0, sum<N>(v)}; },
                                                   std::tuple{v - 1.0, Register<dims<B>, f32>(-5.0)});
                  write(up, shifted);
                  write(row_sum, total);
                });
}

// c[b] = a[b] w[b]^T for the batches with active[b] != 0; the others' K loops never run.
auto guarded_batched_gemm() {
  return kernel("guarded_batched_gemm",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1),
                            WorkgroupConstraint(B, 1, 2), TilingConstraint(K, BLOCK_K), WaveConstraint(M, BLOCK_M / 2),
                            WaveConstraint(N, BLOCK_N / 2), HardwareConstraint{}},
                [](Memory<dims<B>, i32> active, Memory<dims<B, M, K>, f16, SHARED_ADDRESS_SPACE> a,
                   Memory<dims<B, N, K>, f16, SHARED_ADDRESS_SPACE> w, Memory<dims<B, M, N>, f32> c) {
                  conditional(ne(read(active), 0), [&] {
                    Register<dims<B, M, N>, f32> acc(0.0);
                    write(iterate<K>(acc, [&](auto acc) { return mma(read(a), read(w), acc); }), c);
                  });
                });
}

bool is_poison(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits == 0xFFFFFFFFu;
}

}  // namespace

TEST_CASE("conditional: guarded writes, results from either branch, a reduction inside", "[gpu][conditional]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [b, n, block_n, wave_n] : std::vector<std::tuple<int, int, int, int>>{
           {64, 256, 256, 64}, {37, 1000, 1024, 256}, {5, 7, 32, 32}}) {
    INFO("B = " << b << ", N = " << n << ", BLOCK_N = " << block_n << ", WAVE_N = " << wave_n);
    const CompileOptions options{.subs = {{B, b}, {N, n}, {BLOCK_N, block_n}, {WAVE_N, wave_n}}};
    std::uniform_real_distribution<float> value(-10.0f, 10.0f);
    std::uniform_int_distribution<std::int32_t> count(-2, 3);
    std::vector<std::int32_t> counts(static_cast<std::size_t>(b));
    for (auto& c : counts) c = count(rng);
    counts[0] = 1;  // one of each at least
    if (b > 1) counts[1] = 0;
    std::vector<float> x(std::size_t(b) * n);
    for (float& v : x) v = value(rng);
    auto doubled = poisoned<float>(x.size()), shifted = poisoned<float>(x.size());
    auto total = poisoned<float>(static_cast<std::size_t>(b));
    run_on_device(compile(guarded_rows(), options), {}, counts, x, doubled, shifted, total);
    std::size_t wrong = 0;
    for (int r = 0; r < b; ++r) {
      const bool ok = counts[std::size_t(r)] > 0;
      double sum = 0;
      for (int k = 0; k < n; ++k) {
        const std::size_t e = std::size_t(r) * n + k;
        sum += x[e];
        const bool doubled_right = ok ? doubled[e] == 2 * x[e] : is_poison(doubled[e]);
        const float want_shift = ok ? x[e] + 1.0f : x[e] - 1.0f;
        if ((!doubled_right || shifted[e] != want_shift) && wrong++ < 5)
          UNSCOPED_INFO("[" << r << ", " << k << "] (count " << counts[std::size_t(r)] << "): doubled " << doubled[e]
                            << ", shifted " << shifted[e] << " for x = " << x[e]);
      }
      const double want_total = ok ? sum : -5.0;
      if (!(std::abs(total[std::size_t(r)] - want_total) <= 1e-4 * n) && wrong++ < 5)
        UNSCOPED_INFO("total[" << r << "] = " << total[std::size_t(r)] << ", expected " << want_total);
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("conditional: a batched GEMM whose inactive batches skip their K loop", "[gpu][conditional]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [b, m, n, k] : std::vector<std::tuple<int, int, int, int>>{{6, 256, 256, 512}, {5, 200, 136, 264}}) {
    INFO("B = " << b << ", M = " << m << ", N = " << n << ", K = " << k);
    const CompileOptions options{
        .subs = {{B, b}, {M, m}, {N, n}, {K, k}, {BLOCK_M, 128}, {BLOCK_N, 128}, {BLOCK_K, 64}}};
    std::vector<std::int32_t> active(static_cast<std::size_t>(b));
    for (int i = 0; i < b; ++i) active[std::size_t(i)] = i % 3 == 1 ? 0 : 1;
    std::vector<std::uint16_t> a(std::size_t(b) * m * k), w(std::size_t(b) * n * k);
    for (auto& h : a) h = examples::host::random_half(rng);
    for (auto& h : w) h = examples::host::random_half(rng);
    auto c = poisoned<float>(std::size_t(b) * m * n);
    run_on_device(compile(guarded_batched_gemm(), options), {}, active, a, w, c);
    std::size_t wrong = 0;
    for (int bi = 0; bi < b; ++bi)
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          const float got = c[(std::size_t(bi) * m + i) * n + j];
          if (!active[std::size_t(bi)]) {
            if (!is_poison(got) && wrong++ < 5) UNSCOPED_INFO("inactive c[" << bi << ", " << i << ", " << j << "] = " << got);
            continue;
          }
          double want = 0;
          for (int t = 0; t < k; ++t)
            want += double(examples::host::half_to_float(a[(std::size_t(bi) * m + i) * k + t])) *
                    examples::host::half_to_float(w[(std::size_t(bi) * n + j) * k + t]);
          if (!(std::abs(got - want) <= 1e-3 * std::sqrt(double(k)) + 1e-4 * std::abs(want)) && wrong++ < 5)
            UNSCOPED_INFO("c[" << bi << ", " << i << ", " << j << "] = " << got << ", expected " << want);
        }
    CHECK(wrong == 0);
  }
}
