// The GEMM example: prints its IR, or with --run compiles it, and on a GPU runs it on
// random data and checks a sample of the output against a float64 reference
// (see kernels/gemm.hpp).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "host_half.hpp"
#include "kernels/gemm.hpp"
#include "run_example.hpp"

namespace {

int check_on_device(const wave::CompiledKernel& gemm) {
  const std::size_t m = 4096, n = 4096, k = 4096;  // the example's default sizes
  std::mt19937 rng(42);
  std::vector<std::uint16_t> a(m * k), b(n * k);
  for (auto& h : a) h = examples::host::random_half(rng);
  for (auto& h : b) h = examples::host::random_half(rng);
  std::vector<float> c(m * n);
  std::memset(c.data(), 0xFF, c.size() * 4);  // NaN: unwritten elements show
  wave::runtime::DeviceBuffer da(a.size() * 2), db(b.size() * 2), dc(c.size() * 4);
  da.copy_from_host(a.data());
  db.copy_from_host(b.data());
  dc.copy_from_host(c.data());
  gemm(reinterpret_cast<void*>(da.address()), reinterpret_cast<void*>(db.address()),
       reinterpret_cast<void*>(dc.address()));
  wave::runtime::synchronize();
  dc.copy_to_host(c.data());
  std::size_t unwritten = 0, wrong = 0;
  for (float x : c) unwritten += std::isnan(x);
  std::uniform_int_distribution<std::size_t> pick(0, m * n - 1);
  for (int s = 0; s < 1024; ++s) {
    const std::size_t idx = pick(rng), i = idx / n, j = idx % n;
    double ref = 0, magnitude = 0;
    for (std::size_t kk = 0; kk < k; ++kk) {
      const double x = examples::host::half_to_float(a[i * k + kk]) * examples::host::half_to_float(b[j * k + kk]);
      ref += x;
      magnitude += std::abs(x);
    }
    wrong += !(std::abs(c[idx] - ref) <= 5e-5 * magnitude + 1e-6);
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
