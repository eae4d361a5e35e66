// Kernels spread over ranks, without a GPU: what a DeviceConstraint compiles to (each
// rank's grid covers its slice), what the interpreter computes for a rank, and the errors
// a wrong rank count, tile or kernel gets, at the user's line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "fixtures/errors.hpp"
#include "fixtures/ptxas.hpp"
#include "host_half.hpp"
#include "kernels/collectives.hpp"
#include "kernels/gemm.hpp"
#include "kernels/tensor_parallel.hpp"
#include "wave/distributed.hpp"
#include "wave/interpret.hpp"

using namespace wave;
using fixtures::check_error;
using fixtures::error_of;
namespace co = examples::collectives;

namespace {

CompileOptions scatter_options(int ranks, int share, std::int64_t slot) {
  return {.subs = {{co::RANKS, ranks}, {co::SLOT, slot}, {co::N, ranks * share}, {co::N_RANK, share}, {co::BLOCK_N, 1024}},
          .cache = false};
}

}  // namespace

TEST_CASE("a DeviceConstraint compiles once per rank, each grid over its slice", "[distributed]") {
  const auto scatter = compile(co::reduce_scatter<f32>(), scatter_options(3, 1000, 4096), Ranks::emulated(3));
  REQUIRE(scatter.ranks() == 3);
  for (int r = 0; r < 3; ++r) {
    INFO("rank " << r);
    const jit::PtxKernel& ptx = scatter.on_rank(r).ptx();
    CHECK(ptx.grid_dims[0].dim == "N");
    CHECK(ptx.grid_dims[0].extent == 1000);
    CHECK(ptx.grid[0] == 1);  // ceil(1000 / 1024), not ceil(3000 / 1024)
  }
  // Each rank's code differs in where its slice starts: rank 2's loads at element 2000,
  // byte 8000 of each slot row (f32); rank 0's at 0.
  CHECK(scatter.on_rank(0).ptx().ptx != scatter.on_rank(2).ptx().ptx);
  CHECK_THAT(scatter.on_rank(2).ptx().ptx, Catch::Matchers::Contains("+8000]"));
  CHECK_THAT(scatter.on_rank(0).ptx().ptx, !Catch::Matchers::Contains("+8000]"));
}

TEST_CASE("the interpreter computes a rank's slice of a DeviceConstraint's dim", "[distributed][interpret]") {
  const int ranks = 2, share = 5, slot = 16;
  std::vector<float> slots(ranks * slot);
  std::mt19937 rng(Catch::rngSeed());
  for (float& x : slots) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  for (int r = 0; r < ranks; ++r) {
    std::vector<float> out(share, -7.0f);
    CompileOptions options = scatter_options(ranks, share, slot);
    options.subs.push_back(Sub("RANK", r));
    interpret(co::reduce_scatter<f32>(), options, {slots.data(), out.data()});
    for (int k = 0; k < share; ++k) {
      INFO("rank " << r << ", element " << k);
      const int n = r * share + k;
      CHECK(out[std::size_t(k)] == Approx(double(slots[std::size_t(n)]) + slots[std::size_t(slot + n)]));
    }
  }
}

