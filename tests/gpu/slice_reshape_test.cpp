// extract_slice (windows along a dim at a per-row or symbolic offset, steps of 1 to 3,
// the dim held by one wave or split among waves; a shift along the dim into itself) and reshape (a fused row regrouped into
// heads, reduced per head, permuted, and regrouped back), on the device against host
// references on random data, aligned and unaligned sizes, outputs poisoned.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>
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
WAVE_SYMBOL(W);
WAVE_SYMBOL(H);
WAVE_SYMBOL(D);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(WAVE_N);

// Rows over the waves (one each), N whole in each wave; or N split among the waves of a
// workgroup that holds it whole.
Constraints rows_per_wave() {
  return {WorkgroupConstraint(M, BLOCK_M, 0), WaveConstraint(M, 1), HardwareConstraint{.threads_per_wave = 32}};
}
Constraints n_among_waves() {
  return {WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(M, 1),
          WaveConstraint(N, WAVE_N), HardwareConstraint{.threads_per_wave = 32}};
}

// y[m, w] = x[m, at[m] + w * step], last[m, w] = x[m, N - W + w], shifted[m, n] =
// x[m, n + W] (a slice along N into N itself); 0 outside N.
template <class T>
auto windows(Constraints constraints, std::int64_t step) {
  return kernel("windows", constraints,
                [step](Memory<dims<M, N>, T> x, Memory<dims<M>, i32> at, Memory<dims<M, W>, T> y,
                       Memory<dims<M, W>, T> last, Memory<dims<M, N>, T> shifted) {
                  auto v = read(x);
                  write(extract_slice<N, W>(v, read(at), step), y);
                  write(extract_slice<N, W>(v, N - W), last);
                  write(extract_slice<N, N>(v, W), shifted);
                });
}

struct WindowCase {
  int m, n, w, block_m, block_n, wave_n;  // block_n 0: rows_per_wave
  std::int64_t step;
};

template <class T, class Word, class ToDouble>
void check_windows(std::mt19937& rng, const WindowCase& c, ToDouble to_double) {
  INFO("M = " << c.m << ", N = " << c.n << ", W = " << c.w << ", BLOCK_M = " << c.block_m << ", BLOCK_N = " << c.block_n
              << ", WAVE_N = " << c.wave_n << ", step = " << c.step);
  CompileOptions options{.subs = {{M, c.m}, {N, c.n}, {W, c.w}, {BLOCK_M, c.block_m}}};
  if (c.block_n) {
    options.subs.push_back({BLOCK_N, c.block_n});
    options.subs.push_back({WAVE_N, c.wave_n});
  }
  std::vector<Word> x(std::size_t(c.m) * c.n);
  std::uniform_int_distribution<int> value(-2000, 2000), offset(-c.w, c.n);
  for (Word& e : x) {
    if constexpr (std::is_same_v<Word, std::uint16_t>) e = examples::host::random_half(rng);
    else e = static_cast<Word>(value(rng) / 8.0f);
  }
  std::vector<std::int32_t> at(c.m);
  for (auto& a : at) a = offset(rng);
  auto y = poisoned<Word>(std::size_t(c.m) * c.w), last = poisoned<Word>(std::size_t(c.m) * c.w);
  auto shifted = poisoned<Word>(x.size());
  run_on_device(compile(windows<T>(c.block_n ? n_among_waves() : rows_per_wave(), c.step), options), {}, x, at, y,
                last, shifted);
  auto element = [&](int r, std::int64_t k) { return k >= 0 && k < c.n ? to_double(x[std::size_t(r) * c.n + k]) : 0.0; };
  std::size_t wrong = 0;
  for (int r = 0; r < c.m; ++r)
    for (int s = 0; s < c.w; ++s) {
      const std::size_t e = std::size_t(r) * c.w + s;
      const double want = element(r, at[r] + s * c.step), want_last = element(r, c.n - c.w + s);
      if (to_double(y[e]) != want && wrong++ < 5)
        UNSCOPED_INFO("y[" << r << ", " << s << "] = " << to_double(y[e]) << ", expected " << want << " (at " << at[r] << ")");
      if (to_double(last[e]) != want_last && wrong++ < 5)
        UNSCOPED_INFO("last[" << r << ", " << s << "] = " << to_double(last[e]) << ", expected " << want_last);
    }
  for (int r = 0; r < c.m; ++r)
    for (int k = 0; k < c.n; ++k) {
      const double got = to_double(shifted[std::size_t(r) * c.n + k]), want = element(r, k + c.w);
      if (got != want && wrong++ < 5)
        UNSCOPED_INFO("shifted[" << r << ", " << k << "] = " << got << ", expected " << want);
    }
  CHECK(wrong == 0);
}

