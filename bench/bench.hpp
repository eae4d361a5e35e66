// What the benchmarks share: finding the device, random inputs, and timing GPU work as
// warm-up runs then the median of timed runs (device events).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <wave/runtime.hpp>

namespace wave::bench {

// Prints device 0 and returns true; or prints why there is none and returns false (the
// caller then exits 77, "skipped").
inline bool open_device() {
  std::string why;
  if (!runtime::device_available(&why)) {
    std::printf("SKIP: %s\n", why.c_str());
    return false;
  }
  const DeviceInfo info = runtime::device_info();
  std::printf("device: %s (sm_%d%d, %d SMs)\n", info.name.c_str(), info.compute_major, info.compute_minor,
              info.multiprocessors);
  return true;
}

// Fills `buffer` with 16-bit values whose magnitude, read as f16, is in [0.125, 1) (finite
// and nonzero as bf16 too), negative at random when `with_signs`.
inline void fill_random_16bit(runtime::DeviceBuffer& buffer, std::mt19937& rng, bool with_signs) {
  std::vector<std::uint16_t> host(buffer.size() / 2);
  std::uniform_int_distribution<int> bits(0x3000, 0x3bff), sign(0, 1);
  for (auto& h : host) h = static_cast<std::uint16_t>(bits(rng) | (with_signs ? sign(rng) << 15 : 0));
  buffer.copy_from_host(host.data());
}

inline double median_ms(const std::function<void()>& enqueue, int runs, int warmup = 3) {
  for (int i = 0; i < warmup; ++i) runtime::elapsed_ms(enqueue);
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(runtime::elapsed_ms(enqueue));
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

}  // namespace wave::bench
