// The AMD CDNA3 target (gfx942): kernels compile through the same layout pipeline to a
// code object (no AMD GPU is needed), and what its lowering does not take yet is an
// error at the user's line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <optional>

#include <wave/wave.hpp>

#include "kernels/decode_attention.hpp"

#include "fixtures/errors.hpp"

using namespace wave;
using Catch::Matchers::Contains;

namespace {

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);
WAVE_SYMBOL(BM);
WAVE_SYMBOL(BN);
WAVE_SYMBOL(BK);

void check_error(const std::optional<Error>& e, unsigned line, const std::string& op, const std::string& text) {
  fixtures::check_error(e, "amdgpu_target_test.cpp", line, op, text);
}

CompileOptions gfx942(Subs subs) { return {.subs = std::move(subs), .target = "gfx942", .cache = false}; }

auto copy = [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); };

// Whether `bytes` is an ELF shared object for AMDGPU (e_machine 224, e_type ET_DYN).
bool is_amdgpu_shared_object(const std::string& bytes) {
  if (bytes.size() < 64 || bytes.compare(0, 4, "\x7f" "ELF") != 0) return false;
  const auto u16 = [&](std::size_t at) { return static_cast<unsigned>(static_cast<unsigned char>(bytes[at])) |
                                                static_cast<unsigned>(static_cast<unsigned char>(bytes[at + 1])) << 8; };
  return u16(16) == 3 && u16(18) == 224;
}

// A GEMM of `In` operands summing in `Acc`, BM x BN tiles over four waves, on the MMA
// kind `hw` names (the target's for `In` where it names none).
template <class In, class Acc>
auto gemm_of(const char* name, HardwareConstraint hw) {
  return kernel(name, {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(N, BN, 1), WaveConstraint(M, BM / 2),
                       WaveConstraint(N, BN / 2), TilingConstraint(K, BK), hw},
                [](Memory<dims<M, K>, In> a, Memory<dims<N, K>, In> b, Memory<dims<M, N>, Acc> c) {
                  Register<dims<M, N>, Acc> zero(0);
                  write(iterate<K>(zero, [&](auto acc) { return mma(read(a), read(b), acc); }), c);
                });
}

}  // namespace

