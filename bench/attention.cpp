// Flash attention forward (f16 in, f32 math, f16 out, [B, H, S, D]): TFLOP/s per shape,
// causal or not, and tiling; the median of many timed runs after warm-up (device events
// around back-to-back launches). Each configuration's output is checked first (every
// element written, 64 sampled elements against a float64 softmax); a wrong one is not
// timed.
// bench/attention_vs_torch.py runs this next to PyTorch SDPA (flash and cuDNN back ends).
// The last column says the grid: plain, or persistent (four of the tilings run on both;
// causal tiles are handed out at run time there, bench/RESULTS.md run 234).
// FLOPs count as SDPA's benchmarks do: 4 B H S^2 D, halved when causal. Decode attention
// (one query per head) is memory-bound: it reports GB/s of the K and V read.
//
//   wave-bench-attention          one line per shape, mask and tiling; exits 77 without a GPU
//   wave-bench-attention decode   the decode shapes only
//   (or one configuration, given as arguments: see main)
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <wave/runtime.hpp>
#include <wave/wave.hpp>

#include "bench.hpp"

#include "kernels/decode_attention.hpp"
#include "kernels/flash_attention.hpp"

using namespace wave;
namespace ex = examples::flash_attention;

namespace {

struct Shape { int b, h, s, d; };
// `persistent`: on a persistent grid (CompileOptions::persistent), whatever WAVE_BENCH_PERSISTENT says.
struct Tiling { int block_m, block_k2, waves; bool persistent = false; };

// q [B, H, M, D], k and v [B, H, S, D] on the device and the host.
struct AttentionData {
  Shape shape;
  int queries;
  runtime::DeviceBuffer q, k, v;
  std::vector<float> host_q, host_k, host_v;
  AttentionData(Shape s, int queries, std::mt19937& rng)
      : shape(s), queries(queries), q(std::size_t(s.b) * s.h * queries * s.d * 2),
        k(std::size_t(s.b) * s.h * s.s * s.d * 2), v(k.size()) {
    host_q = bench::fill_random(q, rng, bench::Format::f16, /*with_signs=*/true);
    host_k = bench::fill_random(k, rng, bench::Format::f16, /*with_signs=*/true);
    host_v = bench::fill_random(v, rng, bench::Format::f16, /*with_signs=*/true);
  }
  // Output element i of [B, H, queries, D] in float64: softmax(q k^T / sqrt(D)) v over the
  // keys the query sees. Probabilities rounded to f16 before P V: 2e-3 of the sum of |p v|,
  // and 2^-11 of the value more for an f16 output.
  bench::Expected at(std::size_t i, bool causal, bool f16_out) const {
    const int d = shape.d, col = i % d;
    const std::size_t row = i / d, head = row / queries;
    const int query = row % queries, keys = causal ? query + 1 : shape.s;
    std::vector<double> p(keys);
    double top = -INFINITY, total = 0;
    for (int j = 0; j < keys; ++j) {
      double dot = 0;
      for (int x = 0; x < d; ++x) dot += double(host_q[row * d + x]) * host_k[(head * shape.s + j) * d + x];
      top = std::max(top, p[j] = dot / std::sqrt(double(d)));
    }
    for (double& x : p) total += (x = std::exp(x - top));
    double want = 0, magnitude = 0;
    for (int j = 0; j < keys; ++j) {
      const double pv = p[j] / total * host_v[(head * shape.s + j) * d + col];
      want += pv;
      magnitude += std::abs(pv);
    }
    const bench::Format out = f16_out ? bench::Format::f16 : bench::Format::f32;
    return {want, 2e-3 * magnitude + bench::output_rounding(out, want) + 1e-6};
  }
};

// Poisons `o`, runs `launch` once and checks 64 sampled elements.
std::string check_attention(const AttentionData& data, runtime::DeviceBuffer& o, bench::Format out, bool causal,
                            const std::function<void()>& launch) {
  static std::mt19937 samples(11);
  bench::poison(o);
  launch();
  return bench::check_output(o, out, 64, samples,
                             [&](std::size_t i) { return data.at(i, causal, out == bench::Format::f16); });
}

// One line: the shape, mask and tiling timed (random q, k, v), or why it did not compile.
void time_flash(Shape s, bool causal, Tiling t, const AttentionData& data, runtime::DeviceBuffer& o) {
  const runtime::DeviceBuffer &q = data.q, &k = data.k, &v = data.v;
  try {
    CompileOptions how{.subs = {{ex::B, s.b}, {ex::H, s.h}, {ex::M, s.s}, {ex::K2, s.s}, {ex::K1, s.d}, {ex::N, s.d},
                                {ex::BLOCK_M, t.block_m}, {ex::BLOCK_K2, t.block_k2}},
                       .cache = false,
                       .tma = bench::tma(), .warp_specialize = bench::warp_specialize(),
                       .persistent = t.persistent || bench::persistent()};
    const auto t0 = std::chrono::steady_clock::now();
    const CompiledKernel kernel = compile(ex::make_kernel<f16>({.head_dim = s.d, .causal = causal, .waves = t.waves}), how);
    const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    auto at = [](const runtime::DeviceBuffer& b) { return reinterpret_cast<const void*>(b.address()); };
    auto launch = [&] { kernel.launch({at(q), at(k), at(v), at(o)}); };
    const std::string wrong = check_attention(data, o, bench::Format::f16, causal, launch);
    if (!wrong.empty()) {
      char config[96];
      std::snprintf(config, sizeof config, "attention B%d H%d S%d D%d causal %d %dx%d/%d waves", s.b, s.h, s.s, s.d,
                    causal, t.block_m, t.block_k2, t.waves);
      return bench::refuse(config, wrong);
    }
    const double ms = bench::median_ms(launch, 30);
    const double flops = 4.0 * s.b * s.h * double(s.s) * s.s * s.d / (causal ? 2 : 1);
    std::printf("attention %3d %3d %5d %4d %6d %5d %4d %5d %9.4f %9.1f %11.1f %s\n", s.b, s.h, s.s, s.d, causal, t.block_m,
                t.block_k2, t.waves, ms, flops / (ms * 1e9), compile_ms, how.persistent ? "persistent" : "plain");
  } catch (const Error& e) {
    std::printf("error     %3d %3d %5d %4d %6d %5d %4d %5d: %s\n", s.b, s.h, s.s, s.d, causal, t.block_m, t.block_k2,
                t.waves, e.what());
  }
  std::fflush(stdout);
}

}  // namespace

