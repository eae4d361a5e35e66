// The example kernels at the GPU suite's shapes (tests/gpu), compiled for AMD gfx942: each
// is a code object whose kernels multiply on MFMA where they have an mma, with waves of 64
// and no spills or scratch. Nothing runs (no AMD GPU here); the tiles are the suite's
// where CDNA3's 64 KiB of LDS holds them, smaller where only they do.
#include <catch2/catch.hpp>

#include <string>

#include <wave/wave.hpp>

#include "kernels/conv2d.hpp"
#include "kernels/copy.hpp"
#include "kernels/decode_attention.hpp"
#include "kernels/extend_attention.hpp"
#include "kernels/flash_attention.hpp"
#include "kernels/gemm.hpp"
#include "kernels/gemm_bias_relu.hpp"
#include "kernels/gemm_f8.hpp"
#include "kernels/gemm_i8.hpp"
#include "kernels/moe.hpp"
#include "kernels/softmax.hpp"
#include "kernels/varlen_attention.hpp"

#include "gpu/attention_score_mods.hpp"

using namespace wave;
using Catch::Matchers::Contains;

namespace {

// (gfx942 unless the options name CDNA4, gfx950.)
CompileOptions for_gfx942(CompileOptions options) {
  if (options.target != "gfx950") options.target = "gfx942";
  options.cache = false;
  return options;
}

// Whether the registers must hold a kernel's values: Hopper's largest tiles (768 threads of
// 64 x 64 wave tiles) may spill on CDNA3, which the suite's shapes only ask to compile.
enum class Spills { none, allowed };

// The code object of `kernel` under `options`, for gfx942 (or gfx950), checked as the hsaco label checks
// the examples; `mfma` names the instruction its mmas must become ("" for none).
template <class Kernel>
void check_compiles(const Kernel& kernel, const CompileOptions& options, const std::string& mfma,
                    Spills spills = Spills::none) {
  const jit::PtxKernel compiled = compile(kernel, for_gfx942(options)).ptx();
  REQUIRE(compiled.hsaco.compare(0, 4, "\x7f" "ELF") == 0);
  const std::string& assembly = compiled.amdgpu_assembly;
  CHECK_THAT(assembly, Contains(".wavefront_size: 64"));
  if (spills == Spills::none) {
    CHECK_THAT(assembly, Contains(".vgpr_spill_count: 0"));
    CHECK_THAT(assembly, Contains(".sgpr_spill_count: 0"));
    CHECK_THAT(assembly, Contains(".private_segment_fixed_size: 0"));
  }
  if (!mfma.empty()) CHECK_THAT(assembly, Contains(mfma));
  else CHECK(assembly.find("v_mfma") == std::string::npos);
}

struct Problem {
  int batch, m, n, k;
};
struct Tiles {
  int m, n, k;
};

namespace gemm = examples::gemm;

CompileOptions gemm_options(Problem p, Tiles t, bool batched) {
  CompileOptions o{.subs = {{gemm::M, p.m}, {gemm::N, p.n}, {gemm::K, p.k}, {gemm::BLOCK_M, t.m},
                            {gemm::BLOCK_N, t.n}, {gemm::BLOCK_K, t.k}}};
  if (batched) o.subs.push_back({gemm::BATCH, p.batch});
  return o;
}

constexpr Tiles kGemmTiles[] = {{128, 128, 64}, {64, 64, 32}, {64, 128, 16}};  // tests/gpu/gemm_test.cpp's

}  // namespace

