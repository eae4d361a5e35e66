// Flash attention (two MMAs in one loop, online softmax) traced, compiled and run: output
// rows compared with a float64 attention of the same f16 inputs, output poisoned first
// (every element must be written), over sequence lengths that fill, split or leave
// partial the query and key tiles, head dims 64 and 128, causal and not, f32 and f16 out.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "attention_reference.hpp"
#include "fixtures/device_run.hpp"
#include "fixtures/sanitizer.hpp"
#include "kernels/decode_attention.hpp"
#include "kernels/flash_attention.hpp"

using namespace wave;
using examples::host::half_to_float;
using fixtures::poisoned;
namespace ex = examples::flash_attention;

namespace {

struct Case {
  int b, h, m, k2, d;
  bool causal;
};

double to_double(float x) { return x; }
double to_double(std::uint16_t x) { return half_to_float(x); }

// How many output elements are unwritten or off the reference, and where the first is.
struct Wrong {
  std::size_t count = 0;
  std::string first;
  bool operator==(int n) const { return count == std::size_t(n); }
};
std::ostream& operator<<(std::ostream& os, const Wrong& w) { return os << w.count << " wrong" << w.first; }

// Runs `attention` on random inputs of `c`'s shape; checks every row where S <= 1024, else
// 48 random rows per (batch, head) and the last one.
template <class Out>
Wrong wrong_elements(const CompiledKernel& attention, const Case& c, const LaunchOptions& how,
                           std::mt19937& rng) {
  if (fixtures::left_out_under_sanitizer(double(c.b) * c.h * c.m * c.k2 * c.d)) return {};
  auto in = examples::host::random_attention(c.b, c.h, c.m, c.k2, c.d, c.d, c.causal, rng);
  auto out = poisoned<Out>(std::size_t(c.b) * c.h * c.m * c.d);
  fixtures::run_on_device(attention, how, in.q, in.k, in.v, out);
  Wrong wrong;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (std::isnan(to_double(out[i])) && !wrong.count++) wrong.first = ", first unwritten at " + std::to_string(i);
  std::uniform_int_distribution<int> pick(0, c.m - 1);
  for (int bi = 0; bi < c.b; ++bi)
    for (int hi = 0; hi < c.h; ++hi) {
      std::vector<int> rows;
      if (c.m <= 1024)
        for (int r = 0; r < c.m; ++r) rows.push_back(r);
      else
        for (int s = 0; s < 48; ++s) rows.push_back(s == 0 ? c.m - 1 : pick(rng));
      for (int r : rows) {
        const auto want = examples::host::attention_row(in, bi, hi, r);
        for (int n = 0; n < c.d; ++n) {
          const double got = to_double(out[in.out_at(bi, hi, r, n)]);
          if (!examples::host::attention_close(got, want.out[n], want.magnitude[n], sizeof(Out) == 2) &&
              !wrong.count++)
            wrong.first = ", first at [" + std::to_string(bi) + ", " + std::to_string(hi) + ", " + std::to_string(r) +
                          ", " + std::to_string(n) + "]: " + std::to_string(got) + " for " + std::to_string(want.out[n]);
        }
      }
    }
  return wrong;
}

CompileOptions static_options(const Case& c, int block_m = 128, int block_k2 = 64) {
  return {.subs = {{ex::B, c.b}, {ex::H, c.h}, {ex::M, c.m}, {ex::K2, c.k2}, {ex::K1, c.d}, {ex::N, c.d},
                   {ex::BLOCK_M, block_m}, {ex::BLOCK_K2, block_k2}}};
}

// The flash attention example's schedule (examples/kernels/flash_attention.hpp) for `c`.
CompileOptions example_schedule(const Case& c) {
  const CompileOptions example = ex::default_options();
  CompileOptions options = static_options(c, 128, 128);
  options.warp_specialize = example.warp_specialize;
  options.overlap_mma = example.overlap_mma;
  return options;
}

}  // namespace

