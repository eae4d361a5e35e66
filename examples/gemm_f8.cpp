// The scaled f8 GEMM example: prints its IR, or with --run compiles it, and on a GPU runs
// it on random E4M3 data and checks a sample of the output against a float64 reference
// (see kernels/gemm_f8.hpp).
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "host_f8.hpp"
#include "host_half.hpp"
#include "kernels/gemm_f8.hpp"
#include "run_example.hpp"
#include "run_on_device.hpp"
#include "wave/interpreter/elements.hpp"

namespace {

// `f8`: the operands' encoding, the target's (E4M3, or on AMD CDNA3 its FNUZ variant).
int check_on_device(const wave::CompiledKernel& gemm, wave::DataType f8) {
  namespace elements = wave::elements;
  const std::size_t m = 4096, n = 4096, k = 4096;  // the example's default sizes
  std::mt19937 rng(42);
  // f8 bytes of values drawn from [-2, 2].
  const std::vector<std::uint8_t> a = examples::host::random_f8(f8, m * k, 2.0, rng),
                                  b = examples::host::random_f8(f8, n * k, 2.0, rng);
  const std::vector<float> scale_a{0.5f}, scale_b{1.5f};
  std::vector<std::uint16_t> c(m * n, 0xFFFF);  // NaN: unwritten elements show
  examples::host::run_on_device(gemm, {}, a, b, scale_a, scale_b, c);
  std::size_t unwritten = 0, wrong = 0;
  for (std::uint16_t h : c) unwritten += std::isnan(examples::host::half_to_float(h));
  auto value = [f8](const std::vector<std::uint8_t>& v, std::size_t i) {
    return elements::load_float(f8, v.data(), std::int64_t(i));
  };
  std::uniform_int_distribution<std::size_t> pick(0, m * n - 1);
  for (int s = 0; s < 1024; ++s) {
    const std::size_t idx = pick(rng), i = idx / n, j = idx % n;
    double dot = 0, magnitude = 0;
    for (std::size_t x = 0; x < k; ++x) {
      const double t = value(a, i * k + x) * value(b, j * k + x);
      dot += t;
      magnitude += std::abs(t);
    }
    const double scale = double(scale_a[0]) * scale_b[0], ref = dot * scale;
    const double got = examples::host::half_to_float(c[idx]);
    wrong += !(std::abs(got - ref) <= 5e-5 * magnitude * scale + std::ldexp(std::abs(ref), -10) + 1e-6);
  }
  const bool ok = unwritten == 0 && wrong == 0;
  std::printf("--- ran on %s: C[%zu, %zu] = f16(A x B^T * scale_a * scale_b), %s A and B, over K = %zu; %zu "
              "unwritten, %zu of 1024 sampled elements off the float64 reference: %s\n",
              wave::runtime::device_info().name.c_str(), m, n, std::string(wave::name(f8)).c_str(), k, unwritten,
              wrong, ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  namespace ex = examples::gemm_f8;
  // AMD CDNA3 multiplies its own f8 encoding (FNUZ: no infinities, one NaN, a bias one larger);
  // NVIDIA and AMD CDNA4 the OCP one.
  const wave::TargetInfo* target = examples::target_named(argc, argv);
  if (target && target->f8 == wave::F8Encoding::fnuz)
    return examples::run_example(ex::make_kernel<wave::f8e4m3fnuz, wave::f16>(), ex::default_options(), argc, argv,
                                 [](const wave::CompiledKernel& k) { return check_on_device(k, wave::DataType::f8e4m3fnuz); });
  return examples::run_example(ex::make_kernel<wave::f8e4m3, wave::f16>(), ex::default_options(), argc, argv,
                               [](const wave::CompiledKernel& k) { return check_on_device(k, wave::DataType::f8e4m3); });
}
