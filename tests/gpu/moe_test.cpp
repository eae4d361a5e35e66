// A mixture-of-experts layer (examples/kernels/moe.hpp) on the device against float64:
// Mixtral's 8 experts top-2 and 64 experts top-6 at 1 to 300 tokens, runs of an expert's
// pairs within a block and across several (tokens crowded onto a few experts), hidden and
// intermediate sizes ending inside tiles, pairs routed to no expert; wgmma's tiles
// (64 slots per block) and mma.sync's (32); f16 and bf16. Every intermediate is poisoned
// first; the sorted order is checked exactly, each GEMM's rows and the output against
// float64.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "moe_reference.hpp"
#include "wave/wave.hpp"

using namespace wave;
namespace moe = examples::moe;
namespace host = examples::host;

namespace {

void check_moe(const host::MoeInputs& in, const moe::Tiling& tiling, CompileOptions how = {}) {
  const moe::Shape& s = in.shape;
  INFO("T = " << s.tokens << ", E = " << s.experts << ", TOPK = " << s.topk << ", D = " << s.hidden << ", I = "
              << s.intermediate << ", blocks of " << tiling.block_m << ", tiles " << tiling.block_n << " x "
              << tiling.block_k << ", down tiles " << tiling.down_columns());
  const host::MoeOutputs o =
      host::run_moe(in, tiling, [&](const auto& kernel, const std::vector<Sub>& subs, auto&... buffers) {
        how.subs = subs;
        fixtures::run_on_device(compile(kernel, how), {}, buffers...);
      });
  REQUIRE(host::routing_mismatches(in, o, tiling.block_m) == 0);
  CHECK(host::gemm_mismatches(in, o, tiling.block_m) == 0);
  CHECK(host::moe_mismatches(in, o.out) == 0);
}

}  // namespace

TEST_CASE("MoE layer: experts top-2 and top-6 at 1 to 300 tokens match float64", "[gpu][moe]") {
  std::mt19937 rng(Catch::rngSeed());
  const moe::Tiling wgmma{}, small{.block_m = 32, .block_n = 64, .block_k = 32, .wave_m = 16, .wave_n = 32};
  for (int tokens : {1, 5, 64, 300}) {
    check_moe(host::random_moe({tokens, 8, 2, 256, 320}, rng), wgmma);
    check_moe(host::random_moe({tokens, 64, 6, 128, 96}, rng), tokens == 64 ? small : wgmma);
  }
}

TEST_CASE("MoE layer: runs across several blocks, odd sizes, dropped pairs", "[gpu][moe]") {
  std::mt19937 rng(Catch::rngSeed());
  const moe::Tiling wgmma{}, small{.block_m = 32, .block_n = 64, .block_k = 32, .wave_m = 16, .wave_n = 32};
  // 200 tokens on 3 of 8 experts: runs of about 130 pairs, three blocks each.
  check_moe(host::random_moe({200, 8, 2, 200, 136}, rng, 3), wgmma);
  check_moe(host::random_moe({77, 8, 2, 72, 200}, rng, 2), small);
  host::MoeInputs in = host::random_moe({33, 8, 2, 128, 128}, rng);
  in.topk_ids[5] = 8;
  in.topk_ids[40] = -3;
  check_moe(in, wgmma);
}

TEST_CASE("MoE layer in bf16: Mixtral's and the 64-expert routing on wgmma and mma.sync", "[gpu][moe]") {
  std::mt19937 rng(Catch::rngSeed());
  const moe::Tiling wgmma{}, small{.block_m = 32, .block_n = 64, .block_k = 32, .wave_m = 16, .wave_n = 32};
  check_moe(host::random_moe({64, 8, 2, 256, 320}, rng, 0, true), wgmma);
  check_moe(host::random_moe({33, 64, 6, 128, 96}, rng, 0, true), small);
}

TEST_CASE("MoE layer: blocks of 64 and 128 slots, the down GEMM on tiles of its own, pipelined or not, on wgmma "
          "and on mma.sync",
          "[gpu][moe]") {
  std::mt19937 rng(Catch::rngSeed());
  const moe::Tiling one_warpgroup{}, two_warpgroups{128, 128, 64, 64, 32}, wide_down{128, 128, 64, 64, 32, 256, 64};
  for (const moe::Shape& shape : {moe::Shape{5, 8, 2, 256, 320}, moe::Shape{130, 64, 6, 128, 96}}) {
    const host::MoeInputs in = host::random_moe(shape, rng);
    for (const moe::Tiling& tiling : {one_warpgroup, two_warpgroups, wide_down}) {
      check_moe(in, tiling);
      check_moe(in, tiling, {.pipeline_stages = 1});
      check_moe(in, tiling, {.warpgroup_mma = false});
    }
  }
}
