// Collectives across the GPUs of the node, written as wave kernels on symmetric buffers
// (examples/kernels/collectives.hpp): all-reduce of bf16 from 64 KiB to 1 GiB per rank,
// three ways: `host-ordered` (all_reduce: one-shot, the host orders the ranks, so its time
// leaves out their synchronization), `one-shot` and `two-shot` (all_reduce_one_shot and
// all_reduce_two_shot: each rank's blocks meet their peers' through flags, so the time is
// a whole all-reduce, as NCCL's is). Bus bandwidth as NCCL reports it (bytes / time x
// 2 (ranks - 1) / ranks), the median of 25 timed runs after warm-up, each run device
// events on every rank's device around 10 back-to-back launches; each size's sums checked
// first against float64 (every element up to 4 Mi, a million sampled past that). The
// ordered kinds try two loop tiles and up to 2 or 8 blocks per SM, and print the fastest. NCCL's numbers come from bench/allreduce_vs_nccl.py in the same run.
//
//   wave-bench-collectives [RANKS]    RANKS GPUs (default: all, at least 2); on one GPU,
//                                     emulated ranks (the logic, not NVLink)
//   wave-bench-collectives RANKS sweep  the ordered kinds' tilings at 4-256 MiB, each
//                                     printed
#include <algorithm>
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
#include "kernels/collectives.hpp"

using namespace wave;
namespace co = examples::collectives;

namespace {

struct Timed {
  double ms = 0;
  std::string tiling;
};

// Each rank's result (`read(r, host)` copies it) within bf16's rounding of the float64
// sums: every element up to 4 Mi of them, past that every k-th from a random start (a
// million of them) and the last one.
template <class Read>
std::size_t wrong_sums(int ranks, const std::vector<double>& want, Read read, std::mt19937& rng) {
  std::size_t wrong = 0;
  std::vector<std::uint16_t> got(want.size());
  const std::size_t step = want.size() <= (std::size_t(4) << 20) ? 1 : want.size() >> 20;
  auto check = [&](std::size_t k) {
    wrong += !(std::abs(bench::decode(got[k], bench::Format::bf16) - want[k]) <= 1e-2 * (1 + std::abs(want[k])));
  };
  for (int r = 0; r < ranks; ++r) {
    read(r, got.data());
    for (std::size_t k = std::uniform_int_distribution<std::size_t>(0, step - 1)(rng); k < got.size(); k += step)
      check(k);
    check(got.size() - 1);
  }
  return wrong;
}

}  // namespace

