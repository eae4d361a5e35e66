// Kernels spread over several ranks (wave/distributed.hpp): collectives on symmetric
// buffers and a GEMM whose rows a DeviceConstraint splits, each rank's output checked
// element by element against a double-precision reference on random data, outputs
// poisoned first. Ranks are emulated on device 0 (2, 3 and 4 of them), and are real GPUs
// where the machine has several.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
#include <type_traits>
#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "host_half.hpp"
#include "kernels/collectives.hpp"
#include "kernels/gemm.hpp"
#include "kernels/tensor_parallel.hpp"
#include "wave/distributed.hpp"
#include "wave/runtime.hpp"

using namespace wave;
namespace co = examples::collectives;
using examples::tensor_parallel::GemmSchedule;
using examples::tensor_parallel::kGemmSchedules;

namespace {

// An element type on the host: random values in [-1, 1), their value, a tolerance.
template <class T>
struct Host;
template <>
struct Host<f32> {
  using Bits = float;
  static Bits random(std::mt19937& rng) { return std::uniform_real_distribution<float>(-1, 1)(rng); }
  static double value(Bits b) { return b; }
  static constexpr double tolerance = 1e-5;
};
template <>
struct Host<f16> {
  using Bits = std::uint16_t;
  static Bits random(std::mt19937& rng) { return examples::host::random_half(rng); }
  static double value(Bits b) { return examples::host::half_to_float(b); }
  static constexpr double tolerance = 2e-3;
};
template <>
struct Host<bf16> {
  using Bits = std::uint16_t;
  static Bits random(std::mt19937& rng) { return examples::host::random_bfloat16(rng); }
  static double value(Bits b) { return examples::host::bfloat16_to_float(b); }
  static constexpr double tolerance = 1e-2;
};

// The rank sets every collective runs on: emulated ones, and the GPUs here where several.
std::vector<Ranks> rank_sets() {
  std::vector<Ranks> sets{Ranks::emulated(2), Ranks::emulated(3), Ranks::emulated(4)};
  const int gpus = runtime::device_count();
  for (int count = 2; count <= gpus && count <= 4; count *= 2) sets.push_back(Ranks::on_devices(count));
  return sets;
}

std::string describe(const Ranks& ranks) {
  std::string s = std::to_string(ranks.count()) + " ranks on devices";
  for (int d : ranks.devices) s += " " + std::to_string(d);
  return s;
}

// A tensor-parallel kernel's GEMM schedule (examples/kernels/tensor_parallel.hpp) on the
// tests' tiles: 32-wide K tiles pipelined, 64-wide ones (TMA's 128-byte rows) where a
// producer warpgroup issues the copies.
CompileOptions scheduled_on_test_tiles(CompileOptions options, const GemmSchedule& schedule) {
  options = examples::tensor_parallel::scheduled(options, schedule);
  if (schedule.warp_specialize)
    for (Sub& sub : options.subs)
      if (sub.symbol == "BLOCK_K") sub.value = 64;
  return options;
}

// Every rank's slot filled with `n` random elements; the host copies returned.
template <class T>
std::vector<std::vector<typename Host<T>::Bits>> fill_slots(runtime::SymmetricBuffer& slots, int n, std::mt19937& rng) {
  slots.fill_bytes(0xFF);  // NaN past the data: a read past it shows
  std::vector<std::vector<typename Host<T>::Bits>> data(static_cast<std::size_t>(slots.ranks()));
  for (int r = 0; r < slots.ranks(); ++r) {
    auto& mine = data[static_cast<std::size_t>(r)];
    mine.resize(static_cast<std::size_t>(n));
    for (auto& x : mine) x = Host<T>::random(rng);
    slots.copy_from_host(r, mine.data(), mine.size() * sizeof(mine[0]));
  }
  return data;
}

// One output buffer per rank, on its device, poisoned.
std::vector<runtime::DeviceBuffer> outputs(const Ranks& ranks, std::size_t bytes) {
  std::vector<runtime::DeviceBuffer> out;
  for (int device : ranks.devices) {
    out.emplace_back(bytes, device);
    out.back().fill_bytes(0xFF);
  }
  return out;
}

template <class Bits>
std::vector<Bits> to_host(const runtime::DeviceBuffer& buffer) {
  std::vector<Bits> host(buffer.size() / sizeof(Bits));
  buffer.copy_to_host(host.data());
  return host;
}

void synchronize(const Ranks& ranks) {
  for (int device : ranks.devices) runtime::synchronize(device);
}

// Elements of `got` farther from `want` than the type's tolerance (NaN counts).
template <class T>
std::size_t mismatches(const std::vector<typename Host<T>::Bits>& got, const std::vector<double>& want) {
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    const double g = Host<T>::value(got[k]);
    wrong += !(std::abs(g - want[k]) <= Host<T>::tolerance * (1 + std::abs(want[k])));
  }
  return wrong;
}