//   wave-bench-attention B H S D causal BLOCK_M BLOCK_K2 waves   that one flash configuration
//                                                                 (e.g. under ncu)
int WAVE_BENCH_MAIN(int argc, char** argv) {
  if (!bench::open_device()) return 77;
  std::printf("%-9s %3s %3s %5s %4s %6s %5s %4s %5s %9s %9s %11s %s\n", "", "B", "H", "S", "D", "causal", "BM", "BK2",
              "waves", "ms", "TFLOP/s", "compile ms", "grid");
  std::mt19937 rng(7);
  if (argc == 9) {
    int a[8];
    for (int i = 0; i < 8; ++i) a[i] = std::atoi(argv[i + 1]);
    const Shape s{a[0], a[1], a[2], a[3]};
    const AttentionData data(s, s.s, rng);
    runtime::DeviceBuffer o(data.k.size());
    time_flash(s, a[4] != 0, {a[5], a[6], a[7]}, data, o);
    return 0;
  }
  // `decode`: only the decode shapes.
  const bool decodeOnly = argc == 2 && std::string(argv[1]) == "decode";
  for (Shape s : {Shape{4, 16, 4096, 128}, Shape{16, 16, 1024, 128}, Shape{8, 32, 2048, 64}}) {
    if (decodeOnly) break;
    const AttentionData data(s, s.s, rng);
    runtime::DeviceBuffer o(data.k.size());
    for (bool causal : {false, true})
      for (Tiling t : {Tiling{128, 64, 8}, Tiling{64, 64, 4}, Tiling{128, 32, 8}, Tiling{128, 64, 4}, Tiling{128, 32, 4},
                        Tiling{128, 128, 8}, Tiling{192, 128, 12}, Tiling{128, 128, 8, true},
                        Tiling{192, 128, 12, true}, Tiling{64, 64, 4, true}, Tiling{128, 64, 4, true}})
        time_flash(s, causal, t, data, o);
  }
  // Decode: one query per head against S keys, the keys of each tile split among 4 waves.
  std::printf("%-9s %3s %3s %5s %4s %6s %5s %4s %5s %9s %9s %11s\n", "", "B", "H", "S", "D", "", "BM", "BK2", "waves",
              "us", "GB/s", "compile ms");
  for (Shape s : {Shape{16, 32, 1024, 128}, Shape{16, 32, 8192, 128}, Shape{4, 32, 32768, 128}}) {
    const std::size_t kv = std::size_t(s.b) * s.h * s.s * s.d;
    const AttentionData data(s, 1, rng);
    const runtime::DeviceBuffer &q = data.q, &k = data.k, &v = data.v;
    runtime::DeviceBuffer o(std::size_t(s.b) * s.h * s.d * 4);
    for (int block_k2 : {64, 128}) try {
        namespace dx = examples::decode_attention;
        CompileOptions how{.subs = {{ex::B, s.b}, {ex::H, s.h}, {ex::M, 1}, {ex::K2, s.s}, {ex::K1, s.d},
                                    {ex::N, s.d}, {ex::BLOCK_M, 16}, {ex::BLOCK_K2, block_k2}},
                           .cache = false};
        const auto t0 = std::chrono::steady_clock::now();
        const CompiledKernel kernel = compile(dx::make_kernel(s.d, 4), how);
        const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        auto at = [](const runtime::DeviceBuffer& b) { return reinterpret_cast<const void*>(b.address()); };
        auto launch = [&] { kernel.launch({at(q), at(k), at(v), at(o)}); };
        const std::string wrong = check_attention(data, o, bench::Format::f32, false, launch);
        if (!wrong.empty()) {
          bench::refuse("decode B" + std::to_string(s.b) + " S" + std::to_string(s.s) + " BLOCK_K2 " +
                            std::to_string(block_k2),
                        wrong);
          continue;
        }
        const double ms = bench::median_ms(launch, 50);
        std::printf("decode    %3d %3d %5d %4d %6s %5d %4d %5d %9.1f %9.1f %11.1f\n", s.b, s.h, s.s, s.d, "", 16,
                    block_k2, 4, ms * 1e3, 2.0 * kv * 2 / (ms * 1e6), compile_ms);
        std::fflush(stdout);
      } catch (const Error& e) {
        std::printf("error     %3d %3d %5d %4d decode BLOCK_K2 %d: %s\n", s.b, s.h, s.s, s.d, block_k2, e.what());
      }
  }
  return 0;
}
