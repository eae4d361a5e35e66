// The flash attention example to PTX: two MMAs per key tile on tensor cores, the scores'
// reductions as xor shuffles in groups of four lanes, V's operands by transposing
// ldmatrix, one barrier per key tile; and attention kernels the lowering rejects, each
// with a message naming the op and the user's line.
#include <catch2/catch.hpp>

#include "fixtures/occurrences.hpp"
#include "fixtures/ptxas.hpp"
#include "kernels/decode_attention.hpp"
#include "kernels/flash_attention.hpp"
#include "wave/compile.hpp"
#include "wave/dlpack.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

using namespace wave;
using Catch::Matchers::Contains;
using fixtures::count;
namespace ex = examples::flash_attention;

namespace {

CompileOptions options(int d, int s, int block_m = 128, int block_k2 = 64) {
  return {.subs = {{ex::B, 2}, {ex::H, 3}, {ex::M, s}, {ex::K2, s}, {ex::K1, d}, {ex::N, d}, {ex::BLOCK_M, block_m},
                   {ex::BLOCK_K2, block_k2}},
          .cache = false};
}

// The constraints of a hand-written attention kernel: 8 waves over the queries, or one wave
// tile of queries and 4 waves over each key tile.
Constraints attention_constraints(bool keys_over_waves) {
  using namespace ex;
  Constraints c{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(H, 1, 1), WorkgroupConstraint(B, 1, 2),
                TilingConstraint(K2, BLOCK_K2), HardwareConstraint{.threads_per_wave = 32, .mma = MMA::F32_16x8x16_F16}};
  if (keys_over_waves) {
    c.push_back(WaveConstraint(M, BLOCK_M));
    c.push_back(WaveConstraint(K2, BLOCK_K2 / 4));
  } else {
    c.push_back(WaveConstraint(M, BLOCK_M / 8));
  }
  return c;
}

// A hand-written attention kernel that carries only its output, with probabilities
// `probabilities(scores)`.
template <class Probabilities>
auto plain_attention(const char* name, bool keys_over_waves, Probabilities probabilities) {
  using namespace ex;
  return kernel(name, attention_constraints(keys_over_waves),
                [probabilities](Memory<dims<B, H, M, K1>, f16> q, Memory<dims<B, H, K2, K1>, f16> k,
                                Memory<dims<B, H, K2, N>, f16> v, Memory<dims<B, H, M, N>, f32> out) {
                  Register<dims<B, H, N, M>, f32> acc0(0.0);
                  auto result = iterate<K2>(acc0, [&](auto acc) {
                    Register<dims<B, H, K2, M>, f32> zero(0.0);
                    return mma(read(v), probabilities(mma(read(k), read(q), zero)), acc);
                  });
                  write(result, out);
                });
}

template <class Kernel>
Error compile_error(const Kernel& kernel, const CompileOptions& how) {
  try {
    compile(kernel, how);
  } catch (const Error& e) {
    return e;
  }
  FAIL("expected a wave::Error");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("flash attention compiles to wgmma or mma.sync, shuffles and transposing ldmatrix", "[compile][attention]") {
  struct Case {
    int d, s;
    bool causal, warpgroup;
  };
  for (Case c : {Case{128, 4096, false, true}, Case{64, 1000, true, true}, Case{128, 4096, false, false},
                 Case{64, 1000, true, false}}) {
    INFO("D " << c.d << ", S " << c.s << (c.causal ? ", causal" : "") << (c.warpgroup ? ", wgmma" : ", mma.sync"));
    CompileOptions o = options(c.d, c.s);
    o.warpgroup_mma = c.warpgroup;
    const auto k = compile(ex::make_kernel({.head_dim = c.d, .causal = c.causal}), o);
    const std::string& ptx = k.ptx().ptx;
    // One key loop: the masks (a partial last tile, those a causal mask cuts) under a
    // branch inside it (wave-mask-partial-tiles), not a second copy of the loop.
    const int loops = 1;
    // Per key tile of 64, on warpgroups (64 queries each): S = Q K^T is one m64n64k16 wgmma
    // per k16 step of D (Q from its swizzled tile, filled once before the loop, at D 64
    // too: no registers hold it), O += P V one m64nDk16 per k16 step of the keys, P from
    // S's registers and V read transposed from its tile; each batch waited for at once
    // (the loop reads S, and rescales O before the next). On mma.sync, per wave of 16
    // queries: S is 8 column tiles x D/16 steps, O D/8 column tiles x 4 steps, V through
    // transposing ldmatrix.
    const int syncs = c.warpgroup ? 0 : 8 * (c.d / 16) + (c.d / 8) * 4;
    CHECK(count(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == loops * syncs);
    CHECK(count(ptx, "wgmma.mma_async.sync.aligned") == (c.warpgroup ? loops * (c.d / 16 + 4) : 0));
    CHECK(count(ptx, "wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.d) + "k16.f32.f16.f16") ==
          (c.warpgroup ? loops * (c.d == 64 ? c.d / 16 + 4 : 4) : 0));
    CHECK(count(ptx, "wgmma.wait_group.sync.aligned") == (c.warpgroup ? 2 * loops : 0));
    CHECK(count(ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") == (c.warpgroup ? 0 : loops * (c.d / 16) * 4));
    // Max and sum over each lane's two rows: two xor shuffles each; then the f32 output's
    // pairs exchanged into 16-byte store runs (wave-widen-store-runs): one shuffle per two
    // of the thread's D / 2 registers.
    CHECK(count(ptx, "shfl.sync.bfly.b32") == loops * 2 * 2 * 2 + c.d / 4);
    // On warpgroups the tiles are TMA's: Q's once, K's and V's in the loop per key tile (boxes
    // of 64 along D), each tile's copies landing on its mbarrier; on mma.sync, cp.async.
    CHECK((count(ptx, "cp.async.cg.shared.global") > 0) == !c.warpgroup);
    CHECK((count(ptx, "cp.async.bulk.tensor.4d") > 0) == c.warpgroup);
    CHECK(count(ptx, "cp.async.bulk.tensor.4d") % (c.d / 64) == 0);  // a box per 128 bytes of D
    // One per key tile, before its copies (the mbarriers publish what lands: no barrier
    // after); on warpgroups one more after the mbarriers' initialization.
    CHECK(count(ptx, "bar.sync") == loops + (c.warpgroup ? 1 : 0));
    CHECK(k.ptx().grid == std::array<unsigned, 3>{static_cast<unsigned>((c.s + 127) / 128), 3, 2});
    CHECK(k.ptx().block == std::array<unsigned, 3>{256, 1, 1});
  }
  // f16 out, other tiles, and every dim but the head dims at launch.
  // (The output's conversions to f16 join P's, in pairs.)
  CHECK(count(compile(ex::make_kernel<f16>(), options(128, 1000)).ptx().ptx, "cvt.rn.f16x2.f32") >
        count(compile(ex::make_kernel(), options(128, 1000)).ptx().ptx, "cvt.rn.f16x2.f32"));
  CHECK_THAT(compile(ex::make_kernel({.head_dim = 64, .waves = 4}), options(64, 333, 64, 32)).ptx().ptx,
             Contains("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16"));
  const auto dynamic = compile(ex::make_kernel({.head_dim = 64, .causal = true}),
                               {.subs = {{ex::K1, 64}, {ex::N, 64}, {ex::BLOCK_M, 128}, {ex::BLOCK_K2, 128}},
                                .cache = false});
  CHECK(dynamic.dynamic_dims().size() == 4);
  CHECK(dynamic.ptx().grid_for(std::map<std::string, std::int64_t>{{"B", 2}, {"H", 5}, {"M", 129}, {"K2", 7}}) ==
        std::array<unsigned, 3>{2, 5, 2});
}

TEST_CASE("attention bad input: a head dim left out of subs", "[compile][attention][error]") {
  const Error e = compile_error(ex::make_kernel(), {.subs = {{ex::N, 128}, {ex::BLOCK_M, 128}, {ex::BLOCK_K2, 64}},
                                                    .cache = false});
  CHECK(e.kernel() == "flash_attention");
  CHECK_THAT(e.message(), Contains("expected a value in subs for K1 (a dim without a workgroup constraint is one tile)"));
}

TEST_CASE("attention bad input: tiles the MMA does not divide", "[compile][attention][error]") {
  // 16 waves of 8 queries: the attention lowering wants 16 rows per wave, but the queries
  // are the columns of S = K Q^T, 8 per mma.sync tile, so the layout pipeline lowers it.
  CHECK_THAT(compile(ex::make_kernel({.waves = 16}), options(128, 1024)).ptx().ptx, Contains("mma.sync"));
  CHECK_THAT(compile_error(ex::make_kernel(), options(128, 1024, 128, 24)).message(),
             Contains("expected the tiling tile of K2 (24) to be a multiple of the f32_16x8x16_f16 tile (16)"));
  CHECK_THAT(compile_error(ex::make_kernel({.head_dim = 72}), options(72, 1024)).message(),
             Contains("expected the size of K1 (72) to be a multiple of the f32_16x8x16_f16 tile (16)"));
}

TEST_CASE("attention bad input: a reduction of the scores over the queries", "[compile][attention][error]") {
  using namespace ex;
  // A reduction of the scores over the queries instead of the keys.
  auto wrong_reduction = plain_attention("attention_reduce_m", /*keys_over_waves=*/false, [](auto s) {
    auto col = max<M>(s);  // [B, H, K2]
    return cast<f16>(s * col);
  });
  const Error e = compile_error(wrong_reduction, options(128, 1024));
  CHECK(e.kernel() == "attention_reduce_m");
  CHECK(e.op() == "wave.reduce_max");
  CHECK_THAT(e.file(), Contains("attention_compile_test.cpp"));
  CHECK(e.line() > 0);
  // M spans several workgroups, so no workgroup holds a whole column to reduce.
  CHECK_THAT(e.message(), Contains("expected one workgroup to cover the dim it reduces over, M, whose workgroup tile "
                                   "is 128, but M is 1024"));
}

// Whether every `what` in `ptx` comes after its last `after`.
bool allAfterLast(const std::string& ptx, const std::string& what, const std::string& after) {
  const auto last = ptx.rfind(after);
  return last != std::string::npos && ptx.find(what) > last;
}

TEST_CASE("decode attention: waves fold their keys apart, combined once after the loop", "[compile][attention]") {
  namespace dx = examples::decode_attention;
  // 16 queries: with fewer, rows known to be past M lose their exchange and their stores.
  const auto k = compile(dx::make_kernel(), {.subs = {{ex::B, 8}, {ex::H, 32}, {ex::M, 16}, {ex::K2, 4096},
                                                      {ex::K1, 128}, {ex::N, 128}, {ex::BLOCK_M, 16},
                                                      {ex::BLOCK_K2, 128}},
                                             .cache = false});
  const std::string& ptx = k.ptx().ptx;
  CHECK(k.ptx().grid == std::array<unsigned, 3>{1, 32, 8});
  CHECK(k.ptx().block == std::array<unsigned, 3>{128, 1, 1});  // four waves, 32 keys of each tile each
  // Per wave and key tile: S over its 32 keys (4 column tiles x 8 steps), P V over the
  // same 32 keys only (16 x 2): the waves do not repeat each other's products.
  CHECK(count(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 4 * 8 + 16 * 2);
  // One exchange, after the loop: each wave's max and sum (4 registers a lane each, rows
  // repeated twice) and output (64), out to shared memory and back from the four waves.
  CHECK(count(ptx, "st.shared.b32") == 4 + 4 + 64);
  CHECK(allAfterLast(ptx, "st.shared.b32", "mma.sync"));
  CHECK(count(ptx, "ld.shared.b32") >= 3 * 72);
}

TEST_CASE("attention without a softmax, keys split among waves: a plain sum folds apart too", "[compile][attention]") {
  using namespace ex;
  // The loop carries a plain sum (an mma over the keys into it): each wave contracts its
  // own keys, and the waves' sums meet once after the loop (the attention lowering
  // rejected this; tests/gpu/gemm_fusion_test.cpp runs the same pattern).
  auto plain = plain_attention("attention_plain_sum", /*keys_over_waves=*/true, [](auto s) { return cast<f16>(s); });
  const auto k = compile(plain, {.subs = {{B, 1}, {H, 1}, {M, 1}, {K2, 256}, {K1, 64}, {N, 64}, {BLOCK_M, 16},
                                          {BLOCK_K2, 128}},
                                 .cache = false});
  const std::string& ptx = k.ptx().ptx;
  // Per wave and tile: S over its 32 keys (32 x 16 over 64) and P V over them (64 x 16
  // over 32), 16 each; repeating P V over the whole tile would take 64.
  CHECK(count(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 16 + 16);
  CHECK(count(ptx, "st.shared") > 0);
  CHECK(allAfterLast(ptx, "st.shared", "mma.sync"));
}

TEST_CASE("attention bad input: tensors whose head dims disagree with the kernel's", "[compile][attention][error]") {
  // D = 128 in subs, B, H and S at launch from the tensors' shapes; q comes with D = 64.
  const auto attention = compile(ex::make_kernel(), {.subs = {{ex::K1, 128}, {ex::N, 128}, {ex::BLOCK_M, 128},
                                                              {ex::BLOCK_K2, 64}},
                                                     .cache = false});
  alignas(16) static char storage[64];
  auto tensor = [&](std::int64_t* shape) {
    DLTensor t{};
    t.data = storage;
    t.device = {kDLCUDA, 0};
    t.ndim = 4;
    t.dtype = {static_cast<std::uint8_t>(kDLFloat), 16, 1};
    t.shape = shape;
    return t;
  };
  std::int64_t good[4] = {2, 4, 256, 128}, narrow[4] = {2, 4, 256, 64}, longer[4] = {2, 4, 300, 128};
  DLTensor out = tensor(good);
  out.dtype.bits = 32;
  auto error_of = [&](std::int64_t* q, std::int64_t* k) -> std::string {
    try {
      attention.launch({from_dlpack(tensor(q)), from_dlpack(tensor(k)), from_dlpack(tensor(good)), from_dlpack(out)});
    } catch (const Error& e) {
      CHECK(e.kernel() == "flash_attention");
      return e.message();
    }
    return "no error";
  };
  CHECK_THAT(error_of(narrow, good), Contains("argument 0, dim K1: expected 128 (its value in subs), but found 64"));
  // k's and v's key counts disagree: K2 is one dim.
  CHECK_THAT(error_of(good, longer), Contains("argument 2, dim K2: expected 300 (the size argument 1 has), but found 256"));
}

TEST_CASE("causal flash attention's key loop ends at the diagonal", "[compile][attention]") {
  // wave-skip-masked-tiles proves every carried value (max, sum, output) unchanged by a
  // key tile the causal mask hides whole, and ends the loop after the workgroup's last
  // query (BLOCK_M = 128); the lowered loop runs min(K2, m0 + 128) keys.
  const auto dir = std::filesystem::temp_directory_path() / ("wave-causal-dump-" + std::to_string(Catch::rngSeed()));
  std::filesystem::remove_all(dir);
  CompileOptions how = options(64, 1000);
  how.dump_dir = dir.string();
  compile(ex::make_kernel({.head_dim = 64, .causal = true}), how);
  std::string skipped;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.path().filename().string().find("skip-masked-tiles") != std::string::npos) {
      std::ifstream in(entry.path());
      skipped.assign(std::istreambuf_iterator<char>(in), {});
    }
  std::filesystem::remove_all(dir);
  REQUIRE_FALSE(skipped.empty());
  CHECK_THAT(skipped, Contains("end = #wave.expr<\"$0 + 128\">, end_dims = [\"M\"]"));
}

TEST_CASE("causal attention's unmasked key tiles compute the softmax as the non-causal kernel does",
          "[compile][attention]") {
  // The masks are computed under a branch only the diagonal's tiles take; added before the
  // softmax scale (wave-scale-after-masks), the scale follows the branch, so the row max
  // multiplies once and each logit less the max is one fma, as without a mask.
  CompileOptions how = options(64, 2048, 128, 64);
  how.warp_specialize = true;
  const std::string plain = compile(ex::make_kernel({.head_dim = 64, .causal = false}), how).ptx().ptx;
  const std::string causal = compile(ex::make_kernel({.head_dim = 64, .causal = true}), how).ptx().ptx;
  const int fmas = count(plain, "fma.rn.f32");
  CHECK(fmas >= 64);  // one per score of a thread's 128 x 64 tile share
  CHECK(count(causal, "fma.rn.f32") == fmas);
  CHECK(count(causal, "sub.f32") == count(plain, "sub.f32"));  // the max's rescaling only
  CHECK(count(causal, "mul.f32") == count(plain, "mul.f32"));
}

TEST_CASE("causal flash attention D 128 on 128x128 tiles of two computing warpgroups: no spill", "[compile][attention][ws]") {
  // Its P V overlapping the softmax: 24 bytes spilled at 232 registers with the key-bounds
  // mask on the diagonal tiles and 64-bit positions (bench/RESULTS.md, runs 262-265).
  for (const int keys : {4096, 1000}) {
    INFO(keys << " keys");
    CompileOptions how{.subs = {{ex::B, 4}, {ex::H, 16}, {ex::M, keys}, {ex::K2, keys}, {ex::K1, 128}, {ex::N, 128},
                                {ex::BLOCK_M, 128}, {ex::BLOCK_K2, 128}},
                       .cache = false,
                       .warp_specialize = true};
    const auto flash = compile(ex::make_kernel<f16>({.head_dim = 128, .causal = true, .waves = 8}), how);
    CHECK_THAT(flash.ptx().ptx, Contains("setmaxnreg.inc.sync.aligned.u32 \t240;"));
    fixtures::check_ptxas_clean(flash.ptx().ptx, "flash_attention_causal");
  }
}
