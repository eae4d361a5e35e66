// Packed variable-length prefill attention (examples/kernels/varlen_attention.hpp) on the
// device against float64: batches of mixed lengths (one of length 1, ones ending inside a
// tile), causal or not, GQA, padding rows past the last sequence that must stay poisoned.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "varlen_attention_reference.hpp"
#include "wave/wave.hpp"

using namespace wave;
namespace va = examples::varlen_attention;
namespace host = examples::host;

namespace {

void check_varlen(const va::Shape& shape, bool causal, int waves, std::mt19937& rng) {
  INFO("lengths " << Catch::Detail::stringify(shape.lengths) << ", heads " << shape.heads << "/" << shape.kv_heads
                  << ", D " << shape.head_dim << (causal ? ", causal" : "") << ", " << waves << " waves");
  const host::VarlenInputs in = host::random_varlen(shape, causal, rng);
  const CompiledKernel attention = compile(va::make_kernel<f16>({.head_dim = shape.head_dim, .causal = causal, .waves = waves}),
                                           {.subs = va::sizes(shape, 16 * waves)});
  auto out = fixtures::poisoned<std::uint16_t>(std::size_t(shape.rows()) * shape.heads * shape.head_dim);
  const std::vector<std::int32_t> cu = shape.offsets();
  fixtures::run_on_device(attention, {}, in.q, in.k, in.v, cu, out);
  const std::uint16_t poison = fixtures::poisoned<std::uint16_t>(1)[0];
  CHECK(host::varlen_mismatches(in, out, host::half_to_float, true, poison) == 0);
}

}  // namespace

TEST_CASE("varlen attention: packed sequences of mixed lengths, causal and not, GQA", "[gpu][dynamic][varlen]") {
  std::mt19937 rng(Catch::rngSeed());
  check_varlen({.lengths = {1, 37, 128, 300, 700, 64}, .heads = 8, .kv_heads = 2, .head_dim = 128, .padding = 40}, true, 4,
               rng);
  check_varlen({.lengths = {513, 1, 77}, .heads = 4, .kv_heads = 4, .head_dim = 64, .padding = 9}, false, 4, rng);
  check_varlen({.lengths = {200, 129, 2}, .heads = 4, .kv_heads = 1, .head_dim = 128, .padding = 3}, false, 8, rng);
  check_varlen({.lengths = {1000, 17}, .heads = 2, .kv_heads = 2, .head_dim = 64, .padding = 1}, true, 8, rng);
}