TEST_CASE("interpret: the all-reduces that order themselves meet through flags and take them back",
          "[distributed][interpret][signal]") {
  // Rank r's flags hold every peer's signals (as if they had arrived): the kernel takes
  // each once, leaving its own slot's flags 0, and sets its peers' (k, r, w) to 1.
  const int ranks = 3, n = 1000, blocks = 4, slot = 1024, flag_slot = 2 * blocks * ranks;
  std::vector<float> slots(std::size_t(ranks) * slot);
  std::mt19937 rng(Catch::rngSeed());
  for (float& x : slots) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  std::vector<double> want(n, 0.0);
  for (int r = 0; r < ranks; ++r)
    for (int k = 0; k < n; ++k) want[std::size_t(k)] += slots[std::size_t(r * slot + k)];
  std::vector<float> sums(std::size_t(ranks) * slot, -7.0f);
  for (bool two_shot : {false, true})
    for (int r = 0; r < ranks; ++r) {
      INFO((two_shot ? "two-shot" : "one-shot") << ", rank " << r);
      const int part = two_shot ? (n + ranks - 1) / ranks : n;
      CompileOptions options{.subs = {{co::RANKS, ranks}, {co::SLOT, slot}, {co::N, n}, {co::W, blocks},
                                      {co::E, 64 * ((part + blocks * 64 - 1) / (blocks * 64))}, {co::TILE_E, 64},
                                      {co::FLAGS, flag_slot},
                                      Sub("RANK", r)}};
      if (two_shot) options.subs.push_back({co::N_RANK, (n + ranks - 1) / ranks});
      std::vector<std::int32_t> flags(std::size_t(ranks) * flag_slot, 0);
      std::fill_n(flags.begin() + std::ptrdiff_t(r) * flag_slot, flag_slot, 1);
      std::vector<float> out(n + 8, -7.0f);
      if (two_shot)
        interpret(co::all_reduce_two_shot<f32>(), options, {slots.data(), flags.data(), sums.data()});
      else
        interpret(co::all_reduce_one_shot<f32>(), options, {slots.data(), flags.data(), out.data()});
      for (int p = 0; p < ranks; ++p)
        for (int k = 0; k < flag_slot; ++k) {
          const int meeting_peer = k / blocks % ranks;  // (meeting, peer, block)
          INFO("flags of rank " << p << ", element " << k);
          CHECK(flags[std::size_t(p * flag_slot + k)] == (p != r && meeting_peer == r ? 1 : 0));
        }
      if (!two_shot)
        for (int k = 0; k < n; ++k) {
          INFO("element " << k);
          CHECK(out[std::size_t(k)] == Approx(want[std::size_t(k)]).margin(1e-5));
        }
    }
  // After every rank's two-shot: each rank's slot of `sums` holds all N sums, nothing past.
  for (int p = 0; p < ranks; ++p)
    for (int k = 0; k < slot; ++k) {
      INFO("sums of rank " << p << ", element " << k);
      if (k < n) CHECK(sums[std::size_t(p * slot + k)] == Approx(want[std::size_t(k)]).margin(1e-5));
      else CHECK(sums[std::size_t(p * slot + k)] == -7.0f);
    }
}

TEST_CASE("interpret: the ordered all-reduces' blocks take tiles in turn, every element once",
          "[distributed][interpret]") {
  // Sizes whose last tile is partial, whole, or falls to the first block; more blocks than
  // tiles; one element. Flags preset as if every peer had signalled.
  const int ranks = 2, slot = 4096;
  std::mt19937 rng(Catch::rngSeed());
  std::vector<float> slots(std::size_t(ranks) * slot);
  for (float& x : slots) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  for (auto [n, blocks, tile] : {std::tuple{1, 3, 32}, {96, 3, 32}, {97, 3, 32}, {1000, 4, 64}, {3000, 5, 128},
                                 {100, 8, 32}}) {
    INFO("N = " << n << ", " << blocks << " blocks, TILE_E " << tile);
    CompileOptions options{.subs = {{co::RANKS, ranks}, {co::SLOT, slot}, {co::N, n}, {co::W, blocks},
                                    {co::E, tile * ((n + blocks * tile - 1) / (blocks * tile))}, {co::TILE_E, tile},
                                    {co::FLAGS, 2 * blocks * ranks}, Sub("RANK", 1)}};
    std::vector<std::int32_t> flags(std::size_t(ranks) * 2 * blocks * ranks, 1);
    std::vector<float> out(std::size_t(n) + 64, -7.0f);
    interpret(co::all_reduce_one_shot<f32>(), options, {slots.data(), flags.data(), out.data()});
    for (int k = 0; k < n + 64; ++k) {
      INFO("element " << k);
      if (k < n) CHECK(out[std::size_t(k)] == Approx(double(slots[std::size_t(k)]) + slots[std::size_t(slot + k)]));
      else CHECK(out[std::size_t(k)] == -7.0f);
    }
  }
}

