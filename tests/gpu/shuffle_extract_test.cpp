// shuffle (pairs along a dim: within a thread, across lanes, across waves), extract (one
// element per row, at a position per row or a symbolic one, whole rows and tile by tile in
// a loop), workgroup_barrier (a workgroup's exchange through global memory) and
// set_wave_prio (nothing on NVIDIA), on the device against host references on random
// data, aligned and unaligned sizes, outputs poisoned.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <tuple>
#include <type_traits>
#include <vector>

#include "fixtures/device_run.hpp"
#include "host_half.hpp"
#include "wave/wave.hpp"

using namespace wave;
using fixtures::poisoned;
using fixtures::run_on_device;

namespace {

WAVE_SYMBOL(S);
WAVE_SYMBOL(D);
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_S);
WAVE_SYMBOL(BLOCK_D);
WAVE_SYMBOL(WAVE_S);
WAVE_SYMBOL(WAVE_D);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(WAVE_N);

Constraints rows_by_d() {
  return {WorkgroupConstraint(S, BLOCK_S, 1), WorkgroupConstraint(D, BLOCK_D, 0), WaveConstraint(S, WAVE_S),
          WaveConstraint(D, WAVE_D), HardwareConstraint{.threads_per_wave = 32}};
}

// y = shuffle<D>(x, mask).
template <class T>
auto pair_swap(std::int64_t mask) {
  return kernel("pair_swap", rows_by_d(), [mask](Memory<dims<S, D>, T> x, Memory<dims<S, D>, T> y) {
    write(shuffle<D>(read(x), mask), y);
  });
}

// Rotary embedding on interleaved pairs (x[2i], x[2i+1]) with each element's angle's
// cosine and sine given: out[d] = x[d] c[d] - x[d+1] s[d] (d even), x[d] c[d] + x[d-1] s[d]
// (d odd); in f32.
template <class T>
auto rotary_interleaved() {
  return kernel("rotary_interleaved", rows_by_d(),
                [](Memory<dims<S, D>, T> x, Memory<dims<S, D>, f32> c, Memory<dims<S, D>, f32> s,
                   Memory<dims<S, D>, f32> out) {
                  auto v = cast<f32>(read(x));
                  auto sign = cast<f32>(apply_expr(self_index<D, i32>(), [](auto d) { return d % 2 * 2 - 1; }));
                  set_wave_prio(2);
                  write(v * read(c) + shuffle<D>(v, 1) * sign * read(s), out);
                  set_wave_prio(0);
                });
}

// The aligned groups pairs of xor `mask` form in: the power of two above it.
int group_of(std::int64_t mask) {
  int g = 1;
  while (g <= mask) g *= 2;
  return g;
}

struct PairCase {
  int s, d, block_s, block_d, wave_s, wave_d;
};

template <class T, class Word, class ToDouble>
void check_pair_swap(std::mt19937& rng, const PairCase& c, std::int64_t mask, ToDouble to_double) {
  INFO("S = " << c.s << ", D = " << c.d << ", BLOCK_S = " << c.block_s << ", BLOCK_D = " << c.block_d
              << ", WAVE_S = " << c.wave_s << ", WAVE_D = " << c.wave_d << ", mask = " << mask);
  const CompileOptions options{.subs = {{S, c.s}, {D, c.d}, {BLOCK_S, c.block_s}, {BLOCK_D, c.block_d},
                                        {WAVE_S, c.wave_s}, {WAVE_D, c.wave_d}}};
  const std::size_t size = std::size_t(c.s) * c.d;
  std::vector<Word> x(size);
  std::uniform_int_distribution<int> value(-2000, 2000);
  for (Word& w : x) {
    if constexpr (std::is_same_v<Word, std::uint16_t>) w = examples::host::random_half(rng);
    else w = static_cast<Word>(value(rng) / 8.0f);
  }
  auto y = poisoned<Word>(size);
  run_on_device(compile(pair_swap<T>(mask), options), {}, x, y);
  std::size_t wrong = 0;
  for (int r = 0; r < c.s; ++r)
    for (int k = 0; k < c.d; ++k) {
      const int partner = k ^ static_cast<int>(mask);
      const double want = partner < c.d ? to_double(x[std::size_t(r) * c.d + partner]) : 0.0;
      const double got = to_double(y[std::size_t(r) * c.d + k]);
      if (got != want && wrong++ < 5) UNSCOPED_INFO("y[" << r << ", " << k << "] = " << got << ", expected " << want);
    }
  CHECK(wrong == 0);
}

