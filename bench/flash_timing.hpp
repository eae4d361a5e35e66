// The contiguous flash attention (examples/kernels/flash_attention.hpp) timed as the
// yardstick of the attention kernels whose rows come through offsets or a paged cache
// (varlen, extend): same heads and head dim, its rate in TFLOP/s at a given tiling, or at
// its best schedule (TMA and warp specialization).
#pragma once

#include <cstdio>
#include <random>

#include <wave/runtime.hpp>
#include <wave/wave.hpp>

#include "bench.hpp"
#include "kernels/flash_attention.hpp"

namespace wave::bench {

struct AttentionTiling {
  int block_m, block_k2, waves;
};

// Flash attention over [B, H, M, D] queries and [B, H, K2, D] keys and values (random
// inputs; its output checked finite and written before it is timed). Prints one line.
inline void time_flash(int b, int h, int m, int k2, int d, bool causal, const AttentionTiling& t, bool best,
                       std::mt19937& rng) {
  namespace ex = examples::flash_attention;
  char config[128];
  std::snprintf(config, sizeof config, "flash B%d M%d K%d causal %d %dx%d/%d%s", b, m, k2, causal, t.block_m,
                t.block_k2, t.waves, best ? " specialized" : "");
  configuration(config, [&] {
    CompileOptions how{.subs = {{ex::B, b}, {ex::H, h}, {ex::M, m}, {ex::K2, k2}, {ex::K1, d}, {ex::N, d},
                                {ex::BLOCK_M, t.block_m}, {ex::BLOCK_K2, t.block_k2}},
                       .cache = false};
    how.tma = best;
    how.warp_specialize = best;
    const CompiledKernel kernel = compile(ex::make_kernel<f16>({.head_dim = d, .causal = causal, .waves = t.waves}), how);
    const std::size_t queries = std::size_t(b) * h * m * d, keys = std::size_t(b) * h * k2 * d;
    runtime::DeviceBuffer q(queries * 2), k(keys * 2), v(keys * 2), o(queries * 2);
    fill_random(q, rng, Format::f16, true);
    fill_random(k, rng, Format::f16, true);
    fill_random(v, rng, Format::f16, true);
    auto at = [](const runtime::DeviceBuffer& x) { return reinterpret_cast<const void*>(x.address()); };
    auto launch = [&] { kernel.launch({at(q), at(k), at(v), at(o)}); };
    poison(o);
    launch();
    const std::string wrong = check_output(o, Format::f16, 1, rng, [](std::size_t) {
      return Expected{0.0, 1.0};  // finite, every element written; |out| <= max |v| < 1
    });
    if (!wrong.empty()) return refuse(config, wrong);
    const double ms = median_ms(launch, 30);
    std::printf("%-44s %9.4f %9.1f\n", config, ms, 4.0 * b * h * double(m) * k2 * d / (causal ? 2 : 1) / (ms * 1e9));
  });
}

}  // namespace wave::bench
