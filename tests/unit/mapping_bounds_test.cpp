// Index mappings that point outside their tensor: compile() names the access, its line, a
// point and the index found, where the sizes decide it (wave/mapping_bounds.hpp), instead
// of GPU code that would read or write its neighbours' memory. Mappings that stay inside
// compile as before; mappings that mask the points outside (OutOfBounds::zero) compile,
// and the interpreter reads 0 there and skips the writes.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include <wave/interpret.hpp>
#include <wave/wave.hpp>

#include "host_half.hpp"

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
             Catch::Matchers::Contains("give it .out_of_bounds = OutOfBounds::zero: such a read gives 0"));
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

TEST_CASE("zero padding: a padded convolution through OutOfBounds::zero compiles and reads 0 outside the image",
          "[compile][interpret][mapping][padding]") {
  // The example's kernel with padding 1 (and 2 for 5 x 5 taps): every output pixel's taps
  // at the border read 0. The interpreter against a direct float64 convolution.
  std::mt19937 rng(5);
  for (const Problem p : {Problem{2, 8, 6, 5, 8, 3, 1, 1}, Problem{1, 8, 7, 7, 8, 3, 2, 1}, Problem{1, 8, 5, 6, 8, 5, 1, 2}}) {
    INFO(p.h << "x" << p.w << ", " << p.f << "x" << p.f << " taps, stride " << p.stride << ", padding " << p.pad);
    const CompileOptions options{.subs = sizes(p, {32, 16, 16, 16, 16}, SHARED_ADDRESS_SPACE), .cache = false};
    const auto conv = make_kernel<f32>(p.stride, p.pad);
    CHECK_FALSE(compile(conv, options).ptx().ptx.empty());
    std::vector<std::uint16_t> x(std::size_t(p.n) * p.h * p.w * p.c), w(std::size_t(p.f) * p.f * p.c * p.nf);
    for (auto& v : x) v = examples::host::random_half(rng);
    for (auto& v : w) v = examples::host::random_half(rng);
    const int ho = p.h_out(), wo = p.w_out();
    std::vector<float> out(std::size_t(p.n) * ho * wo * p.nf, NAN);
    interpret(conv.trace(), options.subs, {x.data(), w.data(), out.data()});
    std::size_t wrong = 0;
    for (int b = 0; b < p.n; ++b)
      for (int oh = 0; oh < ho; ++oh)
        for (int ow = 0; ow < wo; ++ow)
          for (int f = 0; f < p.nf; ++f) {
            double want = 0;
            for (int fh = 0; fh < p.f; ++fh)
              for (int fw = 0; fw < p.f; ++fw)
                for (int c = 0; c < p.c; ++c) {
                  const int ih = oh * p.stride + fh - p.pad, iw = ow * p.stride + fw - p.pad;
                  if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                  want += double(examples::host::half_to_float(x[((std::size_t(b) * p.h + ih) * p.w + iw) * p.c + c])) *
                          examples::host::half_to_float(w[((std::size_t(fh) * p.f + fw) * p.c + c) * p.nf + f]);
                }
            const double got = out[((std::size_t(b) * ho + oh) * wo + ow) * p.nf + f];
            wrong += !(std::abs(got - want) <= 1e-4 * (1 + std::abs(want)));
          }
    CHECK(wrong == 0);
  }
}

TEST_CASE("zero padding: a masked shifted write skips the element past the end", "[compile][interpret][mapping][padding]") {
  // out[s + 1] = x[s], masked: x's last element has nowhere to go and is dropped; out[0]
  // keeps what it held.
  const IndexMapping<dims<S>> shifted{.inputs = {{S, i}}, .outputs = {{S, i + 1}}, .out_of_bounds = OutOfBounds::zero};
  // in[s - 1] read masked: in[-1] is 0.
  const IndexMapping<dims<S>> from_left{.inputs = {{S, i - 1}}, .outputs = {{S, i}}, .out_of_bounds = OutOfBounds::zero};
  auto k = kernel("shift_both", {WorkgroupConstraint(S, BLOCK_S, 0), WaveConstraint(S, BLOCK_S), HardwareConstraint{}},
                  [&](Memory<dims<S>, f32> x, Memory<dims<S>, f32> out, Memory<dims<S>, f32> left) {
                    write(read(x), out, shifted);
                    write(read(x, from_left), left);
                  });
  const Subs subs{{S, 100}, {BLOCK_S, 64}};
  CHECK_FALSE(compile(k, {.subs = subs, .cache = false}).ptx().ptx.empty());
  std::vector<float> x(100), out(100, -7.0f), left(100, NAN);
  for (int s = 0; s < 100; ++s) x[s] = float(s + 1);
  interpret(k.trace(), subs, {x.data(), out.data(), left.data()});
  CHECK(out[0] == -7.0f);
  CHECK(left[0] == 0.0f);
  for (int s = 1; s < 100; ++s) {
    CHECK(out[s] == x[s - 1]);
    CHECK(left[s] == x[s - 1]);
  }
}

TEST_CASE("zero padding: a padded convolution keeps its 16-byte cp.async copies into wgmma's tiles",
          "[compile][mapping][padding]") {
  // The padded kernel and the unpadded one of the same output size issue the same copies:
  // a tap's 8 channels are all inside the image or all outside, so each copy stays 16
  // bytes and the ones outside are zero-filled (a copy of no bytes), not split into loads.
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const Tiling tiles{128, 128, 64, 64, 64};
  const Problem padded{4, 64, 20, 21, 128, 3, 1, 1}, unpadded{4, 64, 22, 23, 128, 3, 1, 0};
  REQUIRE(padded.h_out() == unpadded.h_out());
  const std::string with = compile(make_kernel<f16>(1, 1), {.subs = sizes(padded, tiles, SHARED_ADDRESS_SPACE),
                                                            .cache = false})
                               .ptx()
                               .ptx;
  const std::string without = compile(make_kernel<f16>(1, 0), {.subs = sizes(unpadded, tiles, SHARED_ADDRESS_SPACE),
                                                               .cache = false})
                                  .ptx()
                                  .ptx;
  CHECK(count(with, "wgmma.mma_async") > 0);
  CHECK(count(with, "cp.async.cg.shared.global") > 0);
  CHECK(count(with, "cp.async.cg.shared.global") == count(without, "cp.async.cg.shared.global"));
  CHECK(count(with, "ld.global") == count(without, "ld.global"));
  // A masked copy reads all of its 16 bytes or none: a predicate (ignore-src), never a
  // byte count, from which ptxas would build the partial-copy form.
  CHECK(count(with, ", 16, %p") > 0);
  CHECK(count(with, ", 16, %r") == 0);
}