TEST_CASE("the all-reduces that order themselves: acquire spins, release stores, system-scope takes",
          "[distributed][ptx][signal]") {
  for (bool two_shot : {false, true}) {
    INFO((two_shot ? "two-shot" : "one-shot"));
    CompileOptions options{.subs = {{co::RANKS, 2}, {co::SLOT, 1 << 20}, {co::N, 1 << 20}, {co::W, 64},
                                    {co::E, two_shot ? 1 << 13 : 1 << 14}, {co::TILE_E, 1024}, {co::FLAGS, 256}},
                           .cache = false};
    if (two_shot) options.subs.push_back({co::N_RANK, 1 << 19});
    const auto reduce = two_shot ? compile(co::all_reduce_two_shot<bf16>(), options, Ranks::emulated(2))
                                 : compile(co::all_reduce_one_shot<bf16>(), options, Ranks::emulated(2));
    const std::string& ptx = reduce.on_rank(1).ptx().ptx;
    INFO(ptx.substr(0, 3000));
    CHECK_THAT(ptx, Catch::Matchers::Contains("ld.acquire.sys.global.b32"));
    CHECK_THAT(ptx, Catch::Matchers::Contains("st.release.sys.global.b32"));
    CHECK_THAT(ptx, Catch::Matchers::Contains("red.relaxed.sys.global.add.u32"));
    // The values the waits saw are not used: no flag is read again after them.
    CHECK_THAT(ptx, !Catch::Matchers::Contains("ld.relaxed.sys"));
    // The data in 16-byte runs: 8 bf16 per load from each rank's slot.
    CHECK_THAT(ptx, Catch::Matchers::Contains("ld.global.v4.b32"));
    fixtures::check_ptxas_clean(ptx, two_shot ? "all_reduce_two_shot" : "all_reduce_one_shot");
  }
}

TEST_CASE("GEMM + reduce-scatter and GEMM + all-reduce: each rank's partial rows land in their slots",
          "[distributed][interpret]") {
  // Each rank's share of the product interpreted in turn into one [RANKS, SLOT] buffer:
  // the slots end as the whole product's row blocks (reduce-scatter) or the whole product
  // (all-reduce, whose mapping numbers its iterators against the dims' order), on top of
  // what they held; the reference in double.
  namespace tp = examples::tensor_parallel;
  const int ranks = 2, share = 3, n = 5, k_rank = 4, k = ranks * k_rank, m = ranks * share, slot = 32;
  std::mt19937 rng(Catch::rngSeed());
  std::vector<std::uint16_t> a(std::size_t(m * k)), b(std::size_t(n * k));
  for (auto& x : a) x = examples::host::random_half(rng);
  for (auto& x : b) x = examples::host::random_half(rng);
  for (bool all_reduce : {false, true}) {
    INFO((all_reduce ? "all-reduce" : "reduce-scatter"));
    std::vector<float> slots(std::size_t(ranks * slot));
    for (float& x : slots) x = std::uniform_real_distribution<float>(-1, 1)(rng);
    const std::vector<float> before = slots;
    for (int r = 0; r < ranks; ++r) {
      std::vector<std::uint16_t> a_r, b_r;  // columns [r * k_rank, (r + 1) * k_rank)
      for (int row = 0; row < m; ++row)
        for (int c = 0; c < k_rank; ++c) a_r.push_back(a[std::size_t(row * k + r * k_rank + c)]);
      for (int row = 0; row < n; ++row)
        for (int c = 0; c < k_rank; ++c) b_r.push_back(b[std::size_t(row * k + r * k_rank + c)]);
      CompileOptions options{.subs = {{tp::M, m}, {tp::N, n}, {tp::K, k_rank}, {tp::RANKS, ranks}, {tp::SLOT, slot},
                                      {tp::BLOCK_M, 4}, {tp::BLOCK_N, 4}, {tp::BLOCK_K, 4}, {tp::WAVE_M, 2},
                                      {tp::WAVE_N, 2}}};
      if (all_reduce) {
        interpret(tp::gemm_all_reduce<f16, f32>(), options, {a_r.data(), b_r.data(), slots.data()});
      } else {
        options.subs.push_back({tp::M_RANK, share});
        interpret(tp::gemm_reduce_scatter<f16, f32>(), options, {a_r.data(), b_r.data(), slots.data()});
      }
    }
    const int kept = all_reduce ? m : share;  // rows each slot holds
    for (int p = 0; p < ranks; ++p)
      for (int e = 0; e < slot; ++e) {
        INFO("rank " << p << ", element " << e);
        const std::size_t at = std::size_t(p * slot + e);
        if (e >= kept * n) {  // past the rows: untouched
          CHECK(slots[at] == before[at]);
          continue;
        }
        const int row = (all_reduce ? 0 : p * share) + e / n, col = e % n;
        double want = before[at];
        for (int c = 0; c < k; ++c)
          want += double(examples::host::half_to_float(a[std::size_t(row * k + c)])) *
                  examples::host::half_to_float(b[std::size_t(col * k + c)]);
        CHECK(slots[at] == Approx(want).epsilon(1e-5));
      }
  }
}

