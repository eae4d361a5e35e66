// wait_at_least and signal: their meaning in the interpreter, the PTX they become (system-
// scope acquire loads spinning before a barrier, a barrier before release stores), and the
// errors a wrong use gets.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <wave/interpret.hpp>
#include <wave/wave.hpp>

#include "fixtures/errors.hpp"
#include "fixtures/ptxas.hpp"
#include "fixtures/signal_kernels.hpp"

using namespace wave;
using namespace wave::fixtures::signals;
using fixtures::check_error;
using fixtures::error_of;

namespace {

WAVE_SYMBOL(K);
WAVE_SYMBOL(BLOCK_K);

CompileOptions sizes(std::int64_t n, std::int64_t block) {
  return {.subs = {{N, n}, {BLOCK_N, block}, {CHUNKS, (n + block - 1) / block}}, .cache = false};
}

}  // namespace

TEST_CASE("interpret: signal sets flags, wait_at_least passes flags already set", "[signal][interpret]") {
  const std::vector<float> x{1, 2, 3, 4, 5, 6, 7};
  std::vector<float> y(7, -1), z(7, -1);
  std::vector<std::int32_t> ready{0, 0};
  interpret(producer(), sizes(7, 4), {x.data(), y.data(), ready.data()});
  CHECK(ready == std::vector<std::int32_t>{1, 1});
  interpret(consumer(), sizes(7, 4), {ready.data(), y.data(), z.data()});
  for (std::size_t e = 0; e < x.size(); ++e) CHECK(z[e] == 2 * x[e] + 1);

  // A flag below the value would never rise: an error, not a hang.
  std::vector<std::int32_t> half{1, 0};
  check_error(error_of([&] { interpret(consumer(), sizes(7, 4), {half.data(), y.data(), z.data()}); }),
              "signal_kernels.hpp", 35, "wait_at_least", "a flag of 0");
}

TEST_CASE("wait_at_least spins on system-scope acquire loads, then meets at a barrier", "[signal][ptx]") {
  const std::string ptx = compile(consumer(), sizes(1000, 128)).ptx().ptx;
  INFO(ptx);
  const auto wait = ptx.find("ld.acquire.sys.global.b32");
  REQUIRE(wait != std::string::npos);
  // The data is read after the wait's barrier, never before it.
  const auto barrier = ptx.find("bar.sync", wait);
  REQUIRE(barrier != std::string::npos);
  const auto first_read = ptx.find("ld.global");
  CHECK(first_read > barrier);
  CHECK_THAT(ptx, Catch::Matchers::Contains("trap;"));  // a wait that never ends fails the launch
  fixtures::check_ptxas_clean(ptx, "consume");
}

TEST_CASE("signal stores each flag once with release semantics after a barrier", "[signal][ptx]") {
  const std::string ptx = compile(producer(), sizes(1000, 128)).ptx().ptx;
  INFO(ptx);
  const auto data = ptx.find("st.global");
  const auto barrier = ptx.find("bar.sync");
  const auto flag = ptx.find("st.release.sys.global.b32");
  REQUIRE(flag != std::string::npos);
  CHECK(data < barrier);
  CHECK(barrier < flag);
  // Each element is stored once, by its first holder: 4 per thread here (128 over 32
  // threads), no second barrier between them.
  std::size_t stores = 0;
  for (auto at = flag; at != std::string::npos; at = ptx.find("st.release.sys.global.b32", at + 1)) ++stores;
  CHECK(stores == 4);
  CHECK(ptx.find("bar.sync", barrier + 1) == std::string::npos);
  fixtures::check_ptxas_clean(ptx, "produce");
}

TEST_CASE("wait_at_least keeps its place: a read after it is not hoisted above it", "[signal][ptx]") {
  const IndexMapping<dims<N>> chunk{.inputs = {{CHUNKS, i / BLOCK_N}}, .outputs = {{N, i}}};
  // The bias read inside the loop is invariant: it is hoisted out of the loop, but not
  // above the wait.
  auto looped = kernel("looped",
                       {WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(N, BLOCK_N), TilingConstraint(K, BLOCK_K),
                        HardwareConstraint{.threads_per_wave = 32}},
                       [=](Memory<dims<CHUNKS>, i32> ready, Memory<dims<N>, f32> bias, Memory<dims<N, K>, f32> x,
                           Memory<dims<N>, f32> out) {
                         wait_at_least(ready, 1, chunk);
                         Register<dims<N>, f32> init(0.0);
                         auto total = iterate<K>(init, [&](auto acc) { return acc + sum<K>(read(x)) + read(bias); });
                         write(total, out);
                       });
  const std::string ptx =
      compile(looped, {.subs = {{N, 256}, {BLOCK_N, 128}, {CHUNKS, 2}, {K, 256}, {BLOCK_K, 64}}, .cache = false}).ptx().ptx;
  INFO(ptx);
  const auto wait = ptx.find("ld.acquire.sys.global.b32");
  REQUIRE(wait != std::string::npos);
  CHECK(ptx.find("ld.global") > ptx.find("bar.sync", wait));
}

TEST_CASE("signals compile for gfx942 to system-scope acquire loads and release stores", "[signal][amdgpu]") {
  // Waves of the target's width: 64 on CDNA3.
  const Constraints any_target{WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(N, BLOCK_N), HardwareConstraint{}};
  auto relay = kernel("relay", any_target, [](Memory<dims<CHUNKS>, i32> ready, Memory<dims<N>, f32> y,
                                               Memory<dims<N>, f32> z, Memory<dims<CHUNKS>, i32> done) {
    wait_at_least(ready, 1, kToChunk);
    write(read(y) + 1.0, z);
    signal(Register<dims<N>, i32>(1.0), done, kSetChunk);
  });
  CompileOptions options = sizes(1000, 128);
  options.target = "gfx942";
  const std::string assembly = compile(relay, options).ptx().amdgpu_assembly;
  INFO(assembly);
  // Acquire at system scope: the load bypasses the caches (sc0 sc1) and invalidates them
  // after; release: written back (buffer_wbl2) before the store.
  CHECK_THAT(assembly, Catch::Matchers::Contains("buffer_inv sc0 sc1"));
  CHECK_THAT(assembly, Catch::Matchers::Contains("buffer_wbl2 sc0 sc1"));
  CHECK_THAT(assembly, Catch::Matchers::Contains("s_trap"));
}
