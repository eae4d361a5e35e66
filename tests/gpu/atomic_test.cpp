// Writes that add (atomic_add) and loops split across workgroups (split-K), run on the
// device: each output starts from random values (so an element never added to keeps a
// value the reference does not have), and every element is checked against a float64
// reference of those values plus what the kernel adds.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "fixtures/sanitizer.hpp"
#include "host_half.hpp"
#include "kernels/gemm_split_k.hpp"
#include "wave/interpreter/elements.hpp"

using namespace wave;

namespace {

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);

// y[M, N] += x[M, N], the grid over both dims, 2 x 2 waves.
template <class T>
auto add_into() {
  return kernel("add_into",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1),
                            WaveConstraint(M, BLOCK_M / 2), WaveConstraint(N, BLOCK_N / 2),
                            HardwareConstraint{.threads_per_wave = 32}},
                [](Memory<dims<M, N>, T> x, Memory<dims<M, N>, T> y) { atomic_add(read(x), y); });
}

// out[N] += x[M, N] summed over M: every row adds into the same elements, from every
// thread and workgroup along M (an index mapping that drops M).
template <class T>
auto add_columns() {
  constexpr auto i = iterator(0), j = iterator(1);
  return kernel("add_columns",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1),
                            WaveConstraint(M, BLOCK_M / 2), WaveConstraint(N, BLOCK_N / 2),
                            HardwareConstraint{.threads_per_wave = 32}},
                [=](Memory<dims<M, N>, T> x, Memory<dims<N>, T> out) {
                  IndexMapping<dims<M, N>> columns{.inputs = {{M, i}, {N, j}}, .outputs = {{N, j}}};
                  atomic_add(read(x), out, columns);
                });
}

// out[N] += sum over M of x[M, N], M one workgroup tile (BLOCK_M = M) split over two
// waves: the sums are held by both waves (each element must still be added once).
auto add_row_sums() {
  return kernel("add_row_sums",
                Constraints{WorkgroupConstraint(N, BLOCK_N, 0), WorkgroupConstraint(M, BLOCK_M, 1), WaveConstraint(M, BLOCK_M / 2),
                            WaveConstraint(N, BLOCK_N), HardwareConstraint{.threads_per_wave = 32}},
                [](Memory<dims<M, N>, i32> x, Memory<dims<N>, i32> out) { atomic_add(sum<M>(read(x)), out); });
}

template <class T>
constexpr DataType dtype_of = T::value;

// Random elements of `t`, as stored (16-bit floats as their bits, i32 in [-1000, 1000]).
template <class Word>
std::vector<Word> random_words(DataType t, std::size_t n, std::mt19937& rng) {
  std::vector<Word> v(n);
  std::uniform_real_distribution<double> value(-4.0, 4.0);
  std::uniform_int_distribution<int> integer(-1000, 1000);
  for (std::size_t e = 0; e < n; ++e) {
    if (t == DataType::i32) elements::store_integer(t, v.data(), std::int64_t(e), integer(rng));
    else elements::store_float(t, v.data(), std::int64_t(e), elements::round_float(t, value(rng)));
  }
  return v;
}

double load(DataType t, const void* data, std::size_t e) {
  return t == DataType::i32 ? double(elements::load_integer(t, data, std::int64_t(e)))
                            : elements::load_float(t, data, std::int64_t(e));
}

// The elements of out[N] that are not out0 plus x[M, N]'s column sums, exactly (i32).
std::size_t wrong_column_sums(const std::vector<std::int32_t>& x, const std::vector<std::int32_t>& out0,
                              const std::vector<std::int32_t>& out, int m, int n) {
  std::size_t wrong = 0;
  for (int j = 0; j < n; ++j) {
    std::int64_t expected = out0[std::size_t(j)];
    for (int r = 0; r < m; ++r) expected += x[std::size_t(r) * n + j];
    if (out[std::size_t(j)] != expected && wrong++ < 5)
      UNSCOPED_INFO("out[" << j << "] = " << out[std::size_t(j)] << ", expected " << expected);
  }
  return wrong;
}

