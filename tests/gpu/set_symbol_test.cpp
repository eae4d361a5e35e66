// Dims whose end a kernel reads at run time (set_symbol), on the device against float64
// references: rows that end anywhere in a tile, at N, past it (clamped), at 0 and below,
// outputs poisoned so that a write past a row's end is seen.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "fixtures/varlen_rows.hpp"
#include "host_half.hpp"
#include "wave/wave.hpp"

using namespace wave;
using fixtures::poisoned;
using fixtures::run_on_device;

namespace {

namespace vl = fixtures::varlen;

struct Rows {
  int n, block_n, wave_n;
};

// Lengths of every kind for rows of `n`.
std::vector<std::int32_t> lengths(int n, int block_n, std::mt19937& rng) {
  std::vector<std::int32_t> lens{0, 1, block_n, block_n + 1, n, n + 50, -7, n - 1};
  std::uniform_int_distribution<int> any(0, n);
  for (int i = 0; i < 9; ++i) lens.push_back(any(rng));
  return lens;
}

}  // namespace

TEST_CASE("set_symbol: rows end at lengths read at run time, in a loop and across workgroups", "[gpu][dynamic][set_symbol]") {
  std::mt19937 rng(Catch::rngSeed());
  for (const Rows& s : std::vector<Rows>{{1000, 128, 64}, {4099, 256, 256}, {64, 64, 32}, {300, 128, 128}}) {
    INFO("N = " << s.n << ", BLOCK_N = " << s.block_n << ", WAVE_N = " << s.wave_n);
    const std::vector<std::int32_t> lens = lengths(s.n, s.block_n, rng);
    const int b = static_cast<int>(lens.size());
    const CompileOptions options{.subs = {{vl::B, b}, {vl::N, s.n}, {vl::BLOCK_N, s.block_n}, {vl::WAVE_N, s.wave_n}}};
    const std::size_t size = std::size_t(b) * static_cast<std::size_t>(s.n);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> x(size);
    for (float& v : x) v = value(rng);
    auto doubled = poisoned<float>(size);
    auto total = poisoned<float>(std::size_t(b));
    auto scaled = poisoned<float>(size);
    const auto poison = poisoned<float>(1)[0];
    run_on_device(compile(vl::row_sums<f32>(), options), {}, x, lens, doubled, total);
    run_on_device(compile(vl::scaled_rows<f32>(), options), {}, x, lens, scaled);
    std::size_t wrong = 0;
    for (int r = 0; r < b; ++r) {
      const int end = std::clamp(lens[std::size_t(r)], 0, s.n);
      double want = 0;
      for (int c = 0; c < s.n; ++c) {
        const std::size_t e = std::size_t(r) * std::size_t(s.n) + std::size_t(c);
        const bool inside = c < end;
        if (inside) want += x[e];
        const bool ok = inside ? doubled[e] == 2 * x[e] && scaled[e] == 3 * x[e]
                               : std::memcmp(&doubled[e], &poison, 4) == 0 && std::memcmp(&scaled[e], &poison, 4) == 0;
        if (!ok && wrong++ < 5)
          UNSCOPED_INFO("row " << r << " (length " << lens[std::size_t(r)] << "), column " << c << ": doubled "
                               << doubled[e] << ", scaled " << scaled[e] << ", x " << x[e]);
      }
      // f32 sums in another order: within a few roundings of the row's size.
      if (!(std::abs(total[std::size_t(r)] - want) <= 1e-6 * s.n + 1e-5) && wrong++ < 5)
        UNSCOPED_INFO("row " << r << " (length " << lens[std::size_t(r)] << "): sum " << total[std::size_t(r)]
                             << ", expected " << want);
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("set_symbol: f16 rows keep 16-byte accesses inside and stop at the end", "[gpu][dynamic][set_symbol]") {
  std::mt19937 rng(Catch::rngSeed());
  const Rows s{777, 256, 128};
  const std::vector<std::int32_t> lens = lengths(s.n, s.block_n, rng);
  const int b = static_cast<int>(lens.size());
  const CompileOptions options{.subs = {{vl::B, b}, {vl::N, s.n}, {vl::BLOCK_N, s.block_n}, {vl::WAVE_N, s.wave_n}}};
  const std::size_t size = std::size_t(b) * static_cast<std::size_t>(s.n);
  std::vector<std::uint16_t> x(size);
  for (auto& h : x) h = examples::host::random_half(rng);
  auto scaled = poisoned<std::uint16_t>(size);
  const std::uint16_t poison = poisoned<std::uint16_t>(1)[0];
  run_on_device(compile(vl::scaled_rows<f16>(), options), {}, x, lens, scaled);
  std::size_t wrong = 0;
  for (int r = 0; r < b; ++r)
    for (int c = 0; c < s.n; ++c) {
      const std::size_t e = std::size_t(r) * std::size_t(s.n) + std::size_t(c);
      const bool inside = c < std::clamp(lens[std::size_t(r)], 0, s.n);
      // 3x in f32 rounded once to f16.
      const double want = examples::host::half_to_float(x[e]) * 3.0;
      const double got = examples::host::half_to_float(scaled[e]);
      const bool ok = inside ? std::abs(got - want) <= std::abs(want) * 0x1p-11 : scaled[e] == poison;
      if (!ok && wrong++ < 5) UNSCOPED_INFO("row " << r << ", column " << c << ": " << got << ", expected " << want);
    }
  CHECK(wrong == 0);
}
