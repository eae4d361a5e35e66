// What the NVIDIA target does not take: every constraint field is honoured or rejected at
// compile() (never ignored), with an error naming the field and the user's line; f8 is
// rejected until the Hopper f8 MMA brings it to the GPU.
#include <catch2/catch.hpp>

#include <functional>
#include <optional>

#include <wave/wave.hpp>

#include "fixtures/errors.hpp"

using namespace wave;
using Catch::Matchers::Contains;

namespace {

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(BM);
WAVE_SYMBOL(BN);
WAVE_SYMBOL(K);
WAVE_SYMBOL(BK);

void check_error(const std::optional<Error>& e, unsigned line, const std::string& op, const std::string& text) {
  fixtures::check_error(e, "nvidia_target_errors_test.cpp", line, op, text);
}

const CompileOptions options{.subs = {{M, 256}, {N, 256}, {BM, 64}, {BN, 64}}, .cache = false};
const CompileOptions rows_options{.subs = {{M, 256}, {N, 256}, {BN, 64}}, .cache = false};

auto row_sums = [](Memory<dims<M, N>, f32> a, Memory<dims<M>, f32> s) { write(sum<N>(read(a)), s); };
auto copy = [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); };

}  // namespace

TEST_CASE("error: 64-thread waves on the NVIDIA target", "[compile][error]") {
  // A kernel ported from Wave, where 64 is the AMD default; it once ran with 64-wide
  // shuffles on 32-lane warps.
  const unsigned line = __LINE__ + 1;
  auto k = kernel("row_sums", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{.threads_per_wave = 64}}, row_sums);
  const CompileOptions sums{.subs = {{M, 256}, {N, 256}, {BM, 4}}, .cache = false};
  check_error(fixtures::error_of([&] { compile(k, sums); }), line, "HardwareConstraint",
              "threads_per_wave: expected 32 on the NVIDIA target");
  CHECK_THAT(fixtures::error_of([&] { compile(k, sums); })->message(), Contains("but found 64"));
}

TEST_CASE("waves_per_block: the split the wave constraints make, or an error", "[compile][error]") {
  auto with_waves = [](std::array<int, 3> waves, std::source_location where = std::source_location::current()) {
    HardwareConstraint hw{.threads_per_wave = 32, .waves_per_block = waves, .where = where};
    return kernel("copy", {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(N, BN, 1), WaveConstraint(M, BM / 2),
                           WaveConstraint(N, BN / 4), hw},
                  copy);
  };
  // Two waves along x (M), four along y (N).
  CHECK_FALSE(compile(with_waves({2, 4, 1}), options).ptx().ptx.empty());
  CHECK_FALSE(compile(with_waves({0, 0, 0}), options).ptx().ptx.empty());
  const unsigned line = __LINE__ + 1;
  auto swapped = with_waves({4, 2, 1});
  check_error(fixtures::error_of([&] { compile(swapped, options); }), line, "HardwareConstraint",
              "waves_per_block: expected the waves the wave constraints make along each grid axis (2, 4, 1)");
}

TEST_CASE("vector_shapes: 0 on a dim of one-element tiles, otherwise an error", "[compile][error]") {
  auto with_shapes = [](std::vector<VectorShape> shapes, std::source_location where = std::source_location::current()) {
    HardwareConstraint hw{.threads_per_wave = 32, .vector_shapes = std::move(shapes), .where = where};
    return kernel("copy", {WorkgroupConstraint(M, 1, 0), WorkgroupConstraint(N, BN, 1), hw}, copy);
  };
  CHECK_FALSE(compile(with_shapes({{M, 0}}), rows_options).ptx().ptx.empty());
  const unsigned line = __LINE__ + 1;
  auto vectorized = with_shapes({{N, 16}});
  check_error(fixtures::error_of([&] { compile(vectorized, rows_options); }), line, "HardwareConstraint",
              "vector_shapes[N]: expected 0 for a dim whose workgroup tile is 1");
  CHECK_THAT(fixtures::error_of([&] { compile(vectorized, rows_options); })->message(),
             Contains("but found 16 with a workgroup tile of 64"));
}