// picked[m] = x[m, at[m]] (0 outside N), last[m] = x[m, N - 1], over rows whole in a
// workgroup (N split among waves).
template <class T>
auto pick_rows() {
  return kernel("pick_rows",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(M, 1),
                            WaveConstraint(N, WAVE_N), HardwareConstraint{.threads_per_wave = 32}},
                [](Memory<dims<M, N>, T> x, Memory<dims<M>, i32> at, Memory<dims<M>, T> picked, Memory<dims<M>, T> last) {
                  auto v = read(x);
                  write(extract<N>(v, read(at)), picked);
                  write(extract<N>(v, N - 1), last);
                });
}

// The same pick from a loop over N's tiles: each tile adds its element or 0.
auto pick_in_loop() {
  return kernel("pick_in_loop",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WaveConstraint(M, BLOCK_M / 2), TilingConstraint(N, BLOCK_N),
                            HardwareConstraint{.threads_per_wave = 32}},
                [](Memory<dims<M, N>, f32> x, Memory<dims<M>, i32> at, Memory<dims<M>, f32> picked) {
                  Register<dims<M>, f32> zero(0.0);
                  auto positions = read(at);
                  write(iterate<N>(zero, [&](auto acc) { return acc + extract<N>(read(x), positions); }), picked);
                });
}

struct RowCase {
  int m, n, block_m, block_n, wave_n;
};

// y[m, n] = x[m, N - 1 - n] + 1, through `scratch`: each thread writes its elements, the
// workgroup waits at the barrier, then each reads those another wave wrote.
auto reverse_through_scratch() {
  constexpr auto i = iterator(0), j = iterator(1);
  return kernel("reverse_through_scratch",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(M, 1),
                            WaveConstraint(N, WAVE_N), HardwareConstraint{.threads_per_wave = 32}},
                [=](Memory<dims<M, N>, f32> x, Memory<dims<M, N>, f32> scratch, Memory<dims<M, N>, f32> y) {
                  write(read(x) + 1.0, scratch);
                  workgroup_barrier();
                  const IndexMapping<dims<M, N>> reversed{.inputs = {{M, i}, {N, N - 1 - j}}, .outputs = {{M, i}, {N, j}}};
                  write(read(scratch, reversed), y);
                });
}

}  // namespace

TEST_CASE("shuffle along a dim: in registers, across lanes and across waves, f32 and f16", "[gpu][shuffle]") {
  std::mt19937 rng(Catch::rngSeed());
  const std::vector<PairCase> cases = {{64, 128, 16, 128, 16, 64}, {37, 96, 8, 64, 8, 32}, {5, 64, 4, 64, 1, 64},
                                       {19, 256, 2, 256, 1, 64}};
  for (const PairCase& c : cases)
    for (std::int64_t mask : {1, 2, 3, 4, 8, 16, 32, 5, 64, 127}) {
      if (c.block_d % group_of(mask) != 0) continue;
      check_pair_swap<f32, float>(rng, c, mask, [](float v) { return double(v); });
      check_pair_swap<f16, std::uint16_t>(rng, c, mask, [](std::uint16_t h) { return double(examples::host::half_to_float(h)); });
    }
}

