// Paged decode attention (examples/kernels/paged_decode_attention.hpp): one query token per
// sequence against its keys and values in a cache of shuffled pages, both kernels (the
// chunks and their combination) timed together as the median of many timed runs after
// warm-up (device events around back-to-back launches). Reported as GB/s of the K and V
// bytes the sequences hold (what a decode step must read), beside the contiguous decode
// kernel (kernels/decode_attention.hpp) on the same bytes: one head per kv head, keys
// [B, HKV, S, D]. Each configuration's output is checked first (every element written,
// 48 sampled against a float64 softmax); a wrong one is not timed.
//
//   wave-bench-paged-decode      one line per batch, page size and split count
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <wave/runtime.hpp>
#include <wave/wave.hpp>

#include "bench.hpp"

#include "kernels/decode_attention.hpp"
#include "kernels/paged_decode_attention.hpp"

using namespace wave;
namespace pd = examples::paged_decode_attention;

namespace {

struct Batch {
  std::string name;
  std::vector<int> lengths;
};

const void* at(const runtime::DeviceBuffer& b) { return reinterpret_cast<const void*>(b.address()); }

// A batch's cache on the device and the host: q [B, H, D], the K and V caches [PAGES,
// PAGE, HKV, D] with each sequence's pages shuffled among them, the block table, lengths.
struct PagedData {
  int b, heads, kv_heads, d, page, max_pages, pages;
  std::vector<int> lengths;
  std::vector<std::int32_t> table;
  runtime::DeviceBuffer q, k, v, table_buffer, lengths_buffer;
  std::vector<float> host_q, host_k, host_v;