template <class T>
void check_all_reduce(const Ranks& ranks, int n, std::mt19937& rng) {
  using Bits = typename Host<T>::Bits;
  runtime::SymmetricBuffer slots(std::size_t(n) * sizeof(Bits), ranks.devices);
  const auto slot = static_cast<std::int64_t>(slots.slot_bytes() / sizeof(Bits));
  const auto reduce = compile(co::all_reduce<T>(),
                              {.subs = {{co::RANKS, ranks.count()}, {co::SLOT, slot}, {co::N, n}, {co::BLOCK_N, 1024}}},
                              ranks);
  const auto data = fill_slots<T>(slots, n, rng);
  std::vector<double> want(static_cast<std::size_t>(n), 0.0);
  for (const auto& mine : data)
    for (int k = 0; k < n; ++k) want[static_cast<std::size_t>(k)] += Host<T>::value(mine[static_cast<std::size_t>(k)]);
  auto out = outputs(ranks, std::size_t(n) * sizeof(Bits));
  std::vector<std::vector<const void*>> pointers;
  for (const auto& o : out) pointers.push_back({slots.slot(0), reinterpret_cast<const void*>(o.address())});
  reduce.launch(pointers);
  synchronize(ranks);
  for (int r = 0; r < ranks.count(); ++r) {
    INFO("rank " << r);
    CHECK(mismatches<T>(to_host<Bits>(out[static_cast<std::size_t>(r)]), want) == 0);
  }
}

// Reduce-scatter into each rank's own slot of a second symmetric buffer, then all-gather
// from those: a two-shot all-reduce, checked at both steps.
template <class T>
void check_reduce_scatter_all_gather(const Ranks& ranks, int share, std::mt19937& rng) {
  using Bits = typename Host<T>::Bits;
  const int count = ranks.count(), n = share * count;
  runtime::SymmetricBuffer slots(std::size_t(n) * sizeof(Bits), ranks.devices);
  runtime::SymmetricBuffer reduced(std::size_t(share) * sizeof(Bits), ranks.devices);
  const auto slot = static_cast<std::int64_t>(slots.slot_bytes() / sizeof(Bits));
  const auto reducedSlot = static_cast<std::int64_t>(reduced.slot_bytes() / sizeof(Bits));
  const auto scatter = compile(co::reduce_scatter<T>(),
                               {.subs = {{co::RANKS, count}, {co::SLOT, slot}, {co::N, n}, {co::N_RANK, share},
                                         {co::BLOCK_N, 1024}}},
                               ranks);
  const auto gather = compile(co::all_gather<T>(),
                              {.subs = {{co::RANKS, count}, {co::SLOT, reducedSlot}, {co::N_RANK, share},
                                        {co::BLOCK_N, 512}}},
                              ranks);
  const auto data = fill_slots<T>(slots, n, rng);
  reduced.fill_bytes(0xFF);
  std::vector<double> want(static_cast<std::size_t>(n), 0.0);
  for (const auto& mine : data)
    for (int k = 0; k < n; ++k) want[static_cast<std::size_t>(k)] += Host<T>::value(mine[static_cast<std::size_t>(k)]);
  std::vector<std::vector<const void*>> pointers;
  for (int r = 0; r < count; ++r) pointers.push_back({slots.slot(0), reduced.slot(r)});
  scatter.launch(pointers);
  synchronize(ranks);  // (every share reduced before any rank gathers)
  for (int r = 0; r < count; ++r) {
    INFO("reduce-scatter, rank " << r);
    std::vector<Bits> mine(static_cast<std::size_t>(share));
    reduced.copy_to_host(r, mine.data(), mine.size() * sizeof(Bits));
    CHECK(mismatches<T>(mine, std::vector<double>(want.begin() + std::ptrdiff_t(r) * share,
                                                  want.begin() + std::ptrdiff_t(r + 1) * share)) == 0);
  }
  auto out = outputs(ranks, std::size_t(n) * sizeof(Bits));
  pointers.clear();
  for (const auto& o : out) pointers.push_back({reduced.slot(0), reinterpret_cast<const void*>(o.address())});
  gather.launch(pointers);
  synchronize(ranks);
  for (int r = 0; r < count; ++r) {
    INFO("all-gather, rank " << r);
    CHECK(mismatches<T>(to_host<Bits>(out[static_cast<std::size_t>(r)]), want) == 0);
  }
}


