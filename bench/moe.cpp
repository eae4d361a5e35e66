// A mixture-of-experts layer (examples/kernels/moe.hpp): Mixtral's (8 experts, top 2,
// hidden 4096, intermediate 14336) and a 64-expert top-6 one (hidden 2048, intermediate
// 1408, DeepSeek-V2-Lite's), 1 to 4096 tokens routed at random, f16. All six kernels
// (sorting the pairs, both grouped GEMMs, the sum) timed together as the median of many
// timed runs after warm-up (device events around back-to-back launches). Reported as
// TFLOP/s of the experts' GEMMs (2 P (3 I D) for P = T TOPK pairs) and GB/s of the
// weights of the experts the tokens use. Each configuration's output is checked first
// (every element written, 4 sampled against float64); a wrong one is not timed.
//
//   wave-bench-moe [MIN_TOKENS [BLOCK_M]]
//                                    one line per layer, token count (from MIN_TOKENS) and tiling
//                                    (those of BLOCK_M slots per block, where given)
//   wave-bench-moe --kernels [MIN_TOKENS [BLOCK_M]]
//                                    the same, and where the time goes: the layer's first 1 to 6
//                                    kernels timed as above, each kernel's share the difference
//                                    (a kernel alone relaunched would count pairs again)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <wave/runtime.hpp>
#include <wave/wave.hpp>

#include "bench.hpp"
#include "moe_reference.hpp"

using namespace wave;
namespace moe = examples::moe;

namespace {

const void* at(const runtime::DeviceBuffer& b) { return reinterpret_cast<const void*>(b.address()); }

template <class T>
runtime::DeviceBuffer on_device(const std::vector<T>& host) {
  runtime::DeviceBuffer buffer(std::max<std::size_t>(host.size() * sizeof(T), 4));
  if (!host.empty()) buffer.copy_from_host(host.data());
  return buffer;
}

// A layer's weights on the device, and `tokens` tokens and routings, of which each
// configuration takes the first T.
struct Layer {
  std::string name;
  examples::host::MoeInputs in;
  runtime::DeviceBuffer x, w1, w2, ids, weights;
  Layer(std::string name, const moe::Shape& most, std::mt19937& rng)
      : name(std::move(name)), in(examples::host::random_moe(most, rng)), x(on_device(in.x)), w1(on_device(in.w1)),
        w2(on_device(in.w2)), ids(on_device(in.topk_ids)), weights(on_device(in.topk_weights)) {}
};

bool per_kernel = false;  // --kernels

void time_moe(const Layer& layer, int tokens, const moe::Tiling& t) {
  moe::Shape s = layer.in.shape;
  s.tokens = tokens;
  char config[128];
  std::snprintf(config, sizeof config, "moe %s T%d %dx%dx%d %dx%d down x%d/%d", layer.name.c_str(), tokens, t.block_m,
                t.block_n, t.block_k, t.wave_m, t.wave_n, t.down_columns(), t.down_wave_columns());
  bench::configuration(config, [&] {
    const std::vector<Sub> all = moe::sizes(s, t);
    const auto t0 = std::chrono::steady_clock::now();
    auto build = [&](const auto& kernel) { return compile(kernel, {.subs = moe::sizes_for(kernel, all), .cache = false}); };
    const CompiledKernel count = build(moe::make_count_kernel()), place = build(moe::make_place_kernel()),
                         blocks = build(moe::make_blocks_kernel()), gate_up = build(moe::make_gate_up_kernel<f16>()),
                         down = build(moe::make_down_kernel<f16>()), combine = build(moe::make_sum_kernel<f16>());
    const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const std::size_t p = std::size_t(s.pairs()), nb = std::size_t(s.blocks(t.block_m)),
                      slots = std::size_t(s.slots(t.block_m));
    runtime::DeviceBuffer ranks(p * 4), counts(std::size_t(s.chunks()) * s.experts * 4), sorted(slots * 4),
        block_expert(nb * 4), block_rows(nb * 4), h(slots * s.intermediate * 2), y(p * s.hidden * 2),
        out(std::size_t(tokens) * s.hidden * 2);
    // The layer's first `kernels` kernels.
    auto launch_first = [&](int kernels) {
      const std::function<void()> steps[] = {
          [&] { count.launch({at(layer.ids), at(ranks), at(counts)}); },
          [&] { place.launch({at(layer.ids), at(ranks), at(counts), at(sorted)}); },
          [&] { blocks.launch({at(counts), at(block_expert), at(block_rows)}); },
          [&] { gate_up.launch({at(layer.x), at(layer.w1), at(sorted), at(block_expert), at(block_rows), at(h)}); },
          [&] {
            down.launch({at(h), at(layer.w2), at(sorted), at(block_expert), at(block_rows), at(layer.weights), at(y)});
          },
          [&] { combine.launch({at(y), at(layer.ids), at(out)}); }};
      for (int k = 0; k < kernels; ++k) steps[k]();
    };
    auto launch = [&] { launch_first(6); };
    bench::poison(out);
    launch();
    // 4 sampled elements against float64, each a whole token row (cached; a Mixtral row
    // takes the host about a second).
    static std::mt19937 samples(5);
    std::map<int, examples::host::MoeRow> rows;
    const std::string wrong = bench::check_output(out, bench::Format::f16, 4, samples, [&](std::size_t i) {
      const int token = int(i / std::size_t(s.hidden));
      auto it = rows.find(token);
      if (it == rows.end()) it = rows.emplace(token, examples::host::moe_row(layer.in, token)).first;
      const std::size_t c = i % std::size_t(s.hidden);
      const double want = it->second.out[c];
      return bench::Expected{want, 4 * layer.in.unit() * it->second.magnitude[c] + 2 * layer.in.unit() * std::abs(want) + 1e-5};
    });
    if (!wrong.empty()) return bench::refuse(config, wrong);
    const double ms = bench::median_ms(launch, tokens >= 1024 ? 20 : 50);
    std::set<int> used(layer.in.topk_ids.begin(), layer.in.topk_ids.begin() + std::ptrdiff_t(p));
    const double flops = 2.0 * double(p) * 3.0 * s.intermediate * s.hidden;
    const double weight_bytes = double(used.size()) * 3.0 * s.intermediate * s.hidden * 2;
    std::printf("%-40s %9.1f %8.1f %8.1f %10.1f\n", config, ms * 1e3, flops / (ms * 1e9), weight_bytes / (ms * 1e6),
                compile_ms);
    if (per_kernel) {
      // Each kernel's share: the time of the first k kernels less that of the first k - 1.
      const int runs = tokens >= 1024 ? 20 : 50;
      double before = 0;
      double share[6];
      for (int k = 1; k <= 6; ++k) {
        const double upto = k == 6 ? ms : bench::median_ms([&] { launch_first(k); }, runs);
        share[k - 1] = upto - before;
        before = upto;
      }
      const double gate_up_flops = 2.0 * double(p) * 2.0 * s.intermediate * s.hidden, down_flops = flops - gate_up_flops;
      std::printf("  %-38s sort %.1f us (count %.1f, place %.1f, blocks %.1f); gate_up %.1f us, %.1f TFLOP/s; "
                  "down %.1f us, %.1f TFLOP/s; sum %.1f us\n",
                  "", (share[0] + share[1] + share[2]) * 1e3, share[0] * 1e3, share[1] * 1e3, share[2] * 1e3,
                  share[3] * 1e3, gate_up_flops / (share[3] * 1e9), share[4] * 1e3, down_flops / (share[4] * 1e9),
                  share[5] * 1e3);
    }
  });
}

}  // namespace

