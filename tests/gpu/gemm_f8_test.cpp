// 8-bit floats on the GPU: casts to and from f8 and arithmetic on it, bit for bit against
// the interpreter and the rounding's definition; the scaled f8 GEMM (torch._scaled_mm's
// computation) against a float64 reference, on wgmma and on mma.sync, TMA-fed and
// specialized, for aligned and unaligned shapes and B stored either way, outputs poisoned
// first.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "fixtures/sanitizer.hpp"
#include "host_f8.hpp"
#include "host_half.hpp"
#include "kernels/gemm_f8.hpp"
#include "wave/interpret.hpp"
#include "wave/interpreter/elements.hpp"

using namespace wave;
using fixtures::poisoned;
using fixtures::run_on_device;

namespace {

namespace ex = examples::gemm_f8;

WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_N);

using examples::host::random_f8;

double f8_value(DataType t, const std::vector<std::uint8_t>& bytes, std::size_t i) {
  return elements::load_float(t, bytes.data(), std::int64_t(i));
}

}  // namespace

TEST_CASE("casts to f8 round to nearest even and saturate, casts from it are exact, arithmetic on it rounds "
          "per op: the GPU, the interpreter and the definition agree",
          "[gpu][f8]") {
  auto casts = kernel("f8_casts", {WorkgroupConstraint(N, BLOCK_N, 0), HardwareConstraint{.threads_per_wave = 32}},
                      [](Memory<dims<N>, f32> x, Memory<dims<N>, f16> h, Memory<dims<N>, f8e4m3> x_e4m3,
                         Memory<dims<N>, f8e5m2> x_e5m2, Memory<dims<N>, f8e4m3> h_e4m3, Memory<dims<N>, f32> back,
                         Memory<dims<N>, f16> back_h, Memory<dims<N>, f8e4m3> arith) {
                        auto v = read(x);
                        auto e4m3 = cast<f8e4m3>(v);
                        write(e4m3, x_e4m3);
                        auto e5m2 = cast<f8e5m2>(v);
                        write(e5m2, x_e5m2);
                        write(cast<f8e4m3>(read(h)), h_e4m3);
                        write(cast<f32>(e4m3), back);
                        write(cast<f16>(e5m2), back_h);
                        write(e4m3 * e4m3 + e4m3, arith);  // each op rounded to f8
                      });
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x{inf, -inf, 0.0f, -0.0f, 448.0f, 464.0f, 480.0f, -500.0f, 57344.0f, 61440.0f, 1e9f,
                       // ties: halfway between neighbours of e4m3 (1.0 and 1.125; 1.125 and 1.25)
                       1.0625f, 1.1875f, -1.0625f,
                       // e4m3's smallest subnormal is 2^-9, e5m2's 2^-16
                       std::ldexp(1.0f, -9), std::ldexp(1.5f, -10), std::ldexp(1.0f, -16), std::ldexp(1.0f, -18)};
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 18);
  while (x.size() < 1000) x.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  const int n = int(x.size());
  std::vector<std::uint16_t> h(n);
  for (int i = 0; i < n; ++i) {
    const _Float16 v = static_cast<_Float16>(std::isinf(x[i]) ? 0.0f : std::fmin(std::fmax(x[i], -60000.f), 60000.f));
    std::memcpy(&h[i], &v, 2);
  }
  struct Outputs {
    std::vector<std::uint8_t> x_e4m3, x_e5m2, h_e4m3;
    std::vector<float> back;
    std::vector<std::uint16_t> back_h;
    std::vector<std::uint8_t> arith;
  };
  auto fresh = [&] {
    return Outputs{poisoned<std::uint8_t>(n), poisoned<std::uint8_t>(n), poisoned<std::uint8_t>(n),
                   poisoned<float>(n),        poisoned<std::uint16_t>(n), poisoned<std::uint8_t>(n)};
  };
  const CompileOptions options{.subs = {{N, n}, {BLOCK_N, 64}}};
  Outputs gpu = fresh(), host = fresh();
  run_on_device(compile(casts, options), {}, x, h, gpu.x_e4m3, gpu.x_e5m2, gpu.h_e4m3, gpu.back, gpu.back_h, gpu.arith);
  interpret(casts, options,
            {x.data(), h.data(), host.x_e4m3.data(), host.x_e5m2.data(), host.h_e4m3.data(), host.back.data(),
             host.back_h.data(), host.arith.data()});
  for (int i = 0; i < n; ++i) {
    INFO("x = " << x[i]);
    CHECK(int(gpu.x_e4m3[i]) == int(host.x_e4m3[i]));
    CHECK(int(gpu.x_e5m2[i]) == int(host.x_e5m2[i]));
    CHECK(int(gpu.h_e4m3[i]) == int(host.h_e4m3[i]));
    CHECK(std::memcmp(&gpu.back[i], &host.back[i], 4) == 0);
    CHECK(gpu.back_h[i] == host.back_h[i]);
    CHECK(int(gpu.arith[i]) == int(host.arith[i]));
    // The definition: nearest even, saturating at the largest finite value (448, 57344).
    const double e4m3 = elements::round_float(DataType::f8e4m3, x[i]);
    CHECK(f8_value(DataType::f8e4m3, gpu.x_e4m3, i) == e4m3);
    CHECK(f8_value(DataType::f8e5m2, gpu.x_e5m2, i) == elements::round_float(DataType::f8e5m2, x[i]));
    CHECK(double(gpu.back[i]) == e4m3);
    const double a = e4m3, product = elements::round_float(DataType::f8e4m3, a * a);
    CHECK(f8_value(DataType::f8e4m3, gpu.arith, i) == elements::round_float(DataType::f8e4m3, product + a));
  }
  CHECK(f8_value(DataType::f8e4m3, gpu.x_e4m3, 0) == 448.0);     // inf saturates
  CHECK(f8_value(DataType::f8e5m2, gpu.x_e5m2, 1) == -57344.0);  // -inf too
  CHECK(f8_value(DataType::f8e4m3, gpu.x_e4m3, 11) == 1.0);      // a tie goes to the even neighbour
  CHECK(f8_value(DataType::f8e4m3, gpu.x_e4m3, 12) == 1.25);
}

