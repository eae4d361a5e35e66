// GEMM on tensor cores, traced, compiled and run: outputs poisoned first, every element
// checked to be written, and (all of them for small shapes, a random sample for large
// ones) compared with a float64 host reference on random data, under several tile
// configurations, for aligned and unaligned shapes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "fixtures/sanitizer.hpp"
#include "host_half.hpp"
#include "kernels/gemm.hpp"
#include "wave/interpreter/elements.hpp"

using namespace wave;
using fixtures::poisoned;

namespace {

struct Tiles {
  int m, n, k;
};
const Tiles kTileConfigs[] = {{128, 128, 64}, {64, 64, 32}, {64, 128, 16}};

namespace ex = examples::gemm;
using ex::make_variant;

float to_float(std::uint16_t bits, bool bf16) {
  return bf16 ? examples::host::bfloat16_to_float(bits) : examples::host::half_to_float(bits);
}

struct Problem {
  int batch, m, n, k;
};

// Runs `compiled` on random inputs and checks the output, of 32-bit (f32), 16-bit (f16 or
// bf16) or 8-bit (f8 E4M3) words.
template <class OutWord>
void check_gemm(const CompiledKernel& compiled, Problem p, bool bf16_in, bool k_major_b, bool bf16_out,
                std::mt19937& rng, const LaunchOptions& how = {}) {
  const std::size_t a_size = std::size_t(p.batch) * p.m * p.k, b_size = std::size_t(p.batch) * p.n * p.k,
                    c_size = std::size_t(p.batch) * p.m * p.n, slack = 256;
  if (fixtures::left_out_under_sanitizer(double(p.batch) * p.m * p.n * p.k)) return;
  std::vector<std::uint16_t> a(a_size), b(b_size);
  for (auto& x : a) x = bf16_in ? examples::host::random_bfloat16(rng) : examples::host::random_half(rng);
  for (auto& x : b) x = bf16_in ? examples::host::random_bfloat16(rng) : examples::host::random_half(rng);
  auto c = poisoned<OutWord>(c_size + slack);  // slack past the end catches stray writes
  fixtures::run_on_device(compiled, how, a, b, c);
  std::vector<float> af(a_size), bf(b_size);
  for (std::size_t i = 0; i < a_size; ++i) af[i] = to_float(a[i], bf16_in);
  for (std::size_t i = 0; i < b_size; ++i) bf[i] = to_float(b[i], bf16_in);

  auto out = [&](std::size_t i) -> double {
    if constexpr (sizeof(OutWord) == 4) {
      float f;
      std::memcpy(&f, &c[i], 4);
      return f;
    } else if constexpr (sizeof(OutWord) == 1) {
      return elements::load_float(DataType::f8e4m3, c.data(), std::int64_t(i));  // 0xff (poison): NaN
    } else {
      return to_float(c[i], bf16_out);
    }
  };
  std::size_t unwritten = 0, stray = 0;
  for (std::size_t i = 0; i < c_size; ++i) unwritten += std::isnan(out(i));
  for (std::size_t i = c_size; i < c.size(); ++i) stray += c[i] != static_cast<OutWord>(~OutWord{0});
  CHECK(unwritten == 0);
  CHECK(stray == 0);

  // Every element of small outputs, 4096 random ones of large outputs.
  const bool all = c_size <= (1u << 18);
  std::uniform_int_distribution<std::size_t> pick(0, c_size - 1);
  // The output's rounding: half an ulp relative (E4M3: 3 fraction bits), and for f8 half
  // its smallest subnormal (2^-9) near zero.
  const double out_ulp = sizeof(OutWord) == 4   ? 0.0
                         : sizeof(OutWord) == 1 ? std::ldexp(1.0, -4)
                                                : (bf16_out ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11));
  const double out_floor = sizeof(OutWord) == 1 ? std::ldexp(1.0, -10) : 0.0;
  std::size_t wrong = 0, checked = 0;
  for (std::size_t s = 0; s < (all ? c_size : 4096); ++s, ++checked) {
    const std::size_t idx = all ? s : pick(rng);
    const std::size_t bi = idx / (std::size_t(p.m) * p.n), i = idx / p.n % p.m, j = idx % p.n;
    double ref = 0, magnitude = 0;
    for (int kk = 0; kk < p.k; ++kk) {
      const double x = af[(bi * p.m + i) * p.k + kk];
      const std::size_t b_index = k_major_b ? (bi * p.k + kk) * p.n + j : (bi * p.n + j) * p.k + kk;
      const double y = bf[b_index];
      ref += x * y;
      magnitude += std::abs(x * y);
    }
    // f32 accumulation of K products (each exact in f32): rounding grows like sqrt(K)
    // ulps of the running sum, far below one wrong product (magnitude / K for K <= 4096);
    // then the output's own rounding.
    const double tolerance = 5e-5 * magnitude + out_ulp * std::abs(ref) + out_floor + 1e-6;
    if (!(std::abs(out(idx) - ref) <= tolerance)) {
      if (wrong < 5) UNSCOPED_INFO("C[" << bi << ", " << i << ", " << j << "] = " << out(idx) << ", expected " << ref);
      ++wrong;
    }
  }
  CHECK(wrong == 0);
  CHECK(checked > 0);
}

