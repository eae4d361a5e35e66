// Int8 GEMMs on the GPU (examples/kernels/gemm_i8.hpp): the i32 sums exact against an
// int64 reference, element for element, and the W8A8 GEMM's scaled outputs against float64;
// on wgmma (TMA-fed, specialized, persistent) and on mma.sync, aligned and unaligned shapes,
// M given at launch, outputs poisoned with a value no sum can take.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "fixtures/sanitizer.hpp"
#include "kernels/gemm_i8.hpp"
#include "wave/interpreter/elements.hpp"

using namespace wave;
using fixtures::run_on_device;

namespace {

namespace ex = examples::gemm_i8;

struct Problem {
  int m, n, k;
};

struct Schedule {
  int block_m, block_n, block_k, wave_m, wave_n;
  bool warpgroup_mma = true, warp_specialize = false, persistent = false;
};

std::string describe(Problem p, const Schedule& s, bool m_at_launch) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) +
         (m_at_launch ? " (M at launch)" : "") + ", tiles " + std::to_string(s.block_m) + "x" +
         std::to_string(s.block_n) + "x" + std::to_string(s.block_k) + " over " + std::to_string(s.wave_m) + "x" +
         std::to_string(s.wave_n) + (s.warpgroup_mma ? ", wgmma" : ", mma.sync") +
         (s.warp_specialize ? ", specialized" : "") + (s.persistent ? ", persistent" : "");
}

CompileOptions options_for(Problem p, const Schedule& s, bool m_at_launch) {
  CompileOptions options{.subs = {{ex::N, p.n}, {ex::K, p.k}, {ex::BLOCK_M, s.block_m}, {ex::BLOCK_N, s.block_n},
                                  {ex::BLOCK_K, s.block_k}, {ex::WAVE_M, s.wave_m}, {ex::WAVE_N, s.wave_n}},
                         .warpgroup_mma = s.warpgroup_mma,
                         .warp_specialize = s.warp_specialize,
                         .persistent = s.persistent};
  if (!m_at_launch) options.subs.push_back({ex::M, p.m});
  return options;
}

// Random bytes over the whole of i8, with some rows of A and B all -128 (the products'
// largest, 16384 each, whose sums still fit i32 for the K here).
std::vector<std::int8_t> random_i8(std::size_t rows, std::size_t k, std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<std::int8_t> v(rows * k);
  for (auto& x : v) x = static_cast<std::int8_t>(byte(rng));
  for (std::size_t r = 3; r < rows; r += 97)
    for (std::size_t i = 0; i < k; ++i) v[r * k + i] = -128;
  return v;
}

std::int64_t dot(const std::vector<std::int8_t>& a, const std::vector<std::int8_t>& b, std::size_t i, std::size_t j,
                 int k) {
  std::int64_t sum = 0;
  for (int t = 0; t < k; ++t) sum += std::int64_t(a[i * k + t]) * b[j * k + t];
  return sum;
}

constexpr std::int32_t kPoison = 0x7FFFFFFF;  // above every sum: |sum| <= 16384 K

// The int_mm kernel with B as [K, N] (N innermost): wgmma reads 8-bit operands only
// K-major, so it runs on mma.sync wherever wgmma was asked for.
auto int_mm_b_k_by_n() {
  using namespace ex;
  return kernel("gemm_i8_kn", examples::gemm::wave_tile_constraints(MMA::I32_16x8x32_I8),
                [](Memory<dims<M, K>, i8, SHARED_ADDRESS_SPACE> a, Memory<dims<K, N>, i8, SHARED_ADDRESS_SPACE> b,
                   Memory<dims<M, N>, i32> c) {
                  Register<dims<M, N>, i32> acc(0);
                  write(iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); }), c);
                });
}

void check_int_mm(Problem p, const Schedule& s, bool m_at_launch, std::mt19937& rng, bool b_k_by_n = false) {
  if (fixtures::left_out_under_sanitizer(double(p.m) * p.n * p.k)) return;
  INFO(describe(p, s, m_at_launch) << (b_k_by_n ? ", B as [K, N]" : ""));
  const CompileOptions options = options_for(p, s, m_at_launch);
  const CompiledKernel compiled = b_k_by_n ? compile(int_mm_b_k_by_n(), options) : compile(ex::make_int_mm(), options);
  const std::string& ptx = compiled.ptx().ptx;
  const bool wgmma = s.warpgroup_mma && !b_k_by_n;
  CHECK(ptx.find(wgmma ? ".s32.s8.s8" : "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32") != std::string::npos);
  CHECK((ptx.find("wgmma.mma_async") != std::string::npos) == wgmma);
  const std::vector<std::int8_t> a = random_i8(p.m, p.k, rng), b_nk = random_i8(p.n, p.k, rng);
  // B as the kernel stores it: [N, K], or its transpose [K, N].
  std::vector<std::int8_t> b = b_nk;
  if (b_k_by_n)
    for (int j = 0; j < p.n; ++j)
      for (int t = 0; t < p.k; ++t) b[std::size_t(t) * p.n + j] = b_nk[std::size_t(j) * p.k + t];
  const std::size_t size = std::size_t(p.m) * p.n, slack = 256;
  std::vector<std::int32_t> c(size + slack, kPoison);
  LaunchOptions how;
  if (m_at_launch) how.sizes = {{ex::M, p.m}};
  run_on_device(compiled, how, a, b, c);
  std::size_t wrong = 0, stray = 0;
  for (std::size_t idx = 0; idx < size; ++idx) {
    const std::int64_t want = dot(a, b_nk, idx / p.n, idx % p.n, p.k);
    if (c[idx] != want) {
      if (wrong < 5) UNSCOPED_INFO("C[" << idx / p.n << ", " << idx % p.n << "] = " << c[idx] << ", expected " << want);
      ++wrong;
    }
  }
  for (std::size_t i = size; i < c.size(); ++i) stray += c[i] != kPoison;
  CHECK(wrong == 0);
  CHECK(stray == 0);
}