// The all-reduces that order themselves (all_reduce_one_shot, all_reduce_two_shot): every
// rank's kernel on a stream of its own, with no host synchronization between the ranks,
// three launches back to back; the sums checked, then every flag back at 0; then new
// inputs, one more launch, checked again (no rank read a stale input or flag).
template <class T>
void check_self_ordering_all_reduce(const Ranks& ranks, int n, int blocks, bool two_shot, std::mt19937& rng) {
  using Bits = typename Host<T>::Bits;
  const int count = ranks.count();
  runtime::SymmetricBuffer slots(std::size_t(n) * sizeof(Bits), ranks.devices);
  runtime::SymmetricBuffer sums(std::size_t(n) * sizeof(Bits), ranks.devices);
  runtime::SymmetricBuffer flags(std::size_t(2 * blocks * count) * sizeof(std::int32_t), ranks.devices);
  flags.fill_bytes(0);
  const auto slot = static_cast<std::int64_t>(slots.slot_bytes() / sizeof(Bits));
  const std::int64_t n_rank = (n + count - 1) / count, part = two_shot ? n_rank : n;
  CompileOptions options{.subs = {{co::RANKS, count}, {co::SLOT, slot}, {co::N, n}, {co::W, blocks},
                                  {co::E, 1024 * ((part + blocks * 1024 - 1) / (blocks * 1024))}, {co::TILE_E, 1024},
                                  {co::FLAGS, static_cast<std::int64_t>(flags.slot_bytes() / sizeof(std::int32_t))}}};
  if (two_shot) options.subs.push_back({co::N_RANK, n_rank});  // (a symbol of the two-shot only)
  const auto reduce = two_shot ? compile(co::all_reduce_two_shot<T>(), options, ranks)
                               : compile(co::all_reduce_one_shot<T>(), options, ranks);
  std::vector<std::unique_ptr<runtime::Stream>> streams;
  std::vector<const runtime::Stream*> on;
  for (int device : ranks.devices) {
    streams.push_back(std::make_unique<runtime::Stream>(device, runtime::StreamKind::independent));
    on.push_back(streams.back().get());
  }
  auto out = outputs(ranks, std::size_t(n) * sizeof(Bits));
  std::vector<std::vector<const void*>> pointers;
  for (int r = 0; r < count; ++r)
    pointers.push_back({slots.slot(0), flags.slot(0),
                        two_shot ? sums.slot(0) : reinterpret_cast<const void*>(out[std::size_t(r)].address())});
  for (int round = 0; round < 2; ++round) {
    INFO((round == 0 ? "three launches back to back" : "new inputs, one launch"));
    const auto data = fill_slots<T>(slots, n, rng);
    std::vector<double> want(static_cast<std::size_t>(n), 0.0);
    for (const auto& mine : data)
      for (int k = 0; k < n; ++k) want[std::size_t(k)] += Host<T>::value(mine[std::size_t(k)]);
    sums.fill_bytes(0xFF);
    for (auto& o : out) o.fill_bytes(0xFF);
    synchronize(ranks);
    for (int launch = 0; launch < (round == 0 ? 3 : 1); ++launch) reduce.launch(pointers, on);
    synchronize(ranks);
    for (int r = 0; r < count; ++r) {
      INFO("rank " << r);
      std::vector<Bits> got(static_cast<std::size_t>(n));
      if (two_shot) sums.copy_to_host(r, got.data(), got.size() * sizeof(Bits));
      else out[std::size_t(r)].copy_to_host(got.data());
      CHECK(mismatches<T>(got, want) == 0);
      std::vector<std::int32_t> left(2 * std::size_t(blocks * count), -1);
      flags.copy_to_host(r, left.data(), left.size() * sizeof(std::int32_t));
      CHECK(std::count(left.begin(), left.end(), 0) == std::ptrdiff_t(left.size()));
    }
  }
}
}  // namespace

TEST_CASE("one-shot all-reduce of f32, f16 and bf16 over emulated and real ranks", "[gpu][distributed]") {
  std::mt19937 rng(Catch::rngSeed());
  for (const Ranks& ranks : rank_sets())
    for (int n : {1, 1000, 4096, 65537}) {
      INFO(describe(ranks) << ", N = " << n);
      check_all_reduce<f32>(ranks, n, rng);
      check_all_reduce<f16>(ranks, n, rng);
      check_all_reduce<bf16>(ranks, n, rng);
    }
}

TEST_CASE("all-reduces that order themselves: ranks meet through flags, launched back to back", "[gpu][distributed][signal]") {
  std::mt19937 rng(Catch::rngSeed());
  for (const Ranks& ranks : rank_sets())
    for (bool two_shot : {false, true})
      for (auto [n, blocks] : {std::pair{1000, 4}, {65537, 16}, {1 << 20, 64}}) {
        INFO(describe(ranks) << (two_shot ? ", two-shot" : ", one-shot") << ", N = " << n << ", " << blocks
                             << " blocks per rank");
        check_self_ordering_all_reduce<bf16>(ranks, n, blocks, two_shot, rng);
        check_self_ordering_all_reduce<f32>(ranks, n, blocks, two_shot, rng);
      }
}