using ex::WAVE_M;
using ex::WAVE_N;

CompileOptions options_for(Problem p, Tiles t, bool batched) {
  CompileOptions o{.subs = {{ex::M, p.m}, {ex::N, p.n}, {ex::K, p.k}, {ex::BLOCK_M, t.m}, {ex::BLOCK_N, t.n},
                            {ex::BLOCK_K, t.k}}};
  if (batched) o.subs.push_back({ex::BATCH, p.batch});
  return o;
}

// A workgroup tile and each wave's share of it (make_with_wave_tiles' kernels).
struct WaveTiles {
  int m, n, k, wm, wn;
};
// Four and eight waves of 64 x 64: the tilings the persistent schedules are tested on.
constexpr WaveTiles kPersistentTilings[] = {{128, 128, 64, 64, 64}, {128, 256, 64, 64, 64}};

CompileOptions options_for(Problem p, WaveTiles t) {
  CompileOptions o = options_for(p, {t.m, t.n, t.k}, false);
  o.subs.insert(o.subs.end(), {{WAVE_M, t.wm}, {WAVE_N, t.wn}});
  return o;
}

}  // namespace

TEST_CASE("GEMM f16 -> f32, A[M,K] x B[N,K]: shapes under three tile configurations", "[gpu][gemm]") {
  std::mt19937 rng(Catch::rngSeed());
  const auto gemm = make_variant<f16, f32, false, false>();
  for (Problem p : {Problem{1, 129, 257, 65}, Problem{1, 1000, 1000, 1000}, Problem{1, 1, 4096, 4096},
                    Problem{1, 4096, 4096, 4096}, Problem{1, 2048, 10240, 1280}}) {
    for (Tiles t : kTileConfigs) {
      INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k << ", tiles " << t.m << " x " << t.n << " x " << t.k);
      check_gemm<std::uint32_t>(compile(gemm, options_for(p, t, false)), p, false, false, false, rng);
    }
  }
}

TEST_CASE("GEMM on eight waves of 64x64 accumulators: four cp.async stages, odd and aligned shapes", "[gpu][gemm]") {
  // As a user tiles for throughput: waves fixed at 64x64, the workgroup 256x128 or
  // 128x256. Each thread carries 128 accumulator floats over 256 threads, so one workgroup
  // fills the SM's registers and the pipelining may use all of shared memory.
  using namespace ex;
  std::mt19937 rng(Catch::rngSeed());
  const auto gemm = make_with_wave_tiles<f16>("gemm_eight_waves");
  for (Tiles t : {Tiles{256, 128, 64}, Tiles{128, 256, 64}})
    for (Problem p : {Problem{1, 1000, 1000, 1000}, Problem{1, 2048, 2048, 512}, Problem{1, 300, 520, 330}}) {
      INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k << ", tiles " << t.m << " x " << t.n << " x " << t.k);
      CompileOptions o = options_for(p, t, false);
      o.subs.insert(o.subs.end(), {{WAVE_M, 64}, {WAVE_N, 64}});
      const CompiledKernel compiled = compile(gemm, o);
      // Whole tiles: four stages of 54 KiB of tiles (padded rows), more than two workgroups
      // could share (checked on whole tiles, where every fill is a plain 16-byte copy).
      if (p.m % t.m == 0 && p.n % t.n == 0 && p.k % t.k == 0) CHECK(compiled.ptx().shared_bytes > 113 * 1024);
      check_gemm<std::uint32_t>(compiled, p, false, false, false, rng);
    }
}

