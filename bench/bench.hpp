// What the benchmarks share: finding the device, random inputs kept on the host for the
// check, checking an output against a float64 reference before it is timed, and timing
// GPU work as warm-up runs then the median of timed runs, each run device events around
// many back-to-back launches (host dispatch stays outside the timed window).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <wave/runtime.hpp>

// Each bench's main(); the all-in-one wave-bench (bench/all.cpp) renames them.
#ifndef WAVE_BENCH_MAIN
#define WAVE_BENCH_MAIN main
#endif

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

enum class Format { f16, bf16, f32 };

// One f16 or bf16 value (exact in float).
inline float decode(std::uint16_t bits, Format f) {
  if (f == Format::bf16) {
    const std::uint32_t word = std::uint32_t(bits) << 16;
    float x;
    std::memcpy(&x, &word, 4);
    return x;
  }
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<float>(h);
}

// Fills `buffer` with random values of `f` (f16 or bf16), each drawn in its own format:
// magnitudes in [0.125, 1), negative at random when `with_signs`. Returns the values.
inline std::vector<float> fill_random(runtime::DeviceBuffer& buffer, std::mt19937& rng, Format f, bool with_signs) {
  std::vector<std::uint16_t> bits(buffer.size() / 2);
  std::vector<float> values(bits.size());
  std::uniform_real_distribution<float> magnitude(0.125f, 1.0f);
  std::uniform_int_distribution<int> sign(0, 1);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const float x = magnitude(rng) * (with_signs && sign(rng) ? -1.0f : 1.0f);
    if (f == Format::bf16) {
      std::uint32_t word;
      std::memcpy(&word, &x, 4);
      bits[i] = static_cast<std::uint16_t>((word + 0x7fff + ((word >> 16) & 1)) >> 16);  // to nearest even
    } else {
      const _Float16 h = static_cast<_Float16>(x);
      std::memcpy(&bits[i], &h, 2);
    }
    values[i] = decode(bits[i], f);
  }
  buffer.copy_from_host(bits.data());
  return values;
}

// Every byte 0xff: NaN in f32, f16 and bf16, so an element a kernel does not write shows.
inline void poison(runtime::DeviceBuffer& buffer) {
  std::vector<std::uint8_t> nan(buffer.size(), 0xff);
  buffer.copy_from_host(nan.data());
}

// A device output of format `f`, as floats (exact).
inline std::vector<float> to_host(const runtime::DeviceBuffer& buffer, Format f) {
  runtime::synchronize();
  if (f == Format::f32) {
    std::vector<float> v(buffer.size() / 4);
    buffer.copy_to_host(v.data());
    return v;
  }
  std::vector<std::uint16_t> bits(buffer.size() / 2);
  buffer.copy_to_host(bits.data());
  std::vector<float> v(bits.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = decode(bits[i], f);
  return v;
}

// The reference of one output element: its float64 value and how far the kernel's may be
// from it.
struct Expected {
  double value, tolerance;
};

// Checks an output the kernel wrote over a poisoned buffer: every element finite, and
// `samples` elements drawn at random within tolerance of `expected(i)` (a full float64
// reference of a large GEMM would take the host minutes). Returns "" when right, else the
// first problem found.
inline std::string check_output(const std::vector<float>& got, std::size_t samples, std::mt19937& rng,
                                const std::function<Expected(std::size_t)>& expected) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!std::isfinite(got[i])) return "element " + std::to_string(i) + " not written or not finite";
  std::uniform_int_distribution<std::size_t> pick(0, got.size() - 1);
  for (std::size_t s = 0; s < samples; ++s) {
    const std::size_t i = s == 0 ? got.size() - 1 : pick(rng);  // the last element always
    const Expected e = expected(i);
    if (!(std::abs(got[i] - e.value) <= e.tolerance))
      return "element " + std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " +
             std::to_string(e.value) + " +- " + std::to_string(e.tolerance);
  }
  return "";
}

// Prints why a configuration's figure is not reported.
inline void refuse(const std::string& what, const std::string& why) {
  std::printf("WRONG  %s: %s (not timed)\n", what.c_str(), why.c_str());
  std::fflush(stdout);
}

// Launches per timed run: events around this many back-to-back launches, divided.
constexpr int kLaunchesPerRun = 10;

// Milliseconds per launch of `enqueue`: `warmup` runs, then the median of `runs`.
inline double median_ms(const std::function<void()>& enqueue, int runs, int warmup = 3) {
  auto batch = [&] {
    for (int i = 0; i < kLaunchesPerRun; ++i) enqueue();
  };
  for (int i = 0; i < warmup; ++i) runtime::elapsed_ms(batch);
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(runtime::elapsed_ms(batch) / kLaunchesPerRun);
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

}  // namespace wave::bench