TEST_CASE("gfx942: a copy compiles to a code object with waves of 64", "[compile][amdgpu]") {
  auto k = kernel("copy", {WorkgroupConstraint(M, BM, 1), WorkgroupConstraint(N, BN, 0), WaveConstraint(M, BM),
                           WaveConstraint(N, BN / 2), HardwareConstraint{}},
                  copy);
  const jit::PtxKernel compiled = compile(k, gfx942({{M, 1000}, {N, 4096}, {BM, 1}, {BN, 1024}})).ptx();
  CHECK(compiled.target == "gfx942");
  CHECK(compiled.ptx.empty());
  CHECK(is_amdgpu_shared_object(compiled.hsaco));
  CHECK(compiled.block[0] == 128);  // two waves of 64
  CHECK(compiled.grid[0] == 4);
  CHECK(compiled.grid[1] == 1000);
  CHECK_THAT(compiled.amdgpu_assembly, Contains(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942"));
  CHECK_THAT(compiled.amdgpu_assembly, Contains(".wavefront_size: 64"));
  CHECK_THAT(compiled.amdgpu_assembly, Contains("global_load_dwordx4"));
  // The same kernel for NVIDIA: a warp of 32 per wave.
  CHECK(compile(k, {.subs = {{M, 1000}, {N, 4096}, {BM, 1}, {BN, 1024}}, .cache = false}).ptx().block[0] == 64);
}

TEST_CASE("gfx942: set_wave_prio is s_setprio, shuffles are lane permutes, barriers s_barrier", "[compile][amdgpu]") {
  auto k = kernel("priorities", {WorkgroupConstraint(M, BM, 1), WorkgroupConstraint(N, BN, 0), WaveConstraint(M, BM),
                                 WaveConstraint(N, BN / 2), HardwareConstraint{}},
                  [](Memory<dims<M, N>, f32> a, Memory<dims<M, N>, f32> b, Memory<dims<M>, f32> last) {
                    auto v = read(a);
                    set_wave_prio(3);
                    write(shuffle<N>(v, 4), b);
                    set_wave_prio(0);
                    workgroup_barrier();
                    write(extract<N>(v, N - 1), last);
                  });
  const jit::PtxKernel compiled = compile(k, gfx942({{M, 100}, {N, 1024}, {BM, 1}, {BN, 1024}})).ptx();
  CHECK_THAT(compiled.amdgpu_assembly, Contains("s_setprio 3"));
  CHECK_THAT(compiled.amdgpu_assembly, Contains("s_setprio 0"));
  CHECK_THAT(compiled.amdgpu_assembly, Contains("s_barrier"));
  CHECK_THAT(compiled.amdgpu_assembly, Contains("ds_bpermute_b32"));
}

TEST_CASE("gfx942: every math op lowers without a device library", "[compile][amdgpu]") {
  // lld links with --no-undefined: a call left to a device library (ocml) fails the link.
  auto k = kernel("math", {WorkgroupConstraint(M, BM, 1), WorkgroupConstraint(N, BN, 0), WaveConstraint(M, BM),
                           WaveConstraint(N, BN), HardwareConstraint{}},
                  [](Memory<dims<M, N>, f32> a, Memory<dims<M, N>, f16> b, Memory<dims<M>, f32> rows) {
                    auto x = read(a);
                    auto y = tanh(x) + sin(x) * cos(x) + sinh(x) + cbrt(x) + atan2(x, exp2(x)) + powf(exp2(x), x) +
                             roundeven(x) + rsqrt(abs(x) + 1.0) + log2(abs(x) + 1.0) + sqrt(abs(x)) + tanh_approx(x);
                    write(cast<f16>(y), b);
                    write(max<N>(y), rows);
                  });
  const jit::PtxKernel compiled = compile(k, gfx942({{M, 64}, {N, 300}, {BM, 1}, {BN, 512}})).ptx();
  CHECK(is_amdgpu_shared_object(compiled.hsaco));
  CHECK_THAT(compiled.amdgpu_assembly, Contains("v_exp_f32"));
  CHECK_THAT(compiled.amdgpu_assembly, Contains("v_sin_f32"));
  CHECK_THAT(compiled.amdgpu_assembly, !Contains("__ocml"));
}

TEST_CASE("gfx942: an mma without a kind takes the target's, an MFMA", "[compile][amdgpu]") {
  auto k = gemm_of<f16, f32>("gemm", HardwareConstraint{});
  const Subs subs{{M, 256}, {N, 256}, {K, 256}, {BM, 64}, {BN, 64}, {BK, 32}};
  const jit::PtxKernel amd = compile(k, gfx942(subs)).ptx();
  CHECK(amd.block[0] == 256);  // four waves of 64
  CHECK_THAT(amd.amdgpu_assembly, Contains("v_mfma_f32_16x16x16_f16"));
  CHECK_THAT(amd.amdgpu_assembly, Contains(".vgpr_spill_count: 0"));
  // The same kernel on NVIDIA: mma.sync m16n8k16.
  const jit::PtxKernel nvidia = compile(k, {.subs = subs, .cache = false}).ptx();
  CHECK_THAT(nvidia.ptx, Contains("m16n8k16"));
  // A kind named for the kernel: 32 x 32 x 8.
  auto large = gemm_of<f16, f32>("gemm", HardwareConstraint{.mma = MMA::F32_32x32x8_F16});
  CHECK_THAT(compile(large, gfx942(subs)).ptx().amdgpu_assembly, Contains("v_mfma_f32_32x32x8_f16"));
}

TEST_CASE("gfx942: accesses masked at a tensor's edges go through buffers, with no branch", "[compile][amdgpu]") {
  auto k = gemm_of<f16, f32>("gemm", HardwareConstraint{});
  const auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  // M and N end inside a tile: A's and B's rows past their ends read zero through the
  // buffer's range check (no compare), C's elements past them are dropped by it. Before,
  // each masked run was a branch, and each masked store one per element.
  const std::string edges = compile(k, gfx942({{M, 1000}, {N, 1000}, {K, 1024}, {BM, 128}, {BN, 128}, {BK, 32}}))
                                .ptx()
                                .amdgpu_assembly;
  CHECK_THAT(edges, Contains("buffer_load_dwordx"));
  CHECK_THAT(edges, Contains("buffer_store_dwordx4"));
  CHECK(count(edges, "global_load") == 0);
  CHECK(count(edges, "global_store") == 0);
  CHECK(count(edges, "s_cbranch") <= 2);  // the K loop's
  // K ends inside a tile too: its mask selects an offset past the end, still no branch.
  const std::string inner = compile(k, gfx942({{M, 1000}, {N, 1000}, {K, 1000}, {BM, 128}, {BN, 128}, {BK, 32}}))
                                .ptx()
                                .amdgpu_assembly;
  CHECK_THAT(inner, Contains("buffer_load_dwordx"));
  CHECK(count(inner, "s_cbranch") <= 2);
  CHECK(count(inner, "v_cndmask") > 0);
  // Whole tiles need no mask: plain global accesses, whose 64-bit addresses take
  // immediate offsets.
  const std::string whole = compile(k, gfx942({{M, 1024}, {N, 1024}, {K, 1024}, {BM, 128}, {BN, 128}, {BK, 32}}))
                                .ptx()
                                .amdgpu_assembly;
  CHECK(count(whole, "buffer_load") == 0);
  CHECK_THAT(whole, Contains("global_load_dwordx"));
}

TEST_CASE("gfx942: stream-K adds its parts at agent scope, through a workspace the HIP runtime allocates",
          "[compile][amdgpu]") {
  // A skinny GEMM: 2 x 20 tiles of 64 x 64 on a persistent grid, each tile's 160 trips of
  // K split over the workgroups the GPU holds.
  auto k = gemm_of<f16, f32>("gemm", HardwareConstraint{});
  CompileOptions split = gfx942({{M, 128}, {N, 1280}, {K, 5120}, {BM, 64}, {BN, 64}, {BK, 32}});
  split.persistent = true;
  split.stream_k = true;
  const jit::PtxKernel compiled = compile(k, split).ptx();
  CHECK(compiled.persistent);
  CHECK(compiled.stream_k_slot_bytes > 0);  // the runtime's workspace: counters and two slots a workgroup
  const std::string& assembly = compiled.amdgpu_assembly;
  CHECK_THAT(assembly, Contains("global_atomic_add_f32"));  // the parts' sums into the tile's slot
  CHECK_THAT(assembly, Contains("global_atomic_add "));     // the tile's trip count
  // The count's release and the last part's acquire at agent scope: CDNA3 writes back
  // and invalidates its L2 for them (at the "device" scope of NVPTX it has no such scope).
  CHECK_THAT(assembly, Contains("buffer_wbl2"));
  CHECK_THAT(assembly, Contains("buffer_inv"));
  CHECK_THAT(assembly, Contains(".private_segment_fixed_size: 0"));
  CHECK(compile(k, gfx942({{M, 128}, {N, 1280}, {K, 5120}, {BM, 64}, {BN, 64}, {BK, 32}})).ptx().stream_k_slot_bytes == 0);
}

TEST_CASE("gfx950: CDNA4 takes gfx942's code with 160 KiB of LDS", "[compile][amdgpu]") {
  auto k = gemm_of<f16, f32>("gemm", HardwareConstraint{});
  const Subs subs{{M, 1000}, {N, 1000}, {K, 1000}, {BM, 128}, {BN, 128}, {BK, 32}};
  CompileOptions cdna4 = gfx942(subs);
  cdna4.target = "gfx950";
  const jit::PtxKernel compiled = compile(k, cdna4).ptx();
  CHECK(compiled.target == "gfx950");
  CHECK(is_amdgpu_shared_object(compiled.hsaco));
  CHECK_THAT(compiled.amdgpu_assembly, Contains(".amdgcn_target \"amdgcn-amd-amdhsa--gfx950"));
  CHECK_THAT(compiled.amdgpu_assembly, Contains("v_mfma_f32_16x16x16"));
  CHECK_THAT(compiled.amdgpu_assembly, Contains("buffer_load_dwordx"));
  CHECK_THAT(compiled.amdgpu_assembly, Contains(".private_segment_fixed_size: 0"));
  // Decode attention at 128 keys a step (its NVIDIA tiling) needs more than CDNA3's 64 KiB
  // of LDS (tests/hsaco): CDNA4's 160 KiB hold it.
  CompileOptions decode = examples::decode_attention::default_options();
  decode.target = "gfx950";
  decode.cache = false;
  CHECK(compile(examples::decode_attention::make_kernel(), decode).ptx().shared_bytes > 64 * 1024);
}

TEST_CASE("gfx950: f8 in the OCP encodings multiplies on CDNA4's f8 MFMA, CDNA3's FNUZ f8 is an error there",
          "[compile][amdgpu]") {
  const Subs subs{{M, 200}, {N, 136}, {K, 100}, {BM, 64}, {BN, 64}, {BK, 64}};
  CompileOptions cdna4 = gfx942(subs);
  cdna4.target = "gfx950";
  // No kind named: the target's for E4M3 operands (the fp8 form), E5M2's the bf8 form.
  auto e4m3 = gemm_of<f8e4m3, f32>("gemm_fp8", HardwareConstraint{});
  const jit::PtxKernel small = compile(e4m3, cdna4).ptx();
  CHECK_THAT(small.amdgpu_assembly, Contains("v_mfma_f32_16x16x32_fp8_fp8"));
  CHECK_THAT(small.amdgpu_assembly, Contains(".vgpr_spill_count: 0"));
  auto large = gemm_of<f8e4m3, f32>("gemm_fp8", HardwareConstraint{.mma = MMA::F32_32x32x16_F8E4M3_CDNA4});
  CHECK_THAT(compile(large, cdna4).ptx().amdgpu_assembly, Contains("v_mfma_f32_32x32x16_fp8_fp8"));
  auto e5m2 = gemm_of<f8e5m2, f32>("gemm_bf8", HardwareConstraint{});
  CHECK_THAT(compile(e5m2, cdna4).ptx().amdgpu_assembly, Contains("v_mfma_f32_16x16x32_bf8_bf8"));
  // Casts to OCP f8 and back are CDNA4's conversions; arithmetic on f8 runs in f32.
  auto convert = kernel("fp8_convert", {WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}},
                        [](Memory<dims<M>, f32> x, Memory<dims<M>, f8e4m3> y, Memory<dims<M>, f32> z) {
                          auto narrow = cast<f8e4m3>(read(x));
                          write(narrow, y);
                          write(cast<f32>(narrow * narrow), z);
                        });
  CompileOptions elementwise = gfx942({{M, 1000}, {BM, 256}});
  elementwise.target = "gfx950";
  const std::string conversions = compile(convert, elementwise).ptx().amdgpu_assembly;
  CHECK_THAT(conversions, Contains("v_cvt_pk_fp8_f32"));
  CHECK_THAT(conversions, Contains("v_cvt_pk_f32_fp8"));
  // The other encodings are each an error at the line on the target without them.
  auto fnuz = gemm_of<f8e4m3fnuz, f32>("gemm_fp8", HardwareConstraint{});
  const std::optional<Error> on_cdna4 = fixtures::error_of([&] { compile(fnuz, cdna4); });
  REQUIRE(on_cdna4);
  CHECK_THAT(on_cdna4->message(),
             Contains("but found f8e4m3fnuz (AMD CDNA3's f8 encoding: target gfx942; gfx950 multiplies OCP f8)"));
  const std::optional<Error> on_cdna3 = fixtures::error_of([&] { compile(e4m3, gfx942(subs)); });
  REQUIRE(on_cdna3);
  CHECK_THAT(on_cdna3->message(), Contains("but found f8e4m3 (OCP f8: gfx942 computes with the FNUZ f8 variants)"));
  // CDNA4's f8 kinds are AMD's: an error on NVIDIA.
  const std::optional<Error> on_nvidia = fixtures::error_of([&] { compile(large, {.subs = subs, .cache = false}); });
  REQUIRE(on_nvidia);
  CHECK_THAT(on_nvidia->message(), Contains("threads_per_wave: expected 32 on the NVIDIA target"));
}

TEST_CASE("gfx942: bf16 mmas on CDNA3's bf16 MFMA, the f16 ones' layouts", "[compile][amdgpu]") {
  auto gemm = [](HardwareConstraint hw) {
    return kernel("gemm_bf16", {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(N, BN, 1), WaveConstraint(M, BM / 2),
                                WaveConstraint(N, BN / 2), TilingConstraint(K, BK), hw},
                  [](Memory<dims<M, K>, bf16> a, Memory<dims<N, K>, bf16> b, Memory<dims<M, N>, bf16> c) {
                    Register<dims<M, N>, f32> zero(0.0);
                    write(cast<bf16>(iterate<K>(zero, [&](auto acc) { return mma(read(a), read(b), acc); })), c);
                  });
  };
  // Unaligned sizes: the edges masked as on NVIDIA.
  const Subs subs{{M, 200}, {N, 136}, {K, 100}, {BM, 64}, {BN, 64}, {BK, 32}};
  // No kind named: the target's for bf16 operands.
  const jit::PtxKernel small = compile(gemm(HardwareConstraint{}), gfx942(subs)).ptx();
  CHECK(small.block[0] == 256);
  CHECK_THAT(small.amdgpu_assembly, Contains("v_mfma_f32_16x16x16_bf16"));
  CHECK(small.amdgpu_assembly.find("v_mfma_f32_16x16x16_f16") == std::string::npos);
  CHECK_THAT(small.amdgpu_assembly, Contains(".vgpr_spill_count: 0"));
  const jit::PtxKernel large =
      compile(gemm(HardwareConstraint{.mma = MMA::F32_32x32x8_BF16}), gfx942(subs)).ptx();
  CHECK_THAT(large.amdgpu_assembly, Contains("v_mfma_f32_32x32x8_bf16"));
  CHECK_THAT(large.amdgpu_assembly, Contains(".vgpr_spill_count: 0"));
  // On NVIDIA the same kernel takes mma.sync's bf16 kind; the AMD kind is an error there.
  CHECK_THAT(compile(gemm(HardwareConstraint{}), {.subs = subs, .cache = false}).ptx().ptx,
             Contains("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  const unsigned line = __LINE__ + 1;
  auto amd_kind = gemm(HardwareConstraint{.mma = MMA::F32_16x16x16_BF16});
  check_error(fixtures::error_of([&] { compile(amd_kind, {.subs = subs, .cache = false}); }), line,
              "HardwareConstraint", "threads_per_wave: expected 32 on the NVIDIA target");
}

TEST_CASE("gfx942: i8 mmas sum in i32 on CDNA3's i8 MFMA, eight bytes of K per lane", "[compile][amdgpu]") {
  auto gemm = [](HardwareConstraint hw) { return gemm_of<i8, i32>("gemm_i8", hw); };
  // Unaligned sizes: the edges masked as on NVIDIA.
  const Subs subs{{M, 200}, {N, 136}, {K, 100}, {BM, 64}, {BN, 64}, {BK, 64}};
  // No kind named: the target's for i8 operands.
  const jit::PtxKernel small = compile(gemm(HardwareConstraint{}), gfx942(subs)).ptx();
  CHECK_THAT(small.amdgpu_assembly, Contains("v_mfma_i32_16x16x32_i8"));
  CHECK(small.amdgpu_assembly.find("v_mfma_f32") == std::string::npos);
  CHECK_THAT(small.amdgpu_assembly, Contains(".vgpr_spill_count: 0"));
  const jit::PtxKernel large = compile(gemm(HardwareConstraint{.mma = MMA::I32_32x32x16_I8}), gfx942(subs)).ptx();
  CHECK_THAT(large.amdgpu_assembly, Contains("v_mfma_i32_32x32x16_i8"));
  CHECK_THAT(large.amdgpu_assembly, Contains(".vgpr_spill_count: 0"));
  // On NVIDIA the same kernel takes mma.sync's s8 kind (wgmma where its tiles fit).
  CHECK_THAT(compile(gemm(HardwareConstraint{}), {.subs = subs, .cache = false, .warpgroup_mma = false}).ptx().ptx,
             Contains("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"));
}

TEST_CASE("gfx942: f8 in CDNA3's FNUZ encodings multiplies on its f8 MFMA and converts in registers",
          "[compile][amdgpu]") {
  auto gemm = [](HardwareConstraint hw) { return gemm_of<f8e4m3fnuz, f32>("gemm_fp8", hw); };
  const Subs subs{{M, 200}, {N, 136}, {K, 100}, {BM, 64}, {BN, 64}, {BK, 64}};
  // No kind named: the target's for FNUZ E4M3 operands, eight bytes of K per lane.
  const jit::PtxKernel small = compile(gemm(HardwareConstraint{}), gfx942(subs)).ptx();
  CHECK_THAT(small.amdgpu_assembly, Contains("v_mfma_f32_16x16x32_fp8_fp8"));
  CHECK_THAT(small.amdgpu_assembly, Contains(".vgpr_spill_count: 0"));
  const jit::PtxKernel large =
      compile(gemm(HardwareConstraint{.mma = MMA::F32_32x32x16_F8E4M3FNUZ}), gfx942(subs)).ptx();
  CHECK_THAT(large.amdgpu_assembly, Contains("v_mfma_f32_32x32x16_fp8_fp8"));
  // E5M2 is the bf8 form.
  auto bf8 = gemm_of<f8e5m2fnuz, f32>("gemm_bf8", HardwareConstraint{});
  CHECK_THAT(compile(bf8, gfx942(subs)).ptx().amdgpu_assembly, Contains("v_mfma_f32_16x16x32_bf8_bf8"));
  // Casts to and from f8 are the chip's conversions (to f8 saturating), and arithmetic on
  // f8 runs in f32 between them.
  auto convert = kernel("fp8_convert", {WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}},
                        [](Memory<dims<M>, f32> x, Memory<dims<M>, f8e4m3fnuz> y, Memory<dims<M>, f32> z) {
                          auto narrow = cast<f8e4m3fnuz>(read(x));
                          write(narrow, y);
                          write(cast<f32>(narrow * narrow), z);
                        });
  const std::string conversions = compile(convert, gfx942({{M, 1000}, {BM, 256}})).ptx().amdgpu_assembly;
  CHECK_THAT(conversions, Contains("v_cvt_pk_fp8_f32"));
  CHECK_THAT(conversions, Contains("v_cvt_pk_f32_fp8"));
  // NVIDIA has no FNUZ f8: an error that names the argument and says which target has it.
  const std::optional<Error> on_nvidia =
      fixtures::error_of([&] { compile(gemm(HardwareConstraint{}), {.subs = subs, .cache = false}); });
  REQUIRE(on_nvidia);
  CHECK_THAT(on_nvidia->message(), Contains("but found f8e4m3fnuz (AMD CDNA3's f8 encoding: target gfx942)"));
}

TEST_CASE("gfx942: what its lowering does not take is an error at the line", "[compile][amdgpu][error]") {
  SECTION("waves of 32") {
    const unsigned line = __LINE__ + 2;
    auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM),
                             HardwareConstraint{.threads_per_wave = 32}},
                    copy);
    check_error(fixtures::error_of([&] { compile(k, gfx942({{M, 64}, {N, 64}, {BM, 1}})); }), line, "HardwareConstraint",
                "threads_per_wave: expected 64 on the AMD target (gfx942");
  }
  SECTION("an NVIDIA MMA kind") {
    const unsigned line = __LINE__ + 2;
    auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM),
                             HardwareConstraint{.mma = MMA::F32_16x8x16_F16}},
                    copy);
    check_error(fixtures::error_of([&] { compile(k, gfx942({{M, 64}, {N, 64}, {BM, 1}})); }), line, "HardwareConstraint",
                "but found 32 (MMA kind f32_16x8x16_f16)");
  }
  SECTION("OCP f8") {
    const unsigned line = __LINE__ + 3;
    auto k = kernel("to_f8", {WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}},
                    [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) {
                      write(cast<f16>(cast<f8e4m3>(read(a))), b);
                    });
    check_error(fixtures::error_of([&] { compile(k, gfx942({{M, 64}, {N, 64}, {BM, 1}})); }), line, "cast",
                "FNUZ");
  }
  SECTION("more shared memory than a workgroup's LDS") {
    // Decode attention as tiled for an H100: 100 KiB of shared tiles.
    const std::optional<Error> e = fixtures::error_of([&] {
      CompileOptions options = examples::decode_attention::default_options();
      options.target = "gfx942";
      options.cache = false;
      compile(examples::decode_attention::make_kernel(), options);
    });
    REQUIRE(e.has_value());
    CHECK_THAT(e->message(), Contains("shared memory: expected at most 65536 bytes per workgroup on gfx942 (LDS)"));
  }
  SECTION("clusters") {
    auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}}, copy);
    CompileOptions clusters = gfx942({{M, 64}, {N, 64}, {BM, 1}});
    clusters.cluster_size = 2;
    const std::optional<Error> e = fixtures::error_of([&] { compile(k, clusters); });
    REQUIRE(e.has_value());
    CHECK_THAT(e->message(), Contains("cluster_size: expected 1 on gfx942"));
  }
}

