// Fused softmax (reductions across lanes and waves) traced, compiled and run: every
// output element compared with a float64 softmax of the same f16 inputs, output poisoned
// first, for row lengths that fill, split or leave partial a wave's runs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "host_half.hpp"
#include "kernels/softmax.hpp"

using namespace wave;
using examples::host::half_to_float;
using fixtures::poisoned;
namespace ex = examples::softmax;

namespace {

struct Layout {
  int block_m, block_n, wave_n;
};

// Runs `softmax` on random [m, n] f16 and returns the number of elements off the float64
// reference by more than f16 rounding allows (NaN, i.e. unwritten, counts as off).
std::size_t wrong_elements(const CompiledKernel& softmax, int m, int n, const LaunchOptions& how, std::mt19937& rng) {
  std::vector<std::uint16_t> x(std::size_t(m) * n);
  for (auto& h : x) h = examples::host::random_half(rng);
  auto y = poisoned<std::uint16_t>(x.size());
  fixtures::run_on_device(softmax, how, x, y);
  std::size_t wrong = 0;
  for (int r = 0; r < m; ++r) {
    const std::size_t row = std::size_t(r) * n;
    double top = -INFINITY, total = 0;
    for (int c = 0; c < n; ++c) top = std::max<double>(top, half_to_float(x[row + c]));
    for (int c = 0; c < n; ++c) total += std::exp(half_to_float(x[row + c]) - top);
    for (int c = 0; c < n; ++c) {
      const double want = std::exp(half_to_float(x[row + c]) - top) / total;
      const double got = half_to_float(y[row + c]);
      wrong += !(std::abs(got - want) <= 2e-3 * want + 1e-7);
    }
  }
  return wrong;
}

}  // namespace

TEST_CASE("softmax over rows: static shapes under several layouts", "[gpu][softmax]") {
  std::mt19937 rng(Catch::rngSeed());
  struct Case {
    int m, n;
    Layout layout;
  };
  // 8 waves x 3 steps per row; 4 waves per row and 2 rows per workgroup (M not a multiple);
  // one wave per row with 8 lanes per row; a row of one element in a run of 8.
  for (Case c : {Case{4096, 4099, {1, 6144, 768}}, Case{7, 1000, {2, 1024, 256}}, Case{5, 64, {4, 64, 64}},
                 Case{3, 1, {1, 8, 8}}}) {
    INFO("M x N = " << c.m << " x " << c.n << ", BLOCK_M " << c.layout.block_m << ", BLOCK_N " << c.layout.block_n
                    << ", WAVE_N " << c.layout.wave_n);
    const auto softmax = compile(ex::make_kernel(), {.subs = {{ex::M, c.m}, {ex::N, c.n}, {ex::BLOCK_M, c.layout.block_m},
                                                              {ex::BLOCK_N, c.layout.block_n},
                                                              {ex::WAVE_N, c.layout.wave_n}}});
    CHECK(wrong_elements(softmax, c.m, c.n, {}, rng) == 0);
  }
}

TEST_CASE("softmax with M and N dynamic, N assumed to fit a workgroup", "[gpu][softmax][dynamic]") {
  std::mt19937 rng(Catch::rngSeed());
  const auto softmax = compile(ex::make_kernel({Assumption(ex::N <= ex::BLOCK_N)}),
                               {.subs = {{ex::BLOCK_M, 1}, {ex::BLOCK_N, 4096}, {ex::WAVE_N, 512}}});
  REQUIRE(softmax.dynamic_dims().size() == 2);
  for (auto [m, n] : {std::pair{33, 2049}, std::pair{2, 3}, std::pair{1, 4096}}) {
    INFO("M x N = " << m << " x " << n);
    CHECK(wrong_elements(softmax, m, n, {.sizes = {{ex::M, m}, {ex::N, n}}}, rng) == 0);
  }
}
