// Prefix sums (cumsum), min reductions and the atomics that keep a minimum or maximum,
// run on the device against host references on random data (float64 sums for floats,
// exact for integers and for minima), aligned and unaligned sizes, outputs poisoned.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "host_half.hpp"
#include "wave/wave.hpp"

using namespace wave;
using fixtures::poisoned;
using fixtures::run_on_device;

namespace {

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(WAVE_N);

// Rows of x[M, N], each whole in one workgroup, WAVE_N of a row per wave: the running
// sums along N, and the row minima floored by m0 (a min with an initial value).
template <class T>
auto row_scan_and_min() {
  return kernel("row_scan_and_min",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(M, 1),
                            WaveConstraint(N, WAVE_N), HardwareConstraint{.threads_per_wave = 32}},
                [](Memory<dims<M, N>, T> x, Memory<dims<M>, T> m0, Memory<dims<M, N>, T> sums, Memory<dims<M>, T> mins) {
                  auto v = read(x);
                  write(cumsum<N>(v), sums);
                  write(min<N>(v, read(m0)), mins);
                });
}

// out_min[N] and out_max[N] keep the least and greatest of their own values and every
// row's x[M, N], from every thread and workgroup along M.
template <class T>
auto column_min_max() {
  constexpr auto i = iterator(0), j = iterator(1);
  return kernel("column_min_max",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1),
                            WaveConstraint(M, BLOCK_M / 2), WaveConstraint(N, BLOCK_N / 2),
                            HardwareConstraint{.threads_per_wave = 32}},
                [=](Memory<dims<M, N>, T> x, Memory<dims<N>, T> out_min, Memory<dims<N>, T> out_max) {
                  IndexMapping<dims<M, N>> columns{.inputs = {{M, i}, {N, j}}, .outputs = {{N, j}}};
                  auto v = read(x);
                  atomic_min(v, out_min, columns);
                  atomic_max(v, out_max, columns);
                });
}

// The sizes of each case: rows, row length, the workgroup's rows and its tile of N
// (a power of two covering N), N per wave.
struct Rows {
  int m, n, block_m, block_n, wave_n;
};

const std::vector<Rows> kRows = {{64, 256, 1, 256, 64},  {37, 100, 1, 128, 32},  {5, 1, 1, 32, 32},
                                 {8, 1000, 2, 1024, 256}, {300, 64, 4, 64, 64}, {3, 4099, 1, 8192, 1024}};