TEST_CASE("gfx942: the GEMM variants at the GPU suite's shapes and tiles", "[hsaco][gemm]") {
  const std::string f16_mfma = "v_mfma_f32_16x16x16_f16", bf16_mfma = "v_mfma_f32_16x16x16_bf16";
  for (Tiles t : kGemmTiles) {
    INFO("tiles " << t.m << " x " << t.n << " x " << t.k);
    for (Problem p : {Problem{1, 129, 257, 65}, Problem{1, 1000, 1000, 1000}, Problem{1, 190, 1000, 136}}) {
      INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k);
      check_compiles(gemm::make_variant<f16, f32>(), gemm_options(p, t, false), f16_mfma);
      check_compiles(gemm::make_variant<f16, f32, true>(), gemm_options(p, t, false), f16_mfma);
      check_compiles(gemm::make_variant<f16, f16>(), gemm_options(p, t, false), f16_mfma);
      check_compiles(gemm::make_variant<bf16, f32>(), gemm_options(p, t, false), bf16_mfma);
      check_compiles(gemm::make_variant<bf16, bf16, true>(), gemm_options(p, t, false), bf16_mfma);
    }
    check_compiles(gemm::make_variant<f16, f32, false, true>(), gemm_options({8, 512, 512, 128}, t, true), f16_mfma);
  }
  // M, N and K given at launch.
  check_compiles(gemm::make_variant<bf16, bf16>(),
                 {.subs = {{gemm::BLOCK_M, 64}, {gemm::BLOCK_N, 128}, {gemm::BLOCK_K, 32}}}, bf16_mfma);
  // Four and eight waves of 64 x 64 (the suite's warpgroup tilings), and the example's own.
  for (Tiles t : {Tiles{128, 128, 64}, Tiles{128, 256, 64}}) {
    CompileOptions o = gemm_options({1, 1000, 1000, 1000}, t, false);
    o.subs.insert(o.subs.end(), {{gemm::WAVE_M, 64}, {gemm::WAVE_N, 64}});
    check_compiles(gemm::make_with_wave_tiles<f16>("gemm_waves"), o, f16_mfma);
  }
  check_compiles(gemm::make_kernel(), gemm::default_options(), f16_mfma);
  check_compiles(examples::gemm_bias_relu::make_kernel(), examples::gemm_bias_relu::default_options(), f16_mfma);
  // On a persistent grid (the persistent tests' shapes, and M and N given at launch): each
  // workgroup loops over tiles, which only the persistent kernel's code object says. With
  // one K trip (64 x 8 x 16) LLVM keeps more uniform values than the SGPRs hold and spills
  // 72-106 of them into VGPR lanes (not to scratch): allowed there, not yet fixed.
  for (Problem p : {Problem{1, 4096, 2048, 320}, Problem{1, 1000, 1000, 1000}, Problem{1, 64, 8, 16}}) {
    INFO("persistent, M x N x K = " << p.m << " x " << p.n << " x " << p.k);
    CompileOptions o = gemm_options(p, {128, 128, 64}, false);
    o.persistent = true;
    const bool oneTrip = p.k <= 64;
    check_compiles(gemm::make_variant<f16, f32>(), o, f16_mfma, oneTrip ? Spills::allowed : Spills::none);
    const jit::PtxKernel compiled = compile(gemm::make_variant<f16, f32>(), for_gfx942(o)).ptx();
    CHECK(compiled.persistent);
    CHECK_THAT(compiled.amdgpu_assembly, Contains(".private_segment_fixed_size: 0"));
  }
  check_compiles(gemm::make_variant<f16, f32>(),
                 {.subs = {{gemm::K, 328}, {gemm::BLOCK_M, 128}, {gemm::BLOCK_N, 128}, {gemm::BLOCK_K, 64}},
                  .persistent = true},
                 f16_mfma);
  // Under stream-K (the stream-K tests' shapes: every tile in parts, a little over the
  // grid, several rounds; M and N given at launch): the parts' sums added at agent scope.
  for (Problem p : {Problem{1, 1000, 1000, 4000}, Problem{1, 4096, 2048, 320}, Problem{1, 2200, 1300, 1000}}) {
    INFO("stream-K, M x N x K = " << p.m << " x " << p.n << " x " << p.k);
    CompileOptions o = gemm_options(p, {128, 128, 64}, false);
    o.persistent = true;
    o.stream_k = true;
    check_compiles(gemm::make_variant<f16, f32>(), o, f16_mfma);
    const jit::PtxKernel compiled = compile(gemm::make_variant<f16, f32>(), for_gfx942(o)).ptx();
    CHECK(compiled.stream_k_slot_bytes > 0);
    CHECK_THAT(compiled.amdgpu_assembly, Contains("global_atomic_add_f32"));
  }
  // M and N given at launch: their sizes and strides take 4 more SGPRs than CDNA3 holds,
  // spilled into VGPR lanes (not to scratch): allowed here, not yet fixed.
  const CompileOptions dynamic{
      .subs = {{gemm::K, 1000}, {gemm::BLOCK_M, 128}, {gemm::BLOCK_N, 128}, {gemm::BLOCK_K, 64}},
      .persistent = true,
      .stream_k = true};
  check_compiles(gemm::make_variant<f16, f32>(), dynamic, f16_mfma, Spills::allowed);
  CHECK_THAT(compile(gemm::make_variant<f16, f32>(), for_gfx942(dynamic)).ptx().amdgpu_assembly,
             Contains(".private_segment_fixed_size: 0"));
}

