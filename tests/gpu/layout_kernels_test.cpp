// Memory-bound kernels that only the layout pipeline takes: transposes (a layout
// conversion through shared memory), reductions over a dim that is not the innermost,
// normalizations writing tensors of different shapes. Each output element is checked
// against a double-precision host reference on random inputs, aligned and unaligned
// sizes, at two tilings, with the outputs poisoned first.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "fixtures/device_run.hpp"
#include "fixtures/random_data.hpp"
#include "fixtures/scalar_kernel.hpp"
#include "host_half.hpp"
#include "wave/runtime.hpp"
#include "wave/wave.hpp"

using namespace wave;
using examples::host::bfloat16_to_float;
using examples::host::half_to_float;
using fixtures::poisoned;
using fixtures::random_floats;
using fixtures::run_on_device;

namespace {

WAVE_SYMBOL(B);
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_B);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);

using Halves = std::vector<std::uint16_t>;

// f16 outputs: a relative error of 2^-10 and some absolute slack near zero.
bool near_half(std::uint16_t got, double want) { return std::abs(half_to_float(got) - want) <= 2e-3 * std::abs(want) + 2e-3; }

// Layernorm over the rows of x, also writing each row's mean and rstd.
const auto layernorm_body = [](Memory<dims<M, N>, f16> x, Memory<dims<N>, f16> gamma, Memory<dims<N>, f16> beta,
                               Memory<dims<M, N>, f16> y, Memory<dims<M>, f32> mean_out, Memory<dims<M>, f32> rstd_out) {
  auto v = cast<f32>(read(x));
  Register<dims<N>, f32> ones(1.0);
  auto inv_n = reciprocal(sum<N>(broadcast<dims<M, N>>(ones)));
  auto mean = sum<N>(v) * inv_n;
  auto centered = v - mean;
  auto rstd = rsqrt(sum<N>(centered * centered) * inv_n + 1e-5f);
  write(cast<f16>(centered * rstd * cast<f32>(read(gamma)) + cast<f32>(read(beta))), y);
  write(mean, mean_out);
  write(rstd, rstd_out);
};

// Elements of layernorm's outputs (over the rows of x [m, n], eps 1e-5) that differ from a
// double-precision reference.
std::size_t layernorm_mismatches(const Halves& x, const Halves& gamma, const Halves& beta, const Halves& y,
                                 const std::vector<float>& mean, const std::vector<float>& rstd, int m, int n) {
  std::size_t wrong = 0;
  for (int i = 0; i < m; ++i) {
    const std::uint16_t* row = &x[std::size_t(i) * n];
    double mu = 0, sq = 0;
    for (int j = 0; j < n; ++j) mu += half_to_float(row[j]);
    mu /= n;
    for (int j = 0; j < n; ++j) sq += std::pow(half_to_float(row[j]) - mu, 2);
    const double r = 1 / std::sqrt(sq / n + 1e-5);
    wrong += !(std::abs(mean[i] - mu) <= 1e-4) || !(std::abs(rstd[i] - r) <= 1e-3 * r);
    for (int j = 0; j < n; ++j)
      wrong += !near_half(y[std::size_t(i) * n + j],
                          (half_to_float(row[j]) - mu) * r * half_to_float(gamma[j]) + half_to_float(beta[j]));
  }
  return wrong;
}

// The same for RMSNorm (eps 1e-6).
std::size_t rmsnorm_mismatches(const Halves& x, const Halves& gamma, const Halves& y, int m, int n) {
  std::size_t wrong = 0;
  for (int i = 0; i < m; ++i) {
    const std::uint16_t* row = &x[std::size_t(i) * n];
    double ms = 0;
    for (int j = 0; j < n; ++j) ms += std::pow(half_to_float(row[j]), 2);
    const double rr = 1 / std::sqrt(ms / n + 1e-6);
    for (int j = 0; j < n; ++j) wrong += !near_half(y[std::size_t(i) * n + j], half_to_float(row[j]) * rr * half_to_float(gamma[j]));
  }
  return wrong;
}

}  // namespace