TEST_CASE("GEMM on Hopper warpgroups (wgmma): rows or columns split among warpgroups, each swizzle", "[gpu][gemm]") {
  // The wave tiles as symbols: the wave count sets the warpgroups, whatever the tiles.
  std::mt19937 rng(Catch::rngSeed());
  const auto gemm = ex::make_with_wave_tiles<f16>("gemm_warpgroups");
  struct Tiling {
    int m, n, k, wm, wn;
    const char* instruction;
  };
  // One warpgroup with two strips; two splitting rows (n 256 and 128); two splitting
  // 64 rows' columns; rows of 128, 64 and 32 bytes (each swizzle).
  // (The bench's best tiling last, at a whole-tile shape: WAVE_DUMP_DIR keeps its PTX.)
  for (Tiling t : {Tiling{128, 128, 64, 64, 64, "m64n128k16"}, Tiling{256, 128, 32, 64, 64, "m64n128k16"},
                   Tiling{64, 128, 32, 32, 32, "m64n64k16"}, Tiling{64, 256, 16, 64, 64, "m64n256k16"},
                   Tiling{128, 256, 64, 64, 64, "m64n256k16"}})
    for (Problem p : {Problem{1, 1000, 1000, 1000}, Problem{1, 300, 520, 330}, Problem{1, 64, 8, 16},
                      Problem{1, 2048, 2048, 512}}) {
      INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k << ", tiles " << t.m << " x " << t.n << " x " << t.k
                          << ", waves " << t.wm << " x " << t.wn);
      CompileOptions o = options_for(p, {t.m, t.n, t.k}, false);
      o.subs.insert(o.subs.end(), {{WAVE_M, t.wm}, {WAVE_N, t.wn}});
      const CompiledKernel compiled = compile(gemm, o);
      CHECK(compiled.ptx().ptx.find(std::string("wgmma.mma_async.sync.aligned.") + t.instruction) != std::string::npos);
      check_gemm<std::uint32_t>(compiled, p, false, false, false, rng);
    }
}

TEST_CASE("GEMM with TMA copies: every stage count, tiles past the ends, and without TMA", "[gpu][gemm][tma]") {
  std::mt19937 rng(Catch::rngSeed());
  const auto gemm = make_variant<f16, f32, false, false>();
  // 128x128x64 tiles (128-byte rows: TMA's); K a multiple of 8 halves (16-byte rows). K 16
  // is one tile, most of it past the end (one trip: the loop is not pipelined).
  for (Problem p : {Problem{1, 300, 520, 328}, Problem{1, 1000, 1000, 1000}, Problem{1, 64, 8, 16}})
    for (int stages : {1, 2, 3, 4})
      for (bool tma : {true, false}) {
        INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k << ", " << stages << " stages"
                            << (tma ? ", TMA" : ", cp.async"));
        CompileOptions o = options_for(p, {128, 128, 64}, false);
        o.pipeline_stages = stages;
        o.tma = tma;
        const CompiledKernel compiled = compile(gemm, o);
        CHECK((compiled.ptx().ptx.find("cp.async.bulk.tensor.2d") != std::string::npos) == tma);
        // (A third map where clusters split B's copy: WAVE_CLUSTER_SIZE.)
        CHECK((compiled.ptx().tensor_maps.size() >= 2u) == tma);
        CHECK((compiled.ptx().tensor_maps.size() == 0u) == !tma);
        check_gemm<std::uint32_t>(compiled, p, false, false, false, rng);
      }
}

