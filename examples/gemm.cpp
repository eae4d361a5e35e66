// The GEMM example: prints its IR, or with --run compiles it, and on a GPU runs it on
// random data and checks a sample of the output against a float64 reference
// (see kernels/gemm.hpp).
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "gemm_reference.hpp"
#include "host_half.hpp"
#include "kernels/gemm.hpp"
#include "run_example.hpp"
#include "run_on_device.hpp"

namespace {

int check_on_device(const wave::CompiledKernel& gemm) {
  const std::size_t m = 4096, n = 4096, k = 4096;  // the example's default sizes
  std::mt19937 rng(42);
  std::vector<std::uint16_t> a(m * k), b(n * k);
  for (auto& h : a) h = examples::host::random_half(rng);
  for (auto& h : b) h = examples::host::random_half(rng);
  std::vector<float> c = examples::host::poisoned<float>(m * n);  // NaN: unwritten elements show
  examples::host::run_on_device(gemm, {}, std::as_const(a), std::as_const(b), c);
  std::size_t unwritten = 0, wrong = 0;
  for (float x : c) unwritten += std::isnan(x);
  std::uniform_int_distribution<std::size_t> pick(0, m * n - 1);
  for (int s = 0; s < 1024; ++s) {
    const std::size_t idx = pick(rng), i = idx / n, j = idx % n;
    const examples::host::DotProduct ref = examples::host::dot_nt(a, b, i, j, k);
    wrong += !(std::abs(c[idx] - ref.value) <= 5e-5 * ref.magnitude + 1e-6);
  }
  const bool ok = unwritten == 0 && wrong == 0;
  std::printf("--- ran on %s: C[%zu, %zu] = A x B^T over K = %zu; %zu unwritten, %zu of 1024 sampled elements "
              "off the float64 reference: %s\n",
              wave::runtime::device_info().name.c_str(), m, n, k, unwritten, wrong, ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return examples::run_example(examples::gemm::make_kernel(), examples::gemm::default_options(), argc, argv,
                               check_on_device);
}