TEST_CASE("error: f8 on the NVIDIA target", "[compile][error]") {
  // sm_80 has no f8 conversions or MMAs (sm_89 brought them): an argument or an op of f8
  // is an error there, at its line; sm_90a compiles both.
  CompileOptions ampere = options;
  ampere.target = "sm_80";
  Constraints cs{WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(N, BN, 1), HardwareConstraint{.threads_per_wave = 32}};
  auto f8_in = kernel("f8_copy", cs, [](Memory<dims<M, N>, f8e4m3> a, Memory<dims<M, N>, f8e4m3> b) {
    write(read(a), b);
  });
  auto e = fixtures::error_of([&] { compile(f8_in, ampere); });
  REQUIRE(e);
  CHECK(e->op() == "argument 0");
  CHECK_THAT(e->message(), Contains("but found f8e4m3 (f8 needs sm_89 or later"));
  CHECK(compile(f8_in, options).ptx().ptx.find(".version 8.4") != std::string::npos);

  unsigned line = 0;
  auto f8_cast = kernel("f8_cast", cs, [&](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) {
    line = __LINE__ + 1;
    auto narrow = cast<f8e5m2>(read(a));
    write(cast<f16>(narrow), b);
  });
  auto cast_error = fixtures::error_of([&] { compile(f8_cast, ampere); });
  check_error(cast_error, line, "cast", "but found f8e5m2");
  // On sm_90a the casts are PTX's paired conversions, rounding and saturating.
  const std::string ptx = compile(f8_cast, options).ptx().ptx;
  CHECK(ptx.find("cvt.rn.satfinite.e5m2x2.f16x2") != std::string::npos);
  CHECK(ptx.find("cvt.rn.f16x2.e5m2x2") != std::string::npos);
}

TEST_CASE("error: an i8 mma on an f32 accumulator names the i32 its kind sums into", "[compile][error][i8]") {
  WAVE_SYMBOL(K);
  WAVE_SYMBOL(BK);
  auto gemm = [](Memory<dims<M, K>, i8> a, Memory<dims<N, K>, i8> b, Memory<dims<M, N>, f32> c) {
    Register<dims<M, N>, f32> zero(0.0);
    write(iterate<K>(zero, [&](auto acc) { return mma(read(a), read(b), acc); }), c);  // the line named
  };
  const unsigned line = __LINE__ - 2;
  auto k = kernel("gemm_i8_f32", {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(N, BN, 1), WaveConstraint(M, BM / 2),
                                  WaveConstraint(N, BN / 2), TilingConstraint(K, BK), HardwareConstraint{}},
                  gemm);
  const CompileOptions sizes{.subs = {{M, 128}, {N, 128}, {K, 128}, {BM, 64}, {BN, 64}, {BK, 64}}, .cache = false};
  check_error(fixtures::error_of([&] { compile(k, sizes); }), line, "wave.mma",
              "expected operands of 'i8' and an accumulator of 'i32' for #wave.mma_kind<i32_16x8x32_i8>, but found "
              "'i8' and 'f32'");
}

TEST_CASE("error: shared tiles past what a workgroup may have, at compile() at the kernel's definition",
          "[compile][error]") {
  // Once a launch's cuFuncSetAttribute failure, with no word of the tiles.
  const unsigned line = __LINE__ + 1;
  auto gemm = kernel("gemm",
                     {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(N, BN, 1), TilingConstraint(K, BK),
                      WaveConstraint(M, BM / 4), WaveConstraint(N, BN / 2), HardwareConstraint{}},
                     [](Memory<dims<M, K>, f16, SHARED_ADDRESS_SPACE> a, Memory<dims<N, K>, f16, SHARED_ADDRESS_SPACE> b,
                        Memory<dims<M, N>, f32> c) {
                       Register<dims<M, N>, f32> acc(0.0);
                       write(iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); }), c);
                     });
  // A's and B's 256 x 256 tiles: 256 KiB, one copy of each.
  CompileOptions tiles{.subs = {{M, 1024}, {N, 1024}, {K, 1024}, {BM, 256}, {BN, 256}, {BK, 256}},
                       .cache = false,
                       .pipeline_stages = 1};
  check_error(fixtures::error_of([&] { compile(gemm, tiles); }), line, "compile",
              "shared memory: expected at most 232448 bytes per workgroup on sm_90a, but found 262144 bytes");
  // Half as deep along K: 128 KiB.
  tiles.subs.back() = Sub(BK, 128);
  CHECK(compile(gemm, tiles).ptx().shared_bytes <= 227u * 1024);
}
