// The runtime and the PTX stage on a real GPU: a masked copy compiled in process, loaded,
// launched at aligned and unaligned sizes, checked element by element.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "host_half.hpp"
#include "fixtures/masked_copy.hpp"
#include "target/NvptxTarget.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "wave/error.hpp"
#include "wave/runtime.hpp"

using namespace wave;
using examples::host::random_half;
using Catch::Matchers::Contains;

namespace {

std::string masked_copy_ptx() {
  mlir::DialectRegistry registry;
  jit::registerNvptxTarget(registry);
  mlir::MLIRContext ctx(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(fixtures::kMaskedCopy, &ctx);
  REQUIRE(module);
  auto ptx = jit::compileToPtx(*module, {});
  REQUIRE(mlir::succeeded(ptx));
  return *ptx;
}

}  // namespace

TEST_CASE("device 0 can run mma.sync (compute capability 8.0 or newer)", "[gpu]") {
  const DeviceInfo info = runtime::device_info();
  CHECK(info.compute_major >= 8);
  CHECK(info.multiprocessors > 0);
  CHECK(info.memory_bytes > (std::size_t{1} << 30));
}

TEST_CASE("a masked copy writes exactly its n elements", "[gpu]") {
  runtime::LoadedKernel copy(masked_copy_ptx(), "copy");
  constexpr std::size_t capacity = 4097 + 64;  // room past n, to catch stray writes
  constexpr std::uint16_t poison = 0xFFFF;     // an f16 NaN no input has
  std::mt19937 rng(Catch::rngSeed());

  for (std::int64_t n : {1, 7, 1000, 4096, 4097}) {
    INFO("n = " << n);
    std::vector<std::uint16_t> input(capacity), output(capacity);
    for (auto& h : input) h = random_half(rng);
    runtime::DeviceBuffer a(capacity * 2), b(capacity * 2);
    a.copy_from_host(input.data());
    b.fill_bytes(0xFF);
    const unsigned threads = 128, per_block = threads * 8;
    // Each memref<4097xf16> is a descriptor: pointer, pointer, offset, size, stride.
    std::int64_t descriptors[2][5];
    std::vector<void*> args;
    for (int i = 0; i < 2; ++i) {
      const auto address = static_cast<std::int64_t>((i == 0 ? a : b).address());
      const std::int64_t words[5] = {address, address, 0, 4097, 1};
      std::memcpy(descriptors[i], words, sizeof words);
      for (std::int64_t& w : descriptors[i]) args.push_back(&w);
    }
    args.push_back(&n);
    copy.launch({static_cast<unsigned>((n + per_block - 1) / per_block)}, {threads}, args);
    runtime::synchronize();
    b.copy_to_host(output.data());
    std::size_t wrong = 0, stray = 0;
    for (std::size_t i = 0; i < capacity; ++i) {
      if (i < static_cast<std::size_t>(n)) wrong += output[i] != input[i];
      else stray += output[i] != poison;
    }
    CHECK(wrong == 0);
    CHECK(stray == 0);
  }
}

TEST_CASE("error: a kernel name the module lacks", "[gpu][error][driver-error]") {
  try {
    runtime::LoadedKernel k(masked_copy_ptx(), "nope");
    FAIL("expected a wave::Error");
  } catch (const Error& e) {
    CHECK(e.op() == "runtime");
    CHECK_THAT(e.message(), Contains("expected a kernel named 'nope' in the module, but found none"));
  }
}

TEST_CASE("error: PTX the driver rejects", "[gpu][error][driver-error]") {
  try {
    runtime::LoadedKernel k(".version 8.0\n.target sm_90a\n.address_size 64\nthis is not ptx\n", "copy");
    FAIL("expected a wave::Error");
  } catch (const Error& e) {
    CHECK_THAT(e.message(), Contains("cuModuleLoadDataEx"));
  }
}
