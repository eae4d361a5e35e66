// The fused-epilogue GEMM example: prints its IR, or with --run compiles it, and on a GPU
// runs it on random data and checks a sample of the output against a float64 reference
// (see kernels/gemm_bias_relu.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "gemm_reference.hpp"
#include "host_half.hpp"
#include "kernels/gemm_bias_relu.hpp"
#include "run_example.hpp"
#include "run_on_device.hpp"

namespace {

int check_on_device(const wave::CompiledKernel& gemm) {
  const std::size_t m = 4096, n = 4096, k = 4096;  // the example's default sizes
  std::mt19937 rng(42);
  std::vector<std::uint16_t> a(m * k), b(n * k), c(m * n, 0xFFFF);  // NaN: unwritten elements show
  for (auto& h : a) h = examples::host::random_half(rng);
  for (auto& h : b) h = examples::host::random_half(rng);
  std::vector<float> bias(n);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  for (float& x : bias) x = uniform(rng);
  examples::host::run_on_device(gemm, {}, std::as_const(a), std::as_const(b), std::as_const(bias), c);
  std::size_t unwritten = 0, wrong = 0;
  for (std::uint16_t h : c) unwritten += std::isnan(examples::host::half_to_float(h));
  std::uniform_int_distribution<std::size_t> pick(0, m * n - 1);
  for (int s = 0; s < 1024; ++s) {
    const std::size_t idx = pick(rng), i = idx / n, j = idx % n;
    const examples::host::DotProduct dot = examples::host::dot_nt(a, b, i, j, k);
    const double ref = std::max(dot.value + bias[j], 0.0);
    const double got = examples::host::half_to_float(c[idx]);
    wrong += !(std::abs(got - ref) <= 5e-5 * dot.magnitude + std::ldexp(std::abs(ref), -10) + 1e-6);
  }
  const bool ok = unwritten == 0 && wrong == 0;
  std::printf("--- ran on %s: C[%zu, %zu] = f16(max(A x B^T + bias, 0)) over K = %zu; %zu unwritten, %zu of 1024 "
              "sampled elements off the float64 reference: %s\n",
              wave::runtime::device_info().name.c_str(), m, n, k, unwritten, wrong, ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  namespace ex = examples::gemm_bias_relu;
  return examples::run_example(ex::make_kernel(), ex::default_options(), argc, argv, check_on_device);
}
