// Import into the `wave` dialect: what the verified IR of each example holds.
#include <catch2/catch.hpp>

#include "kernels/conv2d.hpp"
#include "kernels/copy.hpp"
#include "kernels/flash_attention.hpp"
#include "kernels/gemm.hpp"
#include "kernels/gemm_split_k.hpp"
#include "kernels/paged_decode_attention.hpp"
#include "kernels/varlen_attention.hpp"
#include "fixtures/printing.hpp"

using namespace wave;
using Catch::Matchers::Contains;

namespace {
std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("gemm imports with constraints, hyperparameters and resolved address spaces", "[import]") {
  const std::string ir = examples::gemm::make_kernel().ir(examples::gemm::default_options());
  CHECK_THAT(ir, Contains("func.func @gemm("));
  CHECK_THAT(ir, Contains("!wave.memory<[M, K] of f16, shared>"));
  CHECK_THAT(ir, Contains("!wave.memory<[M, N] of f32, global>"));
  CHECK_THAT(ir, Contains("#wave.workgroup_constraint<dim = \"M\", tile = #wave.expr<\"BLOCK_M\">, workgroup_dim = 0>"));
  CHECK_THAT(ir, Contains("#wave.wave_constraint<dim = \"N\", tile = #wave.expr<\"BLOCK_N floordiv 2\">>"));
  CHECK_THAT(ir, Contains("#wave.assumption<#wave.expr<\"K > BLOCK_K * 4\">>"));
  // The kernel names no MMA kind: the mma takes the target's for f16 (sm_90a by default;
  // gfx942's MFMA for an AMD target).
  CHECK_THAT(ir, Contains("{kind = #wave.mma_kind<f32_16x8x16_f16>}"));
  CompileOptions amd = examples::gemm::default_options();
  amd.target = "gfx942";
  const std::string amdIr = examples::gemm::make_kernel().ir(amd);
  CHECK_THAT(amdIr, Contains("{kind = #wave.mma_kind<f32_16x16x16_f16>}"));
  CHECK_THAT(amdIr, Contains("#wave.hardware_constraint<threads_per_wave = 64>"));
  CHECK_THAT(ir, Contains("BLOCK_K = 64 : i64"));
  CHECK(count(ir, "wave.read") == 2);
  CHECK(count(ir, "= wave.mma ") == 1);
  CHECK(count(ir, "wave.iterate") == 1);
  CHECK(count(ir, "wave.yield") == 1);
}

TEST_CASE("without subs, the address-space symbol stays symbolic", "[import]") {
  const std::string ir = examples::gemm::make_kernel().ir();
  CHECK_THAT(ir, Contains("!wave.memory<[M, K] of f16, ADDRESS_SPACE>"));
  CHECK_FALSE(count(ir, "wave.hyperparameters"));
}

TEST_CASE("conv2d's index mappings become affine expressions over iterators", "[import]") {
  const std::string ir = examples::conv2d::make_kernel(2).ir(examples::conv2d::default_options());
  CHECK_THAT(ir, Contains("#wave.index_mapping<"));
  CHECK_THAT(ir, Contains("N = #wave.expr<\"$0 floordiv SZ_OUT\">"));
  CHECK_THAT(ir, Contains("C = #wave.expr<\"$1 mod C\">"));
  CHECK(count(ir, "mapping = #wave.index_mapping") == 3);
}

TEST_CASE("flash attention imports both mmas, reductions and the mask", "[import]") {
  const std::string ir = examples::flash_attention::make_kernel().ir(
      examples::flash_attention::default_options());
  CHECK(count(ir, "= wave.mma ") == 2);
  CHECK(count(ir, "wave.reduce_max") == 1);
  CHECK(count(ir, "wave.reduce_sum") == 1);
  CHECK(count(ir, "wave.exp2") == 2);
  CHECK_THAT(ir, Contains("wave.self_index \"K2\""));
  CHECK_THAT(ir, Contains("#wave.expr<\"$0 < K2\">"));
  CHECK_THAT(ir, Contains("vector_shapes = {B = 0 : i64, H = 0 : i64}"));
}

TEST_CASE("debug locations point at the user's source", "[import]") {
  const std::string ir = examples::copy::make_kernel().ir({.debug_locations = true});
  CHECK_THAT(ir, Contains("copy.hpp\":"));
}

TEST_CASE("error: min inside an expression the dialect cannot hold", "[import][error]") {
  WAVE_SYMBOL(M);
  WAVE_SYMBOL(N);
  WAVE_SYMBOL(BM);
  const unsigned line = __LINE__ + 1;
  auto k = kernel("copy", {WorkgroupConstraint(M, min(BM, 64) + 1, 0), HardwareConstraint{}},
                  [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); });
  try {
    k.ir();
    FAIL("expected a wave::Error");
  } catch (const Error& e) {
    CHECK(e.line() == line);
    CHECK(e.op() == "WorkgroupConstraint");
    CHECK_THAT(e.message(), Contains("min, max and comparisons may appear only at the top"));
  }
}