TEST_CASE("GEMM with a producer warpgroup (warp specialization): stages, waves, edges, epilogues, dynamic dims",
          "[gpu][gemm][tma][ws]") {
  // The TMA copies move to a warpgroup of their own; the computing warps (one warpgroup,
  // two workgroups per SM; or two, one per SM; registers moved to them by setmaxnreg)
  // wait on full mbarriers and release each stage on an empty one. Shapes that end inside a tile, a single partly-filled K
  // tile, 2-4 stages, a 16-bit output, and M, N, K known only at launch.
  std::mt19937 rng(Catch::rngSeed());
  const auto gemm = ex::make_with_wave_tiles<f16>("gemm_producer_warpgroup");
  struct Tiling {
    int m, n, k, wm, wn;
    unsigned threads;  // the computing warps' and the producer's
    bool setmaxnreg;
  };
  for (Tiling t : {Tiling{128, 128, 64, 64, 64, 256, true}, Tiling{128, 256, 64, 64, 64, 384, true},
                   Tiling{256, 128, 64, 64, 64, 384, true}})
    for (Problem p : {Problem{1, 1000, 1000, 1000}, Problem{1, 300, 520, 328}, Problem{1, 64, 8, 16},
                      Problem{1, 2048, 2048, 2048}})
      for (int stages : {0, 2, 3}) {
        INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k << ", tiles " << t.m << " x " << t.n << " x "
                            << t.k << ", waves " << t.wm << " x " << t.wn << ", stages " << stages);
        CompileOptions o = options_for(p, {t.m, t.n, t.k}, false);
        o.subs.insert(o.subs.end(), {{WAVE_M, t.wm}, {WAVE_N, t.wn}});
        o.pipeline_stages = stages;
        o.warp_specialize = true;
        const CompiledKernel compiled = compile(gemm, o);
        const std::string& ptx = compiled.ptx().ptx;
        const bool oneTrip = p.k <= t.k;  // not pipelined: no producer
        CHECK(compiled.ptx().block[0] == (oneTrip ? t.threads - 128 : t.threads));
        CHECK((ptx.find("setmaxnreg.inc") != std::string::npos) == (t.setmaxnreg && !oneTrip));
        check_gemm<std::uint32_t>(compiled, p, false, false, false, rng);
      }
  // The example's bf16 -> bf16 variant (a cast in the epilogue), and M and N known only at
  // launch (K's rows are the tensor maps' strides: known, a multiple of 16 bytes).
  CompileOptions o = options_for({1, 1000, 1000, 1000}, {128, 128, 64}, false);
  o.warp_specialize = true;
  const Problem bf{1, 1000, 1000, 1000};
  check_gemm<std::uint16_t>(compile(make_variant<bf16, bf16, false, false>(), o), bf, true, false, true, rng);
  const auto dynamic = compile(make_variant<f16, f32, false, false>(),
                               {.subs = {{ex::K, 1000}, {ex::BLOCK_M, 128}, {ex::BLOCK_N, 128}, {ex::BLOCK_K, 64}},
                                .warp_specialize = true});
  CHECK(dynamic.ptx().block[0] == 256);
  for (Problem p : {Problem{1, 129, 257, 1000}, Problem{1, 512, 384, 1000}}) {
    INFO("dynamic M x N = " << p.m << " x " << p.n);
    check_gemm<std::uint32_t>(dynamic, p, false, false, false, rng, {.sizes = {{ex::M, p.m}, {ex::N, p.n}}});
  }
}

