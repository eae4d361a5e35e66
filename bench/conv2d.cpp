// conv2d as an implicit GEMM through index mappings (examples/kernels/conv2d.hpp), NHWC f16
// in, f32 out and f16 out (as cuDNN writes it), 3x3 filters, no padding (or with
// WAVE_BENCH_CONV_PAD=1, one pixel of zero padding: the shape kept): ms and TFLOP/s per
// shape, output type and tiling, the median
// of 20 timed runs after warm-up (device events around back-to-back launches), on random
// data. Each tiling's output is checked first (every element written, 256 sampled ones
// against a direct float64 convolution); a wrong one is not timed. bench/conv2d_vs_cudnn.py times
// torch.nn.functional.conv2d (cuDNN, channels-last f16) on the same shapes in the same run.
//
//   wave-bench-conv2d     per shape and output type, autotune() over the tilings: one line
//                         per tiling, the winner's tagged "tuned"; exits 77 without a GPU
//   wave-bench-conv2d N C HW NF STRIDE BM BN BK WM WN
//                         that shape and tiling alone, both output types (for ncu and
//                         SASS); WM x WN is a wave's share of the BM x BN tile
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <type_traits>

#include <wave/autotune.hpp>
#include <wave/runtime.hpp>
#include <wave/wave.hpp>

#include "bench.hpp"
#include "kernels/conv2d.hpp"

using namespace wave;
namespace ex = examples::conv2d;