TEST_CASE("transpose f32 [M, N] -> [N, M], by permute and by the write's dims", "[gpu][layouts]") {
  std::mt19937 rng(Catch::rngSeed());
  const Constraints constraints{WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0),
                                WaveConstraint(M, BLOCK_M / 2), HardwareConstraint{.threads_per_wave = 32}};
  auto by_permute = kernel("transpose", constraints, [](Memory<dims<M, N>, f32> a, Memory<dims<N, M>, f32> b) {
    write(permute<dims<N, M>>(read(a)), b);
  });
  auto by_write = kernel("transpose_write", constraints,
                         [](Memory<dims<M, N>, f32> a, Memory<dims<N, M>, f32> b) { write(read(a), b); });
  struct Shape { int m, n, block_m, block_n; };
  auto check = [&](const auto& k, Shape s) {
    INFO(k.name() << ": M = " << s.m << ", N = " << s.n << ", tiles " << s.block_m << " x " << s.block_n);
    const auto compiled = compile(k, {.subs = {{M, s.m}, {N, s.n}, {BLOCK_M, s.block_m}, {BLOCK_N, s.block_n}}});
    auto a = random_floats(std::size_t(s.m) * s.n, rng);
    auto b = poisoned<float>(a.size());
    run_on_device(compiled, {}, a, b);
    std::size_t wrong = 0;
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) wrong += b[std::size_t(j) * s.m + i] != a[std::size_t(i) * s.n + j];
    CHECK(wrong == 0);
  };
  for (Shape s : {Shape{64, 128, 32, 32}, Shape{1000, 77, 32, 32}, Shape{33, 4097, 16, 64}, Shape{5, 3, 16, 64}}) {
    check(by_permute, s);
    check(by_write, s);
  }
}

TEST_CASE("permute of 3-D f16: [B, M, N] -> [B, N, M] and -> [M, B, N]", "[gpu][layouts]") {
  std::mt19937 rng(Catch::rngSeed());
  const Constraints constraints{WorkgroupConstraint(B, BLOCK_B, 2), WorkgroupConstraint(M, BLOCK_M, 1),
                                WorkgroupConstraint(N, BLOCK_N, 0), HardwareConstraint{.threads_per_wave = 32}};
  auto inner = kernel("permute_bnm", constraints, [](Memory<dims<B, M, N>, f16> a, Memory<dims<B, N, M>, f16> b) {
    write(permute<dims<B, N, M>>(read(a)), b);
  });
  auto outer = kernel("permute_mbn", constraints, [](Memory<dims<B, M, N>, f16> a, Memory<dims<M, B, N>, f16> b) {
    write(permute<dims<M, B, N>>(read(a)), b);
  });
  for (auto [bs, m, n] : std::vector<std::tuple<int, int, int>>{{2, 64, 64}, {3, 37, 70}}) {
    INFO("B = " << bs << ", M = " << m << ", N = " << n);
    const Subs subs{{B, bs}, {M, m}, {N, n}, {BLOCK_B, 1}, {BLOCK_M, 32}, {BLOCK_N, 32}};
    std::vector<std::uint16_t> a(std::size_t(bs) * m * n);
    for (auto& h : a) h = examples::host::random_half(rng);
    auto bnm = poisoned<std::uint16_t>(a.size()), mbn = poisoned<std::uint16_t>(a.size());
    run_on_device(compile(inner, {.subs = subs}), {}, a, bnm);
    run_on_device(compile(outer, {.subs = subs}), {}, a, mbn);
    std::size_t wrong_bnm = 0, wrong_mbn = 0;
    for (int z = 0; z < bs; ++z)
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          const auto x = a[(std::size_t(z) * m + i) * n + j];
          wrong_bnm += bnm[(std::size_t(z) * n + j) * m + i] != x;
          wrong_mbn += mbn[(std::size_t(i) * bs + z) * n + j] != x;
        }
    CHECK(wrong_bnm == 0);
    CHECK(wrong_mbn == 0);
  }
}

