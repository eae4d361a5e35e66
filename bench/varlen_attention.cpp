// Packed variable-length prefill attention (examples/kernels/varlen_attention.hpp) beside
// the contiguous flash attention (examples/kernels/flash_attention.hpp) on the same FLOPs:
// a batch of sequences of one length S against [B, H, S, D] flash attention, and a batch
// of mixed lengths (its FLOPs the sum of its sequences'). Medians of many timed runs after
// warm-up (device events around back-to-back launches); each output checked first (every
// element written, 48 sampled against float64), a wrong one not timed. Flash attention
// runs at the same tiling as the varlen kernel and at its own best schedule.
//
//   wave-bench-varlen-attention      one line per batch, mask and tiling
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <wave/runtime.hpp>
#include <wave/wave.hpp>

#include "bench.hpp"
#include "flash_timing.hpp"
#include "varlen_attention_reference.hpp"

using namespace wave;
namespace va = examples::varlen_attention;

namespace {

using Tiling = bench::AttentionTiling;

const void* at(const runtime::DeviceBuffer& b) { return reinterpret_cast<const void*>(b.address()); }

double flops_of(const va::Shape& s, bool causal) {
  double f = 0;
  for (int len : s.lengths) f += 4.0 * s.heads * double(len) * len * s.head_dim / (causal ? 2 : 1);
  return f;
}

void time_varlen(const std::string& name, const examples::host::VarlenInputs& in, const Tiling& t) {
  const va::Shape& s = in.shape;
  const bool causal = in.causal;
  char config[128];
  std::snprintf(config, sizeof config, "varlen %s causal %d %dx%d/%d", name.c_str(), causal, t.block_m, t.block_k2,
                t.waves);
  bench::configuration(config, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    const CompiledKernel kernel =
        compile(va::make_kernel<f16>({.head_dim = s.head_dim, .causal = causal, .waves = t.waves}),
                {.subs = va::sizes(s, t.block_m, t.block_k2), .cache = false});
    const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    runtime::DeviceBuffer q(in.q.size() * 2), k(in.k.size() * 2), v(in.v.size() * 2), cu(s.lengths.size() * 4 + 4),
        out(std::size_t(s.rows()) * s.heads * s.head_dim * 2);
    q.copy_from_host(in.q.data());
    k.copy_from_host(in.k.data());
    v.copy_from_host(in.v.data());
    const std::vector<std::int32_t> offsets = s.offsets();
    cu.copy_from_host(offsets.data());
    auto launch = [&] { kernel.launch({at(q), at(k), at(v), at(cu), at(out)}); };
    static std::mt19937 samples(5);
    bench::poison(out);
    launch();
    const std::string wrong = bench::check_output(out, bench::Format::f16, 48, samples, [&](std::size_t i) {
      const int c = int(i % s.head_dim), h = int(i / s.head_dim % s.heads), token = int(i / s.head_dim / s.heads);
      const std::size_t seq = std::size_t(std::upper_bound(offsets.begin(), offsets.end(), token) - offsets.begin()) - 1;
      const examples::host::AttentionRow row =
          examples::host::varlen_row(in, offsets[seq], offsets[seq + 1] - offsets[seq], token - offsets[seq], h);
      const double want = row.out[std::size_t(c)];
      const double rounding = bench::output_rounding(bench::Format::f16, want);
      return bench::Expected{want, 2e-3 * row.magnitude[std::size_t(c)] + rounding + 1e-6};
    });
    if (!wrong.empty()) return bench::refuse(config, wrong);
    const double ms = bench::median_ms(launch, 30);
    std::printf("%-44s %9.4f %9.1f %11.1f\n", config, ms, flops_of(s, causal) / (ms * 1e9), compile_ms);
  });
}

}  // namespace

int WAVE_BENCH_MAIN(int, char**) {
  if (!bench::open_device()) return 77;
  std::printf("32 query heads over 8 kv heads (flash: 32 heads), D 128, f16 output\n");
  std::printf("%-44s %9s %9s %11s\n", "", "ms", "TFLOP/s", "compile ms");
  std::mt19937 rng(3);
  std::vector<int> mixed(16);
  std::uniform_int_distribution<int> length(1, 4096);
  for (int& len : mixed) len = length(rng);
  mixed[0] = 1;
  mixed[1] = 37;
  const Tiling tilings[] = {{128, 64, 8}, {128, 128, 8}, {64, 64, 4}};
  for (bool causal : {true, false}) {
    for (auto [name, lengths] : std::vector<std::pair<std::string, std::vector<int>>>{
             {"B16 S2048", std::vector<int>(16, 2048)}, {"B16 mixed 1-4096", mixed}}) {
      const examples::host::VarlenInputs in = examples::host::random_varlen(
          {.lengths = lengths, .heads = 32, .kv_heads = 8, .head_dim = 128}, causal, rng);
      for (const Tiling& t : tilings) time_varlen(name, in, t);
    }
    for (const Tiling& t : tilings) bench::time_flash(16, 32, 2048, 2048, 128, causal, t, false, rng);
    bench::time_flash(16, 32, 2048, 2048, 128, causal, {128, 128, 8}, true, rng);
  }
  return 0;
}