TEST_CASE("gfx942: a code object is cached, and launching it says why it cannot run here", "[compile][amdgpu][error]") {
  const std::filesystem::path cache = std::filesystem::temp_directory_path() / "wave-amdgpu-cache-test";
  std::filesystem::remove_all(cache);
  auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}}, copy);
  CompileOptions cached = gfx942({{M, 64}, {N, 64}, {BM, 1}});
  cached.cache = true;
  cached.cache_dir = cache.string();
  const CompiledKernel first = compile(k, cached);
  const CompiledKernel again = compile(k, cached);  // from the cache
  CHECK(again.ptx().hsaco == first.ptx().hsaco);
  CHECK(again.ptx().amdgpu_assembly == first.ptx().amdgpu_assembly);
  CHECK(again.ptx().target == "gfx942");
  // No AMD GPU here: the launch loads the HIP runtime (or finds none) and says why it
  // cannot run, before any pointer is used.
  const std::optional<Error> e = fixtures::error_of(
      [&] { again.launch({reinterpret_cast<const void*>(0x1000), reinterpret_cast<const void*>(0x2000)}); });
  REQUIRE(e.has_value());
  INFO(e->what());
  CHECK(e->op() == "launch");
  CHECK_THAT(e->message(), Contains("expected an AMD GPU to launch a code object on, but found none"));
  const bool explained = e->message().find("no HIP runtime on this machine (") != std::string::npos ||
                         e->message().find("no AMD GPU is usable: hipInit (") != std::string::npos ||
                         e->message().find("the HIP runtime reports no AMD GPU") != std::string::npos;
  CHECK(explained);
  // On a HIP stream, the same (the runtime is what is missing).
  const auto* a = reinterpret_cast<const void*>(0x1000);
  const auto* b = reinterpret_cast<const void*>(0x2000);
  const std::optional<Error> on_stream =
      fixtures::error_of([&] { again.launch({a, b}, {.hip_stream = reinterpret_cast<void*>(0x10)}); });
  REQUIRE(on_stream.has_value());
  CHECK_THAT(on_stream->message(), Contains("expected an AMD GPU to launch a code object on, but found none"));
  // A HIP stream for a kernel compiled for NVIDIA: an error before any driver call.
  const CompiledKernel nvidia = compile(k, {.subs = {{M, 64}, {N, 64}, {BM, 1}}, .cache = false});
  const std::optional<Error> wrong =
      fixtures::error_of([&] { nvidia.launch({a, b}, {.hip_stream = reinterpret_cast<void*>(0x10)}); });
  REQUIRE(wrong.has_value());
  CHECK_THAT(wrong->message(), Contains("LaunchOptions::hip_stream: expected none for a kernel compiled for sm_90a"));
  std::filesystem::remove_all(cache);
}
