// autotune on the device: of two configurations, one twice the work of the other by
// construction (fixtures/autotuned.hpp), the faster wins; its kernel computes the right
// sums; a second autotune (as a new process would) reads the choice from disk.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "fixtures/autotuned.hpp"
#include "fixtures/device_run.hpp"
#include "fixtures/sanitizer.hpp"
#include "wave/autotune.hpp"

using namespace wave;
namespace at = wave::fixtures::autotuned;

TEST_CASE("autotune: the configuration with half the work wins, and is kept on disk", "[gpu][autotune]") {
  if (fixtures::timings_meaningless_under_sanitizer()) return;
  const std::int64_t n = std::int64_t(1) << 24;  // rows of 64 MB: each loop step is memory-bound
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "wave-autotune-gpu-test";
  std::filesystem::remove_all(dir);
  std::mt19937 rng(Catch::rngSeed());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(8 * n);
  for (float& v : x) v = u(rng);
  runtime::DeviceBuffer dx(x.size() * 4), dy(n * 4);
  dx.copy_from_host(x.data());
  const AutotuneOptions options{.progress = true, .cache_dir = dir.string()};
  const Autotuned tuned = autotune(at::make_kernel(), at::options_for({}, n), at::configs(),
                                   {reinterpret_cast<const void*>(dx.address()), reinterpret_cast<const void*>(dy.address())},
                                   {}, options);
  CHECK(tuned.best == 1);
  CHECK_FALSE(tuned.from_cache);
  CHECK(tuned.ms[0] > 1.5 * tuned.ms[1]);
  // The winner computes y = the sum of x's first 4 rows.
  std::vector<float> y = fixtures::poisoned<float>(n);
  fixtures::run_on_device(tuned.kernel, {}, x, y);
  std::size_t wrong = 0;
  for (std::int64_t i = 0; i < n; i += 997) {
    const double want = double(x[i]) + x[n + i] + x[2 * n + i] + x[3 * n + i];
    wrong += !(std::abs(y[i] - want) <= 1e-5);
  }
  CHECK(wrong == 0);
  const Autotuned again = autotune(at::make_kernel(), at::options_for({}, n), at::configs(),
                                   {reinterpret_cast<const void*>(dx.address()), reinterpret_cast<const void*>(dy.address())},
                                   {}, options);
  CHECK(again.from_cache);
  CHECK(again.best == 1);
  std::filesystem::remove_all(dir);
}
