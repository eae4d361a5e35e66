// Whole kernels to PTX: the copy example compiles to vectorized, masked code.
#include <catch2/catch.hpp>

#include "kernels/copy.hpp"
#include "kernels/gemm.hpp"

using namespace wave;
using Catch::Matchers::Contains;

TEST_CASE("the copy example compiles to 16-byte loads and stores", "[compile][ptx]") {
  const auto kernel = examples::copy::make_kernel();
  const jit::PtxKernel ptx = jit::compile_to_ptx(kernel.trace(), examples::copy::default_options());
  CHECK(ptx.entry == "copy");
  CHECK_THAT(ptx.ptx, Contains(".visible .entry copy("));
  CHECK_THAT(ptx.ptx, Contains("ld.global.v4"));
  CHECK_THAT(ptx.ptx, Contains("st.global.v4"));
  // 4096 x 4096 in 1 x 1024 tiles: N over grid x, M over grid y; one wave per block.
  CHECK(ptx.grid == std::array<unsigned, 3>{4, 4096, 1});
  CHECK(ptx.block == std::array<unsigned, 3>{32, 1, 1});
}

TEST_CASE("error: a target wave-cpp does not know", "[compile][error]") {
  const auto kernel = examples::copy::make_kernel();
  try {
    jit::compile_to_ptx(kernel.trace(), examples::copy::default_options(), "sm_75x");
    FAIL("expected a wave::Error");
  } catch (const Error& e) {
    CHECK(e.kernel() == "copy");
    CHECK_THAT(e.message(), Contains("target: expected sm_80, sm_90 or sm_90a, but found 'sm_75x'"));
  }
}

TEST_CASE("error: a kernel the lowering cannot handle yet names the op and line", "[compile][error]") {
  const auto kernel = examples::gemm::make_kernel();
  try {
    jit::compile_to_ptx(kernel.trace(), examples::gemm::default_options());
    FAIL("expected a wave::Error");
  } catch (const Error& e) {
    CHECK(e.op() == "wave.iterate");
    CHECK_THAT(e.file(), Contains("gemm.hpp"));
    CHECK(e.line() > 0);
    CHECK_THAT(e.message(), Contains("is not yet supported by wave-lower-to-gpu"));
  }
}
