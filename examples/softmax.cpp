// The softmax example: prints its IR, or with --run compiles it, and on a GPU runs it on
// random data and checks every row against a float64 softmax (see kernels/softmax.hpp).
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "host_half.hpp"
#include "kernels/softmax.hpp"
#include "run_example.hpp"
#include "run_on_device.hpp"

namespace {

int check_on_device(const wave::CompiledKernel& softmax) {
  const int m = 4096, n = 4099;
  std::vector<std::uint16_t> x(std::size_t(m) * n), y(x.size(), 0xFFFF);
  std::mt19937 rng(42);
  for (auto& h : x) h = examples::host::random_half(rng);
  examples::host::run_on_device(softmax, {}, std::as_const(x), y);
  double worst = 0;
  for (int r = 0; r < m; ++r) {
    const std::uint16_t* row = &x[std::size_t(r) * n];
    double top = -INFINITY, total = 0;
    for (int c = 0; c < n; ++c) top = std::max<double>(top, examples::host::half_to_float(row[c]));
    for (int c = 0; c < n; ++c) total += std::exp(examples::host::half_to_float(row[c]) - top);
    for (int c = 0; c < n; ++c) {
      const double want = std::exp(examples::host::half_to_float(row[c]) - top) / total;
      const double got = examples::host::half_to_float(y[std::size_t(r) * n + c]);
      worst = std::max(worst, std::isnan(got) ? INFINITY : std::abs(got - want) / (want + 1e-6));
    }
  }
  const bool ok = worst < 1e-2;
  std::printf("--- ran on %s: softmax over %d rows of %d, worst relative error %.2e: %s\n",
              wave::runtime::device_info().name.c_str(), m, n, worst, ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return examples::run_example(examples::softmax::make_kernel(), examples::softmax::default_options(), argc, argv,
                               check_on_device);
}
