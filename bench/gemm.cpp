// GEMM on tensor cores (f16 or bf16 in, f32 out, C = A[M,K] x B[N,K]^T): TFLOP/s per shape and tile
// configuration, the median of many timed runs after warm-up (device events around
// back-to-back launches), on random data drawn in the input's own format; and the cold
// compile time. Each configuration's output is checked against a float64 reference (every
// element written, 256 sampled elements' values) before it is timed; a wrong one is
// printed as WRONG and never timed. bench/gemm_vs_cublas.py runs this next to cuBLAS
// (through PyTorch) in the same process tree and prints the ratios.
//
//   wave-bench-gemm           per shape, autotune() over the tilings: one line per tiling,
//                             then the winner ("tuned"); exits 77 without a GPU
//   wave-bench-gemm --fused   the large square shapes at three configurations, the plain GEMM
//                             and GEMM + bias + ReLU (f16 out, the example
//                             kernels/gemm_bias_relu.hpp)
//   wave-bench-gemm --f8      the scaled f8 GEMM (E4M3 in, per-tensor scales, bf16 out: the
//                             example kernels/gemm_f8.hpp, torch._scaled_mm's computation)
//                             on the large square shapes, one line per tiling
//   wave-bench-gemm --i8      the int8 GEMM (i8 in, i32 out: torch._int_mm's, the example
//                             kernels/gemm_i8.hpp) on the large square shapes, one line per
//                             tiling, specialized and specialized on a persistent grid
//   wave-bench-gemm --schedules  per shape, its best tiling under each schedule: software
//                             pipelined or warp-specialized, one workgroup per tile or a
//                             persistent grid (with stream-K or not), specialized in clusters
//                             of 2 (CompileOptions::warp_specialize, persistent, stream_k,
//                             cluster_size); WAVE_BENCH_OUT=f16
//                             for an f16 output
//   wave-bench-gemm --split-k the shapes with few output tiles, K split across workgroups
//                             (examples/kernels/gemm_split_k.hpp: parts added with
//                             atomic_add; each timed launch zeroes C first) at several
//                             splits beside the unsplit GEMM and the plain GEMM under
//                             stream-K; WAVE_BENCH_OUT=f16 for f16 out
//   wave-bench-gemm M N K BM BN BK WM WN [specialize persistent cluster stream_k]
//                             that one configuration (e.g. under ncu)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <array>
#include <vector>

#include <wave/autotune.hpp>
#include <wave/runtime.hpp>
#include <wave/wave.hpp>

#include "bench.hpp"

#include "kernels/gemm.hpp"
#include "kernels/gemm_bias_relu.hpp"
#include "host_f8.hpp"
#include "kernels/gemm_f8.hpp"
#include "kernels/gemm_i8.hpp"
#include "kernels/gemm_split_k.hpp"
#include "wave/interpreter/elements.hpp"

using namespace wave;
namespace ex = examples::gemm;