TEST_CASE("GEMM on a persistent grid: several tiles per workgroup, stages and phases carried across tiles",
          "[gpu][gemm][persistent]") {
  // Grids sized to the GPU loop over 200-600 tiles, so each workgroup runs two to five of
  // them; K loops of 3 to 16 trips (odd ones and ones no stage count divides: each
  // mbarrier's phase goes on from one tile to the next), the last K tile partial; a
  // producer warpgroup (running into the next tile while the computing warps store this
  // one's) or not, TMA or cp.async; M and N known only at launch.
  std::mt19937 rng(Catch::rngSeed());
  const auto gemm = ex::make_with_wave_tiles<f16>("gemm_persistent");
  for (WaveTiles t : kPersistentTilings)
    for (Problem p : {Problem{1, 4096, 2048, 320}, Problem{1, 3000, 3000, 200}, Problem{1, 1000, 1000, 1000},
                      Problem{1, 64, 8, 16}})
      for (bool specialize : {true, false})
        for (bool tma : {true, false})
          for (int stages : {0, 3}) {
            INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k << ", tiles " << t.m << " x " << t.n << " x "
                                << t.k << (specialize ? ", specialized" : "") << (tma ? ", TMA" : ", cp.async")
                                << ", stages " << stages);
            CompileOptions o = options_for(p, t);
            o.warp_specialize = specialize;
            o.tma = tma;
            o.pipeline_stages = stages;
            o.persistent = true;
            const CompiledKernel compiled = compile(gemm, o);
            CHECK(compiled.ptx().persistent);
            check_gemm<std::uint32_t>(compiled, p, false, false, false, rng);
          }
  // The bf16 -> bf16 variant (a cast in the epilogue), and M and N known only at launch.
  CompileOptions o = options_for({1, 3000, 3000, 1000}, {128, 128, 64}, false);
  o.warp_specialize = true;
  o.persistent = true;
  check_gemm<std::uint16_t>(compile(make_variant<bf16, bf16, false, false>(), o), {1, 3000, 3000, 1000}, true, false,
                            true, rng);
  const auto dynamic = compile(make_variant<f16, f32, false, false>(),
                               {.subs = {{ex::K, 328}, {ex::BLOCK_M, 128}, {ex::BLOCK_N, 128}, {ex::BLOCK_K, 64}},
                                .warp_specialize = true, .persistent = true});
  CHECK(dynamic.ptx().block[0] == 256);  // the producer too (tile counts known at launch)
  for (Problem p : {Problem{1, 129, 257, 328}, Problem{1, 4000, 2900, 328}}) {
    INFO("dynamic M x N = " << p.m << " x " << p.n);
    check_gemm<std::uint32_t>(dynamic, p, false, false, false, rng, {.sizes = {{ex::M, p.m}, {ex::N, p.n}}});
  }
}

TEST_CASE("GEMM under stream-K: the last rounds' K trips shared out, a tile's parts added by the last to finish",
          "[gpu][gemm][persistent][stream_k]") {
  // Tile counts below the grid (every tile in parts), a little over it and several rounds
  // of it with a partial last one; K loops of 1 to 63 trips, so parts begin and end at
  // every position in a tile, the last K tile partial; TMA or cp.async, a producer
  // warpgroup or not; each kernel launched twice (the counters must be back to zero).
  std::mt19937 rng(Catch::rngSeed());
  const auto gemm = ex::make_with_wave_tiles<f16>("gemm_stream_k");
  for (WaveTiles t : kPersistentTilings)
    for (Problem p : {Problem{1, 1000, 1000, 4000}, Problem{1, 4096, 2048, 320}, Problem{1, 3000, 3000, 200},
                      Problem{1, 2200, 1300, 1000}, Problem{1, 64, 8, 16}})
      for (bool specialize : {true, false})
        for (bool tma : {true, false}) {
          INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k << ", tiles " << t.m << " x " << t.n << " x "
                              << t.k << (specialize ? ", specialized" : "") << (tma ? ", TMA" : ", cp.async"));
          CompileOptions o = options_for(p, t);
          o.warp_specialize = specialize;
          o.tma = tma;
          o.persistent = true;
          o.stream_k = true;
          const CompiledKernel compiled = compile(gemm, o);
          CHECK(compiled.ptx().stream_k_slot_bytes > 0);
          check_gemm<std::uint32_t>(compiled, p, false, false, false, rng);
          check_gemm<std::uint32_t>(compiled, p, false, false, false, rng);
        }
  // An epilogue that casts (bf16 -> bf16), and M and N known only at launch.
  CompileOptions o = options_for({1, 3000, 3000, 1000}, {128, 128, 64}, false);
  o.warp_specialize = true;
  o.persistent = true;
  o.stream_k = true;
  check_gemm<std::uint16_t>(compile(make_variant<bf16, bf16, false, false>(), o), {1, 3000, 3000, 1000}, true, false,
                            true, rng);
  const auto dynamic = compile(make_variant<f16, f32, false, false>(),
                               {.subs = {{ex::K, 1000}, {ex::BLOCK_M, 128}, {ex::BLOCK_N, 128}, {ex::BLOCK_K, 64}},
                                .persistent = true, .stream_k = true});
  CHECK(dynamic.ptx().stream_k_slot_bytes > 0);
  for (Problem p : {Problem{1, 129, 257, 1000}, Problem{1, 4000, 2900, 1000}}) {
    INFO("dynamic M x N = " << p.m << " x " << p.n);
    check_gemm<std::uint32_t>(dynamic, p, false, false, false, rng, {.sizes = {{ex::M, p.m}, {ex::N, p.n}}});
  }
}