TEST_CASE("reduce-scatter (a DeviceConstraint's slices) then all-gather", "[gpu][distributed]") {
  std::mt19937 rng(Catch::rngSeed());
  for (const Ranks& ranks : rank_sets())
    for (int share : {1000, 1001, 4096, 5000}) {
      INFO(describe(ranks) << ", " << share << " elements per rank");
      check_reduce_scatter_all_gather<f32>(ranks, share, rng);
      check_reduce_scatter_all_gather<f16>(ranks, share, rng);
      check_reduce_scatter_all_gather<bf16>(ranks, share, rng);
    }
}

TEST_CASE("GEMM whose rows a DeviceConstraint splits: each rank its slice of C", "[gpu][distributed][gemm]") {
  namespace g = examples::gemm;
  std::mt19937 rng(Catch::rngSeed());
  WAVE_SYMBOL(M_RANK);
  Constraints constraints{WorkgroupConstraint(g::M, g::BLOCK_M, 0), WorkgroupConstraint(g::N, g::BLOCK_N, 1),
                          TilingConstraint(g::K, g::BLOCK_K),       WaveConstraint(g::M, g::BLOCK_M / 2),
                          WaveConstraint(g::N, g::BLOCK_N / 2),     DeviceConstraint(g::M, M_RANK),
                          HardwareConstraint{}};
  const auto gemm = kernel("gemm_rows_over_ranks", constraints,
                           [](Memory<dims<g::M, g::K>, f16> a, Memory<dims<g::N, g::K>, f16> b,
                              Memory<dims<g::M, g::N>, f32> c) {
                             Register<dims<g::M, g::N>, f32> acc(0.0);
                             write(iterate<g::K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); }), c);
                           });
  for (const Ranks& ranks : rank_sets())
    for (auto [share, n, k] : std::vector<std::tuple<int, int, int>>{{128, 256, 128}, {256, 200, 72}}) {
      const int count = ranks.count(), m = share * count;
      INFO(describe(ranks) << ", M = " << m << ", N = " << n << ", K = " << k);
      const auto compiled = compile(gemm,
                                    {.subs = {{g::M, m}, {g::N, n}, {g::K, k}, {M_RANK, share}, {g::BLOCK_M, 128},
                                              {g::BLOCK_N, 64}, {g::BLOCK_K, 32}}},
                                    ranks);
      std::vector<std::uint16_t> a(std::size_t(m) * k), b(std::size_t(n) * k);
      for (auto& x : a) x = examples::host::random_half(rng);
      for (auto& x : b) x = examples::host::random_half(rng);
      std::vector<runtime::DeviceBuffer> as, bs, cs;
      std::vector<std::vector<const void*>> pointers;
      for (int device : ranks.devices) {
        as.emplace_back(a.size() * 2, device);
        bs.emplace_back(b.size() * 2, device);
        cs.emplace_back(std::size_t(m) * n * 4, device);
        as.back().copy_from_host(a.data());
        bs.back().copy_from_host(b.data());
        cs.back().fill_bytes(0xFF);
        pointers.push_back({reinterpret_cast<const void*>(as.back().address()),
                            reinterpret_cast<const void*>(bs.back().address()),
                            reinterpret_cast<const void*>(cs.back().address())});
      }
      compiled.launch(pointers);
      synchronize(ranks);
      for (int r = 0; r < count; ++r) {
        INFO("rank " << r);
        const auto c = to_host<std::uint32_t>(cs[static_cast<std::size_t>(r)]);
        std::size_t wrong = 0, untouched = 0;
        for (int row = 0; row < m; ++row)
          for (int col = 0; col < n; ++col) {
            const std::uint32_t bits = c[std::size_t(row) * n + col];
            const bool mine = row >= r * share && row < (r + 1) * share;
            if (!mine) {  // another rank's rows: left as poisoned
              untouched += bits == 0xFFFFFFFFu;
              continue;
            }
            double want = 0;
            for (int kk = 0; kk < k; ++kk)
              want += double(examples::host::half_to_float(a[std::size_t(row) * k + kk])) *
                      examples::host::half_to_float(b[std::size_t(col) * k + kk]);
            float got;
            std::memcpy(&got, &bits, 4);
            wrong += !(std::abs(got - want) <= 1e-3 * (1 + std::abs(want)));
          }
        CHECK(wrong == 0);
        CHECK(untouched == std::size_t(m - share) * n);
      }
    }
}