TEST_CASE("adds to a symmetric buffer are atomic at system scope", "[distributed][ptx]") {
  // Another GPU's kernel adds to the same rows: PTX red.relaxed.sys, never LLVM's
  // atomicrmw (whose NVPTX lowering is GPU-scope atom.global.add).
  namespace tp = examples::tensor_parallel;
  for (bool bf16_out : {false, true}) {
    CompileOptions options{.subs = {{tp::M, 512}, {tp::N, 256}, {tp::K, 128}, {tp::RANKS, 2}, {tp::SLOT, 512 * 256},
                                    {tp::BLOCK_M, 128}, {tp::BLOCK_N, 128}, {tp::BLOCK_K, 64}, {tp::WAVE_M, 64},
                                    {tp::WAVE_N, 64}},
                           .cache = false};
    CompileOptions scatter = options;
    scatter.subs.push_back({tp::M_RANK, 256});
    const auto gemm = bf16_out ? compile(tp::gemm_reduce_scatter<f16, bf16>(), scatter, Ranks::emulated(2))
                               : compile(tp::gemm_reduce_scatter<f16, f32>(), scatter, Ranks::emulated(2));
    if (bf16_out) {
      // The all-reduce's value broadcast along RANKS: each thread's 128 sums of a 128 x 128
      // tile on 4 waves, 8 per add, to each of the 2 ranks' slots.
      const std::string all = compile(tp::gemm_all_reduce<f16, bf16>(), options, Ranks::emulated(2)).on_rank(0).ptx().ptx;
      std::size_t adds = 0;
      for (auto at = all.find("red.relaxed.sys.global.add.noftz.v4.bf16x2"); at != std::string::npos;
           at = all.find("red.relaxed.sys.global.add.noftz.v4.bf16x2", at + 1))
        ++adds;
      CHECK(adds == 32);
      fixtures::check_ptxas_clean(all, "gemm_all_reduce");
    }
    const std::string& ptx = gemm.on_rank(1).ptx().ptx;
    INFO(ptx.substr(0, 2000));
    // 16-byte adds: the accumulator's pairs widened to runs of 8 (4) along the slot's rows.
    CHECK_THAT(ptx, Catch::Matchers::Contains(bf16_out ? "red.relaxed.sys.global.add.noftz.v4.bf16x2"
                                                       : "red.relaxed.sys.global.add.v4.f32"));
    CHECK_THAT(ptx, !Catch::Matchers::Contains("atom.global.add"));
    CHECK_THAT(ptx, !Catch::Matchers::Contains("red.global.add"));
    fixtures::check_ptxas_clean(ptx, bf16_out ? "gemm_reduce_scatter_bf16" : "gemm_reduce_scatter_f32");
  }
}