TEST_CASE("rotary embedding on interleaved pairs through shuffle, with wave priorities set", "[gpu][shuffle]") {
  std::mt19937 rng(Catch::rngSeed());
  std::uniform_real_distribution<float> angle(-3.2f, 3.2f);
  for (const PairCase& c : {PairCase{64, 128, 16, 128, 16, 64}, PairCase{33, 80, 4, 64, 4, 32}}) {
    INFO("S = " << c.s << ", D = " << c.d << ", BLOCK_D = " << c.block_d << ", WAVE_D = " << c.wave_d);
    const CompileOptions options{.subs = {{S, c.s}, {D, c.d}, {BLOCK_S, c.block_s}, {BLOCK_D, c.block_d},
                                          {WAVE_S, c.wave_s}, {WAVE_D, c.wave_d}}};
    const std::size_t size = std::size_t(c.s) * c.d;
    std::vector<std::uint16_t> x(size);
    std::vector<float> cosine(size), sine(size);
    for (auto& h : x) h = examples::host::random_half(rng);
    for (int r = 0; r < c.s; ++r)
      for (int k = 0; k < c.d; k += 2) {
        const float a = angle(rng);
        for (int e = k; e < k + 2; ++e) {
          cosine[std::size_t(r) * c.d + e] = std::cos(a);
          sine[std::size_t(r) * c.d + e] = std::sin(a);
        }
      }
    auto out = poisoned<float>(size);
    run_on_device(compile(rotary_interleaved<f16>(), options), {}, x, cosine, sine, out);
    std::size_t wrong = 0;
    for (int r = 0; r < c.s; ++r)
      for (int k = 0; k < c.d; ++k) {
        const std::size_t e = std::size_t(r) * c.d + k, p = std::size_t(r) * c.d + (k ^ 1);
        const double xe = examples::host::half_to_float(x[e]), xp = examples::host::half_to_float(x[p]);
        const double want = xe * cosine[e] + (k % 2 ? xp : -xp) * double(sine[e]);
        if (!(std::abs(out[e] - want) <= 1e-5) && wrong++ < 5)
          UNSCOPED_INFO("out[" << r << ", " << k << "] = " << out[e] << ", expected " << want);
      }
    CHECK(wrong == 0);
  }
}

TEST_CASE("extract one element per row: a position per row and N - 1; f32, f16 and i32", "[gpu][extract]") {
  std::mt19937 rng(Catch::rngSeed());
  const std::vector<RowCase> cases = {{64, 256, 4, 256, 64}, {37, 100, 2, 128, 32}, {5, 1, 1, 32, 32}, {9, 1000, 1, 1024, 256}};
  for (const RowCase& c : cases) {
    INFO("M = " << c.m << ", N = " << c.n << ", BLOCK_M = " << c.block_m << ", BLOCK_N = " << c.block_n << ", WAVE_N = " << c.wave_n);
    const CompileOptions options{
        .subs = {{M, c.m}, {N, c.n}, {BLOCK_M, c.block_m}, {BLOCK_N, c.block_n}, {WAVE_N, c.wave_n}}};
    const std::size_t size = std::size_t(c.m) * c.n;
    // Positions mostly inside the row, some before it or past its end (then 0).
    std::uniform_int_distribution<std::int32_t> position(-3, c.n + 2);
    std::vector<std::int32_t> at(std::size_t(c.m));
    for (auto& p : at) p = position(rng);
    auto expect = [&](const auto& x, const auto& picked, const auto& last, auto to_double) {
      std::size_t wrong = 0;
      for (int r = 0; r < c.m; ++r) {
        const std::int32_t p = at[std::size_t(r)];
        const double want = p >= 0 && p < c.n ? to_double(x[std::size_t(r) * c.n + p]) : 0.0;
        const double want_last = to_double(x[std::size_t(r) * c.n + c.n - 1]);
        if ((to_double(picked[std::size_t(r)]) != want || to_double(last[std::size_t(r)]) != want_last) && wrong++ < 5)
          UNSCOPED_INFO("row " << r << " (at " << p << "): " << to_double(picked[std::size_t(r)]) << " and "
                               << to_double(last[std::size_t(r)]) << ", expected " << want << " and " << want_last);
      }
      CHECK(wrong == 0);
    };
    {
      std::uniform_real_distribution<float> value(-100.0f, 100.0f);
      std::vector<float> x(size);
      for (float& v : x) v = value(rng);
      auto picked = poisoned<float>(std::size_t(c.m)), last = poisoned<float>(std::size_t(c.m));
      run_on_device(compile(pick_rows<f32>(), options), {}, x, at, picked, last);
      expect(x, picked, last, [](float v) { return double(v); });
    }
    {
      std::vector<std::uint16_t> x(size);
      for (auto& h : x) h = examples::host::random_half(rng);
      auto picked = poisoned<std::uint16_t>(std::size_t(c.m)), last = poisoned<std::uint16_t>(std::size_t(c.m));
      run_on_device(compile(pick_rows<f16>(), options), {}, x, at, picked, last);
      expect(x, picked, last, [](std::uint16_t h) { return double(examples::host::half_to_float(h)); });
    }
    {
      std::uniform_int_distribution<std::int32_t> value(-1000000, 1000000);
      std::vector<std::int32_t> x(size);
      for (auto& v : x) v = value(rng);
      auto picked = poisoned<std::int32_t>(std::size_t(c.m)), last = poisoned<std::int32_t>(std::size_t(c.m));
      run_on_device(compile(pick_rows<i32>(), options), {}, x, at, picked, last);
      expect(x, picked, last, [](std::int32_t v) { return double(v); });
    }
  }
}