TEST_CASE("reductions over rows of f8: a maximum in f8, a sum in f32", "[gpu][f8]") {
  WAVE_SYMBOL(M);
  WAVE_SYMBOL(BLOCK_M);
  WAVE_SYMBOL(WAVE_N);
  auto rows = kernel("f8_rows",
                     {WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(M, 1),
                      WaveConstraint(N, WAVE_N), HardwareConstraint{.threads_per_wave = 32}},
                     [](Memory<dims<M, N>, f8e5m2> x, Memory<dims<M>, f8e5m2> largest, Memory<dims<M>, f32> total) {
                       auto v = read(x);
                       write(max<N>(v), largest);
                       write(sum<N>(cast<f32>(v)), total);
                     });
  const int m = 37, n = 1000;  // rows ending inside the last wave's part
  std::mt19937 rng(5);
  const std::vector<std::uint8_t> x = random_f8(DataType::f8e5m2, std::size_t(m) * n, 1000.0, rng);
  std::vector<std::uint8_t> largest = poisoned<std::uint8_t>(m);
  std::vector<float> total = poisoned<float>(m);
  run_on_device(compile(rows, {.subs = {{M, m}, {N, n}, {BLOCK_M, 1}, {BLOCK_N, 1024}, {WAVE_N, 256}}}), {}, x,
                largest, total);
  for (int i = 0; i < m; ++i) {
    double most = -INFINITY, sum = 0, magnitude = 0;
    for (int j = 0; j < n; ++j) {
      const double v = f8_value(DataType::f8e5m2, x, std::size_t(i) * n + j);
      most = std::max(most, v);
      sum += v;
      magnitude += std::abs(v);
    }
    INFO("row " << i);
    CHECK(f8_value(DataType::f8e5m2, largest, i) == most);
    CHECK(std::abs(double(total[i]) - sum) <= 1e-6 * magnitude);
  }
}