TEST_CASE("interpret: all-gather + GEMM writes each gathered row to its row of C", "[distributed][interpret]") {
  // Rank r's buffer holds its own shard first: gathered row i is row (i + r * share) mod M
  // of A; the flags are set, so each rank's share of the product comes out in A's order.
  namespace tp = examples::tensor_parallel;
  const int share = 128, m = 256, n = 40, k = 24;
  std::mt19937 rng(7);
  std::vector<std::uint16_t> a(std::size_t(m) * k), b(std::size_t(n) * k);
  for (auto& x : a) x = examples::host::random_half(rng);
  for (auto& x : b) x = examples::host::random_half(rng);
  for (int r = 0; r < 2; ++r) {
    INFO("rank " << r);
    std::vector<std::uint16_t> gathered(a.size());
    for (int row = 0; row < m; ++row)
      std::memcpy(&gathered[std::size_t(row) * k], &a[std::size_t((row + r * share) % m) * k], std::size_t(k) * 2);
    std::vector<std::int32_t> ready{1, 1};
    std::vector<float> c(std::size_t(m) * n, NAN);
    interpret(tp::allgather_gemm<f16, f32>(),
              {.subs = {{tp::M, m}, {tp::N, n}, {tp::K, k}, {tp::M_RANK, share}, {tp::CHUNKS, 2},
                        {tp::CHUNK_ROWS, share}, {tp::BLOCK_M, 128}, {tp::BLOCK_N, 64}, {tp::BLOCK_K, 32},
                        {tp::WAVE_M, 64}, {tp::WAVE_N, 32}, {"RANK", r}}},
              {gathered.data(), b.data(), ready.data(), c.data()});
    std::size_t wrong = 0;
    for (int row = 0; row < m; ++row)
      for (int col = 0; col < n; ++col) {
        double want = 0;
        for (int kk = 0; kk < k; ++kk)
          want += double(examples::host::half_to_float(a[std::size_t(row) * k + kk])) *
                  examples::host::half_to_float(b[std::size_t(col) * k + kk]);
        wrong += !(std::abs(c[std::size_t(row) * n + col] - want) <= 1e-5 * (1 + std::abs(want)));
      }
    CHECK(wrong == 0);
  }
}

TEST_CASE("all-gather + GEMM: each workgroup waits for its rows' chunk before its first TMA copy", "[distributed][ptx]") {
  namespace tp = examples::tensor_parallel;
  CompileOptions options{.subs = {{tp::M, 1024}, {tp::N, 512}, {tp::K, 512}, {tp::M_RANK, 512}, {tp::CHUNKS, 4},
                                  {tp::CHUNK_ROWS, 256}, {tp::BLOCK_M, 128}, {tp::BLOCK_N, 256}, {tp::BLOCK_K, 64},
                                  {tp::WAVE_M, 64}, {tp::WAVE_N, 64}},
                         .cache = false};
  const auto gemm = compile(tp::allgather_gemm<bf16, bf16>(), options, Ranks::emulated(2));
  for (int r = 0; r < 2; ++r) {
    const std::string& ptx = gemm.on_rank(r).ptx().ptx;
    INFO("rank " << r << "\n" << ptx.substr(0, 3000));
    const auto wait = ptx.find("ld.acquire.sys.global.b32");
    REQUIRE(wait != std::string::npos);
    const auto fence = ptx.find("fence.proxy.async.global", wait);
    const auto copy = ptx.find("cp.async.bulk.tensor");
    REQUIRE(copy != std::string::npos);
    CHECK(ptx.find("bar.sync", wait) < fence);
    CHECK(fence < copy);
    CHECK_THAT(ptx, Catch::Matchers::Contains("wgmma.mma_async"));
    fixtures::check_ptxas_clean(ptx, "allgather_gemm");
  }
  // Rank 1's rows start at its own shard: row i of its gathered buffer is row i + 512 of C.
  CHECK(gemm.on_rank(0).ptx().ptx != gemm.on_rank(1).ptx().ptx);
}