TEST_CASE("flash attention, f32 out: S in {128, 1000, 4096}, D in {64, 128}, causal and not, wgmma and mma.sync",
          "[gpu][attention]") {
  std::mt19937 rng(Catch::rngSeed());
  for (bool warpgroup : {true, false})
    for (int d : {64, 128})
      for (bool causal : {false, true})
        for (Case c : {Case{2, 3, 128, 128, d, causal}, Case{1, 2, 1000, 1000, d, causal},
                       Case{1, 2, 4096, 4096, d, causal}}) {
          INFO("B x H x S x D = " << c.b << " x " << c.h << " x " << c.m << " x " << c.d
                                  << (causal ? ", causal" : "") << (warpgroup ? ", wgmma" : ", mma.sync"));
          CompileOptions options = static_options(c);
          options.warpgroup_mma = warpgroup;
          const auto attention = compile(ex::make_kernel({.head_dim = d, .causal = causal}), options);
          CHECK(wrong_elements<float>(attention, c, {}, rng) == 0);
        }
}

TEST_CASE("flash attention with a producer warpgroup (warp specialization): D 64 and 128, causal, partial tiles",
          "[gpu][attention][tma][ws]") {
  // K and V copies on a warpgroup of their own (Q's stays with the computing warps, before
  // the loop); each stage released once both products read it.
  std::mt19937 rng(Catch::rngSeed());
  for (int d : {64, 128})
    for (bool causal : {false, true})
      for (Case c : {Case{2, 3, 128, 128, d, causal}, Case{1, 2, 1000, 1000, d, causal},
                     Case{1, 2, 2048, 2048, d, causal}, Case{1, 1, 200, 1000, d, causal}}) {
        INFO("B x H x M x K2 x D = " << c.b << " x " << c.h << " x " << c.m << " x " << c.k2 << " x " << c.d
                                     << (causal ? ", causal" : ""));
        CompileOptions options = static_options(c);
        options.warp_specialize = true;
        const auto attention = compile(ex::make_kernel({.head_dim = d, .causal = causal}), options);
        CHECK(attention.ptx().block[0] == 8 * 32 + 128);  // eight computing waves and the producer
        CHECK(attention.ptx().ptx.find("mbarrier.arrive.shared") != std::string::npos);  // the consumers' release
        CHECK(wrong_elements<float>(attention, c, {}, rng) == 0);
      }
}

TEST_CASE("flash attention on the example's default schedule: 128 x 128 tiles, specialized, P V overlapped",
          "[gpu][attention][tma][ws][overlap]") {
  // The schedule examples/kernels/flash_attention.hpp ships with, on other shapes: partial
  // query and key tiles, causal too, f32 and f16 out (the overlap's stage boundary carries
  // P and the rescaling one iteration further; the last P V runs after the loop).
  std::mt19937 rng(Catch::rngSeed());
  for (int d : {64, 128})
    for (bool causal : {false, true})
      for (Case c : {Case{1, 2, 1000, 1000, d, causal}, Case{2, 2, 4096, 4096, d, causal}, Case{1, 1, 300, 1300, d, causal}}) {
        INFO("B x H x M x K2 x D = " << c.b << " x " << c.h << " x " << c.m << " x " << c.k2 << " x " << c.d
                                     << (causal ? ", causal" : ""));
        const CompileOptions options = example_schedule(c);
        const auto attention = compile(ex::make_kernel({.head_dim = d, .causal = causal}), options);
        // Overlapped at every shape: a partial key tile's zeros for P are chosen by a
        // branch that runs with P V's batch (bench/RESULTS.md, runs 247-248).
        CHECK(attention.ptx().ptx.find("wgmma.wait_group.sync.aligned \t1;") != std::string::npos);
        CHECK(wrong_elements<float>(attention, c, {}, rng) == 0);
        if (c.m == 1000) {
          const auto half = compile(ex::make_kernel<f16>({.head_dim = d, .causal = causal}), options);
          CHECK(wrong_elements<std::uint16_t>(half, c, {}, rng) == 0);
        }
      }
}