int WAVE_BENCH_MAIN(int argc, char** argv) {
  if (!bench::open_device()) return 77;
  int arg = 1;
  if (argc > arg && std::string(argv[arg]) == "--kernels") per_kernel = true, ++arg;
  const int min_tokens = argc > arg ? std::atoi(argv[arg]) : 1;
  const int only_block_m = argc > arg + 1 ? std::atoi(argv[arg + 1]) : 0;
  std::printf("f16 weights and activations, f32 accumulators; tokens routed uniformly at random\n");
  std::printf("%-40s %9s %8s %8s %10s\n", "", "us", "TFLOP/s", "GB/s", "compile ms");
  std::mt19937 rng(7);
  // (The down GEMM's widest tile, 256 columns on 64-column waves, is the dense GEMM's best.)
  const moe::Tiling tilings[] = {{64, 128, 64, 64, 32},       {128, 128, 64, 64, 32}, {128, 128, 64, 64, 32, 256, 64},
                                 {64, 128, 64, 64, 32, 256, 64}, {32, 128, 64, 16, 64}};
  for (auto [name, shape] : {std::pair{std::string("E8 top2 D4096 I14336"), moe::Shape{4096, 8, 2, 4096, 14336}},
                             std::pair{std::string("E64 top6 D2048 I1408"), moe::Shape{4096, 64, 6, 2048, 1408}}}) {
    const Layer layer(name, shape, rng);
    for (int tokens : {1, 4, 16, 64, 256, 1024, 4096})
      for (const moe::Tiling& t : tilings)
        if (tokens >= min_tokens && (t.block_m <= 64 || tokens >= 256) && (!only_block_m || t.block_m == only_block_m))
          time_moe(layer, tokens, t);
  }
  return 0;
}
