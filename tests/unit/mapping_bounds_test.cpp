// Index mappings that point outside their tensor: compile() names the access, its line, a
// point and the index found, where the sizes decide it (wave/mapping_bounds.hpp), instead
// of GPU code that would read or write its neighbours' memory. Mappings that stay inside
// compile as before.
#include <catch2/catch.hpp>

#include <wave/wave.hpp>

#include "fixtures/errors.hpp"
#include "kernels/conv2d.hpp"

using namespace wave;
using namespace examples::conv2d;

namespace {

void check_error(const std::optional<Error>& e, unsigned line, const std::string& op, const std::string& text) {
  fixtures::check_error(e, "mapping_bounds_test.cpp", line, op, text);
}

constexpr auto i = iterator(0);
constexpr auto j = iterator(1);

// conv2d as the example writes it, its input read at (oh * stride + hf - pad, ow * stride
// + wf - pad): the padding a kernel author writes beside the example. `line` is the read's.
auto padded_conv(int stride, int pad, unsigned* line) {
  const IndexMapping<dims<M, K>> x_mapping{
      .inputs = {{N, i / SZ_OUT},
                 {H, i % SZ_OUT / W_OUT * stride + j / C / WF - pad},
                 {W, i % SZ_OUT % W_OUT * stride + j / C % WF - pad},
                 {C, j % C}},
      .outputs = {{M, i}, {K, j}}};
  const IndexMapping<dims<NF, K>> w_mapping{.inputs = {{HF, j / C / WF}, {WF, j / C % WF}, {C, j % C}, {NF, i}},
                                            .outputs = {{NF, i}, {K, j}}};
  const IndexMapping<dims<M, NF>> out_mapping{
      .inputs = {{M, i}, {NF, j}},
      .outputs = {{N, i / SZ_OUT}, {H_OUT, i % SZ_OUT / W_OUT}, {W_OUT, i % SZ_OUT % W_OUT}, {NF, j}}};
  *line = __LINE__ + 9;
  return kernel("conv_padded",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(NF, BLOCK_N, 1),
                            TilingConstraint(K, BLOCK_K), WaveConstraint(M, WAVE_M), WaveConstraint(NF, WAVE_N),
                            HardwareConstraint{}},
                [=](Memory<dims<N, H, W, C>, f16, SHARED_ADDRESS_SPACE> x,
                    Memory<dims<HF, WF, C, NF>, f16, SHARED_ADDRESS_SPACE> we, Memory<dims<N, H_OUT, W_OUT, NF>, f32> out) {
                  Register<dims<M, NF>, f32> acc(0.0);
                  auto result = iterate<K>(acc, [&](auto acc) {
                    return mma(read(x, x_mapping), read(we, w_mapping), acc);
                  });
                  write(result, out, out_mapping);
                });
}

// 2 images of 8 x 8 x 16, 32 filters of 3 x 3, an output of ho x wo.
CompileOptions conv_options(int ho, int wo) {
  return {.subs = {{N, 2}, {C, 16}, {H, 8}, {W, 8}, {NF, 32}, {HF, 3}, {WF, 3}, {H_OUT, ho}, {W_OUT, wo},
                   {SZ_OUT, ho * wo}, {M, 2 * ho * wo}, {K, 144}, {BLOCK_M, 64}, {BLOCK_N, 32}, {BLOCK_K, 32},
                   {WAVE_M, 32}, {WAVE_N, 16}},
          .cache = false};
}

WAVE_SYMBOL(S);
WAVE_SYMBOL(BLOCK_S);

}  // namespace