namespace {

// GEMM + reduce-scatter (GEMM + all-reduce): rank r multiplies its K slice and adds each
// row block to its owner's slot (every row to every slot). Every slot starts as random
// values (what the sums add to: an unwritten element keeps them, a doubled add shows);
// rank p's slot must end as those plus rows [p * share, (p + 1) * share) (all rows) of
// the whole product.
template <class Out>
void check_gemm_collective(const Ranks& ranks, int share, int n, int k_rank, bool all_reduce,
                           const GemmSchedule& schedule, std::mt19937& rng) {
  namespace tp = examples::tensor_parallel;
  using Bits = typename Host<Out>::Bits;
  const int count = ranks.count(), m = share * count, k = k_rank * count, kept = all_reduce ? m : share;
  runtime::SymmetricBuffer out(std::size_t(kept) * n * sizeof(Bits), ranks.devices);
  const auto slot = static_cast<std::int64_t>(out.slot_bytes() / sizeof(Bits));
  CompileOptions options{.subs = {{tp::M, m}, {tp::N, n}, {tp::K, k_rank}, {tp::RANKS, count}, {tp::SLOT, slot},
                                  {tp::BLOCK_M, 128}, {tp::BLOCK_N, 64}, {tp::BLOCK_K, 32}, {tp::WAVE_M, 64},
                                  {tp::WAVE_N, 32}}};
  if (!all_reduce) options.subs.push_back({tp::M_RANK, share});
  options = scheduled_on_test_tiles(options, schedule);
  const auto gemm = all_reduce ? compile(tp::gemm_all_reduce<f16, Out>(), options, ranks)
                               : compile(tp::gemm_reduce_scatter<f16, Out>(), options, ranks);
  std::vector<std::uint16_t> a(std::size_t(m) * k), b(std::size_t(n) * k);
  for (auto& x : a) x = examples::host::random_half(rng);
  for (auto& x : b) x = examples::host::random_half(rng);
  const auto before = fill_slots<Out>(out, kept * n, rng);
  // Rank r's shards: columns [r * k_rank, (r + 1) * k_rank) of A and B.
  std::vector<runtime::DeviceBuffer> as, bs;
  std::vector<std::vector<const void*>> pointers;
  for (int r = 0; r < count; ++r) {
    std::vector<std::uint16_t> a_r(std::size_t(m) * k_rank), b_r(std::size_t(n) * k_rank);
    for (int row = 0; row < m; ++row)
      std::memcpy(&a_r[std::size_t(row) * k_rank], &a[std::size_t(row) * k + std::size_t(r) * k_rank], k_rank * 2u);
    for (int row = 0; row < n; ++row)
      std::memcpy(&b_r[std::size_t(row) * k_rank], &b[std::size_t(row) * k + std::size_t(r) * k_rank], k_rank * 2u);
    const int device = ranks.devices[static_cast<std::size_t>(r)];
    as.emplace_back(a_r.size() * 2, device);
    bs.emplace_back(b_r.size() * 2, device);
    as.back().copy_from_host(a_r.data());
    bs.back().copy_from_host(b_r.data());
    pointers.push_back({reinterpret_cast<const void*>(as.back().address()),
                        reinterpret_cast<const void*>(bs.back().address()), out.slot(0)});
  }
  gemm.launch(pointers);
  synchronize(ranks);
  for (int p = 0; p < count; ++p) {
    INFO("rank " << p);
    std::vector<Bits> got(std::size_t(kept) * n);
    out.copy_to_host(p, got.data(), got.size() * sizeof(Bits));
    // Each of the 2 * count roundings of a bf16 sum (a partial's cast, its add) errs by
    // at most half an ulp of a value no larger than the sum of magnitudes.
    const double relative = std::is_same_v<Out, bf16> ? count * std::ldexp(1.0, -8) : 1e-5;
    std::size_t wrong = 0;
    const std::size_t first = all_reduce ? 0 : std::size_t(p) * share;  // the slot's first row of C
    for (int row = 0; row < kept; ++row)
      for (int col = 0; col < n; ++col) {
        const std::size_t at = std::size_t(row) * n + col;
        double want = Host<Out>::value(before[std::size_t(p)][at]), magnitude = std::abs(want);
        for (int kk = 0; kk < k; ++kk) {
          const double product = double(examples::host::half_to_float(a[(first + row) * k + kk])) *
                                 examples::host::half_to_float(b[std::size_t(col) * k + kk]);
          want += product;
          magnitude += std::abs(product);
        }
        const double g = Host<Out>::value(got[at]);
        wrong += !(std::abs(g - want) <= relative * (1 + magnitude));
      }
    CHECK(wrong == 0);
  }
}

// All-gather + GEMM: each rank's `share` rows of A [M, K] gathered by copy engines into
// every other rank's buffer, `pieces` chunks per shard, while each rank's GEMM with its own
// weights B_r [n, K] waits for its rows' chunks; C_r [M, n] = A B_r^T in A's row order,
// and every flag back at 0 after two launches.
template <class Out>
void check_allgather_gemm(const Ranks& ranks, int share, int n, int k, int pieces, const GemmSchedule& schedule,
                          std::mt19937& rng) {
  namespace tp = examples::tensor_parallel;
  using Bits = typename Host<Out>::Bits;
  const int count = ranks.count(), m = share * count, chunks = count * pieces;
  CompileOptions options{.subs = {{tp::M, m}, {tp::N, n}, {tp::K, k}, {tp::M_RANK, share}, {tp::CHUNKS, chunks},
                                  {tp::CHUNK_ROWS, share / pieces}, {tp::BLOCK_M, 128}, {tp::BLOCK_N, 64},
                                  {tp::BLOCK_K, 32}, {tp::WAVE_M, 64}, {tp::WAVE_N, 32}}};
  const auto gemm = compile(tp::allgather_gemm<f16, Out>(), scheduled_on_test_tiles(options, schedule), ranks);
  std::vector<std::uint16_t> a(std::size_t(m) * k);
  for (auto& x : a) x = examples::host::random_half(rng);
  const std::size_t shard_bytes = std::size_t(share) * k * 2;
  // Rank q's slot: its own rows first (as the layer before wrote them), NaN after them
  // until the peers' rows land.
  runtime::SymmetricBuffer gathered(std::size_t(m) * k * 2, ranks.devices);
  gathered.fill_bytes(0xFF);
  for (int q = 0; q < count; ++q) gathered.copy_from_host(q, &a[std::size_t(q) * share * k], shard_bytes);
  std::vector<std::vector<std::uint16_t>> b(static_cast<std::size_t>(count));
  std::vector<runtime::DeviceBuffer> bs, flags;
  std::vector<runtime::DeviceBuffer> cs = outputs(ranks, std::size_t(m) * n * sizeof(Bits));
  std::vector<std::unique_ptr<runtime::Stream>> streams;
  std::vector<const runtime::Stream*> compute, copies;
  std::vector<void*> flags_at;
  std::vector<std::vector<const void*>> pointers;
  for (int r = 0; r < count; ++r) {
    const int device = ranks.devices[static_cast<std::size_t>(r)];
    auto& b_r = b[static_cast<std::size_t>(r)];
    b_r.resize(std::size_t(n) * k);
    for (auto& x : b_r) x = examples::host::random_half(rng);
    bs.emplace_back(b_r.size() * 2, device);
    bs.back().copy_from_host(b_r.data());
    flags.emplace_back(std::size_t(chunks) * 4, device);
    flags.back().fill_bytes(0xFF);  // -1: the gather sets them first
    streams.push_back(std::make_unique<runtime::Stream>(device));
    compute.push_back(streams.back().get());
    streams.push_back(std::make_unique<runtime::Stream>(device, runtime::StreamKind::independent));
    copies.push_back(streams.back().get());
    flags_at.push_back(reinterpret_cast<void*>(flags.back().address()));
    pointers.push_back({gathered.slot(r), reinterpret_cast<const void*>(bs.back().address()), flags_at.back(),
                        reinterpret_cast<const void*>(cs[std::size_t(r)].address())});
  }
  // Twice back to back: each chunk's flag counts the workgroups still to take it, so the
  // second gather finds them at 0 and the GEMM's stream resets nothing.
  for (int launch = 0; launch < 2; ++launch) {
    tp::queue_gather(gathered, shard_bytes, flags_at, pieces, tp::chunk_takers(share / pieces, 128, n, 64), compute,
                     copies);
    gemm.launch(pointers, compute);
  }
  for (const auto& s : streams) s->synchronize();
  for (int r = 0; r < count; ++r) {
    INFO("rank " << r);
    const auto left = to_host<std::int32_t>(flags[std::size_t(r)]);
    CHECK(std::count(left.begin(), left.end(), 0) == std::ptrdiff_t(left.size()));
    const auto got = to_host<Bits>(cs[std::size_t(r)]);
    const double relative = std::is_same_v<Out, f32> ? 1e-5 : std::ldexp(1.0, -8);
    std::size_t bad = 0;
    for (int row = 0; row < m; ++row)
      for (int col = 0; col < n; ++col) {
        double want = 0, magnitude = 0;
        for (int kk = 0; kk < k; ++kk) {
          const double product = double(examples::host::half_to_float(a[std::size_t(row) * k + kk])) *
                                 examples::host::half_to_float(b[std::size_t(r)][std::size_t(col) * k + kk]);
          want += product;
          magnitude += std::abs(product);
        }
        const double g = Host<Out>::value(got[std::size_t(row) * n + col]);
        bad += !(std::abs(g - want) <= relative * (1 + magnitude));
      }
    CHECK(bad == 0);
  }
}

}  // namespace