TEST_CASE("flash attention at D 64 on three computing warpgroups: 192 x 128 tiles, P V overlapped",
          "[gpu][attention][tma][ws][overlap]") {
  // FlashAttention-3's D 64 tile: 192 queries (64 per warpgroup) on twelve waves and the
  // producer, each warpgroup's P V running during its next softmax in its 160 registers
  // where the key tiles are whole; query tiles partial at 1000 and 300, the causal
  // diagonal crossing two key tiles.
  std::mt19937 rng(Catch::rngSeed());
  for (bool causal : {false, true})
    for (Case c : {Case{1, 2, 1000, 1000, 64, causal}, Case{2, 2, 2048, 2048, 64, causal}, Case{1, 1, 300, 1300, 64, causal}}) {
      INFO("B x H x M x K2 = " << c.b << " x " << c.h << " x " << c.m << " x " << c.k2 << (causal ? ", causal" : ""));
      CompileOptions options = static_options(c, 192, 128);
      options.warp_specialize = true;
      const auto attention = compile(ex::make_kernel({.head_dim = 64, .causal = causal, .waves = 12}), options);
      const std::string& ptx = attention.ptx().ptx;
      CHECK(attention.ptx().block[0] == 12 * 32 + 128);
      CHECK_THAT(ptx, Catch::Contains("setmaxnreg.inc.sync.aligned.u32 \t160;"));
      // (A partial key tile's masks would be held across the stages past the registers:
      // that loop is left alone.)
      CHECK((ptx.find("wgmma.wait_group.sync.aligned \t1;") != std::string::npos) == (c.k2 % 128 == 0));
      CHECK(wrong_elements<float>(attention, c, {}, rng) == 0);
      if (c.m == 1000) {
        const auto half = compile(ex::make_kernel<f16>({.head_dim = 64, .causal = causal, .waves = 12}), options);
        CHECK(wrong_elements<std::uint16_t>(half, c, {}, rng) == 0);
      }
    }
}

TEST_CASE("flash attention in clusters: query tiles sharing their K and V tiles by multicast", "[gpu][attention][cluster]") {
  // Workgroups of neighbouring query tiles (clusters of 2 along M) share every K and V
  // tile: each producer copies half of each into both. Causal loops end by the query tile
  // (the members' trips would differ): no clusters; nor where M's tile count is odd.
  std::mt19937 rng(Catch::rngSeed());
  for (int d : {64, 128})
    for (bool causal : {false, true})
      for (Case c : {Case{1, 2, 1000, 1000, d, causal}, Case{2, 2, 2048, 2048, d, causal}, Case{1, 1, 300, 1300, d, causal}}) {
        INFO("B x H x M x K2 x D = " << c.b << " x " << c.h << " x " << c.m << " x " << c.k2 << " x " << c.d
                                     << (causal ? ", causal" : ""));
        CompileOptions options = example_schedule(c);
        options.cluster_size = 2;
        const auto attention = compile(ex::make_kernel({.head_dim = d, .causal = causal}), options);
        const bool clustered = !causal && (c.m + 127) / 128 % 2 == 0;
        CHECK(attention.ptx().cluster_size == (clustered ? 2u : 1u));
        CHECK((attention.ptx().ptx.find(".multicast::cluster") != std::string::npos) == clustered);
        CHECK(wrong_elements<float>(attention, c, {}, rng) == 0);
      }
}

TEST_CASE("flash attention on a persistent grid: several query tiles per workgroup, causal, specialized or not",
          "[gpu][attention][persistent]") {
  // 256 to 480 query tiles over a grid sized to the GPU: each workgroup runs two or more,
  // Q's copy (one completion per tile) and the K and V stages carrying their mbarriers'
  // phases from tile to tile; causal loops of differing lengths.
  std::mt19937 rng(Catch::rngSeed());
  for (int d : {64, 128})
    for (bool causal : {false, true})
      for (bool specialize : {true, false})
        for (Case c : {Case{2, 8, 2048, 2048, d, causal}, Case{1, 24, 2500, 2500, d, causal}}) {
          INFO("B x H x S x D = " << c.b << " x " << c.h << " x " << c.m << " x " << c.d << (causal ? ", causal" : "")
                                  << (specialize ? ", specialized" : ""));
          CompileOptions options = static_options(c);
          options.warp_specialize = specialize;
          options.persistent = true;
          const auto attention = compile(ex::make_kernel({.head_dim = d, .causal = causal}), options);
          CHECK(attention.ptx().persistent);
          CHECK(wrong_elements<float>(attention, c, {}, rng) == 0);
        }
}

