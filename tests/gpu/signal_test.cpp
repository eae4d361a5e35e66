// Signals on the GPU: a kernel that waits for flags started before the work that sets
// them (another kernel's signal, copies on an independent stream followed by a stream's
// flag store, another GPU's kernel), its output checked against the data it must have
// waited for; every buffer it reads poisoned until that work writes it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "wave/runtime.hpp"
#include "wave/wave.hpp"

#include "fixtures/signal_kernels.hpp"

using namespace wave;
using namespace wave::fixtures::signals;

namespace {

constexpr int kN = 100000, kBlock = 128, kChunks = (kN + kBlock - 1) / kBlock;

CompileOptions sizes() { return {.subs = {{N, kN}, {BLOCK_N, kBlock}, {CHUNKS, kChunks}}}; }

std::vector<float> random_floats(std::mt19937& rng) {
  std::vector<float> x(kN);
  for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  return x;
}

// Elements of z other than 2 x + 1.
std::size_t wrong(const runtime::DeviceBuffer& z, const std::vector<float>& x) {
  std::vector<float> got(kN);
  z.copy_to_host(got.data());
  std::size_t bad = 0;
  for (int e = 0; e < kN; ++e) bad += !(got[e] == 2 * x[e] + 1);
  return bad;
}

// Loads both kernels on `device` by running them once, the flags already set: loading a
// module while a kernel waits for it may wait for that kernel.
void load_both(const CompiledKernel& produce, const CompiledKernel& consume, int device = 0) {
  runtime::DeviceBuffer xs(kN * 4, device), y(kN * 4, device), z(kN * 4, device), ready(kChunks * 4, device);
  auto p = [](const runtime::DeviceBuffer& b) { return reinterpret_cast<const void*>(b.address()); };
  produce.launch({p(xs), p(y), p(ready)}, {.device = device});
  consume.launch({p(ready), p(y), p(z)}, {.device = device});
  runtime::synchronize(device);
}

}  // namespace

TEST_CASE("wait_at_least waits for another kernel's signal, launched after it on another stream", "[gpu][signal]") {
  std::mt19937 rng(Catch::rngSeed());
  const auto produce = compile(producer(), sizes());
  const auto consume = compile(consumer(), sizes());
  load_both(produce, consume);
  const std::vector<float> x = random_floats(rng);
  runtime::DeviceBuffer xs(kN * 4), y(kN * 4), z(kN * 4), ready(kChunks * 4);
  xs.copy_from_host(x.data());
  y.fill_bytes(0xFF);  // NaN until the producer writes it
  z.fill_bytes(0xFF);
  ready.fill_bytes(0);
  runtime::Stream first(0, runtime::StreamKind::independent), second(0, runtime::StreamKind::independent);
  consume.launch({reinterpret_cast<const void*>(ready.address()), reinterpret_cast<const void*>(y.address()),
                  reinterpret_cast<const void*>(z.address())},
                 {.stream = &first});
  produce.launch({reinterpret_cast<const void*>(xs.address()), reinterpret_cast<const void*>(y.address()),
                  reinterpret_cast<const void*>(ready.address())},
                 {.stream = &second});
  first.synchronize();
  second.synchronize();
  CHECK(wrong(z, x) == 0);
  std::vector<std::int32_t> flags(kChunks);
  ready.copy_to_host(flags.data());
  CHECK(flags == std::vector<std::int32_t>(kChunks, 1));
}

TEST_CASE("wait_at_least waits for copies whose flags a stream sets after them", "[gpu][signal][runtime]") {
  std::mt19937 rng(Catch::rngSeed());
  const auto consume = compile(consumer(), sizes());
  const std::vector<float> x = random_floats(rng);
  std::vector<float> doubled(kN);
  for (int e = 0; e < kN; ++e) doubled[e] = 2 * x[e];
  runtime::DeviceBuffer source(kN * 4), y(kN * 4), z(kN * 4), ready(kChunks * 4);
  source.copy_from_host(doubled.data());
  y.fill_bytes(0xFF);
  z.fill_bytes(0xFF);
  ready.fill_bytes(0);
  runtime::Stream compute(0, runtime::StreamKind::independent), copies(0, runtime::StreamKind::independent);
  consume.launch({reinterpret_cast<const void*>(ready.address()), reinterpret_cast<const void*>(y.address()),
                  reinterpret_cast<const void*>(z.address())},
                 {.stream = &compute});
  // Chunk by chunk, last first: each workgroup's data lands, then its flag.
  for (int c = kChunks - 1; c >= 0; --c) {
    const std::size_t at = std::size_t(c) * kBlock * 4, bytes = std::min<std::size_t>(kBlock * 4, kN * 4 - at);
    runtime::copy_async(reinterpret_cast<char*>(y.address()) + at, reinterpret_cast<const char*>(source.address()) + at,
                        bytes, copies);
    runtime::set_flag_async(reinterpret_cast<std::uint32_t*>(ready.address()) + c, 1, copies);
  }
  compute.synchronize();
  copies.synchronize();
  CHECK(wrong(z, x) == 0);
}

TEST_CASE("wait_at_least waits for another GPU's signal through a symmetric buffer", "[gpu][signal][distributed]") {
  if (runtime::device_count() < 2) return;  // one GPU here: the tests above cover it
  std::mt19937 rng(Catch::rngSeed());
  const auto produce = compile(producer(), sizes());
  const auto consume = compile(consumer(), sizes());
  load_both(produce, consume, 0);
  load_both(produce, consume, 1);
  const std::vector<float> x = random_floats(rng);
  // Device 1 writes y and the flags in device 0's slots; device 0 waits, then reads them.
  runtime::SymmetricBuffer y(kN * 4, {0, 1}), ready(kChunks * 4, {0, 1});
  runtime::DeviceBuffer xs(kN * 4, 1), z(kN * 4, 0);
  xs.copy_from_host(x.data());
  y.fill_bytes(0xFF);
  ready.fill_bytes(0);
  z.fill_bytes(0xFF);
  runtime::Stream on0(0, runtime::StreamKind::independent), on1(1, runtime::StreamKind::independent);
  consume.launch({ready.slot(0), y.slot(0), reinterpret_cast<const void*>(z.address())}, {.stream = &on0, .device = 0});
  produce.launch({reinterpret_cast<const void*>(xs.address()), y.slot(0), ready.slot(0)}, {.stream = &on1, .device = 1});
  on0.synchronize();
  on1.synchronize();
  CHECK(wrong(z, x) == 0);
}