template <class T, class Word>
void check_add_into(int m, int n, int bm, int bn, std::mt19937& rng) {
  const DataType t = dtype_of<T>;
  INFO(name(t) << " M = " << m << ", N = " << n << ", tiles " << bm << " x " << bn);
  const auto compiled = compile(add_into<T>(), {.subs = {{M, m}, {N, n}, {BLOCK_M, bm}, {BLOCK_N, bn}}});
  const std::size_t size = std::size_t(m) * n;
  const auto x = random_words<Word>(t, size, rng), y0 = random_words<Word>(t, size, rng);
  auto y = y0;
  fixtures::run_on_device(compiled, {}, x, y);
  std::size_t wrong = 0;
  for (std::size_t e = 0; e < size; ++e) {
    // One add, rounded once to the element type: exact.
    const double sum = load(t, x.data(), e) + load(t, y0.data(), e);
    const double expected = t == DataType::i32 ? sum : elements::round_float(t, sum);
    if (load(t, y.data(), e) != expected) {
      if (wrong < 5) UNSCOPED_INFO("y[" << e / n << ", " << e % n << "] = " << load(t, y.data(), e) << ", expected " << expected);
      ++wrong;
    }
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("atomic_add adds each element once, f32, f16, bf16 and i32, aligned and unaligned", "[gpu][atomic]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [m, n] : std::vector<std::pair<int, int>>{{64, 128}, {100, 258}, {1, 7}, {129, 1000}}) {
    check_add_into<f32, float>(m, n, 64, 128, rng);
    check_add_into<f16, std::uint16_t>(m, n, 64, 128, rng);
    check_add_into<bf16, std::uint16_t>(m, n, 32, 64, rng);
    check_add_into<i32, std::int32_t>(m, n, 64, 64, rng);
  }
}

TEST_CASE("atomic_add from every row and workgroup into one row: column sums", "[gpu][atomic]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [m, n] : std::vector<std::pair<int, int>>{{256, 128}, {1000, 77}, {3, 300}}) {
    INFO("M = " << m << ", N = " << n);
    const std::size_t size = std::size_t(m) * n;
    // i32: the sums are exact whatever the order of the adds.
    {
      const auto compiled = compile(add_columns<i32>(), {.subs = {{M, m}, {N, n}, {BLOCK_M, 64}, {BLOCK_N, 64}}});
      const auto x = random_words<std::int32_t>(DataType::i32, size, rng);
      const auto out0 = random_words<std::int32_t>(DataType::i32, std::size_t(n), rng);
      auto out = out0;
      fixtures::run_on_device(compiled, {}, x, out);
      CHECK(wrong_column_sums(x, out0, out, m, n) == 0);
    }
    // f32: each add rounds once; their order is the hardware's.
    {
      const auto compiled = compile(add_columns<f32>(), {.subs = {{M, m}, {N, n}, {BLOCK_M, 32}, {BLOCK_N, 128}}});
      const auto x = random_words<float>(DataType::f32, size, rng);
      const auto out0 = random_words<float>(DataType::f32, std::size_t(n), rng);
      auto out = out0;
      fixtures::run_on_device(compiled, {}, x, out);
      std::size_t wrong = 0;
      for (int j = 0; j < n; ++j) {
        double expected = out0[std::size_t(j)], magnitude = std::abs(expected);
        for (int r = 0; r < m; ++r) {
          expected += x[std::size_t(r) * n + j];
          magnitude += std::abs(x[std::size_t(r) * n + j]);
        }
        wrong += !(std::abs(out[std::size_t(j)] - expected) <= (m + 1) * std::ldexp(magnitude, -24));
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("atomic_add of sums two waves hold adds each once", "[gpu][atomic]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [m, n, bn] : std::vector<std::array<int, 3>>{{64, 128, 32}, {128, 100, 32}, {32, 7, 32}}) {
    INFO("M = " << m << ", N = " << n);
    const auto compiled = compile(add_row_sums(), {.subs = {{M, m}, {N, n}, {BLOCK_M, m}, {BLOCK_N, bn}}});
    const auto x = random_words<std::int32_t>(DataType::i32, std::size_t(m) * n, rng);
    const auto out0 = random_words<std::int32_t>(DataType::i32, std::size_t(n), rng);
    auto out = out0;
    fixtures::run_on_device(compiled, {}, x, out);
    CHECK(wrong_column_sums(x, out0, out, m, n) == 0);
  }
}

namespace {

namespace sk = examples::gemm_split_k;

struct SplitCase {
  int m, n, k, split;
  int bm, bn, bk, wm, wn;
};

// C (f32, or f16/bf16 words) starts random; C + scale * A B^T is expected.
template <class In, class Out, class Word>
void check_split_k(const SplitCase& s, const CompileOptions& base, std::mt19937& rng, float scale = 1.0f,
                   bool dynamic_k = false) {
  const DataType in = dtype_of<In>, out = dtype_of<Out>;
  INFO(name(in) << " -> " << name(out) << ", M N K = " << s.m << " " << s.n << " " << s.k << ", SPLIT_K " << s.split
                << ", tiles " << s.bm << "x" << s.bn << "x" << s.bk << " waves " << s.wm << "x" << s.wn
                << (dynamic_k ? ", K dynamic" : "") << ", specialize " << base.warp_specialize << ", persistent "
                << base.persistent);
  if (fixtures::left_out_under_sanitizer(double(s.m) * s.n * s.k)) return;
  CompileOptions o = base;
  o.subs = {{sk::M, s.m},       {sk::N, s.n},       {sk::SPLIT_K, s.split}, {sk::BLOCK_M, s.bm},
            {sk::BLOCK_N, s.bn}, {sk::BLOCK_K, s.bk}, {sk::WAVE_M, s.wm},    {sk::WAVE_N, s.wn}};
  if (!dynamic_k) o.subs.push_back({sk::K, s.k});
  const auto compiled = compile(sk::make_kernel<In, Out>(scale), o);
  const auto a = random_words<std::uint16_t>(in, std::size_t(s.m) * s.k, rng);
  const auto b = random_words<std::uint16_t>(in, std::size_t(s.n) * s.k, rng);
  const auto c0 = random_words<Word>(out, std::size_t(s.m) * s.n, rng);
  auto c = c0;
  LaunchOptions how;
  if (dynamic_k) how.sizes = {{sk::K, s.k}};
  fixtures::run_on_device(compiled, how, a, b, c);
  const int splits = (s.k + s.split - 1) / s.split;
  // f32 sums of K products per part, then one rounding per part's add (f16/bf16 out: of
  // the part cast to it, and of the running sum).
  const double out_ulp = out == DataType::f32 ? std::ldexp(1.0, -24) : out == DataType::f16 ? std::ldexp(1.0, -11)
                                                                                             : std::ldexp(1.0, -8);
  std::size_t wrong = 0;
  for (int i = 0; i < s.m; ++i)
    for (int j = 0; j < s.n; ++j) {
      double dot = 0, magnitude = 0;
      for (int x = 0; x < s.k; ++x) {
        const double t = load(in, a.data(), std::size_t(i) * s.k + x) * load(in, b.data(), std::size_t(j) * s.k + x);
        dot += t;
        magnitude += std::abs(t);
      }
      const std::size_t e = std::size_t(i) * s.n + j;
      const double start = load(out, c0.data(), e), expected = start + scale * dot;
      const double tolerance = 5e-5 * std::abs(scale) * magnitude +
                               2.0 * splits * out_ulp * (std::abs(start) + std::abs(scale) * magnitude) + 1e-6;
      if (!(std::abs(load(out, c.data(), e) - expected) <= tolerance)) {
        if (wrong < 5) UNSCOPED_INFO("C[" << i << ", " << j << "] = " << load(out, c.data(), e) << ", expected " << expected);
        ++wrong;
      }
    }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("split-K GEMM: K split across workgroups, parts added with atomic_add", "[gpu][atomic][gemm]") {
  std::mt19937 rng(Catch::rngSeed());
  const SplitCase cases[] = {
      {128, 1280, 5120, 512, 128, 128, 64, 64, 64},  // the skinny bench shape, 10 parts
      {100, 258, 1000, 256, 64, 64, 32, 32, 32},     // unaligned M, N; K's last part 232 (a partial tile)
      {33, 130, 4099, 1024, 64, 128, 64, 32, 64},    // K's last part 3 elements
      {64, 64, 64, 128, 64, 64, 32, 32, 32},         // one part, larger than K
  };
  for (const SplitCase& s : cases) check_split_k<f16, f32, float>(s, {}, rng);
  check_split_k<f16, f32, float>(cases[1], {}, rng, /*scale=*/0.5f);
  check_split_k<f16, f32, float>(cases[2], {}, rng, 1.0f, /*dynamic_k=*/true);
  check_split_k<bf16, f32, float>(cases[1], {}, rng);
  check_split_k<f16, f16, std::uint16_t>(cases[0], {}, rng);
  check_split_k<bf16, bf16, std::uint16_t>(cases[1], {}, rng);
  // mma.sync, and the specialized persistent schedule (its tiles include the parts).
  check_split_k<f16, f32, float>(cases[1], {.warpgroup_mma = false}, rng);
  check_split_k<f16, f32, float>(cases[0], {.warp_specialize = true, .persistent = true}, rng);
  check_split_k<f16, f32, float>(cases[2], {.warp_specialize = true, .persistent = true}, rng);
}