TEST_CASE("GEMM in clusters: the shared operand's tiles multicast, edges, persistent grids, clusters of 2 and 4",
          "[gpu][gemm][cluster]") {
  // Workgroups in clusters along M share B's tiles (the larger of 128 x 256 tiles) or
  // along N A's; each producer copies its part of them into every workgroup of the cluster,
  // and a stage is refilled once all of them released it. Shapes that end inside a tile
  // (the multicast parts zero-filled past M or N), K loops of 3 to 32 trips, a persistent
  // grid of whole clusters, and shapes no cluster size divides (no clusters: as before).
  std::mt19937 rng(Catch::rngSeed());
  const auto gemm = ex::make_with_wave_tiles<f16>("gemm_cluster");
  for (Tiles t : {Tiles{128, 256, 64}, Tiles{128, 128, 64}})
    for (Problem p : {Problem{1, 1000, 1000, 1000}, Problem{1, 1000, 3000, 520}, Problem{1, 2048, 2048, 2048},
                      Problem{1, 300, 520, 328}})
      for (int cluster : {2, 4})
        for (bool persistent : {false, true}) {
          INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k << ", tiles " << t.m << " x " << t.n << " x "
                              << t.k << ", clusters of " << cluster << (persistent ? ", persistent" : ""));
          CompileOptions o = options_for(p, t, false);
          o.subs.insert(o.subs.end(), {{WAVE_M, 64}, {WAVE_N, 64}});
          o.warp_specialize = true;
          o.persistent = persistent;
          o.cluster_size = cluster;
          const CompiledKernel compiled = compile(gemm, o);
          const int tilesM = (p.m + t.m - 1) / t.m, tilesN = (p.n + t.n - 1) / t.n;
          const bool clustered = tilesM % cluster == 0 || tilesN % cluster == 0;
          CHECK(compiled.ptx().cluster_size == (clustered ? unsigned(cluster) : 1u));
          CHECK((compiled.ptx().ptx.find(".multicast::cluster") != std::string::npos) == clustered);
          check_gemm<std::uint32_t>(compiled, p, false, false, false, rng);
        }
  // The bf16 -> bf16 variant (a cast in the epilogue), software-pipelined (clusters only
  // group the workgroups: no producer to multicast).
  CompileOptions o = options_for({1, 1000, 1000, 1000}, {128, 128, 64}, false);
  o.cluster_size = 2;
  for (bool specialize : {true, false}) {
    o.warp_specialize = specialize;
    const CompiledKernel compiled = compile(make_variant<bf16, bf16, false, false>(), o);
    CHECK(compiled.ptx().cluster_size == 2u);
    CHECK((compiled.ptx().ptx.find(".multicast::cluster") != std::string::npos) == specialize);
    check_gemm<std::uint16_t>(compiled, {1, 1000, 1000, 1000}, true, false, true, rng);
  }
}

TEST_CASE("GEMM: the example kernel, its default options", "[gpu][gemm]") {
  std::mt19937 rng(Catch::rngSeed());
  check_gemm<std::uint32_t>(compile(ex::make_kernel(), ex::default_options()), {1, 4096, 4096, 4096}, false, false,
                            false, rng);
}