int WAVE_BENCH_MAIN(int argc, char** argv) {
  if (argc != 1 && argc != 11) {
    std::fprintf(stderr, "usage: %s [N C HW NF STRIDE BM BN BK WM WN]\n", argv[0]);
    return 2;
  }
  if (!bench::open_device()) return 77;
  const char* pad_env = std::getenv("WAVE_BENCH_CONV_PAD");
  const int pad = pad_env ? std::atoi(pad_env) : 0;
  std::printf("%-6s %4s %4s %4s %4s %3s %3s %4s %5s %5s %5s %5s %5s %3s %10s %9s\n", "", "N", "C", "HxW", "NF", "s", "p", "out",
              "BM", "BN", "BK", "WM", "WN", "sk", "ms", "TFLOP/s");
  std::mt19937 rng(7);
  struct Shape {
    int n, c, hw, nf, stride;
  };
  struct Tiles {
    int m, n, k, wave_m, wave_n;
  };
  std::vector<Shape> shapes = {Shape{32, 256, 56, 256, 1}, Shape{64, 512, 14, 512, 1},
                                Shape{16, 128, 64, 256, 2}, Shape{8, 64, 128, 64, 1}};
  // Four waves of 64x64 (the large shapes' best so far), eight waves over a 128x256 or
  // 256x128 tile (as the GEMM's best), twelve over 192x256 (three warpgroups: fewer,
  // longer tiles where 128-row ones would leave the grid's last wave nearly empty), and
  // smaller tiles for the shapes with few pixels.
  std::vector<Tiles> tilings = {Tiles{128, 128, 32, 64, 64}, Tiles{128, 128, 64, 64, 64}, Tiles{128, 256, 64, 64, 64},
                                Tiles{256, 128, 64, 64, 64}, Tiles{192, 256, 64, 64, 64}, Tiles{128, 128, 32, 64, 32},
                                Tiles{128, 64, 32, 64, 32},  Tiles{64, 64, 32, 32, 32}};
  if (argc == 11) {
    int v[10];
    for (int i = 0; i < 10; ++i) v[i] = std::atoi(argv[i + 1]);
    shapes = {Shape{v[0], v[1], v[2], v[3], v[4]}};
    tilings = {Tiles{v[5], v[6], v[7], v[8], v[9]}};
  }
  for (Shape s : shapes) {
    const int out = (s.hw + 2 * pad - 3) / s.stride + 1;
    runtime::DeviceBuffer x(std::size_t(s.n) * s.hw * s.hw * s.c * 2), w(std::size_t(9) * s.c * s.nf * 2);
    const std::vector<float> host_x = bench::fill_random(x, rng, bench::Format::f16, /*with_signs=*/true);
    const std::vector<float> host_w = bench::fill_random(w, rng, bench::Format::f16, /*with_signs=*/true);
    // out[b, oh, ow, k] in float64 (x NHWC, w [3, 3, C, NF]); 2K f32 roundings of the sum
    // of magnitudes, K = 9 C.
    auto expected = [&](std::size_t i) {
      const std::size_t k = i % s.nf, ow = i / s.nf % out, oh = i / s.nf / out % out, b = i / s.nf / out / out;
      double sum = 0, magnitude = 0;
      for (int fh = 0; fh < 3; ++fh)
        for (int fw = 0; fw < 3; ++fw)
          for (int ci = 0; ci < s.c; ++ci) {
            const long ih = long(oh * s.stride + fh) - pad, iw = long(ow * s.stride + fw) - pad;
            if (ih < 0 || ih >= s.hw || iw < 0 || iw >= s.hw) continue;  // the zero padding
            const double p = double(host_x[((b * s.hw + std::size_t(ih)) * s.hw + std::size_t(iw)) * s.c + ci]) *
                             host_w[((std::size_t(fh) * 3 + fw) * s.c + ci) * s.nf + k];
            sum += p;
            magnitude += std::abs(p);
          }
      return bench::Expected{sum, 2.0 * 9 * s.c * std::ldexp(magnitude, -24) + 1e-6};
    };
    const CompileOptions base{.subs = {{ex::N, s.n}, {ex::C, s.c}, {ex::H, s.hw}, {ex::W, s.hw}, {ex::NF, s.nf},
                                       {ex::HF, 3}, {ex::WF, 3}, {ex::H_OUT, out}, {ex::W_OUT, out},
                                       {ex::SZ_OUT, out * out}, {ex::M, s.n * out * out}, {ex::K, 9 * s.c},
                                       {ex::ADDRESS_SPACE, SHARED_ADDRESS_SPACE}},
                              .cache = false};
    // Each tiling on a plain grid and under stream-K (a persistent grid whose last two
    // rounds share out their K trips: the tile count rarely fills the last round).
    std::vector<Tiles> tried;
    std::vector<bool> split;
    std::vector<CompileOptions> configs;
    for (Tiles t : tilings)
      if (t.n <= s.nf)
        for (bool stream_k : {false, true}) {
          tried.push_back(t);
          split.push_back(stream_k);
          CompileOptions o = base;
          o.subs.insert(o.subs.end(), {{ex::BLOCK_M, t.m}, {ex::BLOCK_N, t.n}, {ex::BLOCK_K, t.k},
                                       {ex::WAVE_M, t.wave_m}, {ex::WAVE_N, t.wave_n}});
          o.persistent = o.stream_k = stream_k;
          configs.push_back(std::move(o));
        }
    // One output type: f32, or f16 (the sums cast; off by its rounding too, 2^-11 of the value).
    auto tune = [&]<class Out>(std::type_identity<Out>, const char* out_name, bench::Format out_format) {
      runtime::DeviceBuffer o(std::size_t(s.n) * out * out * s.nf * bit_width(Out::value) / 8);
      const std::vector<const void*> args{reinterpret_cast<const void*>(x.address()),
                                          reinterpret_cast<const void*>(w.address()),
                                          reinterpret_cast<const void*>(o.address())};
      AutotuneOptions tuning{.use_cache = false};
      std::mt19937 samples(11);
      tuning.check = [&](const CompiledKernel& k) {
        bench::poison(o);
        k.launch(args);
        return bench::check_output(o, out_format, 256, samples, [&](std::size_t i) {
          bench::Expected e = expected(i);
          e.tolerance += bench::output_rounding(out_format, e.value);
          return e;
        });
      };
      try {
        const Autotuned tuned = autotune(ex::make_kernel<Out>(s.stride, pad), configs, args, {}, tuning);
        const double flops = 2.0 * s.n * out * out * s.nf * 9.0 * s.c;
        for (std::size_t i = 0; i < tried.size(); ++i)
          if (!tuned.rejected[i].empty())
            std::printf("reject %4d %4d %4d %4d %3d %3d %4s %5d %5d %5d %5d %5d %3s  %s\n", s.n, s.c, s.hw, s.nf,
                        s.stride, pad, out_name, tried[i].m, tried[i].n, tried[i].k, tried[i].wave_m, tried[i].wave_n,
                        split[i] ? "sk" : "", tuned.rejected[i].substr(0, 160).c_str());
          else if (!std::isnan(tuned.ms[i]))
            std::printf("%-6s %4d %4d %4d %4d %3d %3d %4s %5d %5d %5d %5d %5d %3s %10.3f %9.1f\n",
                        i == tuned.best ? "tuned" : "conv2d", s.n, s.c, s.hw, s.nf, s.stride, pad, out_name, tried[i].m,
                        tried[i].n, tried[i].k, tried[i].wave_m, tried[i].wave_n, split[i] ? "sk" : "-", tuned.ms[i],
                        flops / (tuned.ms[i] * 1e9));
      } catch (const Error& e) {
        std::printf("error  %4d %4d %4d %s: %s\n", s.n, s.c, s.hw, out_name, e.what());
      }
    };
    tune(std::type_identity<f32>{}, "f32", bench::Format::f32);
    tune(std::type_identity<f16>{}, "f16", bench::Format::f16);
    std::fflush(stdout);
  }
  return 0;
}