template <class Word>
void check_rows(const std::vector<Word>& got, const std::vector<double>& want, double tolerance, const char* what,
                int n) {
  std::size_t wrong = 0;
  for (std::size_t e = 0; e < want.size(); ++e) {
    const double g = static_cast<double>(got[e]);
    if (!(std::abs(g - want[e]) <= tolerance)) {
      if (wrong++ < 5) UNSCOPED_INFO(what << "[" << e / n << ", " << e % n << "] = " << g << ", expected " << want[e]);
    }
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("cumsum along a row and min with an initial value: f32 and i32", "[gpu][scan]") {
  std::mt19937 rng(Catch::rngSeed());
  for (const Rows& s : kRows) {
    INFO("M = " << s.m << ", N = " << s.n << ", BLOCK_M = " << s.block_m << ", BLOCK_N = " << s.block_n
                << ", WAVE_N = " << s.wave_n);
    const CompileOptions options{
        .subs = {{M, s.m}, {N, s.n}, {BLOCK_M, s.block_m}, {BLOCK_N, s.block_n}, {WAVE_N, s.wave_n}}};
    const std::size_t size = static_cast<std::size_t>(s.m) * s.n;
    {
      std::uniform_real_distribution<float> value(-1.0f, 1.0f);
      std::vector<float> x(size), m0(static_cast<std::size_t>(s.m));
      for (float& v : x) v = value(rng);
      for (float& v : m0) v = value(rng);
      auto sums = poisoned<float>(size);
      auto mins = poisoned<float>(static_cast<std::size_t>(s.m));
      run_on_device(compile(row_scan_and_min<f32>(), options), {}, x, m0, sums, mins);
      std::vector<double> want_sums(size), want_mins(static_cast<std::size_t>(s.m));
      for (int r = 0; r < s.m; ++r) {
        double acc = 0, least = m0[static_cast<std::size_t>(r)];
        for (int c = 0; c < s.n; ++c) {
          acc += x[static_cast<std::size_t>(r) * s.n + c];
          want_sums[static_cast<std::size_t>(r) * s.n + c] = acc;
          least = std::min<double>(least, x[static_cast<std::size_t>(r) * s.n + c]);
        }
        want_mins[static_cast<std::size_t>(r)] = least;
      }
      // f32 sums in another order: within a few roundings of the partial sums' size.
      check_rows(sums, want_sums, 1e-6 * s.n + 1e-5, "sums", s.n);
      check_rows(mins, want_mins, 0.0, "mins", 1);
    }
    {
      std::uniform_int_distribution<std::int32_t> value(-1000, 1000);
      std::vector<std::int32_t> x(size), m0(static_cast<std::size_t>(s.m));
      for (auto& v : x) v = value(rng);
      for (auto& v : m0) v = value(rng);
      auto sums = poisoned<std::int32_t>(size);
      auto mins = poisoned<std::int32_t>(static_cast<std::size_t>(s.m));
      run_on_device(compile(row_scan_and_min<i32>(), options), {}, x, m0, sums, mins);
      std::vector<double> want_sums(size), want_mins(static_cast<std::size_t>(s.m));
      for (int r = 0; r < s.m; ++r) {
        std::int64_t acc = 0, least = m0[static_cast<std::size_t>(r)];
        for (int c = 0; c < s.n; ++c) {
          acc += x[static_cast<std::size_t>(r) * s.n + c];
          want_sums[static_cast<std::size_t>(r) * s.n + c] = double(acc);
          least = std::min<std::int64_t>(least, x[static_cast<std::size_t>(r) * s.n + c]);
        }
        want_mins[static_cast<std::size_t>(r)] = double(least);
      }
      check_rows(sums, want_sums, 0.0, "sums", s.n);
      check_rows(mins, want_mins, 0.0, "mins", 1);
    }
  }
}

TEST_CASE("cumsum of f16 sums in f32 and rounds once", "[gpu][scan]") {
  std::mt19937 rng(Catch::rngSeed());
  const Rows s{33, 200, 1, 256, 64};
  const CompileOptions options{.subs = {{M, s.m}, {N, s.n}, {BLOCK_M, s.block_m}, {BLOCK_N, s.block_n}, {WAVE_N, s.wave_n}}};
  const std::size_t size = static_cast<std::size_t>(s.m) * s.n;
  std::vector<std::uint16_t> x(size), m0(static_cast<std::size_t>(s.m));
  for (auto& h : x) h = examples::host::random_half(rng);
  for (auto& h : m0) h = examples::host::random_half(rng);
  auto sums = poisoned<std::uint16_t>(size);
  auto mins = poisoned<std::uint16_t>(static_cast<std::size_t>(s.m));
  run_on_device(compile(row_scan_and_min<f16>(), options), {}, x, m0, sums, mins);
  std::vector<double> want_sums(size), got_sums(size), want_mins(static_cast<std::size_t>(s.m)), got_mins(static_cast<std::size_t>(s.m));
  for (int r = 0; r < s.m; ++r) {
    double acc = 0, least = examples::host::half_to_float(m0[static_cast<std::size_t>(r)]);
    for (int c = 0; c < s.n; ++c) {
      const std::size_t e = static_cast<std::size_t>(r) * s.n + c;
      acc += examples::host::half_to_float(x[e]);
      want_sums[e] = acc;
      got_sums[e] = examples::host::half_to_float(sums[e]);
      least = std::min<double>(least, examples::host::half_to_float(x[e]));
    }
    want_mins[static_cast<std::size_t>(r)] = least;
    got_mins[static_cast<std::size_t>(r)] = examples::host::half_to_float(mins[static_cast<std::size_t>(r)]);
  }
  std::size_t wrong = 0;
  for (std::size_t e = 0; e < size; ++e)
    // One f16 rounding of the f32 sum: half an ulp of f16 at its size, and some f32 slack.
    if (!(std::abs(got_sums[e] - want_sums[e]) <= std::abs(want_sums[e]) * 0x1p-11 + 1e-3) && wrong++ < 5)
      UNSCOPED_INFO("sums[" << e << "] = " << got_sums[e] << ", expected " << want_sums[e]);
  CHECK(wrong == 0);
  CHECK(got_mins == want_mins);
}

TEST_CASE("atomic_min and atomic_max from every row into one row: f32 and i32", "[gpu][atomic]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [m, n] : std::vector<std::pair<int, int>>{{256, 128}, {1000, 77}, {3, 300}, {1, 1}}) {
    INFO("M = " << m << ", N = " << n);
    const CompileOptions options{.subs = {{M, m}, {N, n}, {BLOCK_M, 64}, {BLOCK_N, 64}}};
    const std::size_t size = std::size_t(m) * n;
    auto check = [&](const auto& x, const auto& lo0, const auto& hi0, const auto& lo, const auto& hi) {
      std::size_t wrong = 0;
      for (int j = 0; j < n; ++j) {
        auto least = lo0[static_cast<std::size_t>(j)], most = hi0[static_cast<std::size_t>(j)];
        for (int r = 0; r < m; ++r) {
          least = std::min(least, x[static_cast<std::size_t>(r) * n + j]);
          most = std::max(most, x[static_cast<std::size_t>(r) * n + j]);
        }
        if ((lo[static_cast<std::size_t>(j)] != least || hi[static_cast<std::size_t>(j)] != most) && wrong++ < 5)
          UNSCOPED_INFO("column " << j << ": min " << lo[static_cast<std::size_t>(j)] << " max " << hi[static_cast<std::size_t>(j)]
                                  << ", expected " << least << " and " << most);
      }
      CHECK(wrong == 0);
    };
    {
      std::uniform_real_distribution<float> value(-100.0f, 100.0f);
      std::vector<float> x(size), lo0(static_cast<std::size_t>(n)), hi0(static_cast<std::size_t>(n));
      for (float& v : x) v = value(rng);
      // Some columns start beyond every value (they keep their own), most within.
      for (float& v : lo0) v = value(rng) * 1.5f;
      for (float& v : hi0) v = value(rng) * 1.5f;
      auto lo = lo0, hi = hi0;
      run_on_device(compile(column_min_max<f32>(), options), {}, x, lo, hi);
      check(x, lo0, hi0, lo, hi);
    }
    {
      std::uniform_int_distribution<std::int32_t> value(-1000000, 1000000);
      std::vector<std::int32_t> x(size), lo0(static_cast<std::size_t>(n)), hi0(static_cast<std::size_t>(n));
      for (auto& v : x) v = value(rng);
      for (auto& v : lo0) v = value(rng) + value(rng) / 2;
      for (auto& v : hi0) v = value(rng) + value(rng) / 2;
      auto lo = lo0, hi = hi0;
      run_on_device(compile(column_min_max<i32>(), options), {}, x, lo, hi);
      check(x, lo0, hi0, lo, hi);
    }
  }
}
