// The conv2d example (implicit GEMM through index mappings, NHWC; see kernels/conv2d.hpp):
// prints its IR, or with --run compiles it, and on a GPU runs it on random data and checks
// a sample of the output against a direct float64 convolution.
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "host_half.hpp"
#include "kernels/conv2d.hpp"
#include "run_example.hpp"
#include "run_on_device.hpp"

namespace {

int check_on_device(const wave::CompiledKernel& conv) {
  // The example's default sizes: N 2, 64x64x64 in, 128 3x3 filters, stride 1.
  const int n = 2, h = 64, w = 64, c = 64, nf = 128, f = 3, ho = 62, wo = 62;
  std::mt19937 rng(42);
  std::vector<std::uint16_t> x(std::size_t(n) * h * w * c), we(std::size_t(f) * f * c * nf);
  for (auto& v : x) v = examples::host::random_half(rng);
  for (auto& v : we) v = examples::host::random_half(rng);
  std::vector<float> out(std::size_t(n) * ho * wo * nf, NAN);  // NaN: unwritten elements show
  examples::host::run_on_device(conv, {}, std::as_const(x), std::as_const(we), out);
  std::size_t unwritten = 0, wrong = 0;
  for (float v : out) unwritten += std::isnan(v);
  std::uniform_int_distribution<std::size_t> pick(0, out.size() - 1);
  for (int s = 0; s < 1024; ++s) {
    const std::size_t idx = pick(rng);
    const int k = idx % nf, ow = idx / nf % wo, oh = idx / nf / wo % ho, b = idx / nf / wo / ho;
    double want = 0, magnitude = 0;
    for (int fh = 0; fh < f; ++fh)
      for (int fw = 0; fw < f; ++fw)
        for (int ci = 0; ci < c; ++ci) {
          const double p = double(examples::host::half_to_float(x[((std::size_t(b) * h + oh + fh) * w + ow + fw) * c + ci])) *
                           examples::host::half_to_float(we[((std::size_t(fh) * f + fw) * c + ci) * nf + k]);
          want += p;
          magnitude += std::abs(p);
        }
    wrong += !(std::abs(out[idx] - want) <= 5e-5 * magnitude + 1e-6);
  }
  const bool ok = unwritten == 0 && wrong == 0;
  std::printf("--- ran on %s: conv2d NHWC %dx%dx%dx%d * %dx%dx%dx%d; %zu unwritten, %zu of 1024 sampled elements off "
              "the float64 reference: %s\n",
              wave::runtime::device_info().name.c_str(), n, h, w, c, f, f, c, nf, unwritten, wrong,
              ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return examples::run_example(examples::conv2d::make_kernel(), examples::conv2d::default_options(), argc, argv,
                               check_on_device);
}
