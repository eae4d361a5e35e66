// Fused softmax over rows of f16 [M, N] (f32 math, f16 out): GB/s (bytes read and written)
// per shape and layout, the median of many timed runs after warm-up (device events around
// back-to-back launches; each layout's output checked first against a float64 softmax), with
// the device's own copy of the same bytes (cuMemcpyDtoD) in the same run as the bandwidth
// reference. bench/softmax_vs_torch.py runs this next to torch.softmax.
//
//   wave-bench-softmax     one line per shape and layout; exits 77 without a GPU
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include <wave/runtime.hpp>
#include <wave/wave.hpp>

#include "bench.hpp"

#include "kernels/softmax.hpp"

using namespace wave;
namespace ex = examples::softmax;

int WAVE_BENCH_MAIN(int, char**) {
  if (!bench::open_device()) return 77;
  std::printf("%-8s %6s %6s %5s %6s %6s %9s %9s %9s %11s\n", "", "M", "N", "BM", "BN", "WN", "ms", "GB/s", "vs copy",
              "compile ms");
  std::mt19937 rng(7);
  const auto softmax = ex::make_kernel();
  struct Shape { int m, n; };
  struct Layout { int block_m, block_n, wave_n; };
  for (Shape s : {Shape{4096, 4099}, Shape{16384, 4096}, Shape{32768, 1024}, Shape{8192, 8192}}) {
    const std::size_t bytes = std::size_t(s.m) * s.n * 2;
    runtime::DeviceBuffer x(bytes), y(bytes);
    const std::vector<float> host_x = bench::fill_random(x, rng, bench::Format::f16, /*with_signs=*/true);
    // y[row, col] in float64; f32 math, then rounded to f16 (2^-11 of it, doubled for the
    // f32 exp and sum; 1e-7 for f16's subnormals).
    auto expected = [&](std::size_t i) {
      const std::size_t row = i / s.n, col = i % s.n;
      double top = -INFINITY, total = 0;
      for (int j = 0; j < s.n; ++j) top = std::max(top, double(host_x[row * s.n + j]));
      for (int j = 0; j < s.n; ++j) total += std::exp(host_x[row * s.n + j] - top);
      const double want = std::exp(host_x[row * s.n + col] - top) / total;
      return bench::Expected{want, std::ldexp(want, -10) + 1e-7};
    };
    std::mt19937 samples(11);
    const double copy_ms = bench::median_ms([&] { y.copy_from(x); }, 50);
    const double copy_gbs = 2.0 * bytes / (copy_ms * 1e6);
    std::printf("copy     %6d %6d %5s %6s %6s %9.4f %9.1f %9.3f %11s\n", s.m, s.n, "-", "-", "-", copy_ms, copy_gbs, 1.0,
                "-");
    // Rows of up to 2048 per wave step (8 waves x 32 lanes x 8): 4 or 8 waves per row, and
    // two rows per workgroup for short rows.
    const int row = (s.n + 255) / 256 * 256;
    for (Layout l : {Layout{1, (row + 1023) / 1024 * 1024, (row + 1023) / 1024 * 256},
                     Layout{1, (row + 2047) / 2048 * 2048, (row + 2047) / 2048 * 256},
                     Layout{2, (row + 1023) / 1024 * 1024, (row + 1023) / 1024 * 256}}) try {
      CompileOptions o{.subs = {{ex::M, s.m}, {ex::N, s.n}, {ex::BLOCK_M, l.block_m}, {ex::BLOCK_N, l.block_n},
                                {ex::WAVE_N, l.wave_n}},
                       .cache = false};
      const auto t0 = std::chrono::steady_clock::now();
      const CompiledKernel k = compile(softmax, o);
      const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const void* px = reinterpret_cast<const void*>(x.address());
      const void* py = reinterpret_cast<const void*>(y.address());
      auto launch = [&] { k.launch({px, py}); };
      bench::poison(y);
      launch();
      const std::string wrong = bench::check_output(y, bench::Format::f16, 256, samples, expected);
      if (!wrong.empty()) {
        bench::refuse("softmax " + std::to_string(s.m) + "x" + std::to_string(s.n) + " layout " +
                          std::to_string(l.block_m) + "/" + std::to_string(l.block_n) + "/" + std::to_string(l.wave_n),
                      wrong);
        continue;
      }
      const double ms = bench::median_ms(launch, 50);
      const double gbs = 2.0 * bytes / (ms * 1e6);
      std::printf("softmax  %6d %6d %5d %6d %6d %9.4f %9.1f %9.3f %11.1f\n", s.m, s.n, l.block_m, l.block_n, l.wave_n, ms,
                  gbs, gbs / copy_gbs, compile_ms);
      std::fflush(stdout);
    } catch (const Error& e) {
      std::printf("error    %6d %6d %5d %6d %6d: %s\n", s.m, s.n, l.block_m, l.block_n, l.wave_n, e.what());
    }
  }
  return 0;
}