TEST_CASE("extract inside a loop over its dim: the tiles' elements summed", "[gpu][extract]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [m, n, block_n] : std::vector<std::tuple<int, int, int>>{{128, 512, 64}, {37, 200, 32}, {3, 7, 16}}) {
    INFO("M = " << m << ", N = " << n << ", BLOCK_N = " << block_n);
    const CompileOptions options{.subs = {{M, m}, {N, n}, {BLOCK_M, 64}, {BLOCK_N, block_n}}};
    std::uniform_real_distribution<float> value(-10.0f, 10.0f);
    std::uniform_int_distribution<std::int32_t> position(-2, n + 1);
    std::vector<float> x(std::size_t(m) * n);
    std::vector<std::int32_t> at(static_cast<std::size_t>(m));
    for (float& v : x) v = value(rng);
    for (auto& p : at) p = position(rng);
    auto picked = poisoned<float>(std::size_t(m));
    run_on_device(compile(pick_in_loop(), options), {}, x, at, picked);
    std::size_t wrong = 0;
    for (int r = 0; r < m; ++r) {
      const std::int32_t p = at[std::size_t(r)];
      const float want = p >= 0 && p < n ? x[std::size_t(r) * n + p] : 0.0f;
      if (picked[std::size_t(r)] != want && wrong++ < 5)
        UNSCOPED_INFO("row " << r << " (at " << p << "): " << picked[std::size_t(r)] << ", expected " << want);
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("workgroup_barrier orders a workgroup's writes to global memory before its reads", "[gpu][barrier]") {
  std::mt19937 rng(Catch::rngSeed());
  for (const RowCase& c : {RowCase{64, 1024, 2, 1024, 256}, RowCase{37, 100, 1, 128, 32}, RowCase{300, 64, 4, 64, 16}}) {
    INFO("M = " << c.m << ", N = " << c.n << ", BLOCK_N = " << c.block_n << ", WAVE_N = " << c.wave_n);
    const CompileOptions options{
        .subs = {{M, c.m}, {N, c.n}, {BLOCK_M, c.block_m}, {BLOCK_N, c.block_n}, {WAVE_N, c.wave_n}}};
    const std::size_t size = std::size_t(c.m) * c.n;
    std::uniform_real_distribution<float> value(-100.0f, 100.0f);
    std::vector<float> x(size);
    for (float& v : x) v = value(rng);
    auto scratch = poisoned<float>(size), y = poisoned<float>(size);
    run_on_device(compile(reverse_through_scratch(), options), {}, x, scratch, y);
    std::size_t wrong = 0;
    for (int r = 0; r < c.m; ++r)
      for (int k = 0; k < c.n; ++k) {
        const float want = x[std::size_t(r) * c.n + (c.n - 1 - k)] + 1.0f;
        if (y[std::size_t(r) * c.n + k] != want && wrong++ < 5)
          UNSCOPED_INFO("y[" << r << ", " << k << "] = " << y[std::size_t(r) * c.n + k] << ", expected " << want);
      }
    CHECK(wrong == 0);
  }
}
