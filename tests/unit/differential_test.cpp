// The random kernels of the differential test, without a GPU: each must be one the
// interpreter runs (every output element written) and the compiler either compiles to PTX
// or rejects with a wave::Error that names the kernel; never a crash. On the GPU the same
// kernels are compared with the interpreter (tests/gpu/differential_test.cpp).
// WAVE_DIFFERENTIAL_KERNELS sets how many (default 40); the seeds start at Catch's.
#include <catch2/catch.hpp>


#include "differential/random_kernel.hpp"
#include "wave/jit.hpp"

TEST_CASE("random kernels: the interpreter runs each, the compiler takes or rejects each cleanly",
          "[differential]") {
  const int count = differential::kernel_count(40);
  const std::uint64_t first = Catch::rngSeed();
  int compiled = 0;
  std::vector<std::string> rejected;
  for (int i = 0; i < count; ++i) {
    const std::uint64_t seed = differential::seed_of(first, i);
    const differential::RandomKernel k = differential::random_kernel(seed);
    INFO("seed " << seed << ": " << k.description);
    auto buffers = differential::random_buffers(k, seed);
    REQUIRE_NOTHROW(differential::interpret_kernel(k, buffers));
    for (std::size_t o = k.inputs; o < k.args.size(); ++o) {
      std::string unwritten;
      // Against itself: only NaN (an element the interpreter did not write) differs.
      CHECK(differential::mismatches(k, o, buffers[o], buffers[o], &unwritten) == 0);
      INFO(unwritten);
    }
    try {
      const wave::jit::PtxKernel ptx = wave::jit::compile_to_ptx(k.graph, k.options);
      CHECK(ptx.ptx.find(".entry " + k.graph.name) != std::string::npos);
      ++compiled;
    } catch (const wave::Error& e) {
      CHECK(e.kernel() == k.graph.name);
      // The generator builds valid kernels: a rejection is for what the compiler lacks.
      CHECK_THAT(e.what(), !Catch::Contains("does not verify"));
      rejected.push_back("seed " + std::to_string(seed) + ": " + e.what());
    }
  }
  for (const std::string& r : rejected) WARN(r);
  // The generator's kernels are the language's memory-bound core: nearly all compile.
  CHECK(compiled >= count * 9 / 10);
}