  PagedData(const std::vector<int>& lens, int heads, int kv_heads, int d, int page, std::mt19937& rng)
      : b(int(lens.size())), heads(heads), kv_heads(kv_heads), d(d), page(page), lengths(lens),
        q(std::size_t(b) * heads * d * 2), k(size(lens, page, kv_heads, d)), v(k.size()),
        table_buffer(std::size_t(b) * pages_per_row(lens, page) * 4), lengths_buffer(std::size_t(b) * 4) {
    max_pages = pages_per_row(lens, page);
    pages = int(k.size() / (std::size_t(page) * kv_heads * d * 2));
    host_q = bench::fill_random(q, rng, bench::Format::f16, /*with_signs=*/true);
    host_k = bench::fill_random(k, rng, bench::Format::f16, /*with_signs=*/true);
    host_v = bench::fill_random(v, rng, bench::Format::f16, /*with_signs=*/true);
    std::vector<std::int32_t> order(static_cast<std::size_t>(pages));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    table.assign(std::size_t(b) * max_pages, 0);
    std::size_t next = 0;
    for (int s = 0; s < b; ++s)
      for (int p = 0; p < (lens[std::size_t(s)] + page - 1) / page; ++p) table[std::size_t(s) * max_pages + p] = order[next++];
    table_buffer.copy_from_host(table.data());
    std::vector<std::int32_t> l(lens.begin(), lens.end());
    lengths_buffer.copy_from_host(l.data());
  }
  static int pages_per_row(const std::vector<int>& lens, int page) {
    return (*std::max_element(lens.begin(), lens.end()) + page - 1) / page;
  }
  static std::size_t size(const std::vector<int>& lens, int page, int kv_heads, int d) {
    std::size_t pages = 0;
    for (int len : lens) pages += std::size_t((len + page - 1) / page);
    return pages * page * kv_heads * d * 2;
  }
  // The bytes of K and V the sequences hold.
  double kv_bytes() const {
    double tokens = 0;
    for (int len : lengths) tokens += len;
    return 2.0 * tokens * kv_heads * d * 2;
  }
  // Output element i of [B, H, D] in float64 (tolerances as the attention bench's).
  bench::Expected at(std::size_t i) const {
    const int col = int(i % d), h = int(i / d % heads), s = int(i / d / heads), kvh = h / (heads / kv_heads);
    const int len = lengths[std::size_t(s)];
    auto row = [&](int t) {
      return (std::size_t(table[std::size_t(s) * max_pages + t / page]) * page + t % page) * kv_heads * d +
             std::size_t(kvh) * d;
    };
    std::vector<double> p(static_cast<std::size_t>(len));
    double top = -INFINITY, total = 0;
    for (int t = 0; t < len; ++t) {
      double dot = 0;
      for (int x = 0; x < d; ++x) dot += double(host_q[(std::size_t(s) * heads + h) * d + x]) * host_k[row(t) + x];
      top = std::max(top, p[std::size_t(t)] = dot / std::sqrt(double(d)));
    }
    for (double& x : p) total += (x = std::exp(x - top));
    double want = 0, magnitude = 0;
    for (int t = 0; t < len; ++t) {
      const double pv = p[std::size_t(t)] / total * host_v[row(t) + col];
      want += pv;
      magnitude += std::abs(pv);
    }
    return {want, 2e-3 * magnitude + bench::output_rounding(bench::Format::f16, want) + 1e-6};
  }
};

void time_paged(const Batch& batch, const PagedData& data, int splits) {
  const int heads = data.heads, kv_heads = data.kv_heads, d = data.d, page = data.page;
  const int max_len = *std::max_element(batch.lengths.begin(), batch.lengths.end());
  char config[128];
  std::snprintf(config, sizeof config, "paged %s page %d splits %d", batch.name.c_str(), page, splits);
  bench::configuration(config, [&] {
    const pd::Shape shape{data.b, heads, kv_heads, d, page, max_len, splits};
    const auto t0 = std::chrono::steady_clock::now();
    const CompiledKernel chunks = compile(pd::make_chunk_kernel({.head_dim = d}), {.subs = pd::chunk_sizes(shape), .cache = false});
    const CompiledKernel combine = compile(pd::make_combine_kernel<f16>(), {.subs = pd::combine_sizes(shape), .cache = false});
    const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const std::size_t parts = std::size_t(data.b) * splits * heads;
    runtime::DeviceBuffer o_part(parts * d * 4), lse_part(parts * 4), out(std::size_t(data.b) * heads * d * 2);
    auto launch = [&] {
      chunks.launch({at(data.q), at(data.k), at(data.v), at(data.table_buffer), at(data.lengths_buffer), at(o_part),
                     at(lse_part)},
                    {.sizes = {{pd::PAGES, data.pages}}});
      combine.launch({at(o_part), at(lse_part), at(out)});
    };
    static std::mt19937 samples(5);
    bench::poison(out);
    launch();
    const std::string wrong =
        bench::check_output(out, bench::Format::f16, 48, samples, [&](std::size_t i) { return data.at(i); });
    if (!wrong.empty()) return bench::refuse(config, wrong);
    const double ms = bench::median_ms(launch, 50);
    std::printf("%-44s %9.1f %9.1f %11.1f\n", config, ms * 1e3, data.kv_bytes() / (ms * 1e6), compile_ms);
  });
}

// The contiguous decode kernel on the same K and V bytes: B sequences of `len` keys, one
// query head per kv head (its output is not the paged one's: it is timed for its rate).
void time_contiguous(int b, int kv_heads, int len, int d, std::mt19937& rng) {
  namespace ex = examples::flash_attention;
  char config[128];
  std::snprintf(config, sizeof config, "contiguous B%d HKV%d S%d", b, kv_heads, len);
  bench::configuration(config, [&] {
    const CompileOptions how{.subs = {{ex::B, b}, {ex::H, kv_heads}, {ex::M, 1}, {ex::K2, len}, {ex::K1, d}, {ex::N, d},
                                      {ex::BLOCK_M, 16}, {ex::BLOCK_K2, 128}},
                             .cache = false};
    const CompiledKernel kernel = compile(examples::decode_attention::make_kernel(d, 4), how);
    runtime::DeviceBuffer q(std::size_t(b) * kv_heads * d * 2), k(std::size_t(b) * kv_heads * len * d * 2), v(k.size()),
        o(std::size_t(b) * kv_heads * d * 4);
    bench::fill_random(q, rng, bench::Format::f16, true);
    bench::fill_random(k, rng, bench::Format::f16, true);
    bench::fill_random(v, rng, bench::Format::f16, true);
    auto launch = [&] { kernel.launch({at(q), at(k), at(v), at(o)}); };
    bench::poison(o);
    launch();
    const std::string wrong = bench::check_output(o, bench::Format::f32, 1, rng, [](std::size_t) {
      return bench::Expected{0.0, 1.0};  // finite, every element written; |out| <= max |v| < 1
    });
    if (!wrong.empty()) return bench::refuse(config, wrong);
    const double ms = bench::median_ms(launch, 50);
    std::printf("%-44s %9.1f %9.1f\n", config, ms * 1e3, 2.0 * b * kv_heads * len * d * 2 / (ms * 1e6));
  });
}

}  // namespace

int WAVE_BENCH_MAIN(int, char**) {
  if (!bench::open_device()) return 77;
  std::printf("32 query heads over 8 kv heads, D 128, f16 cache and output\n");
  std::printf("%-44s %9s %9s %11s\n", "", "us", "GB/s", "compile ms");
  std::mt19937 rng(3);
  std::vector<int> mixed(16);
  std::uniform_int_distribution<int> length(1, 8192);
  for (int& len : mixed) len = length(rng);
  mixed[0] = 1;
  mixed[1] = 37;
  const std::vector<Batch> batches{{"B16 S1024", std::vector<int>(16, 1024)},
                                   {"B16 S8192", std::vector<int>(16, 8192)},
                                   {"B4 S32768", std::vector<int>(4, 32768)},
                                   {"B16 mixed 1-8192", mixed}};
  for (const Batch& batch : batches) {
    const int longest = *std::max_element(batch.lengths.begin(), batch.lengths.end());
    for (int page : {16, 64}) {
      const PagedData data(batch.lengths, 32, 8, 128, page, rng);  // (random caches take seconds to make)
      for (int splits : {4, 8, 32})
        if (longest / splits >= 256 && (splits != 4 || longest <= 1024)) time_paged(batch, data, splits);
    }
  }
  time_contiguous(16, 8, 1024, 128, rng);
  time_contiguous(16, 8, 8192, 128, rng);
  time_contiguous(4, 8, 32768, 128, rng);
  return 0;
}