TEST_CASE("all-gather + GEMM: each rank's GEMM waits for its rows' chunks while the others land", "[gpu][distributed][gemm]") {
  std::mt19937 rng(Catch::rngSeed());
  for (const Ranks& ranks : rank_sets())
    for (auto [share, n, k, pieces] : std::vector<std::tuple<int, int, int, int>>{{128, 128, 64, 1}, {256, 200, 136, 2}}) {
      for (const GemmSchedule& schedule : kGemmSchedules) {
        INFO(describe(ranks) << ", " << share << " rows per rank, N = " << n << ", K = " << k << ", " << pieces
                             << " chunks per shard, " << schedule.name);
        check_allgather_gemm<f32>(ranks, share, n, k, pieces, schedule, rng);
        check_allgather_gemm<f16>(ranks, share, n, k, pieces, schedule, rng);
      }
    }
}

TEST_CASE("GEMM + reduce-scatter: each rank adds its K slice's rows to their owner's slot", "[gpu][distributed][gemm]") {
  std::mt19937 rng(Catch::rngSeed());
  for (const Ranks& ranks : rank_sets())
    for (auto [share, n, k_rank] : std::vector<std::tuple<int, int, int>>{{128, 128, 64}, {200, 120, 72}, {64, 256, 256}}) {
      for (const GemmSchedule& schedule : kGemmSchedules) {
        INFO(describe(ranks) << ", " << share << " rows per rank, N = " << n << ", K per rank = " << k_rank << ", "
                             << schedule.name);
        check_gemm_collective<f32>(ranks, share, n, k_rank, false, schedule, rng);
        check_gemm_collective<bf16>(ranks, share, n, k_rank, false, schedule, rng);
      }
    }
}

