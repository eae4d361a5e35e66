// Tensor-parallel GEMMs with the communication inside the kernel
// (examples/kernels/tensor_parallel.hpp), on the GPUs of the node: the row-parallel
// layer's GEMM + reduce-scatter, each rank's epilogue adding its partial rows to their
// owner's slot, against the same GEMM alone on each rank (its partial C written to local
// memory: no communication), in the same run; then GEMM + all-reduce (lines "AR": each
// rank's partial product added to every rank's slot). bf16 in and out, f32 accumulators, the
// 128x256x64 tiling of 2 x 4 waves. The slots accumulate over the timed launches (a
// residual add), so no zeroing is timed. Each line: the median of 25 runs of 10
// back-to-back launches, device events on every rank's GPU; sampled elements of the fused
// output checked against float64 first. Then the column-parallel layer's all-gather +
// GEMM (lines "AG ..."): the GEMM alone, the gather then the GEMM, and the two overlapped.
// bench/gemm_rs_vs_nccl.py times cuBLAS's GEMM and NCCL's reduce-scatter / all-gather on
// the same shapes.
//
//   wave-bench-tensor-parallel [RANKS]   RANKS GPUs (default: all, at least 2); on one GPU,
//                                        2 emulated ranks (the logic, not NVLink)
//   wave-bench-tensor-parallel RANKS why the all-gather + GEMM only, with where its time goes
//   wave-bench-tensor-parallel RANKS rs-why  the GEMM + reduce-scatter and GEMM + all-reduce only,
//                                        with where the former's time goes (its adds into the
//                                        rank's own slot, no NVLink)
//
// Each kernel under three GEMM schedules (tp::kGemmSchedules), named at the end of its line;
// bench/gemm_rs_vs_nccl.py takes each shape's fastest fused kernel.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <wave/distributed.hpp>
#include <wave/runtime.hpp>

#include "bench.hpp"
#include "kernels/gemm.hpp"
#include "kernels/tensor_parallel.hpp"

using namespace wave;
namespace tp = examples::tensor_parallel;
namespace g = examples::gemm;