TEST_CASE("all-gather + GEMM under warp specialization: the producer's copies follow the computing threads' wait",
          "[distributed][ptx]") {
  namespace tp = examples::tensor_parallel;
  for (const bool persistent : {false, true}) {
    INFO((persistent ? "persistent grid" : "a workgroup per tile"));
    CompileOptions options{.subs = {{tp::M, 1024}, {tp::N, 512}, {tp::K, 512}, {tp::M_RANK, 512}, {tp::CHUNKS, 4},
                                    {tp::CHUNK_ROWS, 256}, {tp::BLOCK_M, 128}, {tp::BLOCK_N, 256}, {tp::BLOCK_K, 64},
                                    {tp::WAVE_M, 64}, {tp::WAVE_N, 64}},
                           .cache = false,
                           .warp_specialize = true,
                           .persistent = persistent};
    const auto gemm = compile(tp::allgather_gemm<bf16, bf16>(), options, Ranks::emulated(2));
    const std::string& ptx = gemm.on_rank(0).ptx().ptx;
    // The computing threads wait for the flags, then arrive on an mbarrier; the producer's
    // thread (from its setmaxnreg.dec on) waits for a phase of one and fences the async
    // proxy before its first TMA copy, spinning on no flag itself.
    const auto wait = ptx.find("ld.acquire.sys.global.b32");
    REQUIRE(wait != std::string::npos);
    CHECK(ptx.find("mbarrier.arrive.shared.b64", wait) != std::string::npos);
    const auto producer = ptx.find("setmaxnreg.dec");
    REQUIRE(producer != std::string::npos);
    const auto copy = ptx.find("cp.async.bulk.tensor", producer);
    REQUIRE(copy != std::string::npos);
    const auto ready = ptx.find("mbarrier.try_wait.parity", producer);
    const auto fence = ptx.find("fence.proxy.async.global", producer);
    CHECK(ready < fence);
    CHECK(fence < copy);
    const auto spin = ptx.find("ld.acquire.sys", producer);
    CHECK((spin == std::string::npos || spin > copy));
    fixtures::check_ptxas_clean(ptx, "allgather_gemm");
  }
}

TEST_CASE("GEMM + all-reduce under warp specialization: the stages leave room for the epilogue's tile",
          "[distributed][ptx]") {
  // The split puts the epilogue's staging tile in the op the stages are live in: once
  // 4 stages and it, 262400 bytes, refused at launch.
  namespace tp = examples::tensor_parallel;
  for (const bool persistent : {false, true}) {
    INFO((persistent ? "persistent grid" : "a workgroup per tile"));
    CompileOptions options{.subs = {{tp::M, 4096}, {tp::N, 8192}, {tp::K, 4096}, {tp::RANKS, 2}, {tp::SLOT, 4096 * 8192},
                                    {tp::BLOCK_M, 128}, {tp::BLOCK_N, 256}, {tp::BLOCK_K, 64}, {tp::WAVE_M, 64},
                                    {tp::WAVE_N, 64}},
                           .cache = false,
                           .warp_specialize = true,
                           .persistent = persistent};
    const auto gemm = compile(tp::gemm_all_reduce<bf16, bf16>(), options, Ranks::emulated(2));
    const auto& ptx = gemm.on_rank(0).ptx();
    CHECK(ptx.shared_bytes <= 227u * 1024);
    CHECK_THAT(ptx.ptx, Catch::Matchers::Contains("setmaxnreg"));
  }
}