TEST_CASE("gfx942 and gfx950: the 8-bit GEMMs at the GPU suite's shapes", "[hsaco][gemm]") {
  namespace i8 = examples::gemm_i8;
  namespace f8 = examples::gemm_f8;
  for (Problem p : {Problem{1, 4096, 4096, 4096}, Problem{1, 1000, 1000, 1000}, Problem{1, 129, 257, 192}}) {
    INFO("M x N x K = " << p.m << " x " << p.n << " x " << p.k);
    CompileOptions o = gemm_options(p, {128, 256, 128}, false);
    o.subs.insert(o.subs.end(), {{gemm::WAVE_M, 64}, {gemm::WAVE_N, 64}});
    check_compiles(i8::make_int_mm(), o, "v_mfma_i32_16x16x32_i8");
    check_compiles(i8::make_scaled<f16>(), o, "v_mfma_i32_16x16x32_i8");
    check_compiles(f8::make_kernel<f8e4m3fnuz, f16>(), o, "v_mfma_f32_16x16x32_fp8_fp8");
    check_compiles(f8::make_kernel<f8e5m2fnuz, f32>(), o, "v_mfma_f32_16x16x32_bf8_bf8");
    // CDNA4 multiplies the OCP encodings on the same instructions.
    o.target = "gfx950";
    check_compiles(f8::make_kernel<f8e4m3, f16>(), o, "v_mfma_f32_16x16x32_fp8_fp8");
    check_compiles(f8::make_kernel<f8e5m2, f32>(), o, "v_mfma_f32_16x16x32_bf8_bf8");
  }
}

TEST_CASE("gfx942: conv2d at the GPU suite's shapes and tiles", "[hsaco][conv2d]") {
  namespace ex = examples::conv2d;
  using Shape = ex::Problem;
  using ConvTiles = ex::Tiling;
  for (ConvTiles t : {ConvTiles{64, 32, 32, 32, 16}, ConvTiles{32, 64, 16, 16, 32}, ConvTiles{64, 64, 32, 32, 16},
                      ConvTiles{256, 128, 64, 64, 64}, ConvTiles{192, 256, 64, 64, 64}})
    for (Shape s : {Shape{2, 16, 11, 13, 24, 3, 1}, Shape{1, 32, 9, 9, 40, 3, 2}, Shape{3, 16, 7, 5, 16, 1, 1},
                    Shape{4, 64, 20, 21, 136, 3, 1}})
      for (AddressSpace space : {GLOBAL_ADDRESS_SPACE, SHARED_ADDRESS_SPACE}) {
        INFO("tiles " << t.m << " x " << t.n << " x " << t.k << ", N C H W NF F stride " << s.n << " " << s.c << " "
                      << s.h << " " << s.w << " " << s.nf << " " << s.f << " " << s.stride);
        const CompileOptions options{.subs = ex::sizes(s, t, space)};
        check_compiles(ex::make_kernel(s.stride), options, "v_mfma_f32_16x16x16_f16",
                       t.m * t.n / (t.wave_m * t.wave_n) > 8 ? Spills::allowed : Spills::none);
      }
}

TEST_CASE("gfx942: softmax and copies at the GPU suite's shapes", "[hsaco][softmax]") {
  namespace sm = examples::softmax;
  struct Case {
    int m, n, block_m, block_n, wave_n;
  };
  for (Case c : {Case{4096, 4099, 1, 6144, 768}, Case{7, 1000, 2, 1024, 256}, Case{5, 64, 4, 64, 64},
                 Case{3, 1, 1, 8, 8}}) {
    INFO("M x N = " << c.m << " x " << c.n << ", BLOCK_M " << c.block_m << ", BLOCK_N " << c.block_n);
    check_compiles(sm::make_kernel(), {.subs = {{sm::M, c.m}, {sm::N, c.n}, {sm::BLOCK_M, c.block_m},
                                                {sm::BLOCK_N, c.block_n}, {sm::WAVE_N, c.wave_n}}},
                   "");
  }
  check_compiles(sm::make_kernel({Assumption(sm::N <= sm::BLOCK_N)}),
                 {.subs = {{sm::BLOCK_M, 1}, {sm::BLOCK_N, 4096}, {sm::WAVE_N, 512}}}, "");
  namespace cp = examples::copy;
  check_compiles(cp::make_kernel(), {.subs = {{cp::M, 33}, {cp::N, 2050}, {cp::BLOCK_M, 1}, {cp::BLOCK_N, 1024}}}, "");
  check_compiles(cp::make_kernel(), {.subs = {{cp::BLOCK_M, 1}, {cp::BLOCK_N, 1024}}}, "");
}

