// Collectives across the GPUs of the node, written as wave kernels on symmetric buffers
// (examples/kernels/collectives.hpp): the one-shot all-reduce of bf16 from 64 KiB to
// 1 GiB per rank. Bus bandwidth as NCCL reports it (bytes / time x 2 (ranks - 1) / ranks),
// the median of 25 timed runs after warm-up, each run device events on every rank's
// device around back-to-back launches; each size's sums checked first, every element
// against float64. NCCL's numbers come from bench/allreduce_vs_nccl.py in the same run.
//
//   wave-bench-collectives [RANKS]    RANKS GPUs (default: all, at least 2); on one GPU,
//                                     2 emulated ranks (the logic, not NVLink)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <wave/distributed.hpp>
#include <wave/runtime.hpp>

#include "bench.hpp"
#include "kernels/collectives.hpp"

using namespace wave;
namespace co = examples::collectives;

int WAVE_BENCH_MAIN(int argc, char** argv) {
  if (!bench::open_device()) return 77;
  const int gpus = runtime::device_count();
  const int count = argc > 1 ? std::atoi(argv[1]) : std::max(gpus, 2);
  const Ranks ranks = gpus >= count ? Ranks::on_devices(count) : Ranks::emulated(count);
  std::printf("%d ranks on %s\n", count, gpus >= count ? "as many GPUs" : "one GPU (emulated)");
  std::printf("%12s %10s %12s %12s  %s\n", "bytes/rank", "us", "algbw GB/s", "busbw GB/s", "tiling");
  std::mt19937 rng(7);
  for (std::size_t bytes = std::size_t(64) << 10; bytes <= (std::size_t(1) << 30); bytes *= 4) {
    const auto n = static_cast<std::int64_t>(bytes / 2);
    runtime::SymmetricBuffer slots(bytes, ranks.devices);
    const auto slot = static_cast<std::int64_t>(slots.slot_bytes() / 2);
    const std::int64_t block = 4096;
    const auto reduce = compile(co::all_reduce<bf16>(),
                                {.subs = {{co::RANKS, count}, {co::SLOT, slot}, {co::N, n}, {co::BLOCK_N, block}}},
                                ranks);
    std::vector<std::vector<std::uint16_t>> inputs(static_cast<std::size_t>(count));
    std::vector<double> want(static_cast<std::size_t>(n), 0.0);
    std::uniform_int_distribution<std::uint32_t> bits(0x3e00, 0x3f7f), sign(0, 1);
    for (int r = 0; r < count; ++r) {
      auto& in = inputs[static_cast<std::size_t>(r)];
      in.resize(static_cast<std::size_t>(n));
      for (std::size_t k = 0; k < in.size(); ++k) {
        in[k] = static_cast<std::uint16_t>(bits(rng) | (sign(rng) ? 0x8000u : 0u));
        want[k] += bench::decode(in[k], bench::Format::bf16);
      }
      slots.copy_from_host(r, in.data(), bytes);
    }
    std::vector<runtime::DeviceBuffer> outs;
    std::vector<std::vector<const void*>> pointers;
    for (int device : ranks.devices) {
      outs.emplace_back(bytes, device);
      outs.back().fill_bytes(0xFF);
      pointers.push_back({slots.slot(0), reinterpret_cast<const void*>(outs.back().address())});
    }
    reduce.launch(pointers);
    for (int device : ranks.devices) runtime::synchronize(device);
    std::size_t wrong = 0;
    for (const auto& out : outs) {
      std::vector<std::uint16_t> got(static_cast<std::size_t>(n));
      out.copy_to_host(got.data());
      for (std::size_t k = 0; k < got.size(); ++k)
        wrong += !(std::abs(bench::decode(got[k], bench::Format::bf16) - want[k]) <= 1e-2 * (1 + std::abs(want[k])));
    }
    if (wrong) {
      std::printf("%12zu WRONG: %zu elements differ from the float64 sums\n", bytes, wrong);
      return 1;
    }
    const double ms = bench::median_ms(ranks.devices, [&] { reduce.launch(pointers); }, 25);
    const double algbw = double(bytes) / (ms * 1e-3) / 1e9;
    std::printf("%12zu %10.1f %12.1f %12.1f  BLOCK_N %lld, 4 waves, one-shot (every rank reads every slot)\n", bytes,
                ms * 1e3, algbw, algbw * 2.0 * (count - 1) / count, static_cast<long long>(block));
  }
  return 0;
}
