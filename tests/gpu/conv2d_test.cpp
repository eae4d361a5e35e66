// conv2d as an implicit GEMM through index mappings (examples/kernels/conv2d.hpp), NHWC,
// through the layout pipeline, the operands read straight from global memory or staged
// through shared tiles of the implicit [M, K] and [NF, K] matrices: every output element
// against a direct float64 convolution on the host, 3x3 and 1x1 filters, stride 1 and 2,
// odd sizes, five tilings (one of three warpgroups), the output poisoned first; on a plain
// grid and under stream-K (a persistent grid whose last rounds split K); f32 out,
// and f16 out (the sums cast, as cuDNN writes them) on the shared-tile path; with zero
// padding (the taps outside the image read 0 through OutOfBounds::zero), 3x3 and 5x5.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "fixtures/device_run.hpp"
#include "host_half.hpp"
#include "kernels/conv2d.hpp"

using namespace wave;
using examples::host::half_to_float;
using examples::host::random_half;
using fixtures::poisoned;
using fixtures::run_on_device;
namespace ex = examples::conv2d;

namespace {
// Every output element of conv2d with an Out output against float64; an f16 output may
// also be off by its own rounding (2^-11 of the value).
// With `stream_k`, on a persistent grid whose last rounds' K trips are shared out.
using Shape = ex::Problem;
using Tiles = ex::Tiling;
const std::vector<Tiles> kTilings = {Tiles{64, 32, 32, 32, 16}, Tiles{32, 64, 16, 16, 32}, Tiles{64, 64, 32, 32, 16},
                                     Tiles{256, 128, 64, 64, 64}, Tiles{192, 256, 64, 64, 64}};
const std::vector<Shape> kShapes = {Shape{2, 16, 11, 13, 24, 3, 1}, Shape{1, 32, 9, 9, 40, 3, 2},
                                    Shape{3, 16, 7, 5, 16, 1, 1}, Shape{4, 64, 20, 21, 136, 3, 1}};

template <class Out>
void check_conv2d(const std::vector<AddressSpace>& spaces, bool stream_k = false,
                  const std::vector<Shape>& shapes = kShapes, const std::vector<Tiles>& tilings = kTilings) {
  std::mt19937 rng(Catch::rngSeed());
  for (AddressSpace space : spaces)
  for (Tiles t : tilings)
    for (Shape s : shapes) {
      const int ho = s.h_out(), wo = s.w_out();
      INFO("N " << s.n << ", C " << s.c << ", " << s.h << "x" << s.w << ", " << s.nf << " filters " << s.f << "x" << s.f
                << ", stride " << s.stride << ", padding " << s.pad << ", tiles " << t.m << " x " << t.n << " x " << t.k
                << ", waves " << t.wave_m << " x " << t.wave_n
                << (space == SHARED_ADDRESS_SPACE ? ", shared tiles" : ""));
      const CompileOptions options{.subs = ex::sizes(s, t, space), .persistent = stream_k, .stream_k = stream_k};
      const auto conv = compile(ex::make_kernel<Out>(s.stride, s.pad), options);
      CHECK((conv.ptx().stream_k_slot_bytes > 0) == stream_k);
      std::vector<std::uint16_t> x(std::size_t(s.n) * s.h * s.w * s.c), w(std::size_t(s.f) * s.f * s.c * s.nf);
      for (auto& v : x) v = random_half(rng);
      for (auto& v : w) v = random_half(rng);
      using Element = std::conditional_t<std::is_same_v<Out, f32>, float, std::uint16_t>;
      auto out = poisoned<Element>(std::size_t(s.n) * ho * wo * s.nf);
      run_on_device(conv, {}, x, w, out);
      std::size_t wrong = 0;
      for (int b = 0; b < s.n; ++b)
        for (int oh = 0; oh < ho; ++oh)
          for (int ow = 0; ow < wo; ++ow)
            for (int f = 0; f < s.nf; ++f) {
              double want = 0, magnitude = 0;
              for (int fh = 0; fh < s.f; ++fh)
                for (int fw = 0; fw < s.f; ++fw)
                  for (int c = 0; c < s.c; ++c) {
                    const int ih = oh * s.stride + fh - s.pad, iw = ow * s.stride + fw - s.pad;
                    if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;  // padding: 0
                    const double p = double(half_to_float(x[((std::size_t(b) * s.h + ih) * s.w + iw) * s.c + c])) *
                                     half_to_float(w[((std::size_t(fh) * s.f + fw) * s.c + c) * s.nf + f]);
                    want += p;
                    magnitude += std::abs(p);
                  }
              const std::size_t at = ((std::size_t(b) * ho + oh) * wo + ow) * s.nf + f;
              double got, rounding = 0;
              if constexpr (std::is_same_v<Out, f32>) {
                got = out[at];
              } else {
                got = half_to_float(out[at]);
                rounding = std::ldexp(std::abs(want), -11);
              }
              if (!(std::abs(got - want) <= 5e-5 * magnitude + rounding + 1e-6)) {
                if (wrong < 5) UNSCOPED_INFO("out[" << b << ", " << oh << ", " << ow << ", " << f << "] = " << got
                                                    << ", expected " << want);
                ++wrong;
              }
            }
      CHECK(wrong == 0);
    }
}
}  // namespace

TEST_CASE("conv2d through index mappings: 3x3 and 1x1, stride 1 and 2, odd sizes", "[gpu][conv2d]") {
  check_conv2d<f32>({GLOBAL_ADDRESS_SPACE, SHARED_ADDRESS_SPACE});
}

TEST_CASE("conv2d with an f16 output: the f32 sums cast", "[gpu][conv2d]") {
  check_conv2d<f16>({SHARED_ADDRESS_SPACE});
}

TEST_CASE("conv2d under stream-K: the last rounds' K trips shared out, f32 and f16 out", "[gpu][conv2d][stream_k]") {
  check_conv2d<f32>({SHARED_ADDRESS_SPACE}, /*stream_k=*/true);
  check_conv2d<f16>({GLOBAL_ADDRESS_SPACE}, /*stream_k=*/true);
}

// Zero padding: 3x3 with one pixel (the shape kept), stride 2 with one, 5x5 with two, odd
// sizes and a channel count of 8 (a tap's run of 16 bytes); on the register and the
// shared-tile paths (cp.async filling the padding with zeros), and an f16 output.
TEST_CASE("conv2d with zero padding: the taps outside the image read 0", "[gpu][conv2d][padding]") {
  const std::vector<Shape> padded = {Shape{2, 16, 11, 13, 24, 3, 1, 1}, Shape{1, 32, 9, 9, 40, 3, 2, 1},
                                     Shape{2, 8, 8, 7, 16, 5, 1, 2}, Shape{4, 64, 20, 21, 136, 3, 1, 1}};
  const std::vector<Tiles> tilings = {Tiles{64, 32, 32, 32, 16}, Tiles{64, 64, 32, 32, 16},
                                      Tiles{256, 128, 64, 64, 64}};
  check_conv2d<f32>({GLOBAL_ADDRESS_SPACE, SHARED_ADDRESS_SPACE}, false, padded, tilings);
  check_conv2d<f16>({SHARED_ADDRESS_SPACE}, false, padded, tilings);
  check_conv2d<f16>({SHARED_ADDRESS_SPACE}, /*stream_k=*/true, padded, {Tiles{128, 128, 64, 64, 64}});
}