TEST_CASE("persistent attention at D 64 alternating two Q buffers: one and three computing warpgroups",
          "[gpu][attention][persistent]") {
  // Where shared memory has room (D 64), the producer fills the next tile's Q into a second
  // buffer while the computing warps read this one's: 128 x 64 tiles on one warpgroup (two
  // workgroups an SM) and 192 x 128 on three; tile counts per workgroup odd and even, causal
  // tiles of one key tile (the producer runs two tiles ahead), partial query and key tiles;
  // 288 to 1024 query tiles over the GPU's workgroups (rows sampled: S > 1024).
  std::mt19937 rng(Catch::rngSeed());
  struct Tiling {
    int block_m, block_k2, waves;
  };
  for (Tiling t : {Tiling{128, 64, 4}, Tiling{192, 128, 12}})
    for (bool causal : {true, false})
      for (Case c : {Case{4, 16, 2048, 2048, 64, causal}, Case{2, 24, 1100, 1100, 64, causal},
                     Case{2, 12, 3000, 2900, 64, causal}}) {
        INFO(t.block_m << " x " << t.block_k2 << " on " << t.waves << " waves, B x H x M x K2 = " << c.b << " x "
                       << c.h << " x " << c.m << " x " << c.k2 << (causal ? ", causal" : ""));
        CompileOptions options = static_options(c, t.block_m, t.block_k2);
        options.warp_specialize = true;
        options.persistent = true;
        const auto attention = compile(ex::make_kernel({.head_dim = 64, .causal = causal, .waves = t.waves}), options);
        CHECK(wrong_elements<float>(attention, c, {}, rng) == 0);
      }
}

TEST_CASE("causal attention over many heads, on plain and persistent grids: every query tile once",
          "[gpu][attention][persistent]") {
  // The causal query tiles run longest first (their grid axis reversed): over 40 heads at
  // S 4096 and 21 at 1100 (a partial last query tile), every tile must still run once.
  std::mt19937 rng(Catch::rngSeed());
  for (bool persistent : {false, true})
    for (Case c : {Case{1, 40, 4096, 4096, 128, true}, Case{3, 7, 1100, 1100, 64, true}}) {
      INFO("B x H x S x D = " << c.b << " x " << c.h << " x " << c.m << " x " << c.d
                              << (persistent ? ", persistent" : ""));
      CompileOptions options = static_options(c);
      options.warp_specialize = true;
      options.persistent = persistent;
      const auto attention = compile(ex::make_kernel({.head_dim = c.d, .causal = true}), options);
      CHECK(wrong_elements<float>(attention, c, {}, rng) == 0);
    }
}

TEST_CASE("persistent causal attention hands its tiles out at run time, launch after launch",
          "[gpu][attention][persistent][dynamic]") {
  // The producer takes each next tile from a counter the launch's last fetch wraps to zero:
  // launches of other tile counts in a row (B, H and S given at launch; fewer tiles than
  // the GPU holds workgroups, and 360 of them, more than one per workgroup), and the first shape
  // again, must each run every tile once.
  std::mt19937 rng(Catch::rngSeed());
  for (const int d : {64, 128}) {
    const auto attention =
        compile(ex::make_kernel({.head_dim = d, .causal = true}),
                {.subs = {{ex::K1, d}, {ex::N, d}, {ex::BLOCK_M, 128}, {ex::BLOCK_K2, d == 64 ? 128 : 64}},
                 .warp_specialize = true,
                 .persistent = true});
    CHECK(attention.ptx().tile_counter);
    for (Case c : {Case{2, 3, 1000, 1000, d, true}, Case{1, 1, 130, 130, d, true}, Case{2, 20, 1100, 1100, d, true},
                   Case{2, 3, 1000, 1000, d, true}}) {
      INFO("D " << d << ", B x H x S = " << c.b << " x " << c.h << " x " << c.m);
      CHECK(wrong_elements<float>(
                attention, c, {.sizes = {{ex::B, c.b}, {ex::H, c.h}, {ex::M, c.m}, {ex::K2, c.k2}}}, rng) == 0);
    }
  }
}

TEST_CASE("flash attention, f16 out, and other tilings", "[gpu][attention]") {
  std::mt19937 rng(Catch::rngSeed());
  for (bool causal : {false, true}) {
    const Case c{3, 2, 1000, 1000, 128, causal};
    INFO((causal ? "causal" : "not causal"));
    const auto attention = compile(ex::make_kernel<f16>({.head_dim = 128, .causal = causal}), static_options(c));
    CHECK(wrong_elements<std::uint16_t>(attention, c, {}, rng) == 0);
  }
  // Four waves of 16 queries, key tiles of 32 and 128.
  for (int block_k2 : {32, 128}) {
    const Case c{1, 3, 333, 777, 64, false};
    INFO("BLOCK_M 64, BLOCK_K2 " << block_k2);
    const auto attention = compile(ex::make_kernel({.head_dim = 64, .waves = 4}), static_options(c, 64, block_k2));
    CHECK(wrong_elements<float>(attention, c, {}, rng) == 0);
  }
}