TEST_CASE("error: a convolution's padding read outside the input", "[compile][error][mapping]") {
  unsigned line = 0;
  // Padding 1 keeps the 8 x 8 size: the first output row reads input row -1.
  const auto same = padded_conv(1, 1, &line);
  check_error(fixtures::error_of([&] { compile(same, conv_options(8, 8)); }), line, "read",
              "index mapping at [M=0, K=0]: expected an element inside the tensor [N=2, H=8, W=8, C=16], but found "
              "H = -1");
  CHECK_THAT(fixtures::error_of([&] { compile(same, conv_options(8, 8)); })->message(),
             Catch::Matchers::Contains("zero padding is not supported yet"));
  // Without padding (stride 1: 6 x 6; stride 2: 3 x 3) every tap is inside: it compiles.
  CHECK_FALSE(compile(padded_conv(1, 0, &line), conv_options(6, 6)).ptx().ptx.empty());
  CHECK_FALSE(compile(padded_conv(2, 0, &line), conv_options(3, 3)).ptx().ptx.empty());
  // An output one row too tall for the input (H_OUT 7 at 3 x 3 taps over 8 rows): the last
  // output row reads input row 8, past the end.
  check_error(fixtures::error_of([&] { compile(padded_conv(1, 0, &line), conv_options(7, 6)); }), line, "read",
              "but found H = 8");
}

TEST_CASE("error: a shifted write past the tensor's end, at compile() or at launch",
          "[compile][error][mapping]") {
  // out[s + 1] = x[s]: the last element lands one past the end of out.
  const IndexMapping<dims<S>> shifted{.inputs = {{S, i}}, .outputs = {{S, i + 1}}};
  const unsigned line = __LINE__ + 3;
  auto k = kernel("shift_right", {WorkgroupConstraint(S, BLOCK_S, 0), WaveConstraint(S, BLOCK_S), HardwareConstraint{}},
                  [&](Memory<dims<S>, f32> x, Memory<dims<S>, f32> out) {
                    write(read(x), out, shifted);
                  });
  check_error(fixtures::error_of([&] { compile(k, {.subs = {{S, 1000}, {BLOCK_S, 256}}, .cache = false}); }), line,
              "write", "index mapping at [S=999]: expected an element inside the tensor [S=1000], but found S = 1000");
  // With S known only at launch, compile() cannot decide it: it compiles, and the launch
  // finds the point at its sizes before anything runs (no GPU needed).
  const CompiledKernel dynamic = compile(k, {.subs = {{BLOCK_S, 256}}, .cache = false});
  const auto* x = reinterpret_cast<const void*>(0x1000);
  const auto* out = reinterpret_cast<const void*>(0x2000);
  const unsigned launch_line = __LINE__ + 1;
  const auto at_launch = fixtures::error_of([&] { dynamic.launch({x, out}, {.sizes = {{S, 300}}}); });
  fixtures::check_error(at_launch, "mapping_bounds_test.cpp", launch_line, "launch",
                        "at these sizes, the write at ");
  CHECK_THAT(at_launch->message(), Catch::Matchers::Contains("mapping_bounds_test.cpp:" + std::to_string(line) +
                                                             ": index mapping at [S=299]: expected an element inside "
                                                             "the tensor [S=300], but found S = 300"));
  // The same sizes again: the same answer (checked once, remembered).
  CHECK(fixtures::error_of([&] { dynamic.launch({x, out}, {.sizes = {{S, 300}}}); })->message() ==
        at_launch->message());
}

TEST_CASE("a mapping inside its tensor at every size compiles, its sizes known or not",
          "[compile][mapping]") {
  // out[s] = x[S - 1 - s]: a reversal, inside at every S.
  const IndexMapping<dims<S>> reversed{.inputs = {{S, S - 1 - i}}, .outputs = {{S, i}}};
  auto k = kernel("reverse", {WorkgroupConstraint(S, BLOCK_S, 0), WaveConstraint(S, BLOCK_S), HardwareConstraint{}},
                  [&](Memory<dims<S>, f32> x, Memory<dims<S>, f32> out) { write(read(x, reversed), out); });
  CHECK_FALSE(compile(k, {.subs = {{S, 1000}, {BLOCK_S, 256}}, .cache = false}).ptx().ptx.empty());
  // Sizes at launch: compiled with the check kept for the launch (not launched here: the
  // pointers would be a GPU's).
  CHECK_FALSE(compile(k, {.subs = {{BLOCK_S, 256}}, .cache = false}).ptx().ptx.empty());
}