template <class Out>
void check_scaled(Problem p, const Schedule& s, std::mt19937& rng) {
  if (fixtures::left_out_under_sanitizer(double(p.m) * p.n * p.k)) return;
  constexpr DataType out = Out::value;
  INFO(name(out) << " out, " << describe(p, s, false));
  const CompiledKernel compiled = compile(ex::make_scaled<Out>(), options_for(p, s, false));
  const std::vector<std::int8_t> a = random_i8(p.m, p.k, rng), b = random_i8(p.n, p.k, rng);
  // Scales that bring the sums (some 1e5) to 0.1-40: f16's normal range.
  std::uniform_real_distribution<float> scale(1e-3f, 2e-2f);
  std::vector<float> scale_a(p.m), scale_b(p.n);
  for (float& x : scale_a) x = scale(rng);
  for (float& x : scale_b) x = scale(rng);
  const std::size_t size = std::size_t(p.m) * p.n;
  using Word = std::conditional_t<std::is_same_v<Out, f32>, std::uint32_t, std::uint16_t>;
  std::vector<Word> c = fixtures::poisoned<Word>(size);  // NaN in every float format
  run_on_device(compiled, {}, a, b, scale_a, scale_b, c);
  const double ulp = out == DataType::f32 ? std::ldexp(1.0, -23) : out == DataType::bf16 ? std::ldexp(1.0, -8)
                                                                                         : std::ldexp(1.0, -11);
  std::size_t wrong = 0;
  for (std::size_t idx = 0; idx < size; ++idx) {
    const std::size_t i = idx / p.n, j = idx % p.n;
    // The sum is exact; its conversion to f32 and the two products round thrice in f32,
    // then once to Out.
    const double want = double(dot(a, b, i, j, p.k)) * scale_a[i] * scale_b[j];
    const double got = elements::load_float(out, c.data(), std::int64_t(idx));
    // (Half of f16's smallest subnormal bounds the rounding of the few outputs below its
    // normal range.)
    if (!(std::abs(got - want) <= (ulp + 4 * std::ldexp(1.0, -24)) * std::abs(want) + std::ldexp(1.0, -25))) {
      if (wrong < 5) UNSCOPED_INFO("C[" << i << ", " << j << "] = " << got << ", expected " << want);
      ++wrong;
    }
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("int8 GEMM: i32 sums on wgmma and mma.sync equal an int64 reference", "[gpu][gemm][i8]") {
  std::mt19937 rng(88);
  const Schedule two_warpgroups{128, 128, 128, 32, 64}, one_warpgroup{64, 128, 64, 64, 32},
      specialized{128, 256, 128, 64, 64, true, true}, persistent{128, 256, 128, 64, 64, true, true, true},
      narrow_k{64, 64, 32, 64, 16}, mma_sync{64, 64, 64, 32, 32, false}, mma_sync_wide{128, 128, 64, 64, 32, false};
  for (Problem p : {Problem{256, 256, 256}, Problem{1000, 520, 336}, Problem{300, 200, 1024}})
    for (const Schedule& s : {two_warpgroups, one_warpgroup, specialized, persistent, narrow_k, mma_sync, mma_sync_wide})
      check_int_mm(p, s, false, rng);
  // K not a multiple of 16 bytes (no tensor map can stride it), M given at launch, one K
  // step, a square whose sums reach the millions.
  check_int_mm({200, 136, 100}, one_warpgroup, false, rng);
  check_int_mm({200, 136, 100}, mma_sync, false, rng);
  check_int_mm({777, 256, 512}, two_warpgroups, true, rng);
  check_int_mm({64, 64, 32}, narrow_k, false, rng);
  check_int_mm({1024, 1024, 4096}, persistent, false, rng);
  // B as [K, N]: on mma.sync wherever wgmma was asked for.
  check_int_mm({1000, 520, 336}, one_warpgroup, false, rng, true);
  check_int_mm({256, 256, 256}, mma_sync, false, rng, true);
}

TEST_CASE("W8A8 GEMM: per-row and per-column scales in the epilogue match float64", "[gpu][gemm][i8]") {
  std::mt19937 rng(89);
  const Schedule two_warpgroups{128, 128, 128, 32, 64}, specialized{128, 256, 128, 64, 64, true, true, true},
      mma_sync{64, 64, 64, 32, 32, false};
  for (Problem p : {Problem{256, 256, 256}, Problem{1000, 520, 336}}) {
    check_scaled<f16>(p, two_warpgroups, rng);
    check_scaled<bf16>(p, specialized, rng);
    check_scaled<f32>(p, mma_sync, rng);
  }
}