TEST_CASE("flash attention with query and key lengths that differ (causal too), and one query", "[gpu][attention]") {
  std::mt19937 rng(Catch::rngSeed());
  for (Case c : {Case{2, 2, 1000, 4096, 128, false}, Case{1, 2, 1000, 4096, 128, true}, Case{1, 2, 4096, 1000, 64, true},
                 Case{1, 4, 1, 1000, 64, false}, Case{1, 1, 77, 3, 64, false}}) {
    INFO("B x H " << c.b << " x " << c.h << ", M " << c.m << ", K2 " << c.k2 << ", D " << c.d << (c.causal ? ", causal" : ""));
    const auto attention = compile(ex::make_kernel({.head_dim = c.d, .causal = c.causal}), static_options(c));
    CHECK(wrong_elements<float>(attention, c, {}, rng) == 0);
  }
}

TEST_CASE("flash attention with B, H, M and K2 given at launch", "[gpu][attention][dynamic]") {
  std::mt19937 rng(Catch::rngSeed());
  const auto attention =
      compile(ex::make_kernel({.head_dim = 64, .causal = true}),
              {.subs = {{ex::K1, 64}, {ex::N, 64}, {ex::BLOCK_M, 128}, {ex::BLOCK_K2, 64}}});
  REQUIRE(attention.dynamic_dims().size() == 4);
  for (Case c : {Case{2, 2, 1000, 1000, 64, true}, Case{1, 3, 130, 130, 64, true}}) {
    INFO("B x H x S = " << c.b << " x " << c.h << " x " << c.m);
    CHECK(wrong_elements<float>(
              attention, c, {.sizes = {{ex::B, c.b}, {ex::H, c.h}, {ex::M, c.m}, {ex::K2, c.k2}}}, rng) == 0);
  }
}

TEST_CASE("decode attention: keys split among waves, combined at the end", "[gpu][attention][decode]") {
  namespace dx = examples::decode_attention;
  std::mt19937 rng(Catch::rngSeed());
  for (int keys : {1, 7, 4096})
    for (int queries : {1, 5}) {
      const Case c{2, 3, queries, keys, 128, false};
      INFO(queries << " queries, " << keys << " keys");
      const auto decode = compile(dx::make_kernel(), static_options(c, 16, 128));
      CHECK(wrong_elements<float>(decode, c, {}, rng) == 0);
    }
  // Four waves of 16 keys each per tile of 64, D = 64; K2 given at launch.
  const auto dynamic = compile(dx::make_kernel(64, 4), {.subs = {{ex::B, 3}, {ex::H, 2}, {ex::M, 1}, {ex::K1, 64},
                                                                 {ex::N, 64}, {ex::BLOCK_M, 16}, {ex::BLOCK_K2, 64}}});
  for (int keys : {1, 1000, 4099}) {
    INFO("K2 " << keys << " at launch");
    CHECK(wrong_elements<float>(dynamic, Case{3, 2, 1, keys, 64, false}, {.sizes = {{ex::K2, keys}}}, rng) == 0);
  }
}

TEST_CASE("flash and decode attention at head dims other than 64 and 128", "[gpu][attention]") {
  std::mt19937 rng(Catch::rngSeed());
  for (int d : {32, 80, 96})
    for (bool causal : {false, true}) {
      const Case c{2, 3, 333, 777, d, causal};
      INFO("flash, D " << d << (causal ? ", causal" : "") << ", M 333, K2 777, BLOCK_M 64 over 4 waves, BLOCK_K2 32");
      const auto attention =
          compile(ex::make_kernel<f16>({.head_dim = d, .causal = causal, .waves = 4}), static_options(c, 64, 32));
      CHECK(wrong_elements<std::uint16_t>(attention, c, {}, rng) == 0);
    }
  namespace dx = examples::decode_attention;
  for (int d : {80, 96}) {
    const Case c{2, 3, 1, 777, d, false};
    INFO("decode, D " << d << ", 777 keys");
    CHECK(wrong_elements<float>(compile(dx::make_kernel(d, 4), static_options(c, 16, 64)), c, {}, rng) == 0);
  }
}
