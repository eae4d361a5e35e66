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
#include <cstdlib>
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
// WAVE_BENCH_TMA=0 compiles the kernels without TMA copies (their tiles filled by cp.async),
// for a comparison with the default on the same machine in one session.
inline bool tma() {
  const char* v = std::getenv("WAVE_BENCH_TMA");
  return !v || std::string(v) != "0";
}

// WAVE_BENCH_WS=1 gives the kernels' TMA loops a producer warpgroup
// (CompileOptions::warp_specialize), for a comparison with the default in one session.
inline bool warp_specialize() {
  const char* v = std::getenv("WAVE_BENCH_WS");
  return v && std::string(v) == "1";
}

// WAVE_BENCH_PERSISTENT=1 runs the attention kernels on a persistent grid
// (CompileOptions::persistent), for a comparison with a plain grid in one session.
inline bool persistent() {
  const char* v = std::getenv("WAVE_BENCH_PERSISTENT");
  return v && std::string(v) == "1";
}

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

// How far an output of format `f` may be from `value` by its own rounding: half an ulp,
// relative (2^-11 of it in f16, 2^-8 in bf16); none in f32.
inline double output_rounding(Format f, double value) {
  if (f == Format::f32) return 0.0;
  return std::ldexp(std::abs(value), f == Format::f16 ? -11 : -8);
}

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

// Fills `buffer` with random values of `f` (f16 or bf16), each drawn as bits of its own
// format: magnitudes in [0.125, 1), negative at random when `with_signs`. Returns them.
inline std::vector<float> fill_random(runtime::DeviceBuffer& buffer, std::mt19937& rng, Format f, bool with_signs) {
  std::vector<std::uint16_t> bits(buffer.size() / 2);
  std::vector<float> values(bits.size());
  // [0.125, 1): f16 exponents 12-14 (0x3000-0x3bff), bf16 exponents 124-126 (0x3e00-0x3f7f).
  const std::uint32_t low = f == Format::bf16 ? 0x3e00 : 0x3000, high = f == Format::bf16 ? 0x3f7f : 0x3bff;
  std::uniform_int_distribution<std::uint32_t> magnitude(low, high), sign(0, 1);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    bits[i] = static_cast<std::uint16_t>(magnitude(rng) | (with_signs && sign(rng) ? 0x8000u : 0u));
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

// The reference of one output element: its float64 value and how far the kernel's may be
// from it.
struct Expected {
  double value, tolerance;
};

// Checks an output the kernel wrote over a poisoned buffer (`f` its format): every element
// finite (tested on the bits), and `samples` elements drawn at random within tolerance of
// `expected(i)` (a full float64 reference of a large GEMM would take the host minutes).
// Returns "" when right, else the first problem found.
inline std::string check_output(const runtime::DeviceBuffer& buffer, Format f, std::size_t samples,
                                std::mt19937& rng, const std::function<Expected(std::size_t)>& expected) {
  runtime::synchronize();
  const std::size_t width = f == Format::f32 ? 4 : 2, count = buffer.size() / width;
  std::vector<std::uint32_t> words(f == Format::f32 ? count : 0);
  std::vector<std::uint16_t> halves(f == Format::f32 ? 0 : count);
  if (f == Format::f32) buffer.copy_to_host(words.data());
  else buffer.copy_to_host(halves.data());
  // All exponent bits set: infinity or NaN (the poison).
  const std::uint32_t exponent = f == Format::f32 ? 0x7f800000u : f == Format::bf16 ? 0x7f80u : 0x7c00u;
  for (std::size_t i = 0; i < count; ++i)
    if (((f == Format::f32 ? words[i] : halves[i]) & exponent) == exponent)
      return "element " + std::to_string(i) + " not written or not finite";
  auto value = [&](std::size_t i) {
    if (f != Format::f32) return double(decode(halves[i], f));
    float x;
    std::memcpy(&x, &words[i], 4);
    return double(x);
  };
  std::uniform_int_distribution<std::size_t> pick(0, count - 1);
  for (std::size_t s = 0; s < samples; ++s) {
    const std::size_t i = s == 0 ? count - 1 : pick(rng);  // the last element always
    const Expected e = expected(i);
    if (!(std::abs(value(i) - e.value) <= e.tolerance))
      return "element " + std::to_string(i) + " is " + std::to_string(value(i)) + ", expected " +
             std::to_string(e.value) + " +- " + std::to_string(e.tolerance);
  }
  return "";
}

// Runs one configuration's compile, check and timing (`body`, which prints its line); a
// wave::Error from it becomes the configuration's line instead. Flushed either way, so a
// bench cut short by a time limit keeps the lines it printed.
template <class Body>
void configuration(const char* config, Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    std::printf("error  %s: %s\n", config, e.what());
  }
  std::fflush(stdout);
}

// Prints why a configuration's figure is not reported.
inline void refuse(const std::string& what, const std::string& why) {
  std::printf("WRONG  %s: %s (not timed)\n", what.c_str(), why.c_str());
  std::fflush(stdout);
}

// Launches per timed run: events around this many back-to-back launches, divided.
constexpr int kLaunchesPerRun = 10;

// Milliseconds per launch of `enqueue`, `time` giving a batch's milliseconds: `warmup`
// runs, then the median of `runs`.
inline double median_ms(const std::function<float(const std::function<void()>&)>& time,
                        const std::function<void()>& enqueue, int runs, int warmup) {
  auto batch = [&] {
    for (int i = 0; i < kLaunchesPerRun; ++i) enqueue();
  };
  for (int i = 0; i < warmup; ++i) time(batch);
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(time(batch) / kLaunchesPerRun);
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

// On device 0.
inline double median_ms(const std::function<void()>& enqueue, int runs, int warmup = 3) {
  return median_ms([](const std::function<void()>& batch) { return runtime::elapsed_ms(batch); }, enqueue, runs,
                   warmup);
}

// On `devices` (their default streams; the longest device's time).
inline double median_ms(const std::vector<int>& devices, const std::function<void()>& enqueue, int runs,
                        int warmup = 3) {
  return median_ms([&](const std::function<void()>& batch) { return runtime::elapsed_ms(devices, batch); }, enqueue,
                   runs, warmup);
}

}  // namespace wave::bench