TEST_CASE("split-K: atomic_add traces as its own op and imports as a write that adds", "[import][atomic]") {
  namespace sk = examples::gemm_split_k;
  const auto gemm = sk::make_kernel<f16>();
  const graph::KernelGraph g = gemm.trace();
  REQUIRE(!g.body.nodes.empty());
  CHECK(g.body.nodes.back().kind == graph::OpKind::AtomicAdd);
  CHECK(std::string(graph::op_name(graph::OpKind::AtomicAdd)) == "atomic_add");
  const std::string ir = gemm.ir();
  CHECK(count(ir, "wave.write") == 1);
  CHECK(count(ir, "combine = #wave.combine<add>") == 1);
  CHECK(count(ir, "#wave.workgroup_constraint<dim = \"K\"") == 1);
}

TEST_CASE("print imports as wave.print with its label, limit and mask", "[import][print]") {
  namespace px = wave::fixtures::printing;
  const std::string ir = px::rows_kernel().ir(px::rows_options(4, 100));
  CHECK(count(ir, "wave.print ") == 4);
  CHECK(count(ir, "\"x\" {limit = 40 : i64}") == 1);
  CHECK(count(ir, " where ") == 1);
  CHECK(count(ir, "\"twice\" {limit = 1048576 : i64}") == 1);
}

TEST_CASE("paged decode imports its cache reads with the block table's pages as dynamic values", "[import][dynamic]") {
  namespace pd = examples::paged_decode_attention;
  const std::string ir = pd::make_chunk_kernel().ir({.subs = pd::chunk_sizes({4, 32, 8, 128, 16, 1000, 4})});
  // The table read takes the clamped positions; K and V take the pages and the positions.
  CHECK(count(ir, "dynamic = 1>") == 1);
  CHECK(count(ir, "dynamic = 2>") == 2);
  CHECK(count(ir, " dynamic(%") == 3);
  CHECK_THAT(ir, Contains("PAGES = #wave.expr<\"$4\">"));
  CHECK_THAT(ir, Contains("PAGE = #wave.expr<\"$5 mod PAGE\">"));
  // Each chunk's keys end at its sequence's end.
  CHECK(count(ir, "wave.set_symbol \"KC\" = %") == 1);
}

TEST_CASE("varlen attention imports its sequences' ends as set_symbols and offsets its rows", "[import][set_symbol]") {
  namespace va = examples::varlen_attention;
  const std::string ir = va::make_kernel().ir({.subs = va::sizes({.lengths = {5, 300, 77}})});
  CHECK(count(ir, "wave.set_symbol \"M\" = %") == 1);
  CHECK(count(ir, "wave.set_symbol \"K2\" = %") == 1);
  // Q, K, V and the output offset by the sequence's first token.
  CHECK(count(ir, " dynamic(%") == 4);
  CHECK_THAT(ir, Contains("T = #wave.expr<\"$2 + $4\">"));
}

