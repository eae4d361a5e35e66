// Extend attention (examples/kernels/extend_attention.hpp), and tree attention on draft
// trees of 64 tokens, beside the contiguous flash
// attention (examples/kernels/flash_attention.hpp) on about the same work: a batch of
// sequences each holding a prefix in a paged cache (pages of 16 tokens, shuffled) and new
// tokens attending to it and causally to each other, against non-causal flash attention of
// the new tokens over prefix + new keys. Rates count the FLOPs each kernel does
// (4 H D per visible query-key pair). Medians of many timed runs after warm-up (device
// events around back-to-back launches); each output checked first (every element written,
// 48 sampled against float64), a wrong one not timed.
//
//   wave-bench-extend-attention      one line per batch and tiling
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
#include "extend_attention_reference.hpp"
#include "flash_timing.hpp"

using namespace wave;
namespace ea = examples::extend_attention;

namespace {

using Tiling = bench::AttentionTiling;

const void* at(const runtime::DeviceBuffer& b) { return reinterpret_cast<const void*>(b.address()); }

// 4 H D per visible query-key pair.
double flops_of(const examples::host::ExtendInputs& in) {
  const ea::Shape& s = in.shape;
  double pairs = 0;
  for (int b = 0; b < s.sequences(); ++b) {
    const int fresh = s.extend_lens[std::size_t(b)];
    pairs += double(fresh) * s.prefix_lens[std::size_t(b)];
    for (int m = 0; m < fresh; ++m)
      for (int k = 0; k < fresh; ++k) pairs += in.sees(b, m, k) ? 1 : 0;
  }
  return 4.0 * s.heads * s.head_dim * pairs;
}

template <class T>
runtime::DeviceBuffer on_device(const std::vector<T>& host) {
  runtime::DeviceBuffer buffer(std::max<std::size_t>(host.size() * sizeof(T), 4));
  if (!host.empty()) buffer.copy_from_host(host.data());
  return buffer;
}

void time_extend(const std::string& name, const examples::host::ExtendInputs& in, const Tiling& t) {
  const ea::Shape& s = in.shape;
  char config[128];
  const bool tree = !in.tree_mask.empty();
  std::snprintf(config, sizeof config, "%s %s %dx%d/%d", tree ? "tree" : "extend", name.c_str(), t.block_m,
                t.block_k2, t.waves);
  bench::configuration(config, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    const ea::Variant variant{.head_dim = s.head_dim, .waves = t.waves};
    const CompileOptions options{.subs = ea::sizes(s, t.block_m, t.block_k2), .cache = false};
    const CompiledKernel kernel =
        tree ? compile(ea::make_tree_kernel<f16>(variant), options) : compile(ea::make_kernel<f16>(variant), options);
    const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const std::vector<std::int32_t> offsets = s.offsets(), prefix(s.prefix_lens.begin(), s.prefix_lens.end());
    runtime::DeviceBuffer q = on_device(in.q), k = on_device(in.k), v = on_device(in.v), k_cache = on_device(in.k_cache),
                          v_cache = on_device(in.v_cache), table = on_device(in.block_table), cu = on_device(offsets),
                          prefix_lens = on_device(prefix), tree_mask = on_device(in.tree_mask),
                          out(std::size_t(s.rows()) * s.heads * s.head_dim * 2);
    std::vector<const void*> args{at(q), at(k), at(v), at(k_cache), at(v_cache), at(table), at(cu), at(prefix_lens)};
    if (tree) args.push_back(at(tree_mask));
    args.push_back(at(out));
    auto launch = [&] { kernel.launch(args, {.sizes = {{ea::PAGES, in.pages}}}); };
    static std::mt19937 samples(5);
    bench::poison(out);
    launch();
    const std::string wrong = bench::check_output(out, bench::Format::f16, 48, samples, [&](std::size_t i) {
      const int c = int(i % s.head_dim), h = int(i / s.head_dim % s.heads), token = int(i / s.head_dim / s.heads);
      const std::size_t seq = std::size_t(std::upper_bound(offsets.begin(), offsets.end(), token) - offsets.begin()) - 1;
      const examples::host::AttentionRow row =
          examples::host::extend_row(in, int(seq), offsets[seq], token - offsets[seq], h);
      const double want = row.out[std::size_t(c)];
      const double rounding = bench::output_rounding(bench::Format::f16, want);
      return bench::Expected{want, 2e-3 * row.magnitude[std::size_t(c)] + rounding + 1e-6};
    });
    if (!wrong.empty()) return bench::refuse(config, wrong);
    const double ms = bench::median_ms(launch, 30);
    std::printf("%-44s %9.4f %9.1f %11.1f\n", config, ms, flops_of(in) / (ms * 1e9), compile_ms);
  });
}

}  // namespace

int WAVE_BENCH_MAIN(int, char**) {
  if (!bench::open_device()) return 77;
  std::printf("32 query heads over 8 kv heads (flash: 32 heads), D 128, pages of 16, f16 output\n");
  std::printf("%-44s %9s %9s %11s\n", "", "ms", "TFLOP/s", "compile ms");
  std::mt19937 rng(3);
  // Mixed: prefixes 0-4096 (one empty, one ending inside a page), new tokens 1-1024 (one of 1).
  std::vector<int> mixed_prefix(16), mixed_new(16);
  std::uniform_int_distribution<int> prefix_len(0, 4096), new_len(1, 1024);
  for (int& len : mixed_prefix) len = prefix_len(rng);
  for (int& len : mixed_new) len = new_len(rng);
  mixed_prefix[0] = 0;
  mixed_prefix[1] = 1000;
  mixed_new[2] = 1;
  struct Batch {
    std::string name;
    std::vector<int> prefix, fresh;
  };
  const Batch batches[] = {{"B8 P2048 E512", std::vector<int>(8, 2048), std::vector<int>(8, 512)},
                           {"B8 P4096 E128", std::vector<int>(8, 4096), std::vector<int>(8, 128)},
                           {"B16 P0-4096 E1-1024", mixed_prefix, mixed_new}};
  const Tiling tilings[] = {{128, 64, 8}, {128, 128, 8}, {64, 64, 4}};
  for (const Batch& batch : batches) {
    const examples::host::ExtendInputs in = examples::host::random_extend(
        {.prefix_lens = batch.prefix, .extend_lens = batch.fresh, .heads = 32, .kv_heads = 8, .head_dim = 128, .page = 16},
        rng);
    for (const Tiling& t : tilings) time_extend(batch.name, in, t);
  }
  // Speculative decoding's verification: 64-token draft trees over prefixes of 2048.
  const examples::host::ExtendInputs trees = examples::host::random_tree(
      {.prefix_lens = std::vector<int>(32, 2048), .extend_lens = std::vector<int>(32, 64), .heads = 32, .kv_heads = 8,
       .head_dim = 128, .page = 16},
      rng);
  for (const Tiling& t : {Tiling{64, 64, 4}, Tiling{64, 128, 4}}) time_extend("B32 P2048 E64", trees, t);
  // Flash attention of the uniform batches' new tokens over prefix + new keys, not causal.
  for (auto [m, k2] : {std::pair{512, 2560}, std::pair{128, 4224}}) {
    for (const Tiling& t : tilings) bench::time_flash(8, 32, m, k2, 128, false, t, false, rng);
    bench::time_flash(8, 32, m, k2, 128, false, {128, 128, 8}, true, rng);
  }
  return 0;
}