namespace {

using ex::WAVE_M;
using ex::WAVE_N;
using bench::Format;

// Median of 20 timed runs after 3 warm-ups.
double median_ms(const std::function<void()>& enqueue) { return bench::median_ms(enqueue, 20); }

// A GEMM's inputs, on the device and on the host (row-major A[M, K], B[N, K]).
struct GemmInputs {
  int m, n, k;
  runtime::DeviceBuffer a, b;
  std::vector<float> host_a, host_b;
  GemmInputs(int m, int n, int k, Format f, std::mt19937& rng)
      : m(m), n(n), k(k), a(std::size_t(m) * k * 2), b(std::size_t(n) * k * 2) {
    host_a = bench::fill_random(a, rng, f, /*with_signs=*/true);
    host_b = bench::fill_random(b, rng, f, /*with_signs=*/true);
  }
  // C[row, col] in float64, and the bound of an f32 accumulation over K (2K roundings of
  // 2^-24 of the sum of the products' magnitudes; tensor cores add with truncation).
  bench::Expected at(std::size_t i) const {
    const std::size_t row = i / n, col = i % n;
    double dot = 0, magnitude = 0;
    for (int x = 0; x < k; ++x) {
      const double t = double(host_a[row * k + x]) * host_b[col * k + x];
      dot += t;
      magnitude += std::abs(t);
    }
    return {dot, 2.0 * k * std::ldexp(magnitude, -24) + 1e-6};
  }
};

// Poisons `c`, runs `launch` once and checks C against `expected` (f32 or f16 out).
std::string check_gemm(runtime::DeviceBuffer& c, Format out, const std::function<void()>& launch,
                       const std::function<bench::Expected(std::size_t)>& expected) {
  static std::mt19937 samples(11);
  bench::poison(c);
  launch();
  return bench::check_output(c, out, 256, samples, expected);
}

// --fused: plain GEMM (f32 out) and GEMM + bias + ReLU (f16 out).
int fused() {
  std::printf("%-16s %6s %6s %6s %5s %5s %5s %5s %5s %10s %9s %11s\n", "", "M", "N", "K", "BM", "BN", "BK", "WM",
              "WN", "ms", "TFLOP/s", "compile ms");
  std::mt19937 rng(7);
  const auto plain = ex::make_with_wave_tiles<f16>();
  const auto fused = examples::gemm_bias_relu::make_kernel();  // waves of BLOCK / 2, as below
  for (int size : {4096, 8192}) {
    const std::size_t n = size;
    GemmInputs in(size, size, size, Format::f16, rng);
    runtime::DeviceBuffer c(n * n * 4), c16(n * n * 2), bias(n * 4);
    std::vector<float> host_bias(n);
    std::uniform_real_distribution<float> uniform(-8.0f, 8.0f);
    for (float& x : host_bias) x = uniform(rng);
    bias.copy_from_host(host_bias.data());
    auto& a = in.a;
    auto& b = in.b;
    const void* p[] = {reinterpret_cast<const void*>(a.address()), reinterpret_cast<const void*>(b.address()),
                       reinterpret_cast<const void*>(c.address()), reinterpret_cast<const void*>(bias.address())};
    for (auto [bm, bn, bk, wm, wn] : {std::array{128, 128, 32, 64, 64}, std::array{128, 128, 64, 64, 64},
                                      std::array{64, 64, 32, 32, 32}}) {  // waves of BLOCK / 2 each
      auto run = [&](const char* what, auto& k, bool with_bias) {
        try {
          CompileOptions o{.subs = {{ex::M, size}, {ex::N, size}, {ex::K, size}, {ex::BLOCK_M, bm},
                                    {ex::BLOCK_N, bn}, {ex::BLOCK_K, bk}},
                           .cache = false, .tma = bench::tma(), .warp_specialize = bench::warp_specialize()};
          if (!with_bias) o.subs.insert(o.subs.end(), {{WAVE_M, wm}, {WAVE_N, wn}});
          const auto t0 = std::chrono::steady_clock::now();
          const CompiledKernel compiled = compile(k, o);
          const double compile_ms =
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          auto launch = [&] {
            if (with_bias) compiled.launch({p[0], p[1], p[3], reinterpret_cast<const void*>(c16.address())});
            else compiled.launch({p[0], p[1], p[2]});
          };
          // f16 out: relu(C + bias) rounded to f16 (2^-11 of it) beside the f32 bound.
          const std::string wrong = check_gemm(with_bias ? c16 : c, with_bias ? Format::f16 : Format::f32, launch, [&](std::size_t i) {
            bench::Expected e = in.at(i);
            if (!with_bias) return e;
            const double v = std::max(e.value + host_bias[i % n], 0.0);
            return bench::Expected{v, e.tolerance + bench::output_rounding(Format::f16, v)};
          });
          char config[96];
          std::snprintf(config, sizeof config, "%s %d^3 %dx%dx%d/%dx%d", what, size, bm, bn, bk, wm, wn);
          if (!wrong.empty()) return bench::refuse(config, wrong);
          const double ms = median_ms(launch);
          std::printf("%-16s %6d %6d %6d %5d %5d %5d %5d %5d %10.3f %9.1f %11.1f\n", what, size, size, size, bm, bn,
                      bk, wm, wn, ms, 2.0 * n * n * n / (ms * 1e9), compile_ms);
        } catch (const Error& e) {
          std::printf("%-16s %6d: %s\n", what, size, e.what());
        }
        std::fflush(stdout);
      };
      run("gemm", plain, false);
      run("gemm-bias-relu", fused, true);
    }
  }
  return 0;
}

// --f8: C = (A[M, K] B[N, K]^T) * scale_a * scale_b, E4M3 in, bf16 out.
int scaled_f8() {
  namespace f8 = examples::gemm_f8;
  std::printf("%-6s %4s %6s %6s %6s %5s %5s %5s %5s %5s %10s %9s %11s\n", "", "in", "M", "N", "K", "BM", "BN", "BK",
              "WM", "WN", "ms", "TFLOP/s", "compile ms");
  std::mt19937 rng(8);
  const auto gemm = f8::make_kernel<f8e4m3, bf16>();
  for (int size : {4096, 8192}) {
    const std::size_t n = size;
    // Values of [-1, 1] rounded to E4M3, as bytes on the device and decoded on the host.
    auto random_f8 = [&](runtime::DeviceBuffer& buffer) {
      const std::vector<std::uint8_t> bytes = examples::host::random_f8(DataType::f8e4m3, buffer.size(), 1.0, rng);
      std::vector<float> values(bytes.size());
      for (std::size_t i = 0; i < bytes.size(); ++i)
        values[i] = float(elements::load_float(DataType::f8e4m3, bytes.data(), std::int64_t(i)));
      buffer.copy_from_host(bytes.data());
      return values;
    };
    runtime::DeviceBuffer a(n * n), b(n * n), scale_a(4), scale_b(4), c(n * n * 2);
    const std::vector<float> host_a = random_f8(a), host_b = random_f8(b), host_scales{0.75f, 1.25f};
    scale_a.copy_from_host(&host_scales[0]);
    scale_b.copy_from_host(&host_scales[1]);
    const std::vector<const void*> args{reinterpret_cast<const void*>(a.address()),
                                        reinterpret_cast<const void*>(b.address()),
                                        reinterpret_cast<const void*>(scale_a.address()),
                                        reinterpret_cast<const void*>(scale_b.address()),
                                        reinterpret_cast<const void*>(c.address())};
    // Two warpgroups of 64 x 128, 64 x 256 or 128 x 128, or one of 128 x 128; 256 bytes of
    // K per step halve the waits and f32 additions per product.
    for (auto [bm, bn, bk, wm, wn] : {std::array{128, 128, 128, 32, 64}, std::array{128, 128, 256, 32, 64},
                                      std::array{128, 256, 128, 64, 64}, std::array{128, 256, 256, 64, 64},
                                      std::array{256, 128, 128, 64, 64}, std::array{64, 256, 256, 16, 128},
                                      std::array{128, 128, 128, 64, 64}}) {
      try {
        const CompileOptions o{.subs = {{f8::M, size}, {f8::N, size}, {f8::K, size}, {f8::BLOCK_M, bm},
                                        {f8::BLOCK_N, bn}, {f8::BLOCK_K, bk}, {f8::WAVE_M, wm}, {f8::WAVE_N, wn}},
                               .cache = false, .tma = bench::tma(), .warp_specialize = bench::warp_specialize()};
        const auto t0 = std::chrono::steady_clock::now();
        const CompiledKernel compiled = compile(gemm, o);
        const double compile_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        auto launch = [&] { compiled.launch(args); };
        const double scale = double(host_scales[0]) * host_scales[1];
        const std::string wrong = check_gemm(c, Format::bf16, launch, [&](std::size_t i) {
          const std::size_t row = i / n, col = i % n;
          double dot = 0, magnitude = 0;
          for (std::size_t x = 0; x < n; ++x) {
            const double t = double(host_a[row * n + x]) * host_b[col * n + x];
            dot += t;
            magnitude += std::abs(t);
          }
          const double v = dot * scale;
          return bench::Expected{v, (2.0 * size * std::ldexp(magnitude, -24) + 1e-6) * scale + std::ldexp(std::abs(v), -8)};
        });
        char config[96];
        std::snprintf(config, sizeof config, "f8 %d^3 %dx%dx%d/%dx%d", size, bm, bn, bk, wm, wn);
        if (!wrong.empty()) {
          bench::refuse(config, wrong);
          continue;
        }
        const double ms = median_ms(launch);
        std::printf("gemm8  %4s %6d %6d %6d %5d %5d %5d %5d %5d %10.3f %9.1f %11.1f\n", "e4m3", size, size, size, bm,
                    bn, bk, wm, wn, ms, 2.0 * n * n * n / (ms * 1e9), compile_ms);
      } catch (const Error& e) {
        std::printf("error  %4s %6d: %s\n", "e4m3", size, e.what());
      }
      std::fflush(stdout);
    }
  }
  return 0;
}

// The int8 GEMM of torch._int_mm (i8 in, i32 out, examples/kernels/gemm_i8.hpp) on the
// large square shapes, one line per tiling and schedule (specialized, then also on a
// persistent grid); every output element written (over a poisoned buffer) and 256 of them
// equal to their int64 sums, before timing.
int int_mm() {
  namespace i8 = examples::gemm_i8;
  std::printf("%-6s %4s %6s %6s %6s %5s %5s %5s %5s %5s %10s %9s %11s  %s\n", "", "in", "M", "N", "K", "BM", "BN",
              "BK", "WM", "WN", "ms", "TOP/s", "compile ms", "schedule");
  std::mt19937 rng(8);
  const auto gemm = i8::make_int_mm();
  for (int size : {4096, 8192}) {
    const std::size_t n = size;
    std::uniform_int_distribution<int> byte(-128, 127);
    std::vector<std::int8_t> host_a(n * n), host_b(n * n);
    for (auto& x : host_a) x = static_cast<std::int8_t>(byte(rng));
    for (auto& x : host_b) x = static_cast<std::int8_t>(byte(rng));
    runtime::DeviceBuffer a(n * n), b(n * n), c(n * n * 4);
    a.copy_from_host(host_a.data());
    b.copy_from_host(host_b.data());
    const std::vector<const void*> args{reinterpret_cast<const void*>(a.address()),
                                        reinterpret_cast<const void*>(b.address()),
                                        reinterpret_cast<const void*>(c.address())};
    for (auto [bm, bn, bk, wm, wn] : {std::array{128, 256, 128, 64, 64}, std::array{128, 256, 256, 64, 64},
                                      std::array{128, 128, 128, 32, 64}, std::array{128, 128, 256, 32, 64},
                                      std::array{256, 128, 128, 64, 64}})
      for (bool persistent : {false, true}) try {
          const CompileOptions o{.subs = {{i8::M, size}, {i8::N, size}, {i8::K, size}, {i8::BLOCK_M, bm},
                                          {i8::BLOCK_N, bn}, {i8::BLOCK_K, bk}, {i8::WAVE_M, wm}, {i8::WAVE_N, wn}},
                                 .cache = false, .warp_specialize = true, .persistent = persistent};
          const auto t0 = std::chrono::steady_clock::now();
          const CompiledKernel compiled = compile(gemm, o);
          const double compile_ms =
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          auto launch = [&] { compiled.launch(args); };
          std::vector<std::int32_t> out(n * n, 0x7FFFFFFF);  // above every sum
          c.copy_from_host(out.data());
          launch();
          runtime::synchronize();
          c.copy_to_host(out.data());
          std::size_t wrong = std::count(out.begin(), out.end(), 0x7FFFFFFF);
          std::uniform_int_distribution<std::size_t> pick(0, n * n - 1);
          for (int t = 0; t < 256; ++t) {
            const std::size_t i = pick(rng), row = i / n, col = i % n;
            std::int64_t sum = 0;
            for (std::size_t x = 0; x < n; ++x) sum += std::int64_t(host_a[row * n + x]) * host_b[col * n + x];
            wrong += out[i] != sum;
          }
          char config[96];
          std::snprintf(config, sizeof config, "i8 %d^3 %dx%dx%d/%dx%d%s", size, bm, bn, bk, wm, wn,
                        persistent ? " persistent" : "");
          if (wrong != 0) {
            bench::refuse(config, std::to_string(wrong) + " elements unwritten or off their int64 sums");
            continue;
          }
          const double ms = median_ms(launch);
          std::printf("gemmi8 %4s %6d %6d %6d %5d %5d %5d %5d %5d %10.3f %9.1f %11.1f  %s\n", "i8", size, size, size,
                      bm, bn, bk, wm, wn, ms, 2.0 * n * n * n / (ms * 1e9), compile_ms,
                      persistent ? "specialized, persistent" : "specialized");
        } catch (const Error& e) {
          std::printf("error  %4s %6d: %s\n", "i8", size, e.what());
        }
    std::fflush(stdout);
  }
  return 0;
}

struct ScheduleCase { int m, n, k, bm, bn, bk, wm, wn; };
struct Schedule {
  bool specialize, persistent;
  int cluster;
  bool stream_k = false;
};

bool f16_out() {
  const char* out_env = std::getenv("WAVE_BENCH_OUT");
  return out_env && std::string(out_env) == "f16";
}

// Checks `launch`'s output in `c` against `expected`, then times it and prints its line
// (named `name`), or prints why it is refused.
void check_and_time(const ScheduleCase& s, const char* name, runtime::DeviceBuffer& c, Format out,
                    const std::function<void()>& launch, const std::function<bench::Expected(std::size_t)>& expected) {
  const std::string wrong = check_gemm(c, out, launch, expected);
  char config[128];
  std::snprintf(config, sizeof config, "%dx%dx%d %s", s.m, s.n, s.k, name);
  if (!wrong.empty()) {
    bench::refuse(config, wrong);
    return;
  }
  const double ms = median_ms(launch);
  std::printf("gemm   %4s %6d %6d %6d %5d %5d %5d %5d %5d %10.3f %9.1f  %s\n", "f16", s.m, s.n, s.k, s.bm, s.bn, s.bk,
              s.wm, s.wn, ms, 2.0 * s.m * s.n * s.k / (ms * 1e9), name);
}

// One line: `s` under `schedule` on `in` into `c`, its output checked before it is timed
// (f32 out, or with WAVE_BENCH_OUT=f16 f16 out, cuBLAS's usual).
void time_schedule(const ScheduleCase& s, const Schedule& schedule, const GemmInputs& in, runtime::DeviceBuffer& c) {
  const bool f16_out = ::f16_out();
  const std::vector<const void*> args{reinterpret_cast<const void*>(in.a.address()),
                                      reinterpret_cast<const void*>(in.b.address()),
                                      reinterpret_cast<const void*>(c.address())};
  char name[80];
  std::snprintf(name, sizeof name, "%s, %s%s%s", schedule.specialize ? "specialized" : "pipelined",
                schedule.persistent ? "persistent" : "a workgroup per tile", schedule.stream_k ? ", stream-K" : "",
                schedule.cluster > 1 ? (schedule.cluster == 2 ? ", clusters of 2" : ", clusters of 4") : "");
  try {
    const CompileOptions o{.subs = {{ex::M, s.m}, {ex::N, s.n}, {ex::K, s.k}, {ex::BLOCK_M, s.bm},
                                    {ex::BLOCK_N, s.bn}, {ex::BLOCK_K, s.bk}, {WAVE_M, s.wm}, {WAVE_N, s.wn}},
                           .cache = false, .tma = bench::tma(), .warp_specialize = schedule.specialize,
                           .persistent = schedule.persistent, .stream_k = schedule.stream_k,
                           .cluster_size = schedule.cluster};
    const CompiledKernel compiled =
        f16_out ? compile(ex::make_with_wave_tiles<f16, f16>(), o) : compile(ex::make_with_wave_tiles<f16>(), o);
    auto launch = [&] { compiled.launch(args); };
    // f16 out: the f32 bound and the output's own rounding (2^-11 of it).
    check_and_time(s, name, c, f16_out ? Format::f16 : Format::f32, launch, [&](std::size_t i) {
      bench::Expected e = in.at(i);
      e.tolerance += bench::output_rounding(f16_out ? Format::f16 : Format::f32, e.value);
      return e;
    });
  } catch (const Error& e) {
    std::printf("error  %4s %6d %6d %6d %s: %s\n", "f16", s.m, s.n, s.k, name, e.what());
  }
  std::fflush(stdout);
}

void print_schedule_header() {
  std::printf("%-6s %4s %6s %6s %6s %5s %5s %5s %5s %5s %10s %9s  %s (%s out)\n", "", "in", "M", "N", "K", "BM", "BN",
              "BK", "WM", "WN", "ms", "TFLOP/s", "schedule", f16_out() ? "f16" : "f32");
}

// `s`'s inputs (random f16) and output buffer, once for all its schedules.
struct ScheduleData {
  GemmInputs in;
  runtime::DeviceBuffer c;
  ScheduleData(const ScheduleCase& s, std::mt19937& rng)
      : in(s.m, s.n, s.k, Format::f16, rng), c(std::size_t(s.m) * s.n * (f16_out() ? 2 : 4)) {}
};

// --schedules: per shape, one tiling under eight schedules.
int schedules() {
  print_schedule_header();
  std::mt19937 rng(9);
  using C = ScheduleCase;
  for (C s : {C{4096, 4096, 4096, 128, 256, 64, 64, 64}, C{8192, 8192, 8192, 128, 256, 64, 64, 64},
              C{2048, 10240, 1280, 128, 256, 64, 64, 64}, C{128, 1280, 5120, 128, 128, 64, 64, 64},
              C{4000, 4000, 4000, 128, 256, 64, 64, 64}}) {
    ScheduleData data(s, rng);
    for (Schedule schedule : {Schedule{false, false, 1}, Schedule{true, false, 1}, Schedule{false, true, 1},
                              Schedule{true, true, 1}, Schedule{true, false, 2}, Schedule{true, true, 2},
                              Schedule{false, true, 1, true}, Schedule{true, true, 1, true}})
      time_schedule(s, schedule, data.in, data.c);
  }
  return 0;
}

// --split-k: per skinny shape, the unsplit GEMM's line, then the split-K GEMM's at several
// splits (each launch preceded by zeroing C, both timed: what a caller pays).
int split_k() {
  print_schedule_header();
  std::mt19937 rng(9);
  const bool f16 = f16_out();
  using C = ScheduleCase;
  for (C s : {C{128, 1280, 5120, 128, 128, 64, 64, 64}, C{128, 4096, 8192, 128, 128, 64, 64, 64},
              C{256, 2048, 8192, 128, 128, 64, 64, 64}}) {
    ScheduleData data(s, rng);
    time_schedule(s, {false, false, 1}, data.in, data.c);
    // The plain GEMM under stream-K: its persistent grid shares the tiles' K trips out.
    time_schedule(s, {false, true, 1, true}, data.in, data.c);
    time_schedule(s, {true, true, 1, true}, data.in, data.c);
    for (int parts : {2, 4, 6, 8, 12, 16}) {
      const int split = (s.k / parts + s.bk - 1) / s.bk * s.bk;
      const std::vector<const void*> args{reinterpret_cast<const void*>(data.in.a.address()),
                                          reinterpret_cast<const void*>(data.in.b.address()),
                                          reinterpret_cast<const void*>(data.c.address())};
      char name[64];
      std::snprintf(name, sizeof name, "split-K %d (%d parts)", split, (s.k + split - 1) / split);
      try {
        namespace sk = examples::gemm_split_k;
        const CompileOptions o{.subs = {{sk::M, s.m}, {sk::N, s.n}, {sk::K, s.k}, {sk::SPLIT_K, split},
                                        {sk::BLOCK_M, s.bm}, {sk::BLOCK_N, s.bn}, {sk::BLOCK_K, s.bk},
                                        {sk::WAVE_M, s.wm}, {sk::WAVE_N, s.wn}},
                               .cache = false, .tma = bench::tma(), .warp_specialize = bench::warp_specialize()};
        const CompiledKernel compiled =
            f16 ? compile(sk::make_kernel<wave::f16, wave::f16>(), o) : compile(sk::make_kernel<wave::f16>(), o);
        auto launch = [&] {
          data.c.fill_bytes(0);
          compiled.launch(args);
        };
        // Each part rounds once more (f16 out: to 2^-11 of the running sum).
        const int parts_made = (s.k + split - 1) / split;
        check_and_time(s, name, data.c, f16 ? Format::f16 : Format::f32, launch, [&](std::size_t i) {
          bench::Expected e = data.in.at(i);
          if (f16) e.tolerance += parts_made * std::ldexp(std::abs(e.value), -10);
          return e;
        });
      } catch (const Error& e) {
        std::printf("error  %4s %6d %6d %6d %s: %s\n", "f16", s.m, s.n, s.k, name, e.what());
      }
      std::fflush(stdout);
    }
  }
  return 0;
}

// M N K BM BN BK WM WN [specialize persistent cluster stream_k]: that one configuration (e.g.
// under ncu).
int one_configuration(char** argv, int argc) {
  int a[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
  for (int i = 0; i + 1 < argc && i < 12; ++i) a[i] = std::atoi(argv[i + 1]);
  print_schedule_header();
  std::mt19937 rng(9);
  const ScheduleCase s{a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]};
  ScheduleData data(s, rng);
  time_schedule(s, {a[8] != 0, a[9] != 0, a[10], a[11] != 0}, data.in, data.c);
  return 0;
}

}  // namespace

