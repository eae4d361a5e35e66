// The differential test: random kernels (tests/differential/random_kernel.hpp) compiled
// and run on the GPU, each output compared with the interpreter's on the same random
// inputs, outputs poisoned first. A kernel the compiler rejects (a wave::Error naming it)
// is counted; the test fails when fewer than 90% compile, run and match (the generator
// writes kernels the language takes, so a rejection is a gap in the compiler, and a test
// that passes when all are rejected proves nothing); a mismatch fails with its seed and
// program.
// WAVE_DIFFERENTIAL_KERNELS sets how many (default 100); the seeds start at Catch's.
#include <catch2/catch.hpp>

#include <optional>

#include <wave/runtime.hpp>

#include "differential/random_kernel.hpp"

TEST_CASE("differential: random kernels on the GPU match the interpreter", "[gpu][differential]") {
  namespace runtime = wave::runtime;
  const int count = differential::kernel_count(100);
  const std::uint64_t first = Catch::rngSeed();
  int compiled = 0, matched = 0;
  for (int i = 0; i < count; ++i) {
    const std::uint64_t seed = differential::seed_of(first, i);
    const differential::RandomKernel k = differential::random_kernel(seed);
    INFO("seed " << seed << ": " << k.description);
    std::optional<wave::CompiledKernel> kernel;
    try {
      kernel.emplace(wave::compile(k.graph, k.options));
    } catch (const wave::Error& e) {
      CHECK(e.kernel() == k.graph.name);
      continue;
    }
    ++compiled;
    auto want = differential::random_buffers(k, seed);
    auto got = want;  // the same inputs, outputs poisoned
    differential::interpret_kernel(k, want);
    std::vector<runtime::DeviceBuffer> device;
    std::vector<const void*> pointers;
    for (auto& b : got) {
      device.emplace_back(b.size());
      device.back().copy_from_host(b.data());
      pointers.push_back(reinterpret_cast<const void*>(device.back().address()));
    }
    try {
      kernel->launch(pointers, {.sizes = k.launch_sizes});
    } catch (const wave::Error& e) {  // refused at launch: counted as a rejection
      CHECK(e.kernel() == k.graph.name);
      WARN("seed " << seed << " refused at launch: " << e.what());
      --compiled;
      continue;
    }
    runtime::synchronize();
    bool ok = true;
    for (std::size_t o = k.inputs; o < got.size(); ++o) {
      device[o].copy_to_host(got[o].data());
      std::string where;
      const std::int64_t wrong = differential::mismatches(k, o, got[o], want[o], &where);
      INFO(where);
      CHECK(wrong == 0);
      ok &= wrong == 0;
    }
    matched += ok;
  }
  WARN(compiled << " of " << count << " random kernels compiled; " << matched << " matched the interpreter");
  CHECK(matched == compiled);
  CHECK(matched * 10 >= count * 9);
}