namespace {

struct Shape {
  int m, n, k;  // the whole layer: C[M, N] = A[M, K] B[N, K]^T, K split over the ranks
};

// Elements of the fused output (rank p's slot, row-major: its share of the rows for the
// reduce-scatter, all M rows for the all-reduce) off the float64 sums of every rank's
// partial product; `a` and `b` are each rank's shards (host values).
std::size_t sampled_mismatches(const runtime::SymmetricBuffer& out, const Shape& s, int count,
                               const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b,
                               std::mt19937& rng, bool all_rows = false) {
  const int share = all_rows ? s.m : s.m / count, k_rank = s.k / count;
  std::size_t wrong = 0;
  for (int p = 0; p < count; ++p) {
    std::vector<std::uint16_t> got(std::size_t(share) * s.n);
    out.copy_to_host(p, got.data(), got.size() * 2);
    const std::size_t first = all_rows ? 0 : std::size_t(p) * share;
    for (int sample = 0; sample < 512; ++sample) {
      const int row = std::uniform_int_distribution<int>(0, share - 1)(rng);
      const int col = std::uniform_int_distribution<int>(0, s.n - 1)(rng);
      double want = 0, magnitude = 0;
      for (int r = 0; r < count; ++r)
        for (int kk = 0; kk < k_rank; ++kk) {
          const double product = double(a[std::size_t(r)][(first + row) * k_rank + kk]) *
                                 b[std::size_t(r)][std::size_t(col) * k_rank + kk];
          want += product;
          magnitude += std::abs(product);
        }
      // bf16: each of the 2 * count roundings (a partial's cast, its add) half an ulp.
      const double got_value = bench::decode(got[std::size_t(row) * s.n + col], bench::Format::bf16);
      wrong += !(std::abs(got_value - want) <= count * std::ldexp(1.0, -8) * (1 + magnitude));
    }
  }
  return wrong;
}

// The column-parallel layer after a sequence-parallel part: A's rows gathered from every
// rank (M x K, M / ranks rows each) times this rank's N / ranks columns of the weights.
// Lines start with "AG". Times: the GEMM alone (the rows already gathered, the flags
// set), the gather then the GEMM (the GEMM's stream waits for the copies), and the
// gather overlapped (queue_gather: each workgroup waits for its rows' chunk and takes 1
// from its flag, so nothing is reset on the GEMM's stream).
int allgather_gemm(const Ranks& ranks, std::mt19937& rng, bool diagnose) {
  const int count = ranks.count();
  if (ranks.devices.front() == ranks.devices.back()) {
    // Copies within one GPU may run as kernels, which cannot start while a GEMM filling
    // every SM waits for them: the overlap needs the copy engines between GPUs.
    std::printf("AG not timed on emulated ranks (the gather needs copies between GPUs)\n");
    return 0;
  }
  std::printf("AG %6s %6s %6s %5s %6s %9s %9s %13s %9s %9s %7s  %s\n", "M", "N", "K", "ranks", "chunks", "GEMM us",
              "TFLOP/s", "gather+GEMM us", "overlap us", "TFLOP/s", "hidden", "tiling (per rank: M x N/ranks x K)");
  const int bm = 128, bn = 256, bk = 64, wm = 64, wn = 64;
  for (Shape s : {Shape{4096, 8192, 8192}, Shape{8192, 8192, 8192}, Shape{8192, 28672, 8192}})
    for (const tp::GemmSchedule& schedule : tp::kGemmSchedules) {
      const int share = s.m / count, n_rank = s.n / count, pieces = share / 1024 > 0 ? share / 1024 : 1;
      const int chunks = count * pieces;
      const CompileOptions options = tp::scheduled(
          {.subs = {{g::M, s.m}, {g::N, n_rank}, {g::K, s.k}, {g::BLOCK_M, bm}, {g::BLOCK_N, bn}, {g::BLOCK_K, bk},
                    {g::WAVE_M, wm}, {g::WAVE_N, wn}, {tp::M_RANK, share}, {tp::CHUNKS, chunks},
                    {tp::CHUNK_ROWS, share / pieces}}},
          schedule);
      const auto gemm = compile(tp::allgather_gemm<bf16, bf16>(), options, ranks);
      const std::size_t shard_bytes = std::size_t(share) * s.k * 2;
      // Rank q's slot: its own rows first (as the layer before wrote them), the peers' after.
      runtime::SymmetricBuffer gathered(std::size_t(s.m) * s.k * 2, ranks.devices);
      std::vector<std::vector<float>> a_values;  // rank q's rows, host values
      for (int q = 0; q < count; ++q) {
        runtime::DeviceBuffer staging(shard_bytes, ranks.devices[std::size_t(q)]);
        a_values.push_back(bench::fill_random(staging, rng, bench::Format::bf16, true));
        std::vector<std::uint16_t> bits(shard_bytes / 2);
        staging.copy_to_host(bits.data());
        gathered.copy_from_host(q, bits.data(), shard_bytes);
      }
      std::vector<runtime::DeviceBuffer> bs, flags, cs;
      std::vector<std::vector<float>> b_values;
      std::vector<std::unique_ptr<runtime::Stream>> streams;
      std::vector<const runtime::Stream*> compute, copies;
      std::vector<void*> flags_at;
      std::vector<std::vector<const void*>> args;
      for (int r = 0; r < count; ++r) {
        const int device = ranks.devices[std::size_t(r)];
        bs.emplace_back(std::size_t(n_rank) * s.k * 2, device);
        b_values.push_back(bench::fill_random(bs.back(), rng, bench::Format::bf16, true));
        flags.emplace_back(std::size_t(chunks) * 4, device);
        cs.emplace_back(std::size_t(s.m) * n_rank * 2, device);
        cs.back().fill_bytes(0xFF);
        streams.push_back(std::make_unique<runtime::Stream>(device));
        compute.push_back(streams.back().get());
        streams.push_back(std::make_unique<runtime::Stream>(device, runtime::StreamKind::independent));
        copies.push_back(streams.back().get());
        flags_at.push_back(reinterpret_cast<void*>(flags.back().address()));
        args.push_back({gathered.slot(r), reinterpret_cast<const void*>(bs.back().address()), flags_at.back(),
                        reinterpret_cast<const void*>(cs.back().address())});
      }
      const int takers = tp::chunk_takers(share / pieces, bm, n_rank, bn);
      auto overlapped = [&] {
        tp::queue_gather(gathered, shard_bytes, flags_at, pieces, takers, compute, copies);
        gemm.launch(args, compute);
      };
      overlapped();
      for (const auto& st : streams) st->synchronize();
      // Sampled elements of each rank's C against float64.
      std::size_t wrong = 0;
      for (int r = 0; r < count; ++r) {
        std::vector<std::uint16_t> got(std::size_t(s.m) * n_rank);
        cs[std::size_t(r)].copy_to_host(got.data());
        for (int sample = 0; sample < 256; ++sample) {
          const int row = std::uniform_int_distribution<int>(0, s.m - 1)(rng);
          const int col = std::uniform_int_distribution<int>(0, n_rank - 1)(rng);
          double want = 0, magnitude = 0;
          for (int kk = 0; kk < s.k; ++kk) {
            const double product = double(a_values[std::size_t(row / share)][std::size_t(row % share) * s.k + kk]) *
                                   b_values[std::size_t(r)][std::size_t(col) * s.k + kk];
            want += product;
            magnitude += std::abs(product);
          }
          const double g_value = bench::decode(got[std::size_t(row) * n_rank + col], bench::Format::bf16);
          wrong += !(std::abs(g_value - want) <= std::ldexp(1.0, -8) * (1 + magnitude));
        }
      }
      if (wrong) {
        std::printf("AG %6d %6d %6d WRONG: %zu sampled elements differ from the float64 sums\n", s.m, s.n, s.k, wrong);
        return 1;
      }
      // The GEMM alone: the gathered rows stay, the flags set high enough for every launch
      // to take from; then back to 0 for the gathers.
      auto set_flags = [&](std::uint8_t byte) {
        for (auto& f : flags) f.fill_bytes(byte);
        for (int device : ranks.devices) runtime::synchronize(device);
      };
      set_flags(0x3f);
      const double alone_ms = bench::median_ms(ranks.devices, [&] { gemm.launch(args, compute); }, 25);
      set_flags(0);
      const double sequential_ms = bench::median_ms(
          ranks.devices,
          [&] {
            tp::queue_gather(gathered, shard_bytes, flags_at, pieces, takers, compute, copies);
            for (int r = 0; r < count; ++r) compute[std::size_t(r)]->wait_for(*copies[std::size_t(r)]);
            gemm.launch(args, compute);
          },
          25);
      const double overlapped_ms = bench::median_ms(ranks.devices, overlapped, 25);
      if (diagnose) {
        // Where the overlap's time goes: the flags' stream writes alone before the GEMM; the
        // copies running beside a GEMM that does not wait (its flags stay set); the copies alone.
        auto copy_all = [&] {
          for (int r = 0; r < count; ++r)
            for (int q = 1; q < count; ++q)
              runtime::copy_async(
                  static_cast<char*>(const_cast<void*>(gathered.slot(r))) + std::size_t(q) * shard_bytes,
                  gathered.slot((r + q) % count), shard_bytes, *copies[std::size_t(r)]);
        };
        const double flags_ms = bench::median_ms(
            ranks.devices,
            [&] {
              for (int r = 0; r < count; ++r)
                for (int c = 0; c < chunks; ++c)
                  runtime::set_flag_async(static_cast<std::uint32_t*>(flags_at[std::size_t(r)]) + c,
                                          static_cast<std::uint32_t>(takers), *compute[std::size_t(r)]);
              gemm.launch(args, compute);
            },
            25);
        set_flags(0x3f);
        const double beside_ms = bench::median_ms(
            ranks.devices,
            [&] {
              copy_all();
              gemm.launch(args, compute);
              for (int r = 0; r < count; ++r) compute[std::size_t(r)]->wait_for(*copies[std::size_t(r)]);
            },
            25);
        set_flags(0);
        const double copies_ms = bench::median_ms(
            ranks.devices,
            [&] {
              copy_all();
              for (int r = 0; r < count; ++r) compute[std::size_t(r)]->wait_for(*copies[std::size_t(r)]);
            },
            25);
        std::printf("AG-why %6d %6d %6d: GEMM after flag writes %.1f us, beside the copies (no wait) %.1f us, "
                    "copies alone %.1f us\n",
                    s.m, s.n, s.k, flags_ms * 1e3, beside_ms * 1e3, copies_ms * 1e3);
      }
      const double flops = 2.0 * s.m * n_rank * s.k;  // per rank
      // Of the time the gather adds when sequential, the part the overlap hides.
      const double hidden = (sequential_ms - overlapped_ms) / std::max(1e-9, sequential_ms - alone_ms);
      std::printf("AG %6d %6d %6d %5d %6d %9.1f %9.1f %13.1f %9.1f %9.1f %7.2f  %dx%dx%d/%dx%d, %d x %d x %d, %s\n",
                  s.m, s.n, s.k, count, chunks, alone_ms * 1e3, flops / (alone_ms * 1e9), sequential_ms * 1e3,
                  overlapped_ms * 1e3, flops / (overlapped_ms * 1e9), hidden, bm, bn, bk, wm, wn, s.m, n_rank, s.k,
                  schedule.name);
      std::fflush(stdout);
    }
  return 0;
}

}  // namespace