TEST_CASE("GEMM + all-reduce: each rank adds its K slice's product to every rank's slot", "[gpu][distributed][gemm]") {
  std::mt19937 rng(Catch::rngSeed());
  for (const Ranks& ranks : rank_sets())
    for (auto [share, n, k_rank] : std::vector<std::tuple<int, int, int>>{{128, 128, 64}, {100, 120, 72}}) {
      for (const GemmSchedule& schedule : kGemmSchedules) {
        INFO(describe(ranks) << ", M = " << share * ranks.count() << ", N = " << n << ", K per rank = " << k_rank
                             << ", " << schedule.name);
        check_gemm_collective<f32>(ranks, share, n, k_rank, true, schedule, rng);
        check_gemm_collective<bf16>(ranks, share, n, k_rank, true, schedule, rng);
      }
    }
}

TEST_CASE("symmetric buffers: one slot per rank, each a copy away, errors named", "[gpu][distributed][runtime]") {
  std::mt19937 rng(Catch::rngSeed());
  for (const Ranks& ranks : rank_sets()) {
    INFO(describe(ranks));
    runtime::SymmetricBuffer slots(3000, ranks.devices);
    CHECK(slots.ranks() == ranks.count());
    CHECK(slots.slot_bytes() >= 3000);
    CHECK(slots.slot_bytes() % (std::size_t(2) << 20) == 0);
    for (int r = 0; r < ranks.count(); ++r)
      CHECK(reinterpret_cast<std::uintptr_t>(slots.slot(r)) == slots.address() + std::size_t(r) * slots.slot_bytes());
    std::vector<std::vector<std::uint8_t>> data(static_cast<std::size_t>(ranks.count()), std::vector<std::uint8_t>(3000));
    for (int r = 0; r < ranks.count(); ++r) {
      for (auto& b : data[static_cast<std::size_t>(r)]) b = static_cast<std::uint8_t>(rng());
      slots.copy_from_host(r, data[static_cast<std::size_t>(r)].data(), 3000);
    }
    for (int r = 0; r < ranks.count(); ++r) {
      std::vector<std::uint8_t> back(3000);
      slots.copy_to_host(r, back.data(), back.size());
      CHECK(back == data[static_cast<std::size_t>(r)]);
    }
    // Slots of several granules that are not a power of two of them (5 MiB: 6 MiB slots).
    runtime::SymmetricBuffer large(std::size_t(5) << 20, ranks.devices);
    CHECK(large.slot_bytes() == std::size_t(6) << 20);
    std::vector<std::uint8_t> whole(std::size_t(5) << 20), back(whole.size());
    for (auto& b : whole) b = static_cast<std::uint8_t>(rng());
    large.copy_from_host(ranks.count() - 1, whole.data(), whole.size());
    large.copy_to_host(ranks.count() - 1, back.data(), back.size());
    CHECK(back == whole);
    CHECK_THROWS_WITH(slots.copy_to_host(ranks.count(), data[0].data(), 1), Catch::Contains("a rank below"));
    CHECK_THROWS_WITH(slots.copy_from_host(0, data[0].data(), slots.slot_bytes() + 1), Catch::Contains("at most"));
  }
  CHECK_THROWS_WITH(runtime::SymmetricBuffer(16, {}), Catch::Contains("one device per rank"));
  CHECK_THROWS_WITH(runtime::SymmetricBuffer(16, {0, runtime::device_count()}), Catch::Contains("a device ordinal below"));
  // A launch on a stream of another device than the rank's.
  if (runtime::device_count() >= 2) {
    const auto reduce = compile(co::all_reduce<f32>(),
                                {.subs = {{co::RANKS, 2}, {co::SLOT, 1024}, {co::N, 16}, {co::BLOCK_N, 1024}}},
                                Ranks::on_devices(2));
    runtime::Stream on0(0);
    CHECK_THROWS_WITH(reduce.launch({{nullptr, nullptr}, {nullptr, nullptr}}, {&on0, &on0}),
                      Catch::Contains("rank 1: expected a stream of device 1, but found one of device 0"));
  }
}