TEST_CASE("GEMM variants: B[K,N], bf16 inputs, f16 and bf16 outputs, batched", "[gpu][gemm]") {
  std::mt19937 rng(Catch::rngSeed());
  for (Tiles t : kTileConfigs) {
    INFO("tiles " << t.m << " x " << t.n << " x " << t.k);
    const Problem p{1, 129, 257, 65}, q{1, 512, 384, 256};
    check_gemm<std::uint32_t>(compile(make_variant<f16, f32, true, false>(), options_for(p, t, false)), p, false, true,
                              false, rng);
    check_gemm<std::uint16_t>(compile(make_variant<f16, f16, false, false>(), options_for(p, t, false)), p, false, false,
                              false, rng);
    check_gemm<std::uint32_t>(compile(make_variant<bf16, f32, false, false>(), options_for(q, t, false)), q, true, false,
                              false, rng);
    check_gemm<std::uint32_t>(compile(make_variant<bf16, f32, false, false>(), options_for(p, t, false)), p, true, false,
                              false, rng);
    check_gemm<std::uint16_t>(compile(make_variant<bf16, bf16, false, false>(), options_for(q, t, false)), q, true,
                              false, true, rng);
    const Problem batched{8, 512, 512, 128};
    check_gemm<std::uint32_t>(compile(make_variant<f16, f32, false, true>(), options_for(batched, t, true)), batched,
                              false, false, false, rng);
  }
}

// 16- and 8-bit outputs are shuffled within each wave into 16-byte runs before the store
// (wave-widen-store-runs): 16-bit rows whose length allows runs of 8, only 4, or only 1
// (the pairs stay), compiled for their sizes and given at launch (then rows of every
// alignment take the masked stores), on mma.sync tiles and on warpgroups with a producer;
// f8 rows in runs of 16 or 8.
TEST_CASE("GEMM with 16- and 8-bit outputs in 16-byte runs: rows of every alignment, static and dynamic",
          "[gpu][gemm][layouts]") {
  std::mt19937 rng(Catch::rngSeed());
  for (Tiles t : kTileConfigs)
    for (int n : {1000, 100, 258}) {
      const Problem p{1, 190, n, 136};
      INFO("tiles " << t.m << " x " << t.n << " x " << t.k << ", N = " << n);
      check_gemm<std::uint16_t>(compile(make_variant<f16, f16, false, false>(), options_for(p, t, false)), p, false,
                                false, false, rng);
      check_gemm<std::uint16_t>(compile(make_variant<bf16, bf16, true, false>(), options_for(p, t, false)), p, true,
                                true, true, rng);
    }
  const auto dynamic = compile(make_variant<bf16, bf16, false, false>(),
                               {.subs = {{ex::BLOCK_M, 64}, {ex::BLOCK_N, 128}, {ex::BLOCK_K, 32}}});
  for (Problem p : {Problem{1, 129, 257, 65}, Problem{1, 64, 1000, 128}, Problem{1, 33, 100, 64}, Problem{1, 70, 8, 40}}) {
    INFO("dynamic M x N x K = " << p.m << " x " << p.n << " x " << p.k);
    check_gemm<std::uint16_t>(dynamic, p, true, false, true, rng, {.sizes = {{ex::M, p.m}, {ex::N, p.n}, {ex::K, p.k}}});
  }
  // f8 out: four registers per shuffled word, runs of 16 (rows of 1024) or 8 (1000).
  for (Tiles t : kTileConfigs)
    for (int n : {1024, 1000}) {
      const Problem p{1, 190, n, 136};
      INFO("f8 out, tiles " << t.m << " x " << t.n << " x " << t.k << ", N = " << n);
      check_gemm<std::uint8_t>(compile(make_variant<f16, f8e4m3, false, false>(), options_for(p, t, false)), p,
                               false, false, false, rng);
    }
  CompileOptions specialized = options_for({1, 300, 1000, 640}, {128, 256, 64}, false);
  specialized.subs.insert(specialized.subs.end(), {{WAVE_M, 64}, {WAVE_N, 64}});
  specialized.warp_specialize = true;
  specialized.persistent = true;
  check_gemm<std::uint16_t>(compile(ex::make_with_wave_tiles<f16, f16>(), specialized), {1, 300, 1000, 640}, false,
                            false, false, rng);
}