// A fused row of H heads of D: each head scaled by the inverse root of its sum of squares
// (f32), the row regrouped back; the heads also written with D before H.
auto head_scale() {
  return kernel("head_scale", rows_per_wave(),
                [](Memory<dims<M, N>, f16> x, Memory<dims<M, N>, f32> scaled, Memory<dims<M, D, H>, f16> by_d) {
                  auto v = reshape<dims<M, H, D>>(read(x));
                  write(permute<dims<M, D, H>>(v), by_d);
                  auto f = cast<f32>(v);
                  auto scale = rsqrt(sum<D>(f * f));
                  write(reshape<dims<M, N>>(f * broadcast<dims<M, H, D>>(scale)), scaled);
                });
}

}  // namespace

TEST_CASE("extract_slice: windows per row and at N - W, steps 1 to 3, f32 and f16", "[gpu][slice]") {
  std::mt19937 rng(Catch::rngSeed());
  const std::vector<WindowCase> cases = {{64, 256, 40, 4, 0, 0, 1},  {37, 100, 37, 2, 0, 0, 2},
                                         {5, 7, 3, 1, 0, 0, 1},      {64, 256, 40, 4, 256, 64, 1},
                                         {37, 100, 37, 2, 128, 32, 2}, {9, 1000, 300, 1, 1024, 256, 3}};
  for (const WindowCase& c : cases) {
    check_windows<f32, float>(rng, c, [](float v) { return double(v); });
    check_windows<f16, std::uint16_t>(rng, c, [](std::uint16_t h) { return double(examples::host::half_to_float(h)); });
  }
}

TEST_CASE("reshape: fused rows into heads and back, reduced per head and permuted", "[gpu][slice]") {
  std::mt19937 rng(Catch::rngSeed());
  struct HeadCase {
    int m, h, d, block_m;
  };
  // The last two: each thread's run along N is one head's D (runs of 8 and of 4), so the
  // first reshape permutes registers; the others go through shared memory.
  for (const HeadCase& c :
       {HeadCase{64, 8, 32, 4}, HeadCase{37, 5, 24, 2}, HeadCase{9, 3, 7, 1}, HeadCase{64, 4, 8, 4}, HeadCase{100, 3, 4, 2}}) {
    const int n = c.h * c.d;
    INFO("M = " << c.m << ", H = " << c.h << ", D = " << c.d << ", BLOCK_M = " << c.block_m);
    const CompileOptions options{.subs = {{M, c.m}, {N, n}, {H, c.h}, {D, c.d}, {BLOCK_M, c.block_m}}};
    std::vector<std::uint16_t> x(std::size_t(c.m) * n);
    for (auto& e : x) e = examples::host::random_half(rng);
    auto scaled = poisoned<float>(x.size());
    auto by_d = poisoned<std::uint16_t>(x.size());
    run_on_device(compile(head_scale(), options), {}, x, scaled, by_d);
    std::size_t wrong = 0;
    for (int r = 0; r < c.m; ++r)
      for (int h = 0; h < c.h; ++h) {
        double squares = 0;
        for (int d = 0; d < c.d; ++d) {
          const double v = examples::host::half_to_float(x[std::size_t(r) * n + h * c.d + d]);
          squares += v * v;
        }
        for (int d = 0; d < c.d; ++d) {
          const std::size_t e = std::size_t(r) * n + h * c.d + d;
          const double v = examples::host::half_to_float(x[e]), want = v / std::sqrt(squares);
          if (!(std::abs(scaled[e] - want) <= 1e-5 * (1 + std::abs(want))) && wrong++ < 5)
            UNSCOPED_INFO("scaled[" << r << ", " << h << " * D + " << d << "] = " << scaled[e] << ", expected " << want);
          const std::uint16_t moved = by_d[std::size_t(r) * n + std::size_t(d) * c.h + h];
          if (moved != x[e] && wrong++ < 5)
            UNSCOPED_INFO("by_d[" << r << ", " << d << ", " << h << "] = " << examples::host::half_to_float(moved)
                                  << ", expected " << v);
        }
      }
    CHECK(wrong == 0);
  }
}