TEST_CASE("a distributed launch refuses memory its rank cannot address for the whole tensor", "[gpu][distributed][errors]") {
  // The all-reduce reads slots [RANKS, SLOT] of every rank: 2 x 1024 f32 here.
  const auto subs = CompileOptions{.subs = {{co::RANKS, 2}, {co::SLOT, 1024}, {co::N, 1000}, {co::BLOCK_N, 1024}}};
  const auto emulated = compile(co::all_reduce<f32>(), subs, Ranks::emulated(2));
  runtime::DeviceBuffer one_rank(1024 * 4), out0(1000 * 4), out1(1000 * 4);
  const auto* o0 = reinterpret_cast<const void*>(out0.address());
  const auto* o1 = reinterpret_cast<const void*>(out1.address());
  // A plain buffer of one rank's data where every rank's slots are read.
  const void* single = reinterpret_cast<const void*>(one_rank.address());
  CHECK_THROWS_WITH(emulated.launch({{single, o0}, {single, o1}}),
                    Catch::Contains("rank 0, argument 0: expected 8192 bytes device 0 can address") &&
                        Catch::Contains("0 bytes into it: 8192 bytes from there run past its end"));
  // A symmetric buffer too small for the slots the kernel was compiled for (SLOT past its slot).
  runtime::SymmetricBuffer slots(4096, {0, 0});
  const auto wide = compile(co::all_reduce<f32>(),
                            {.subs = {{co::RANKS, 2}, {co::SLOT, std::int64_t(slots.slot_bytes() / 4 + 1)}, {co::N, 1000},
                                      {co::BLOCK_N, 1024}}},
                            Ranks::emulated(2));
  CHECK_THROWS_WITH(wide.launch({{slots.slot(0), o0}, {slots.slot(0), o1}}),
                    Catch::Contains("run past its end") && Catch::Contains("a symmetric buffer of"));
  // The right buffer launches, and an output pointer short of N elements does not.
  emulated.launch({{slots.slot(0), o0}, {slots.slot(0), o1}});
  runtime::synchronize();
  runtime::DeviceBuffer short_out(500 * 4);
  CHECK_THROWS_WITH(emulated.launch({{slots.slot(0), o0}, {slots.slot(0), reinterpret_cast<const void*>(short_out.address())}}),
                    Catch::Contains("rank 1, argument 1: expected 4000 bytes"));
  if (runtime::device_count() >= 2) {
    const auto real = compile(co::all_reduce<f32>(), subs, Ranks::on_devices(2));
    runtime::DeviceBuffer on1(1000 * 4, 1);
    const auto* o1_real = reinterpret_cast<const void*>(on1.address());
    // Device 0's plain memory where rank 1 (on device 1) reads every slot.
    runtime::DeviceBuffer both(2 * 1024 * 4);
    const void* plain = reinterpret_cast<const void*>(both.address());
    CHECK_THROWS_WITH(real.launch({{plain, o0}, {plain, o1_real}}),
                      Catch::Contains("rank 1, argument 0") &&
                          Catch::Contains("device 0's memory (not a symmetric buffer's), which device 1 cannot address"));
    // A symmetric buffer of emulated ranks (all on device 0): no mapping for device 1.
    CHECK_THROWS_WITH(real.launch({{slots.slot(0), o0}, {slots.slot(0), o1_real}}),
                      Catch::Contains("a symmetric buffer over devices 0, which device 1 has no mapping of"));
    // Rank 1's output on device 0.
    runtime::SymmetricBuffer real_slots(4096, {0, 1});
    CHECK_THROWS_WITH(real.launch({{real_slots.slot(0), o0}, {real_slots.slot(0), o1}}),
                      Catch::Contains("rank 1, argument 1") && Catch::Contains("device 0's memory"));
    real.launch({{real_slots.slot(0), o0}, {real_slots.slot(0), o1_real}});
    runtime::synchronize(0);
    runtime::synchronize(1);
  }
}