namespace {

struct Problem {
  int m, n, k;
};

struct Schedule {
  int block_m, block_n, block_k, wave_m, wave_n;
  bool warpgroup_mma = true, warp_specialize = false;
  int stages = 0;
  bool persistent = false;
};

// The example's kernel with B as [K, N] (N innermost): wgmma cannot read it, mma.sync
// computes it from plain loads of the tile.
template <class In, class Out>
auto scaled_gemm_b_k_by_n() {
  using namespace ex;
  return kernel("gemm_f8_kn",
                {WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1), TilingConstraint(K, BLOCK_K),
                 WaveConstraint(M, WAVE_M), WaveConstraint(N, WAVE_N),
                 HardwareConstraint{.threads_per_wave = 32, .mma = MMA::F32_16x8x32_F8E4M3}},
                [](Memory<dims<M, K>, In, SHARED_ADDRESS_SPACE> a, Memory<dims<K, N>, In, SHARED_ADDRESS_SPACE> b,
                   Memory<dims<>, f32> scale_a, Memory<dims<>, f32> scale_b, Memory<dims<M, N>, Out> c) {
                  Register<dims<M, N>, f32> acc(0.0);
                  auto product = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
                  write(cast<Out>(product * read(scale_a) * read(scale_b)), c);
                });
}