TEST_CASE("GEMM with M, N and K dynamic: one kernel, sizes at launch", "[gpu][gemm][dynamic]") {
  std::mt19937 rng(Catch::rngSeed());
  const auto gemm = compile(make_variant<f16, f32, false, false>(),
                            {.subs = {{ex::BLOCK_M, 64}, {ex::BLOCK_N, 64}, {ex::BLOCK_K, 32}}});
  REQUIRE(gemm.dynamic_dims().size() == 3);
  for (Problem p : {Problem{1, 129, 257, 65}, Problem{1, 256, 256, 256}, Problem{1, 1, 64, 1000}}) {
    INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k);
    check_gemm<std::uint32_t>(gemm, p, false, false, false, rng, {.sizes = {{ex::M, p.m}, {ex::N, p.n}, {ex::K, p.k}}});
  }
}

TEST_CASE("GEMM with dynamic dims assumed whole tiles: unmasked, pipelined, still correct", "[gpu][gemm][dynamic]") {
  std::mt19937 rng(Catch::rngSeed());
  using ex::BLOCK_K, ex::BLOCK_M, ex::BLOCK_N, ex::K, ex::M, ex::N;
  const auto gemm = compile(make_variant<f16, f32, false, false>({Assumption(eq(M % BLOCK_M, 0)),
                                                                   Assumption(eq(N % BLOCK_N, 0)),
                                                                   Assumption(eq(K % BLOCK_K, 0))}),
                            {.subs = {{BLOCK_M, 128}, {BLOCK_N, 128}, {BLOCK_K, 64}}});
  REQUIRE(gemm.dynamic_dims().size() == 3);
  for (Problem p : {Problem{1, 128, 128, 64}, Problem{1, 384, 256, 640}, Problem{1, 2048, 1024, 4096}}) {
    INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k);
    check_gemm<std::uint32_t>(gemm, p, false, false, false, rng, {.sizes = {{M, p.m}, {N, p.n}, {K, p.k}}});
  }
}

TEST_CASE("GEMM variants at odd and aligned sizes, batched, and with dims given at launch", "[gpu][gemm][layouts]") {
  std::mt19937 rng(Catch::rngSeed());
  for (Tiles t : kTileConfigs) {
    INFO("tiles " << t.m << " x " << t.n << " x " << t.k);
    for (Problem p : {Problem{1, 129, 257, 65}, Problem{1, 512, 384, 256}}) {
      INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k);
      check_gemm<std::uint32_t>(compile(make_variant<f16, f32, false, false>(), options_for(p, t, false)), p,
                                false, false, false, rng);
      check_gemm<std::uint32_t>(compile(make_variant<f16, f32, true, false>(), options_for(p, t, false)), p,
                                false, true, false, rng);
      check_gemm<std::uint16_t>(compile(make_variant<f16, f16, false, false>(), options_for(p, t, false)), p,
                                false, false, false, rng);
      check_gemm<std::uint16_t>(compile(make_variant<bf16, bf16, false, false>(), options_for(p, t, false)),
                                p, true, false, true, rng);
    }
    const Problem batched{4, 200, 136, 96};
    check_gemm<std::uint32_t>(compile(make_variant<f16, f32, false, true>(), options_for(batched, t, true)),
                              batched, false, false, false, rng);
  }
  const auto dynamic = compile(make_variant<f16, f32, false, false>(),
                               {.subs = {{ex::BLOCK_M, 64}, {ex::BLOCK_N, 64}, {ex::BLOCK_K, 32}}});
  for (Problem p : {Problem{1, 129, 257, 65}, Problem{1, 1, 64, 1000}})
    check_gemm<std::uint32_t>(dynamic, p, false, false, false, rng,
                              {.sizes = {{ex::M, p.m}, {ex::N, p.n}, {ex::K, p.k}}});
}
