// Memory-bound kernels against the device's own copy (cuMemcpyDtoD) in the same run:
// GB/s counting bytes read and written, the median of many timed runs after warm-up (device
// events around back-to-back launches), on random data; each kernel's output checked first
// (every element written, 256 sampled ones against float64). Also host times: compiling each kernel to PTX cold (no cache), a kernel-cache
// hit in memory (trace, import and key included), and the first launch (the driver loading
// the PTX included). Each kernel runs with M and N fixed in subs, and dynamic ("dyn").
//
//   wave-bench-memory-bound               prints the table; exits 77 without a GPU
//   wave-bench-memory-bound --disk-hit    times this process's first compile of the copy
//                                         kernel, a hit in the disk cache the table's run filled
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <random>
#include <vector>

#include <wave/wave.hpp>
#include <wave/runtime.hpp>

#include "bench.hpp"

using namespace wave;

namespace {

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_N);

// Median of 25 timed runs after 3 warm-ups.
double median_ms(const std::function<void()>& enqueue) { return bench::median_ms(enqueue, 25); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int WAVE_BENCH_MAIN(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--disk-hit") {
    auto copy = kernel("copy",
                       {WorkgroupConstraint(M, 1, 1), WorkgroupConstraint(N, BLOCK_N, 0),
                        WaveConstraint(N, BLOCK_N / 4), HardwareConstraint{.threads_per_wave = 32}},
                       [](Memory<dims<M, N>, f16> x, Memory<dims<M, N>, f16> y) { write(read(x), y); });
    const CompileOptions cached{.subs = {{M, 16384}, {N, 32768}, {BLOCK_N, 1024}}, .cache_dir = "/tmp/wave-bench-cache"};
    const auto t0 = std::chrono::steady_clock::now();
    jit::compile_to_ptx(copy.trace(), cached);
    std::printf("disk-cache hit in a new process (copy, trace + import + key + read): %.2f ms\n",
                seconds_since(t0) * 1e3);
    return 0;
  }
  if (!bench::open_device()) return 77;
  std::printf("\n");
  std::mt19937 rng(1234);

  // 1 GiB of f16 per tensor.
  const std::int64_t m = 16384, n = 32768;
  const std::size_t bytes = static_cast<std::size_t>(m) * n * 2;
  runtime::DeviceBuffer a(bytes), b(bytes), c(bytes), out(bytes);
  const std::vector<float> host_a = bench::fill_random(a, rng, bench::Format::f16, /*with_signs=*/false);
  const std::vector<float> host_b = bench::fill_random(b, rng, bench::Format::f16, /*with_signs=*/false);
  const std::vector<float> host_c = bench::fill_random(c, rng, bench::Format::f16, /*with_signs=*/false);
  std::mt19937 samples(11);

  const double memcpy_ms = median_ms([&] { out.copy_from(a); });
  const double memcpy_gbs = 2.0 * bytes / (memcpy_ms * 1e6);
  std::printf("%-34s %9s %9s %8s %12s %10s %10s\n", "kernel", "ms", "GB/s", "ratio", "compile ms", "hit ms",
              "1st launch");
  std::printf("%-34s %9.3f %9.1f %8.3f %12s %10s %10s\n", "cuMemcpyDtoD 1 GiB", memcpy_ms, memcpy_gbs, 1.0, "-", "-",
              "-");

  // Times one kernel: compile cold, cache hit, first launch (module load included), then
  // the median launch. `dynamic`: M and N left out of subs, given at launch.
  auto measure = [&](const auto& k, const char* label, int block_n, int waves, bool dynamic) {
    try {
      CompileOptions cold{.subs = {{BLOCK_N, block_n}}}, cached;
      if (!dynamic) cold.subs.insert(cold.subs.end(), {{M, m}, {N, n}});
      cold.cache = false;
      cached = cold;
      cached.cache = true;
      cached.cache_dir = "/tmp/wave-bench-cache";
      auto t0 = std::chrono::steady_clock::now();
      const CompiledKernel compiled = compile(k, cold);
      const double compile_ms = seconds_since(t0) * 1e3;
      compile(k, cached);
      t0 = std::chrono::steady_clock::now();
      compile(k, cached);
      const double hit_ms = seconds_since(t0) * 1e3;
      const LaunchOptions how{.sizes = dynamic ? Subs{{M, m}, {N, n}} : Subs{}};
      const bool is_copy = compiled.ptx().entry == "copy";
      auto launch = [&] {
        if (is_copy) compiled.launch({reinterpret_cast<const void*>(a.address()), reinterpret_cast<const void*>(out.address())}, how);
        else compiled.launch({reinterpret_cast<const void*>(a.address()), reinterpret_cast<const void*>(b.address()),
                              reinterpret_cast<const void*>(c.address()), reinterpret_cast<const void*>(out.address())}, how);
      };
      bench::poison(out);
      t0 = std::chrono::steady_clock::now();
      launch();
      runtime::synchronize();
      const double first_ms = seconds_since(t0) * 1e3;
      // The copy is exact; exp2(x y) + z in f32, rounded to f16 (2^-11, doubled for exp2).
      const std::string wrong =
          bench::check_output(out, bench::Format::f16, 256, samples, [&](std::size_t i) {
            if (is_copy) return bench::Expected{host_a[i], 0.0};
            const double want = std::exp2(double(host_a[i]) * host_b[i]) + host_c[i];
            return bench::Expected{want, std::ldexp(want, -10)};
          });
      if (!wrong.empty()) return bench::refuse(label, wrong);
      const double ms = median_ms(launch);
      const double gbs = (is_copy ? 2 : 4) * bytes / (ms * 1e6);
      char name[64];
      std::snprintf(name, sizeof name, "%s BLOCK_N=%d waves=%d%s", label, block_n, waves, dynamic ? " dyn" : "");
      std::printf("%-34s %9.3f %9.1f %8.3f %12.1f %10.2f %10.1f\n", name, ms, gbs, gbs / memcpy_gbs, compile_ms,
                  hit_ms, first_ms);
    } catch (const Error& e) {
      std::printf("%s: %s\n", label, e.what());
    }
  };

  for (int waves : {4, 8}) {
    for (int block_n : {1024, 2048, 4096}) {
      auto copy = kernel("copy",
                         {WorkgroupConstraint(M, 1, 1), WorkgroupConstraint(N, BLOCK_N, 0),
                          WaveConstraint(N, BLOCK_N / waves), HardwareConstraint{.threads_per_wave = 32}},
                         [](Memory<dims<M, N>, f16> x, Memory<dims<M, N>, f16> y) { write(read(x), y); });
      auto fused = kernel("fused",
                          {WorkgroupConstraint(M, 1, 1), WorkgroupConstraint(N, BLOCK_N, 0),
                           WaveConstraint(N, BLOCK_N / waves), HardwareConstraint{.threads_per_wave = 32}},
                          [](Memory<dims<M, N>, f16> x, Memory<dims<M, N>, f16> y, Memory<dims<M, N>, f16> z,
                             Memory<dims<M, N>, f16> w) { write(exp2(read(x) * read(y)) + read(z), w); });
      for (bool dynamic : {false, true}) {
        measure(copy, "copy", block_n, waves, dynamic);
        measure(fused, "exp2(x*y)+z", block_n, waves, dynamic);
      }
    }
  }
  return 0;
}