TEST_CASE("min reductions, prefix sums and atomic min/max import as their ops", "[import][scan]") {
  WAVE_SYMBOL(T);
  WAVE_SYMBOL(E);
  WAVE_SYMBOL(BLOCK_T);
  auto k = kernel("routing",
                  Constraints{WorkgroupConstraint(T, BLOCK_T, 0), WaveConstraint(T, BLOCK_T), HardwareConstraint{.threads_per_wave = 32}},
                  [](Memory<dims<T, E>, i32> counts, Memory<dims<T, E>, i32> offsets, Memory<dims<T>, i32> least,
                     Memory<dims<T, E>, i32> lo, Memory<dims<T, E>, i32> hi) {
                    auto c = read(counts);
                    write(cumsum<E>(c), offsets);
                    write(min<E>(c), least);
                    atomic_min(c, lo);
                    atomic_max(c, hi);
                  });
  const std::string ir = k.ir();
  CHECK_THAT(ir, Contains("wave.cumsum %0 along \"E\" : !wave.tensor<[T, E] of i32>"));
  CHECK_THAT(ir, Contains("wave.reduce_min %0 along \"E\""));
  CHECK(count(ir, "{combine = #wave.combine<min>}") == 1);
  CHECK(count(ir, "{combine = #wave.combine<max>}") == 1);
  CHECK(count(ir, "wave.atomic") == 0);
}

TEST_CASE("shuffle, extract, workgroup_barrier and set_wave_prio import as their ops", "[import][shuffle]") {
  WAVE_SYMBOL(M);
  WAVE_SYMBOL(N);
  WAVE_SYMBOL(BM);
  auto k = kernel("picks", Constraints{WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}},
                  [](Memory<dims<M, N>, f32> x, Memory<dims<M, N>, f32> y, Memory<dims<M>, i32> at, Memory<dims<M>, f32> picked) {
                    auto v = read(x);
                    write(shuffle<N>(v, 5), y);
                    workgroup_barrier();
                    set_wave_prio(2);
                    write(extract<N>(v, read(at)), picked);
                  });
  const std::string ir = k.ir();
  CHECK_THAT(ir, Contains("wave.shuffle %0 xor 5 along \"N\" : !wave.tensor<[M, N] of f32>"));
  CHECK_THAT(ir, Contains("wave.workgroup_barrier"));
  CHECK_THAT(ir, Contains("wave.set_wave_prio 2"));
  CHECK_THAT(ir, Contains("along \"N\" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of i32>) -> !wave.tensor<[M] of f32>"));
  CHECK(count(ir, "wave.extract %0 at") == 1);
}

TEST_CASE("extract_slice and reshape import as their ops", "[import][slice]") {
  WAVE_SYMBOL(M);
  WAVE_SYMBOL(N);
  WAVE_SYMBOL(W);
  WAVE_SYMBOL(H);
  WAVE_SYMBOL(D);
  WAVE_SYMBOL(BM);
  auto k = kernel("windows", Constraints{WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}},
                  [](Memory<dims<M, N>, f32> x, Memory<dims<M>, i32> at, Memory<dims<M, W>, f32> y,
                     Memory<dims<M, H, D>, f32> z) {
                    auto v = read(x);
                    write(extract_slice<N, W>(v, read(at), 3), y);
                    write(reshape<dims<M, H, D>>(v), z);
                  });
  const std::string ir = k.ir();
  CHECK_THAT(ir, Contains("along \"N\" step 3 : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, W] of i32>) -> "
                          "!wave.tensor<[M, W] of f32>"));
  CHECK(count(ir, "wave.extract_slice %0 at") == 1);
  CHECK_THAT(ir, Contains("wave.reshape %0 : !wave.tensor<[M, N] of f32> -> !wave.tensor<[M, H, D] of f32>"));
}