TEST_CASE("gfx942: flash and decode attention at the GPU suite's shapes", "[hsaco][attention]") {
  namespace ex = examples::flash_attention;
  struct Case {
    int b, h, m, k2, d;
  };
  // 64 keys a step: the suite's 128 x 64 tiles (128-key steps need more than the LDS).
  auto options = [](Case c, int block_m = 128, int block_k2 = 64) {
    return CompileOptions{.subs = {{ex::B, c.b}, {ex::H, c.h}, {ex::M, c.m}, {ex::K2, c.k2}, {ex::K1, c.d},
                                   {ex::N, c.d}, {ex::BLOCK_M, block_m}, {ex::BLOCK_K2, block_k2}}};
  };
  const std::string mfma = "v_mfma_f32_16x16x16_f16";
  for (int d : {64, 128})
    for (bool causal : {false, true}) {
      for (Case c : {Case{2, 3, 128, 128, d}, Case{1, 2, 1000, 1000, d}, Case{1, 2, 4096, 4096, d},
                     Case{1, 1, 200, 1000, d}, Case{1, 2, 1000, 4096, d}, Case{1, 2, 4096, 1000, d}}) {
        INFO("B x H x M x K2 x D = " << c.b << " x " << c.h << " x " << c.m << " x " << c.k2 << " x " << d
                                     << (causal ? ", causal" : ""));
        check_compiles(ex::make_kernel({.head_dim = d, .causal = causal}), options(c), mfma);
      }
      INFO("f16 out, four waves of 64 x 32 tiles, D " << d << (causal ? ", causal" : ""));
      check_compiles(ex::make_kernel<f16>({.head_dim = d, .causal = causal, .waves = 4}),
                     options({1, 3, 333, 777, d}, 64, 32), mfma);
    }
  // B, H, M and K2 given at launch.
  check_compiles(ex::make_kernel({.head_dim = 64, .causal = true}),
                 {.subs = {{ex::K1, 64}, {ex::N, 64}, {ex::BLOCK_M, 128}, {ex::BLOCK_K2, 64}}}, mfma);
  namespace dx = examples::decode_attention;
  for (int keys : {1, 7, 4096})
    for (int queries : {1, 5}) {
      INFO("decode attention, " << queries << " queries over " << keys << " keys");
      check_compiles(dx::make_kernel(), options({2, 3, queries, keys, 128}, 16, 64), mfma);
    }
  check_compiles(dx::make_kernel(64, 4), {.subs = {{ex::B, 3}, {ex::H, 2}, {ex::M, 1}, {ex::K1, 64}, {ex::N, 64},
                                                   {ex::BLOCK_M, 16}, {ex::BLOCK_K2, 64}}},
                 mfma);
}

TEST_CASE("gfx942: varlen and extend attention at the GPU suite's shapes", "[hsaco][attention]") {
  // Query rows, key lengths and pages read from tensors; 16 queries a wave as in the suite.
  namespace va = examples::varlen_attention;
  const std::string mfma = "v_mfma_f32_16x16x16_f16";
  struct Varlen {
    va::Shape shape;
    bool causal;
    int waves;
  };
  for (const Varlen& v : {Varlen{{.lengths = {1, 37, 128, 300, 700, 64}, .heads = 8, .kv_heads = 2, .head_dim = 128,
                                  .padding = 40},
                                 true, 4},
                          Varlen{{.lengths = {513, 1, 77}, .heads = 4, .kv_heads = 4, .head_dim = 64, .padding = 9},
                                 false, 4},
                          Varlen{{.lengths = {200, 129, 2}, .heads = 4, .kv_heads = 1, .head_dim = 128, .padding = 3},
                                 false, 8}}) {
    INFO("varlen, D " << v.shape.head_dim << (v.causal ? ", causal" : "") << ", " << v.waves << " waves");
    check_compiles(va::make_kernel<f16>({.head_dim = v.shape.head_dim, .causal = v.causal, .waves = v.waves}),
                   {.subs = va::sizes(v.shape, 16 * v.waves)}, mfma);
  }
  namespace ea = examples::extend_attention;
  for (const ea::Shape& shape :
       {ea::Shape{.prefix_lens = {0, 37, 1000, 16, 300, 5}, .extend_lens = {1, 64, 300, 129, 17, 70}, .heads = 8,
                  .kv_heads = 2, .head_dim = 128, .page = 16, .padding = 40},
        ea::Shape{.prefix_lens = {513, 1, 200}, .extend_lens = {77, 1, 260}, .heads = 4, .kv_heads = 4, .head_dim = 64,
                  .page = 64, .padding = 9}}) {
    INFO("extend, D " << shape.head_dim << ", page " << shape.page);
    const CompileOptions options{.subs = ea::sizes(shape, 16 * 4)};
    check_compiles(ea::make_kernel<f16>({.head_dim = shape.head_dim, .waves = 4}), options, mfma);
    check_compiles(ea::make_tree_kernel<f16>({.head_dim = shape.head_dim, .waves = 4}), options, mfma);
  }
}