int WAVE_BENCH_MAIN(int argc, char** argv) {
  if (!bench::open_device()) return 77;
  const int gpus = runtime::device_count();
  const int count = argc > 1 ? std::atoi(argv[1]) : std::max(gpus, 2);
  const Ranks ranks = gpus >= count ? Ranks::on_devices(count) : Ranks::emulated(count);
  std::printf("%d ranks on %s\n", count, gpus >= count ? "as many GPUs" : "one GPU (emulated)");
  std::printf("%6s %6s %6s %5s %11s %9s %11s %9s %7s  %s\n", "M", "N", "K", "ranks", "GEMM us", "TFLOP/s",
              "GEMM+RS us", "TFLOP/s", "ratio", "tiling (per rank: M x N x K / ranks)");
  const int bm = 128, bn = 256, bk = 64, wm = 64, wn = 64;
  std::mt19937 rng(11);
  if (argc > 2 && std::string(argv[2]) == "why") return allgather_gemm(ranks, rng, true);
  const bool rs_why = argc > 2 && std::string(argv[2]) == "rs-why";
  for (Shape s : {Shape{4096, 8192, 8192}, Shape{8192, 8192, 8192}, Shape{8192, 8192, 28672}})
    for (const tp::GemmSchedule& schedule : tp::kGemmSchedules) {
      const int share = s.m / count, k_rank = s.k / count;
      runtime::SymmetricBuffer out(std::size_t(share) * s.n * 2, ranks.devices);
      const auto slot = static_cast<std::int64_t>(out.slot_bytes() / 2);
      const std::vector<Sub> tiles{{g::M, s.m},         {g::N, s.n},         {g::K, k_rank},
                                   {g::BLOCK_M, bm},    {g::BLOCK_N, bn},    {g::BLOCK_K, bk},
                                   {g::WAVE_M, wm},     {g::WAVE_N, wn}};
      CompileOptions fused_options = tp::scheduled({.subs = tiles}, schedule);
      fused_options.subs.insert(fused_options.subs.end(), {{tp::RANKS, count}, {tp::SLOT, slot}, {tp::M_RANK, share}});
      const auto fused = compile(tp::gemm_reduce_scatter<bf16, bf16>(), fused_options, ranks);
      const auto alone =
          compile(g::make_with_wave_tiles<bf16, bf16>(), tp::scheduled({.subs = tiles}, schedule), ranks);
      std::vector<runtime::DeviceBuffer> as, bs, cs;
      std::vector<std::vector<float>> a_values, b_values;
      std::vector<std::vector<const void*>> fused_args, alone_args;
      for (int device : ranks.devices) {
        as.emplace_back(std::size_t(s.m) * k_rank * 2, device);
        bs.emplace_back(std::size_t(s.n) * k_rank * 2, device);
        cs.emplace_back(std::size_t(s.m) * s.n * 2, device);
        a_values.push_back(bench::fill_random(as.back(), rng, bench::Format::bf16, true));
        b_values.push_back(bench::fill_random(bs.back(), rng, bench::Format::bf16, true));
        const auto* a = reinterpret_cast<const void*>(as.back().address());
        const auto* b = reinterpret_cast<const void*>(bs.back().address());
        fused_args.push_back({a, b, out.slot(0)});
        alone_args.push_back({a, b, reinterpret_cast<const void*>(cs.back().address())});
      }
      out.fill_bytes(0);
      fused.launch(fused_args);
      for (int device : ranks.devices) runtime::synchronize(device);
      if (const std::size_t wrong = sampled_mismatches(out, s, count, a_values, b_values, rng)) {
        std::printf("%6d %6d %6d WRONG: %zu sampled elements differ from the float64 sums\n", s.m, s.n, s.k, wrong);
        return 1;
      }
      const double alone_ms = bench::median_ms(ranks.devices, [&] { alone.launch(alone_args); }, 25);
      const double fused_ms = bench::median_ms(ranks.devices, [&] { fused.launch(fused_args); }, 25);
      const double flops = 2.0 * s.m * s.n * k_rank;  // per rank
      std::printf("%6d %6d %6d %5d %11.1f %9.1f %11.1f %9.1f %7.3f  %dx%dx%d/%dx%d, %d x %d x %d, %s\n", s.m, s.n,
                  s.k, count, alone_ms * 1e3, flops / (alone_ms * 1e9), fused_ms * 1e3, flops / (fused_ms * 1e9),
                  alone_ms / fused_ms, bm, bn, bk, wm, wn, s.m, s.n, k_rank, schedule.name);
      std::fflush(stdout);
      if (rs_why) {
        // The same adds, each rank's into its own slot (rows folded onto its share): the
        // epilogue's atomics without NVLink. A diagnostic: its sums are not checked.
        static const IndexMapping<dims<g::M, g::N>> to_own_slot{
            .inputs = {{g::M, tp::i}, {g::N, tp::j}},
            .outputs = {{tp::RANKS, RANK}, {tp::SLOT, tp::i % tp::M_RANK * g::N + tp::j}}};
        const auto local = compile(
            tp::partial_gemm<bf16, bf16>("gemm_add_to_own_slot",
                                         [](const auto& sums, const auto& o) { atomic_add(sums, o, to_own_slot); }),
            fused_options, ranks);
        const double local_ms = bench::median_ms(ranks.devices, [&] { local.launch(fused_args); }, 25);
        // The same traffic as plain stores: each partial written over its owner's slot.
        const auto stores = compile(tp::partial_gemm<bf16, bf16>("gemm_write_to_owners",
                                                                  [](const auto& sums, const auto& o) {
                                                                    write(sums, o, tp::kToOwner);
                                                                  }),
                                    fused_options, ranks);
        const double stores_ms = bench::median_ms(ranks.devices, [&] { stores.launch(fused_args); }, 25);
        std::printf("RS-why %6d %6d %6d: GEMM alone %.1f us, adds to its own slot %.1f us, stores to the owners' %.1f "
                    "us, adds to the owners' %.1f us\n",
                    s.m, s.n, s.k, alone_ms * 1e3, local_ms * 1e3, stores_ms * 1e3, fused_ms * 1e3);
        std::fflush(stdout);
      }
      // GEMM + all-reduce (lines "AR"): each rank's partial product added to every rank's
      // slot of all M x N; the same GEMM alone beside it.
      runtime::SymmetricBuffer everyone(std::size_t(s.m) * s.n * 2, ranks.devices);
      CompileOptions all_options = tp::scheduled({.subs = tiles}, schedule);
      all_options.subs.insert(all_options.subs.end(),
                              {{tp::RANKS, count}, {tp::SLOT, static_cast<std::int64_t>(everyone.slot_bytes() / 2)}});
      const auto all_reduce = compile(tp::gemm_all_reduce<bf16, bf16>(), all_options, ranks);
      std::vector<std::vector<const void*>> all_args;
      for (const auto& args : fused_args) all_args.push_back({args[0], args[1], everyone.slot(0)});
      everyone.fill_bytes(0);
      all_reduce.launch(all_args);
      for (int device : ranks.devices) runtime::synchronize(device);
      if (const std::size_t wrong = sampled_mismatches(everyone, s, count, a_values, b_values, rng, true)) {
        std::printf("AR %6d %6d %6d WRONG: %zu sampled elements differ from the float64 sums\n", s.m, s.n, s.k, wrong);
        return 1;
      }
      const double all_ms = bench::median_ms(ranks.devices, [&] { all_reduce.launch(all_args); }, 25);
      std::printf("AR %6d %6d %6d %5d %11.1f %9.1f %11.1f %9.1f %7.3f  %dx%dx%d/%dx%d, %d x %d x %d, %s\n", s.m, s.n,
                  s.k, count, alone_ms * 1e3, flops / (alone_ms * 1e9), all_ms * 1e3, flops / (all_ms * 1e9),
                  alone_ms / all_ms, bm, bn, bk, wm, wn, s.m, s.n, k_rank, schedule.name);
      std::fflush(stdout);
    }
  return rs_why ? 0 : allgather_gemm(ranks, rng, false);
}