TEST_CASE("distributed kernels: errors at the user's line", "[distributed][errors]") {
  SECTION("a rank count other than the DeviceConstraint's slices") {
    check_error(error_of([] { compile(co::reduce_scatter<f32>(), scatter_options(3, 1000, 4096), Ranks::emulated(2)); }),
                "collectives.hpp", 50, "DeviceConstraint", "3 (N = 3000, tile 1000)");
  }
  SECTION("a tile that does not divide the dim") {
    CompileOptions options = scatter_options(2, 1000, 4096);
    options.subs[2] = Sub("N", 2001);
    check_error(error_of([&] { compile(co::reduce_scatter<f32>(), options, Ranks::emulated(2)); }), "collectives.hpp",
                50, "DeviceConstraint", "a divisor of N = 2001");
  }
  SECTION("RANK set by hand when compiling for ranks") {
    CompileOptions options = scatter_options(2, 1000, 4096);
    options.subs.push_back(Sub("RANK", 1));
    const unsigned line = __LINE__ + 1;
    check_error(error_of([&] { compile(co::reduce_scatter<f32>(), options, Ranks::emulated(2)); }),
                "distributed_compile_test.cpp", line, "compile", "no value for RANK");
  }
  SECTION("a rank past the rank count") {
    CompileOptions options = scatter_options(2, 1000, 4096);
    options.subs.push_back(Sub("RANK", 2));
    const unsigned line = __LINE__ + 1;
    check_error(error_of([&] { compile(co::reduce_scatter<f32>(), options); }), "distributed_compile_test.cpp", line,
                "subs", "a rank below 2");
  }
  SECTION("a reduction along the split dim") {
    WAVE_SYMBOL(M);
    const auto k = kernel("sum_over_ranks_slices",
                          Constraints{WorkgroupConstraint(M, 1, 1), DeviceConstraint(co::N, co::N_RANK),
                                      WaveConstraint(M, 1), HardwareConstraint{}},
                          [](Memory<dims<M, co::N>, f32> x, Memory<dims<M>, f32> y) { write(sum<co::N>(read(x)), y); });
    const auto e = error_of([&] {
      compile(k, {.subs = {{M, 4}, {co::N, 2048}, {co::N_RANK, 1024}}, .cache = false}, Ranks::emulated(2));
    });
    REQUIRE(e.has_value());
    CHECK_THAT(e->message(), Catch::Matchers::Contains("a device_constraint on a dim no op combines"));
  }
  SECTION("an mma kernel whose rank slice is not whole workgroup tiles, or a persistent grid") {
    namespace g = examples::gemm;
    WAVE_SYMBOL(M_RANK);
    const auto gemm = kernel("gemm_rows_over_ranks",
                             Constraints{WorkgroupConstraint(g::M, g::BLOCK_M, 0), WorkgroupConstraint(g::N, g::BLOCK_N, 1),
                                         TilingConstraint(g::K, g::BLOCK_K), WaveConstraint(g::M, g::BLOCK_M / 2),
                                         WaveConstraint(g::N, g::BLOCK_N / 2), DeviceConstraint(g::M, M_RANK),
                                         HardwareConstraint{}},
                             [](Memory<dims<g::M, g::K>, f16> a, Memory<dims<g::N, g::K>, f16> b,
                                Memory<dims<g::M, g::N>, f32> c) {
                               Register<dims<g::M, g::N>, f32> acc(0.0);
                               write(iterate<g::K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); }), c);
                             });
    CompileOptions options{.subs = {{g::M, 192}, {g::N, 128}, {g::K, 64}, {M_RANK, 96}, {g::BLOCK_M, 64},
                                    {g::BLOCK_N, 64}, {g::BLOCK_K, 32}},
                           .cache = false};
    auto e = error_of([&] { compile(gemm, options, Ranks::emulated(2)); });
    REQUIRE(e.has_value());
    CHECK_THAT(e->message(), Catch::Matchers::Contains("expected the device tile of M (96) to be a multiple of its "
                                                       "workgroup tile (64) in a kernel with mma"));
    options.subs[3] = Sub("M_RANK", 128);
    options.subs[0] = Sub("M", 256);
    options.persistent = true;
    e = error_of([&] { compile(gemm, options, Ranks::emulated(2)); });
    REQUIRE(e.has_value());
    CHECK_THAT(e->message(), Catch::Matchers::Contains("expected a plain grid for a kernel with a device_constraint"));
  }
  SECTION("a DeviceConstraint on a dim a loop walks") {
    WAVE_SYMBOL(M);
    WAVE_SYMBOL(BLOCK_M);
    const unsigned line = __LINE__ + 3;
    const auto e = error_of([] {
      (void)kernel("loop_over_ranks",
                   Constraints{TilingConstraint(M, BLOCK_M), DeviceConstraint(M, BLOCK_M), HardwareConstraint{}},
                   [](Memory<dims<M>, f32> x, Memory<dims<M>, f32> y) {
                     Register<dims<M>, f32> zero(0.0);
                     write(iterate<M>(zero, [&](auto acc) { return acc + read(x); }), y);
                   })
          .trace();
    });
    check_error(e, "distributed_compile_test.cpp", line, "DeviceConstraint", "a dim no loop walks");
  }
}
