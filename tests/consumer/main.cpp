// An application's kernel, compiled by an installed wave-cpp: a scaled copy, to PTX, and
// run and checked where a GPU exists.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <wave/runtime.hpp>
#include <wave/version.hpp>
#include <wave/wave.hpp>

using namespace wave;

WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_N);

int main() {
  auto scale = kernel("scale", Constraints{WorkgroupConstraint(N, BLOCK_N, 0), HardwareConstraint{.threads_per_wave = 32}},
                      [](Memory<dims<N>, f32> x, Memory<dims<N>, f32> y) { write(read(x) * 3.0, y); });
  const int n = 1000;
  const CompiledKernel compiled = compile(scale, {.subs = {{N, n}, {BLOCK_N, 256}}, .cache = false});
  const std::string& ptx = compiled.ptx().ptx;
  std::printf("wave-cpp %s: kernel '%s' compiled to %zu bytes of PTX (%s)\n", WAVE_CPP_VERSION,
              compiled.name().c_str(), ptx.size(), ptx.find(".entry scale") != std::string::npos ? "entry found" : "NO ENTRY");
  if (ptx.find(".entry scale") == std::string::npos) return 1;
  std::string why;
  if (!runtime::device_available(&why)) {
    std::printf("not run: %s\n", why.c_str());
    return 0;
  }
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = std::sin(float(i));
  std::memset(y.data(), 0xFF, y.size() * sizeof(float));
  runtime::DeviceBuffer dx(n * sizeof(float)), dy(n * sizeof(float));
  dx.copy_from_host(x.data());
  dy.copy_from_host(y.data());
  compiled(reinterpret_cast<void*>(dx.address()), reinterpret_cast<void*>(dy.address()));
  runtime::synchronize();
  dy.copy_to_host(y.data());
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += !(std::abs(y[i] - 3.0f * x[i]) <= 1e-6f * std::abs(x[i]) + 1e-7f);
  std::printf("ran on the GPU: %d of %d elements wrong\n", wrong, n);
  return wrong == 0 ? 0 : 1;
}
