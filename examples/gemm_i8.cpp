// The W8A8 int8 GEMM example: prints its IR, or with --run compiles it, and on a GPU runs it
// on random i8 data with a scale per row of A and of B, and checks a sample of the f16
// output against a float64 reference over the exact integer sums (see kernels/gemm_i8.hpp).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "host_half.hpp"
#include "kernels/gemm_i8.hpp"
#include "run_example.hpp"
#include "run_on_device.hpp"

namespace {

int check_on_device(const wave::CompiledKernel& gemm) {
  const std::size_t m = 4096, n = 4096, k = 4096;  // the example's default sizes
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::uniform_real_distribution<float> scale(1e-4f, 1e-3f);
  std::vector<std::int8_t> a(m * k), b(n * k);
  for (auto& x : a) x = static_cast<std::int8_t>(byte(rng));
  for (auto& x : b) x = static_cast<std::int8_t>(byte(rng));
  std::vector<float> scale_a(m), scale_b(n);
  for (float& s : scale_a) s = scale(rng);
  for (float& s : scale_b) s = scale(rng);
  std::vector<std::uint16_t> c(m * n, 0xFFFF);  // NaN: unwritten elements show
  examples::host::run_on_device(gemm, {}, a, b, scale_a, scale_b, c);
  std::size_t unwritten = 0, wrong = 0;
  for (std::uint16_t h : c) unwritten += std::isnan(examples::host::half_to_float(h));
  std::uniform_int_distribution<std::size_t> pick(0, m * n - 1);
  for (int s = 0; s < 1024; ++s) {
    const std::size_t idx = pick(rng), i = idx / n, j = idx % n;
    std::int64_t dot = 0;
    for (std::size_t x = 0; x < k; ++x) dot += std::int64_t(a[i * k + x]) * b[j * k + x];
    const double ref = double(dot) * scale_a[i] * scale_b[j];
    // Exact sums; f32 conversion and scaling, then f16's rounding.
    wrong += !(std::abs(examples::host::half_to_float(c[idx]) - ref) <= std::ldexp(std::abs(ref), -10) + 1e-6);
  }
  const bool ok = unwritten == 0 && wrong == 0;
  std::printf("--- ran on %s: C[%zu, %zu] = f16(f32(A x B^T) * scale_a[m] * scale_b[n]), i8 A and B summed in "
              "i32 over K = %zu; %zu unwritten, %zu of 1024 sampled elements off the float64 reference: %s\n",
              wave::runtime::device_info().name.c_str(), m, n, k, unwritten, wrong, ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  namespace ex = examples::gemm_i8;
  return examples::run_example(ex::make_scaled<wave::f16>(), ex::default_options(), argc, argv, check_on_device);
}