// Runs the scaled f8 GEMM on random data and checks every output element (a sample of
// large outputs) against a float64 reference over the same f8 values.
template <class In, class Out, bool BKByN = false>
void check_scaled_gemm(Problem p, Schedule s, bool m_at_launch, std::mt19937& rng) {
  if (fixtures::left_out_under_sanitizer(double(p.m) * p.n * p.k)) return;
  constexpr DataType in = In::value, out = Out::value;
  CompileOptions options{.subs = {{ex::N, p.n}, {ex::K, p.k}, {ex::BLOCK_M, s.block_m}, {ex::BLOCK_N, s.block_n},
                                  {ex::BLOCK_K, s.block_k}, {ex::WAVE_M, s.wave_m}, {ex::WAVE_N, s.wave_n}},
                         .pipeline_stages = s.stages,
                         .warpgroup_mma = s.warpgroup_mma,
                         .warp_specialize = s.warp_specialize,
                         .persistent = s.persistent};
  if (!m_at_launch) options.subs.push_back({ex::M, p.m});
  INFO(name(in) << " -> " << name(out) << ", " << p.m << "x" << p.n << "x" << p.k << (m_at_launch ? " (M at launch)" : "")
                << ", tiles " << s.block_m << "x" << s.block_n << "x" << s.block_k << " over " << s.wave_m << "x"
                << s.wave_n << " wave tiles, " << (s.warpgroup_mma ? "wgmma" : "mma.sync")
                << (s.warp_specialize ? ", specialized" : "") << (s.persistent ? ", persistent" : "") << ", stages "
                << s.stages);
  CompiledKernel compiled = BKByN ? compile(scaled_gemm_b_k_by_n<In, Out>(), options)
                                  : compile(ex::make_kernel<In, Out>(), options);
  const std::string& ptx = compiled.ptx().ptx;
  CHECK(ptx.find(s.warpgroup_mma && !BKByN ? "wgmma.mma_async.sync.aligned.m64n"
                                           : "mma.sync.aligned.m16n8k32.row.col.f32") != std::string::npos);
  std::vector<std::uint8_t> a = random_f8(in, std::size_t(p.m) * p.k, 4.0, rng),
                            b = random_f8(in, std::size_t(p.n) * p.k, 4.0, rng);
  std::uniform_real_distribution<float> scale(0.25f, 2.0f);
  std::vector<float> scale_a{scale(rng)}, scale_b{scale(rng)};
  const std::size_t size = std::size_t(p.m) * p.n, slack = 256;
  // Output words as bits: a poisoned f32 is a NaN, which no comparison finds equal.
  using Word = std::conditional_t<std::is_same_v<Out, f32>, std::uint32_t, std::uint16_t>;
  std::vector<Word> c = poisoned<Word>(size + slack);
  LaunchOptions how;
  if (m_at_launch) how.sizes = {{ex::M, p.m}};
  run_on_device(compiled, how, a, b, scale_a, scale_b, c);
  auto value = [&](std::size_t i) { return elements::load_float(out, c.data(), std::int64_t(i)); };
  std::size_t unwritten = 0, stray = 0;
  for (std::size_t i = 0; i < size; ++i) unwritten += std::isnan(value(i));
  for (std::size_t i = size; i < c.size(); ++i) stray += c[i] != poisoned<Word>(1)[0];
  CHECK(unwritten == 0);
  CHECK(stray == 0);
  const bool all = size <= (1u << 18);
  std::uniform_int_distribution<std::size_t> pick(0, size - 1);
  const double out_ulp = out == DataType::f32 ? 0.0 : out == DataType::bf16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
  std::size_t wrong = 0;
  for (std::size_t t = 0; t < (all ? size : 4096); ++t) {
    const std::size_t idx = all ? t : pick(rng), i = idx / p.n, j = idx % p.n;
    double sum = 0, magnitude = 0;
    for (int kk = 0; kk < p.k; ++kk) {
      const std::size_t b_index = BKByN ? std::size_t(kk) * p.n + j : j * p.k + kk;
      const double x = f8_value(in, a, i * p.k + kk) * f8_value(in, b, b_index);
      sum += x;
      magnitude += std::abs(x);
    }
    const double scales = double(scale_a[0]) * double(scale_b[0]), ref = sum * scales;
    // Products of f8 values are exact in f32. mma.sync sums them in f32: rounding like
    // sqrt(K) ulps of the running sum. wgmma sums each K tile's with about 14 bits
    // (truncating; DeepSeek-V3's report measured it on Hopper), a few 2^-14 of the tile's
    // magnitude per instruction, before the tile's sum joins the f32 accumulator: 2^-11
    // of the magnitude bounds it (one product of average size left out is still 2^-10 of
    // it for K up to 1024). Then the scaling and the output's rounding.
    const bool narrow_sums = s.warpgroup_mma && !BKByN;
    const double tolerance =
        (narrow_sums ? std::ldexp(magnitude, -11) : 5e-5 * magnitude) * scales + out_ulp * std::abs(ref) + 1e-6;
    if (!(std::abs(value(idx) - ref) <= tolerance)) {
      if (wrong < 5) UNSCOPED_INFO("C[" << i << ", " << j << "] = " << value(idx) << ", expected " << ref);
      ++wrong;
    }
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("scaled f8 GEMM (E4M3 and E5M2) on wgmma and mma.sync matches a float64 reference", "[gpu][gemm][f8]") {
  std::mt19937 rng(2026);
  const Schedule two_warpgroups{128, 128, 128, 32, 64}, one_warpgroup{64, 128, 64, 64, 32},
      wide{128, 256, 128, 64, 64, true, true}, specialized{128, 128, 256, 32, 64, true, true},
      specialized_one{64, 128, 128, 64, 32, true, true, 2}, narrow_k{64, 64, 32, 64, 16},
      mma_sync{64, 64, 64, 32, 32, false};
  for (Problem p : {Problem{256, 256, 256}, Problem{1000, 520, 336}, Problem{300, 200, 1024}}) {
    for (const Schedule& s : {two_warpgroups, one_warpgroup, wide, specialized, specialized_one, narrow_k, mma_sync})
      check_scaled_gemm<f8e4m3, f16>(p, s, false, rng);
    check_scaled_gemm<f8e5m2, bf16>(p, one_warpgroup, false, rng);
    check_scaled_gemm<f8e5m2, f32>(p, mma_sync, false, rng);
  }
  // K not a multiple of 16 bytes (no tensor map can stride it), M given at launch, one
  // K step, a large square.
  check_scaled_gemm<f8e4m3, f16>({200, 136, 100}, one_warpgroup, false, rng);
  check_scaled_gemm<f8e4m3, f32>({777, 256, 512}, two_warpgroups, true, rng);
  check_scaled_gemm<f8e4m3, f16>({64, 64, 32}, narrow_k, false, rng);
  check_scaled_gemm<f8e4m3, bf16>({2048, 2048, 2048}, specialized, false, rng);
  // The example's default schedule (128x256x256, specialized, a persistent grid): 256 and
  // 420 tiles, so that workgroups run two or more; M at launch.
  const Schedule example{128, 256, 256, 64, 64, true, true, 0, true};
  check_scaled_gemm<f8e4m3, bf16>({4096, 2048, 1024}, example, false, rng);
  check_scaled_gemm<f8e4m3, f16>({2600, 4000, 520}, example, true, rng);
  // B as [K, N]: on mma.sync wherever wgmma was asked for.
  check_scaled_gemm<f8e4m3, f16, true>({1000, 520, 336}, one_warpgroup, false, rng);
  check_scaled_gemm<f8e4m3, f16, true>({256, 256, 256}, mma_sync, false, rng);
}