int WAVE_BENCH_MAIN(int argc, char** argv) {
  if (!bench::open_device()) return 77;
  const int gpus = runtime::device_count();
  const int count = argc > 1 ? std::atoi(argv[1]) : std::max(gpus, 2);
  const Ranks ranks = gpus >= count ? Ranks::on_devices(count) : Ranks::emulated(count);
  const int sms = runtime::device_info(ranks.devices[0]).multiprocessors;
  // `sweep`: 4-256 MiB only, every tiling of the ordered kinds printed.
  const bool sweep = argc > 2 && std::string(argv[2]) == "sweep";
  std::printf("%d ranks on %s\n", count, gpus >= count ? "as many GPUs" : "one GPU (emulated)");
  std::printf("%12s %10s %12s %12s  %s\n", "bytes/rank", "us", "algbw GB/s", "busbw GB/s", "kind, tiling");
  // A stream per rank that the default stream's events bracket (synchronized): the ranks'
  // kernels run at once even when emulated on one GPU, as the ordered kinds need.
  std::vector<std::unique_ptr<runtime::Stream>> streams;
  std::vector<const runtime::Stream*> on;
  for (int device : ranks.devices) {
    streams.push_back(std::make_unique<runtime::Stream>(device));
    on.push_back(streams.back().get());
  }
  std::mt19937 rng(7);
  for (std::size_t bytes = std::size_t(64) << (sweep ? 16 : 10); bytes <= (std::size_t(1) << (sweep ? 28 : 30));
       bytes *= 4) {
    const auto n = static_cast<std::int64_t>(bytes / 2);
    runtime::SymmetricBuffer slots(bytes, ranks.devices), sums(bytes, ranks.devices);
    const auto slot = static_cast<std::int64_t>(slots.slot_bytes() / 2);
    std::vector<double> want(static_cast<std::size_t>(n), 0.0);
    {
      std::uniform_int_distribution<std::uint32_t> bits(0x3e00, 0x3f7f), sign(0, 1);
      std::vector<std::uint16_t> in(static_cast<std::size_t>(n));
      for (int r = 0; r < count; ++r) {
        for (std::size_t k = 0; k < in.size(); ++k) {
          in[k] = static_cast<std::uint16_t>(bits(rng) | (sign(rng) ? 0x8000u : 0u));
          want[k] += bench::decode(in[k], bench::Format::bf16);
        }
        slots.copy_from_host(r, in.data(), bytes);
      }
    }
    std::vector<runtime::DeviceBuffer> outs;
    for (int device : ranks.devices) outs.emplace_back(bytes, device);
    auto report = [&](const char* kind, const Timed& t) {
      const double algbw = double(bytes) / (t.ms * 1e-3) / 1e9;
      std::printf("%12zu %10.1f %12.1f %12.1f  %s, %s\n", bytes, t.ms * 1e3, algbw, algbw * 2.0 * (count - 1) / count,
                  kind, t.tiling.c_str());
      std::fflush(stdout);
    };

    // The host orders the ranks: inputs written before, read only.
    if (!sweep) {
      const std::int64_t block = 4096;
      const auto reduce = compile(co::all_reduce<bf16>(),
                                  {.subs = {{co::RANKS, count}, {co::SLOT, slot}, {co::N, n}, {co::BLOCK_N, block}}},
                                  ranks);
      std::vector<std::vector<const void*>> pointers;
      for (const auto& out : outs) pointers.push_back({slots.slot(0), reinterpret_cast<const void*>(out.address())});
      for (auto& out : outs) out.fill_bytes(0xFF);
      reduce.launch(pointers);
      for (int device : ranks.devices) runtime::synchronize(device);
      if (std::size_t wrong =
              wrong_sums(count, want, [&](int r, void* host) { outs[std::size_t(r)].copy_to_host(host); }, rng)) {
        std::printf("%12zu WRONG: host-ordered, %zu elements differ from the float64 sums\n", bytes, wrong);
        return 1;
      }
      report("host-ordered", {bench::median_ms(ranks.devices, [&] { reduce.launch(pointers); }, 25),
                              "BLOCK_N " + std::to_string(block) + ", 4 waves"});
    }

    // Ordered by the kernels: the fastest of a few tilings, each checked first.
    for (bool two_shot : {false, true}) {
      const std::int64_t n_rank = (n + count - 1) / count, part = two_shot ? n_rank : n;
      Timed best;
      for (std::int64_t tile : {2048, 8192})
        for (int per_sm : {2, 8}) {
          const std::int64_t blocks = std::clamp<std::int64_t>((part + tile - 1) / tile, 1, per_sm * sms);
          if (per_sm > 2 && blocks <= 2 * sms) continue;  // (the same count as 2 per SM: already timed)
          runtime::SymmetricBuffer flags(std::size_t(2 * blocks * count) * 4, ranks.devices);
          flags.fill_bytes(0);
          CompileOptions options{.subs = {{co::RANKS, count}, {co::SLOT, slot}, {co::N, n}, {co::W, blocks},
                                          {co::E, tile * ((part + blocks * tile - 1) / (blocks * tile))},
                                          {co::TILE_E, tile},
                                          {co::FLAGS, static_cast<std::int64_t>(flags.slot_bytes() / 4)}}};
          if (two_shot) options.subs.push_back({co::N_RANK, n_rank});
          const auto reduce = two_shot ? compile(co::all_reduce_two_shot<bf16>(), options, ranks)
                                       : compile(co::all_reduce_one_shot<bf16>(), options, ranks);
          std::vector<std::vector<const void*>> pointers;
          for (const auto& out : outs)
            pointers.push_back({slots.slot(0), flags.slot(0),
                                two_shot ? sums.slot(0) : reinterpret_cast<const void*>(out.address())});
          for (auto& out : outs) out.fill_bytes(0xFF);
          sums.fill_bytes(0xFF);
          for (int device : ranks.devices) runtime::synchronize(device);
          reduce.launch(pointers, on);
          for (int device : ranks.devices) runtime::synchronize(device);
          const std::size_t wrong = wrong_sums(
              count, want,
              [&](int r, void* host) {
                if (two_shot) sums.copy_to_host(r, host, bytes);
                else outs[std::size_t(r)].copy_to_host(host);
              },
              rng);
          if (wrong) {
            std::printf("%12zu WRONG: %s, %zu elements differ from the float64 sums\n", bytes,
                        two_shot ? "two-shot" : "one-shot", wrong);
            return 1;
          }
          const double ms = bench::median_ms(ranks.devices, [&] { reduce.launch(pointers, on); }, 25);
          const Timed timed{ms, std::to_string(blocks) + " blocks per rank, TILE_E " + std::to_string(tile) + ", 4 waves"};
          if (sweep) report(two_shot ? "two-shot" : "one-shot", timed);
          if (best.tiling.empty() || ms < best.ms) best = timed;
        }
      report(two_shot ? "two-shot" : "one-shot", best);
    }
  }
  return 0;
}