TEST_CASE("column sums and max: a reduction over the outer dim", "[gpu][layouts]") {
  std::mt19937 rng(Catch::rngSeed());
  auto columns = kernel("column_stats",
                        {WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0),
                         WaveConstraint(M, BLOCK_M / 2), Assumption(M <= BLOCK_M),
                         HardwareConstraint{.threads_per_wave = 32}},
                        [](Memory<dims<M, N>, f32> a, Memory<dims<N>, f32> sums, Memory<dims<N>, f32> maxima) {
                          auto x = read(a);
                          write(sum<M>(x), sums);
                          write(max<M>(x), maxima);
                        });
  struct Shape { int m, n, block_m, block_n; };
  for (Shape s : {Shape{64, 256, 64, 64}, Shape{7, 1000, 8, 64}, Shape{100, 33, 128, 32}}) {
    INFO("M = " << s.m << ", N = " << s.n << ", tiles " << s.block_m << " x " << s.block_n);
    const auto compiled = compile(columns, {.subs = {{M, s.m}, {N, s.n}, {BLOCK_M, s.block_m}, {BLOCK_N, s.block_n}}});
    auto a = random_floats(std::size_t(s.m) * s.n, rng);
    auto sums = poisoned<float>(s.n), maxima = poisoned<float>(s.n);
    run_on_device(compiled, {}, a, sums, maxima);
    std::size_t wrong = 0;
    for (int j = 0; j < s.n; ++j) {
      double total = 0, top = -INFINITY;
      for (int i = 0; i < s.m; ++i) total += a[std::size_t(i) * s.n + j], top = std::max<double>(top, a[std::size_t(i) * s.n + j]);
      wrong += !(std::abs(sums[j] - total) <= 1e-4 * (1 + std::abs(total))) || maxima[j] != top;
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("sum over the middle dim of 3-D", "[gpu][layouts]") {
  std::mt19937 rng(Catch::rngSeed());
  auto middle = kernel("middle_sum",
                       {WorkgroupConstraint(B, BLOCK_B, 1), WorkgroupConstraint(N, BLOCK_N, 0),
                        HardwareConstraint{.threads_per_wave = 32}},
                       [](Memory<dims<B, M, N>, f32> a, Memory<dims<B, N>, f32> out) { write(sum<M>(read(a)), out); });
  for (auto [bs, m, n] : std::vector<std::tuple<int, int, int>>{{3, 16, 128}, {2, 4, 1000}}) {
    INFO("B = " << bs << ", M = " << m << ", N = " << n);
    const auto compiled = compile(middle, {.subs = {{B, bs}, {M, m}, {N, n}, {BLOCK_B, 1}, {BLOCK_N, 64}}});
    auto a = random_floats(std::size_t(bs) * m * n, rng);
    auto out = poisoned<float>(std::size_t(bs) * n);
    run_on_device(compiled, {}, a, out);
    std::size_t wrong = 0;
    for (int z = 0; z < bs; ++z)
      for (int j = 0; j < n; ++j) {
        double total = 0;
        for (int i = 0; i < m; ++i) total += a[(std::size_t(z) * m + i) * n + j];
        wrong += !(std::abs(out[std::size_t(z) * n + j] - total) <= 1e-4 * (1 + std::abs(total)));
      }
    CHECK(wrong == 0);
  }
}

TEST_CASE("layernorm and RMSNorm, f16 in and out, layernorm also writing mean and rstd", "[gpu][layouts]") {
  std::mt19937 rng(Catch::rngSeed());
  const Constraints constraints{WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0),
                                WaveConstraint(N, BLOCK_N / 4), Assumption(N <= BLOCK_N),
                                HardwareConstraint{.threads_per_wave = 32}};
  auto layernorm = kernel("layernorm", constraints,
                          layernorm_body);
  auto rmsnorm = kernel("rmsnorm", constraints,
                        [](Memory<dims<M, N>, f16> x, Memory<dims<N>, f16> gamma, Memory<dims<M, N>, f16> y) {
                          auto v = cast<f32>(read(x));
                          Register<dims<N>, f32> ones(1.0);
                          auto inv_n = reciprocal(sum<N>(broadcast<dims<M, N>>(ones)));
                          auto rms = rsqrt(sum<N>(v * v) * inv_n + 1e-6f);
                          write(cast<f16>(v * rms * cast<f32>(read(gamma))), y);
                        });
  struct Shape { int m, n, block_n; };
  for (Shape s : {Shape{64, 1024, 1024}, Shape{7, 1000, 1024}, Shape{33, 4096, 4096}}) {
    INFO("M = " << s.m << ", N = " << s.n << ", BLOCK_N = " << s.block_n);
    const Subs subs{{M, s.m}, {N, s.n}, {BLOCK_M, 1}, {BLOCK_N, s.block_n}};
    std::vector<std::uint16_t> x(std::size_t(s.m) * s.n), gamma(s.n), beta(s.n);
    for (auto* v : {&x, &gamma, &beta})
      for (auto& h : *v) h = examples::host::random_half(rng);
    auto y = poisoned<std::uint16_t>(x.size()), y2 = poisoned<std::uint16_t>(x.size());
    auto mean = poisoned<float>(s.m), rstd = poisoned<float>(s.m);
    run_on_device(compile(layernorm, {.subs = subs}), {}, x, gamma, beta, y, mean, rstd);
    run_on_device(compile(rmsnorm, {.subs = subs}), {}, x, gamma, y2);
    CHECK(layernorm_mismatches(x, gamma, beta, y, mean, rstd, s.m, s.n) == 0);
    CHECK(rmsnorm_mismatches(x, gamma, y2, s.m, s.n) == 0);
  }
}

// Reductions over a dim no constraint tiles, at sizes a blocked layout cannot cover
// exactly (77, 100, 300): the dim's tile is padded and the elements past its size are
// masked out of the reduction.
TEST_CASE("reductions over an unconstrained dim of any size", "[gpu][layouts]") {
  std::mt19937 rng(Catch::rngSeed());
  auto columns = kernel("column_stats_bf16",
                        {WorkgroupConstraint(N, BLOCK_N, 0), HardwareConstraint{.threads_per_wave = 32}},
                        [](Memory<dims<M, N>, bf16> a, Memory<dims<N>, f32> sums, Memory<dims<N>, f32> maxima) {
                          auto x = cast<f32>(read(a));
                          write(sum<M>(x), sums);
                          write(max<M>(x), maxima);
                        });
  auto rows = kernel("row_sums_f16", {WorkgroupConstraint(M, BLOCK_M, 0), HardwareConstraint{.threads_per_wave = 32}},
                     [](Memory<dims<M, N>, f16> a, Memory<dims<M>, f32> sums) { write(sum<N>(cast<f32>(read(a))), sums); });
  struct Shape { int m, n, block; };
  for (Shape s : {Shape{77, 100, 64}, Shape{5, 1000, 32}, Shape{100, 33, 16}}) {
    INFO("column stats: M = " << s.m << " (unconstrained), N = " << s.n << ", BLOCK_N = " << s.block);
    Halves a(std::size_t(s.m) * s.n);
    for (auto& h : a) h = examples::host::random_bfloat16(rng);
    auto sums = poisoned<float>(s.n), maxima = poisoned<float>(s.n);
    run_on_device(compile(columns, {.subs = {{M, s.m}, {N, s.n}, {BLOCK_N, s.block}}}), {}, a, sums, maxima);
    std::size_t wrong = 0;
    for (int j = 0; j < s.n; ++j) {
      double total = 0, top = -INFINITY;
      for (int i = 0; i < s.m; ++i) {
        const double v = bfloat16_to_float(a[std::size_t(i) * s.n + j]);
        total += v, top = std::max(top, v);
      }
      wrong += !(std::abs(sums[j] - total) <= 1e-4 * (1 + std::abs(total))) || maxima[j] != top;
    }
    CHECK(wrong == 0);
  }
  for (Shape s : {Shape{77, 100, 16}, Shape{1000, 7, 32}, Shape{9, 96, 4}}) {
    INFO("row sums: M = " << s.m << ", BLOCK_M = " << s.block << ", N = " << s.n << " (unconstrained)");
    Halves a(std::size_t(s.m) * s.n);
    for (auto& h : a) h = examples::host::random_half(rng);
    auto sums = poisoned<float>(s.m);
    run_on_device(compile(rows, {.subs = {{M, s.m}, {N, s.n}, {BLOCK_M, s.block}}}), {}, a, sums);
    std::size_t wrong = 0;
    for (int i = 0; i < s.m; ++i) {
      double total = 0;
      for (int j = 0; j < s.n; ++j) total += half_to_float(a[std::size_t(i) * s.n + j]);
      wrong += !(std::abs(sums[i] - total) <= 1e-4 * (1 + std::abs(total)));
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("layernorm over an unconstrained row of odd length", "[gpu][layouts]") {
  std::mt19937 rng(Catch::rngSeed());
  auto layernorm = kernel("layernorm_whole_rows", {WorkgroupConstraint(M, BLOCK_M, 0), HardwareConstraint{.threads_per_wave = 32}},
                          layernorm_body);
  struct Shape { int m, n, block_m; };
  for (Shape s : {Shape{13, 77, 2}, Shape{64, 300, 1}, Shape{5, 100, 4}}) {
    INFO("M = " << s.m << ", BLOCK_M = " << s.block_m << ", N = " << s.n << " (unconstrained)");
    Halves x(std::size_t(s.m) * s.n), gamma(s.n), beta(s.n);
    for (auto* v : {&x, &gamma, &beta})
      for (auto& h : *v) h = examples::host::random_half(rng);
    auto y = poisoned<std::uint16_t>(x.size());
    auto mean = poisoned<float>(s.m), rstd = poisoned<float>(s.m);
    run_on_device(compile(layernorm, {.subs = {{M, s.m}, {N, s.n}, {BLOCK_M, s.block_m}}}), {}, x, gamma, beta, y, mean,
                  rstd);
    CHECK(layernorm_mismatches(x, gamma, beta, y, mean, rstd, s.m, s.n) == 0);
  }
}

// Softmax as a user would write it, with the natural exp() and whole rows of an odd length
// that no constraint tiles, beside the per-row absolute maximum (a quantization scale).
TEST_CASE("softmax with exp() and per-row absmax over unconstrained odd rows", "[gpu][layouts]") {
  std::mt19937 rng(Catch::rngSeed());
  auto softmax = kernel("softmax_whole_rows",
                        {WorkgroupConstraint(M, BLOCK_M, 0), WaveConstraint(M, BLOCK_M / 2),
                         HardwareConstraint{.threads_per_wave = 32}},
                        [](Memory<dims<M, N>, f16> x, Memory<dims<M, N>, f16> y, Memory<dims<M>, f32> absmax) {
                          auto v = cast<f32>(read(x));
                          auto e = exp(v - max<N>(v));
                          write(cast<f16>(e / sum<N>(e)), y);
                          write(max<N>(abs(v)), absmax);
                        });
  struct Shape { int m, n, block_m; };
  for (Shape s : {Shape{37, 1000, 2}, Shape{64, 77, 8}, Shape{5, 300, 4}}) {
    INFO("M = " << s.m << ", BLOCK_M = " << s.block_m << ", N = " << s.n << " (unconstrained)");
    Halves x(std::size_t(s.m) * s.n);
    for (auto& h : x) h = examples::host::random_half(rng);
    // Rows spread over [-8, 8), so that the exponentials span a range.
    for (auto& h : x) h = static_cast<std::uint16_t>(h + (2u << 10));
    auto y = poisoned<std::uint16_t>(x.size());
    auto absmax = poisoned<float>(s.m);
    run_on_device(compile(softmax, {.subs = {{M, s.m}, {N, s.n}, {BLOCK_M, s.block_m}}}), {}, x, y, absmax);
    std::size_t wrong = 0;
    for (int i = 0; i < s.m; ++i) {
      const std::uint16_t* row = &x[std::size_t(i) * s.n];
      double top = -INFINITY, total = 0, largest = 0;
      for (int j = 0; j < s.n; ++j) top = std::max<double>(top, half_to_float(row[j]));
      for (int j = 0; j < s.n; ++j) total += std::exp(half_to_float(row[j]) - top);
      for (int j = 0; j < s.n; ++j) largest = std::max<double>(largest, std::abs(half_to_float(row[j])));
      wrong += absmax[i] != largest;
      // Probabilities down to f16's subnormals: relative to each, and a subnormal's step.
      for (int j = 0; j < s.n; ++j) {
        const double want = std::exp(half_to_float(row[j]) - top) / total;
        wrong += !(std::abs(half_to_float(y[std::size_t(i) * s.n + j]) - want) <= 2e-3 * want + 1e-7);
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("scalar() values, numbers and expressions of symbols, broadcast against a row", "[gpu][layouts][scalar]") {
  namespace sc = fixtures::scalars;
  std::mt19937 rng(Catch::rngSeed());
  std::uniform_int_distribution<std::int32_t> value(-1000, 1000);
  for (int m : {1, 100, 4097}) {
    std::vector<std::int32_t> x(static_cast<std::size_t>(m));
    for (auto& v : x) v = value(rng);
    auto ints = fixtures::poisoned<std::int32_t>(x.size()), capped = fixtures::poisoned<std::int32_t>(x.size());
    auto floats = fixtures::poisoned<float>(x.size());
    fixtures::run_on_device(compile(sc::make_kernel(), {.subs = {{sc::M, m}, {sc::N, 9}, {sc::BLOCK_M, 128}}}), {},
                            std::as_const(x), ints, floats, capped);
    CHECK(sc::mismatches(x, ints, floats, capped, 9, 128) == 0);
  }
}