int WAVE_BENCH_MAIN(int argc, char** argv) {
  if (!bench::open_device()) return 77;
  if (argc > 1 && std::string(argv[1]) == "--fused") return fused();
  if (argc > 1 && std::string(argv[1]) == "--f8") return scaled_f8();
  if (argc > 1 && std::string(argv[1]) == "--i8") return int_mm();
  if (argc > 1 && std::string(argv[1]) == "--schedules") return schedules();
  if (argc > 1 && std::string(argv[1]) == "--split-k") return split_k();
  if (argc == 9 || argc == 12 || argc == 13) return one_configuration(argv, argc);
  // Each shape and input type is tuned by autotune() over the tilings (compiled in
  // parallel, each timed as the median of 20 runs after 3 warm-ups); one line per tiling,
  // then the winner's line with its cold compile time, compiled again alone.
  std::printf("%-6s %4s %6s %6s %6s %5s %5s %5s %5s %5s %10s %9s %11s\n", "", "in", "M", "N", "K", "BM", "BN", "BK",
              "WM", "WN", "ms", "TFLOP/s", "compile ms");
  std::mt19937 rng(7);
  struct Shape { int m, n, k; };
  struct Tiles { int m, n, k, wm, wn; };
  const auto gemm_f16 = ex::make_with_wave_tiles<f16>();
  const auto gemm_bf16 = ex::make_with_wave_tiles<bf16>();
  const std::vector<Tiles> tilings{{128, 128, 32, 64, 64}, {128, 128, 32, 64, 32}, {128, 128, 32, 32, 64},
                                   {128, 256, 32, 64, 64}, {256, 128, 32, 64, 64}, {128, 128, 64, 64, 64},
                                   {64, 128, 32, 32, 64},  {64, 64, 64, 32, 32},   {128, 256, 64, 64, 64},
                                   {256, 128, 64, 64, 64}, {128, 128, 64, 32, 64}, {128, 128, 64, 64, 32}};
  for (Shape s : {Shape{4096, 4096, 4096}, Shape{8192, 8192, 8192}, Shape{2048, 10240, 1280}, Shape{128, 1280, 5120}}) {
    runtime::DeviceBuffer c(std::size_t(s.m) * s.n * 4);
    for (bool is_bf16 : {false, true}) {
      const char* in = is_bf16 ? "bf16" : "f16";
      // bf16 inputs are drawn as bf16 values, not f16 bit patterns read as bf16.
      const GemmInputs inputs(s.m, s.n, s.k, is_bf16 ? Format::bf16 : Format::f16, rng);
      const std::vector<const void*> args{reinterpret_cast<const void*>(inputs.a.address()),
                                          reinterpret_cast<const void*>(inputs.b.address()),
                                          reinterpret_cast<const void*>(c.address())};
      AutotuneOptions tuning{.use_cache = false};
      tuning.check = [&](const CompiledKernel& k) {
        return check_gemm(c, Format::f32, [&] { k.launch(args); }, [&](std::size_t i) { return inputs.at(i); });
      };
      // bf16 at the tilings best for f16 (four waves over 128x128, eight over 128x256 and
      // 256x128 at BK 64, the small GEMM's), to keep the run short.
      std::vector<Tiles> tried;
      for (Tiles t : tilings)
        if (!is_bf16 || (t.m == 128 && t.n == 128 && t.wm == 64 && t.wn == 64) || (t.m == 64 && t.n == 64) ||
            (t.m * t.n == 256 * 128 && t.k == 64))
          tried.push_back(t);
      std::vector<Subs> configs;
      for (Tiles t : tried)
        configs.push_back({{ex::BLOCK_M, t.m}, {ex::BLOCK_N, t.n}, {ex::BLOCK_K, t.k}, {WAVE_M, t.wm}, {WAVE_N, t.wn}});
      const CompileOptions base{.subs = {{ex::M, s.m}, {ex::N, s.n}, {ex::K, s.k}}, .cache = false, .tma = bench::tma(), .warp_specialize = bench::warp_specialize()};
      try {
        const auto t0 = std::chrono::steady_clock::now();
        const Autotuned tuned = is_bf16 ? autotune(gemm_bf16, base, configs, args, {}, tuning)
                                        : autotune(gemm_f16, base, configs, args, {}, tuning);
        const double tune_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double flops = 2.0 * s.m * s.n * s.k;
        for (std::size_t i = 0; i < tried.size(); ++i) {
          const Tiles t = tried[i];
          if (std::isnan(tuned.ms[i]))
            std::printf("reject %4s %6d %6d %6d %5d %5d %5d %5d %5d  %s\n", in, s.m, s.n, s.k, t.m, t.n, t.k, t.wm, t.wn,
                        tuned.rejected[i].substr(0, 160).c_str());
          else
            std::printf("gemm   %4s %6d %6d %6d %5d %5d %5d %5d %5d %10.3f %9.1f %11s\n", in, s.m, s.n, s.k, t.m, t.n,
                        t.k, t.wm, t.wn, tuned.ms[i], flops / (tuned.ms[i] * 1e9), "-");
        }
        // The winner's cold compile alone (the tuning compiled them all at once).
        CompileOptions o = base;
        o.subs.insert(o.subs.end(), configs[tuned.best].begin(), configs[tuned.best].end());
        const auto c0 = std::chrono::steady_clock::now();
        (void)(is_bf16 ? compile(gemm_bf16, o) : compile(gemm_f16, o));
        const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();
        const Tiles t = tried[tuned.best];
        std::printf("tuned  %4s %6d %6d %6d %5d %5d %5d %5d %5d %10.3f %9.1f %11.1f  (%zu tilings tuned in %.1f s)\n", in,
                    s.m, s.n, s.k, t.m, t.n, t.k, t.wm, t.wn, tuned.ms[tuned.best],
                    flops / (tuned.ms[tuned.best] * 1e9), compile_ms, tried.size(), tune_s);
      } catch (const Error& e) {
        std::printf("error  %4s %6d %6d %6d: %s\n", in, s.m, s.n, s.k, e.what());
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