TEST_CASE("gfx942: the MoE layer's kernels at the GPU suite's shapes", "[hsaco][moe]") {
  // Routing (counts, places, blocks), the experts' grouped GEMMs through sorted rows, and
  // the weighted sum; the suite's tilings but its 256-column down tiles (wide_down), with
  // which the down GEMM spills 4-6 SGPRs on gfx942 (an AMD layer takes 128-column ones).
  namespace moe = examples::moe;
  const moe::Tiling large{}, small{.block_m = 32, .block_n = 64, .block_k = 32, .wave_m = 16, .wave_n = 32};
  for (moe::Shape shape :
       {moe::Shape{300, 8, 2, 256, 320}, moe::Shape{64, 64, 6, 128, 96}, moe::Shape{77, 8, 2, 72, 200}})
    for (const moe::Tiling& tiling : {large, small}) {
      INFO("T = " << shape.tokens << ", E = " << shape.experts << ", blocks of " << tiling.block_m);
      const std::vector<Sub> all = moe::sizes(shape, tiling);
      auto check = [&](const auto& kernel, const std::string& mfma) {
        check_compiles(kernel, {.subs = moe::sizes_for(kernel, all)}, mfma);
      };
      if (shape.experts <= 8) {
        check(moe::make_count_kernel(), "");
        check(moe::make_place_kernel(), "");
      } else {
        // 256 pairs a workgroup over 64 experts: the one-hot rows' prefix sums across
        // waves need more than the LDS, which the error says.
        try {
          compile(moe::make_count_kernel(), for_gfx942({.subs = moe::sizes_for(moe::make_count_kernel(), all)}));
          FAIL("expected the LDS's limit");
        } catch (const Error& e) {
          CHECK_THAT(e.message(), Contains("expected at most 65536 bytes per workgroup on gfx942 (LDS)"));
        }
      }
      check(moe::make_blocks_kernel(), "");
      check(moe::make_gate_up_kernel<f16>(), "v_mfma_f32_16x16x16_f16");
      check(moe::make_down_kernel<bf16>(), "v_mfma_f32_16x16x16_bf16");
      check(moe::make_sum_kernel<f16>(), "");
    }
}

TEST_CASE("gfx942: attention with score mods at the GPU suite's shapes", "[hsaco][attention]") {
  // The variant tests' kernels (a bias tensor, tanh soft-capping, ALiBi, a causal sliding
  // window) at their shapes: the soft cap's tanh by MLIR's polynomial, no device library.
  namespace at = attention_tests;
  const std::string mfma = "v_mfma_f32_16x16x16_f16";
  for (const at::Shape& c : at::kVariantShapes) {
    INFO("B " << c.b << ", H " << c.h << ", M " << c.m << ", K2 " << c.k2 << ", BLOCK_M " << c.block_m << " over "
              << c.waves << " waves");
    check_compiles(at::score_bias_attention(), at::shape_options(c), mfma);
    check_compiles(at::softcap_attention(2.0), at::shape_options(c), mfma);
    check_compiles(at::alibi_attention(), at::shape_options(c), mfma);
    check_compiles(at::sliding_window_attention<48>(), at::shape_options(c), mfma);
    check_compiles(at::causal_alibi_attention(), at::shape_options(c), mfma);
  }
}
