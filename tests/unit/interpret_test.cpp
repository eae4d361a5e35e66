// The CPU interpreter: each op against results worked out by hand, the element formats
// bit for bit, and the example kernels against float64 references.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include <wave/interpret.hpp>

#include "fixtures/scalar_kernel.hpp"
#include "fixtures/varlen_rows.hpp"
#include "extend_attention_reference.hpp"
#include "gemm_reference.hpp"
#include "kernels/conv2d.hpp"
#include "kernels/flash_attention.hpp"
#include "kernels/gemm.hpp"
#include "kernels/gemm_i8.hpp"
#include "kernels/paged_decode_attention.hpp"
#include "kernels/softmax.hpp"
#include "moe_reference.hpp"
#include "varlen_attention_reference.hpp"

using namespace wave;

namespace {

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(BLOCK_K);

// Constraints for kernels over [M, N] (and a loop over K) whose tiles do not matter here.
Constraints plain() {
  return {WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1), WaveConstraint(M, BLOCK_M),
          WaveConstraint(N, BLOCK_N), HardwareConstraint{.threads_per_wave = 32}};
}
// Rows [M] and a loop over K.
Constraints looped() {
  return {WorkgroupConstraint(M, BLOCK_M, 0), WaveConstraint(M, BLOCK_M), TilingConstraint(K, BLOCK_K),
          HardwareConstraint{.threads_per_wave = 32}};
}
CompileOptions sizes(std::int64_t m, std::int64_t n) {
  return {.subs = {{M, m}, {N, n}, {BLOCK_M, 16}, {BLOCK_N, 16}}};
}
CompileOptions looped_sizes(std::int64_t m, std::int64_t k, std::int64_t block_k) {
  return {.subs = {{M, m}, {K, k}, {BLOCK_M, 16}, {BLOCK_K, block_k}}};
}

std::vector<std::uint16_t> to_f16(const std::vector<double>& xs, DataType t = DataType::f16) {
  std::vector<std::uint16_t> out(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) elements::store_float(t, out.data(), i, elements::round_float(t, xs[i]));
  return out;
}
double f16_at(const std::vector<std::uint16_t>& v, std::size_t i, DataType t = DataType::f16) {
  return elements::load_float(t, v.data(), i);
}

std::vector<double> random_values(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

}  // namespace

TEST_CASE("element formats round to nearest even and round-trip every encoding", "[interpret][elements]") {
  using elements::round_float;
  // f16: 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even mantissa (1).
  CHECK(round_float(DataType::f16, 1 + std::ldexp(1, -11)) == 1.0);
  CHECK(round_float(DataType::f16, 1 + 3 * std::ldexp(1, -11)) == 1 + std::ldexp(1, -9));
  CHECK(round_float(DataType::f16, 65519.0) == 65504.0);
  CHECK(std::isinf(round_float(DataType::f16, 65520.0)));
  CHECK(round_float(DataType::f16, std::ldexp(1, -25)) == 0.0);  // half the least subnormal: to even (0)
  CHECK(round_float(DataType::f16, std::ldexp(3, -26)) == std::ldexp(1, -24));
  CHECK(round_float(DataType::bf16, 1 + std::ldexp(1, -8)) == 1.0);
  CHECK(round_float(DataType::bf16, 1 + std::ldexp(3, -8)) == 1 + std::ldexp(1, -6));
  CHECK(round_float(DataType::f8e4m3, 1000.0) == 448.0);  // saturates
  CHECK(round_float(DataType::f8e4m3, -0.3) == -0.3125);
  CHECK(round_float(DataType::f8e5m2, 1e6) == 57344.0);
  CHECK(round_float(DataType::f32, 1 + std::ldexp(1, -30)) == 1.0);

  for (DataType t : {DataType::f16, DataType::bf16}) {
    for (std::uint64_t bits = 0; bits < 65536; ++bits) {  // 8-byte words: any dtype fits
      const double x = elements::load_float(t, &bits, 0);
      if (std::isnan(x)) continue;
      std::uint64_t back = 0;
      elements::store_float(t, &back, 0, round_float(t, x));
      INFO(name(t) << " bits " << bits);
      REQUIRE(back == bits);
    }
  }
  for (DataType t : {DataType::f8e4m3, DataType::f8e5m2}) {
    for (std::uint64_t bits = 0; bits < 256; ++bits) {
      const double x = elements::load_float(t, &bits, 0);
      if (std::isnan(x) || std::isinf(x)) continue;
      std::uint64_t back = 0;
      elements::store_float(t, &back, 0, round_float(t, x));
      INFO(name(t) << " bits " << bits);
      REQUIRE(back == bits);
    }
  }
  const std::uint64_t e4m3_max = 0x7e;
  CHECK(elements::load_float(DataType::f8e4m3, &e4m3_max, 0) == 448.0);
  // CDNA3's FNUZ f8: biases one larger (1.0 is 0x40 in both), every exponent finite (E4M3's
  // largest 0x7f = 240), NaN the bits of negative zero (0x80), zero unsigned.
  CHECK(round_float(DataType::f8e4m3fnuz, 1000.0) == 240.0);  // saturates
  CHECK(round_float(DataType::f8e4m3fnuz, std::ldexp(1, -10)) == std::ldexp(1, -10));  // least subnormal
  CHECK(round_float(DataType::f8e5m2fnuz, 1e6) == 57344.0);
  CHECK(round_float(DataType::f8e5m2fnuz, std::ldexp(1, -17)) == std::ldexp(1, -17));
  for (DataType t : {DataType::f8e4m3fnuz, DataType::f8e5m2fnuz}) {
    INFO(name(t));
    std::uint64_t one = 0, nan = 0, minus_zero = 0;
    elements::store_float(t, &one, 0, 1.0);
    elements::store_float(t, &nan, 0, std::nan(""));
    elements::store_float(t, &minus_zero, 0, -0.0);
    CHECK(one == 0x40);
    CHECK(nan == 0x80);
    CHECK(minus_zero == 0);
    for (std::uint64_t bits = 0; bits < 256; ++bits) {
      const double x = elements::load_float(t, &bits, 0);
      INFO("bits " << bits);
      CHECK(std::isnan(x) == (bits == 0x80));
      if (std::isnan(x)) continue;
      std::uint64_t back = 0;
      elements::store_float(t, &back, 0, round_float(t, x));
      REQUIRE(back == bits);
    }
  }
  const std::uint64_t e4m3fnuz_max = 0x7f;
  CHECK(elements::load_float(DataType::f8e4m3fnuz, &e4m3fnuz_max, 0) == 240.0);
}

TEST_CASE("interpret: read and write move every element, unaligned sizes included", "[interpret]") {
  auto copy = kernel("copy", plain(), [](Memory<dims<M, N>, f32> a, Memory<dims<N, M>, f32> b) {
    write(read(a), b);  // a transpose: dims are matched by name
  });
  const std::vector<float> a{1, 2, 3, 4, 5, 6};
  std::vector<float> b(6, NAN);
  interpret(copy, sizes(2, 3), {a.data(), b.data()});
  CHECK(b == std::vector<float>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("interpret: elementwise ops broadcast and round in the result's dtype", "[interpret]") {
  auto ops = kernel("ops", plain(),
                    [](Memory<dims<M, N>, f32> x, Memory<dims<N>, f32> y, Memory<dims<M, N>, f32> sum,
                       Memory<dims<M, N>, f32> quotient, Memory<dims<M, N>, f32> top, Memory<dims<M, N>, f16> half) {
                      auto a = read(x);
                      auto b = read(y);
                      write(a + b * 2.0, sum);
                      write(a / b - 1.0, quotient);
                      write(maximum(a, b), top);
                      write(cast<f16>(minimum(a, b) + 1.0 / 3.0), half);
                    });
  const std::vector<float> x{1, -2, 3, 4, 5, -6}, y{2, 4, -8};
  std::vector<float> sum(6), quotient(6), top(6);
  std::vector<std::uint16_t> half(6);
  interpret(ops, sizes(2, 3), {x.data(), y.data(), sum.data(), quotient.data(), top.data(), half.data()});
  CHECK(sum == std::vector<float>{5, 6, -13, 8, 13, -22});
  CHECK(quotient == std::vector<float>{-0.5f, -1.5f, -1.375f, 1.0f, 0.25f, -0.25f});
  CHECK(top == std::vector<float>{2, 4, 3, 4, 5, -6});
  // min + 1/3 in f32 (the scalar is f32), then rounded to f16.
  const double third = static_cast<float>(1.0 / 3.0);
  const std::vector<double> want{1 + third, -2 + third, -8 + third, 2 + third, 4 + third, -8 + third};
  for (std::size_t i = 0; i < 6; ++i)
    CHECK(f16_at(half, i) == elements::round_float(DataType::f16, static_cast<float>(want[i])));
}

TEST_CASE("interpret: unary math", "[interpret]") {
  auto math = kernel("math", plain(), [](Memory<dims<M, N>, f32> x, Memory<dims<M, N>, f32> out) {
    auto v = read(x);
    write(exp2(v) + log2(abs(v)) * 10.0 + sqrt(abs(v)) * 100.0 + rsqrt(abs(v)) * 1000.0 +
              tanh(v) * 10000.0 - reciprocal(v) + (-v) * 0.5,
          out);
  });
  const std::vector<float> x{1, -2, 4, 0.5f};
  std::vector<float> out(4, NAN);
  interpret(math, sizes(2, 2), {x.data(), out.data()});
  for (std::size_t i = 0; i < 4; ++i) {
    const double v = x[i];
    const double want = std::exp2(v) + std::log2(std::abs(v)) * 10 + std::sqrt(std::abs(v)) * 100 +
                        1 / std::sqrt(std::abs(v)) * 1000 + std::tanh(v) * 10000 - 1 / v - v * 0.5;
    CHECK(out[i] == Approx(want).epsilon(1e-6));
  }
}

TEST_CASE("interpret: trigonometry, roots, rounding, powers and comparisons", "[interpret][math]") {
  auto math = kernel("more_math", plain(), [](Memory<dims<M, N>, f32> x, Memory<dims<M, N>, f32> y,
                                              Memory<dims<M, N>, f32> out, Memory<dims<M, N>, i32> flags) {
    auto a = read(x), b = read(y);
    write(sin(a) + cos(a) * 10.0 + sinh(a) * 100.0 + cbrt(a) * 1000.0 + roundeven(a * 2.0) * 1e4 + atan2(a, b) * 1e5 +
              powf(abs(a), b) * 1e6 + log10(abs(a)) * 1e7 + softsign(a) * 1e8,
          out);
    auto bit = [](auto c, int weight) { return cast<i32>(c) * double(weight); };
    write(bit(gt(a, b), 1) + bit(ge(a, b), 2) + bit(lt(a, b), 4) + bit(le(a, b), 8) + bit(eq(a, b), 16) +
              bit(ne(a, b), 32) + bit(gt(a, 0.75), 64),
          flags);
  });
  const std::vector<float> x{1.25f, -2, 0.5f, NAN}, y{-0.5f, -2, 3, 1};
  std::vector<float> out(4, NAN);
  std::vector<std::int32_t> flags(4, -1);
  interpret(math, sizes(2, 2), {x.data(), y.data(), out.data(), flags.data()});
  for (std::size_t i = 0; i < 3; ++i) {
    const double a = x[i], b = y[i];
    // roundeven: 2.5 -> 2, -4 -> -4, 1 -> 1 (ties to even).
    const double want = std::sin(a) + std::cos(a) * 10 + std::sinh(a) * 100 + std::cbrt(a) * 1000 +
                        std::nearbyint(a * 2) * 1e4 + std::atan2(a, b) * 1e5 + std::pow(std::abs(a), b) * 1e6 +
                        std::log10(std::abs(a)) * 1e7 + a / (1 + std::abs(a)) * 1e8;
    CHECK(out[i] == Approx(want).epsilon(1e-6));
  }
  // 1.25 vs -0.5: gt ge ne, > 0.75; -2 vs -2: ge le eq; 0.5 vs 3: lt le ne; NaN: only ne.
  CHECK(flags == std::vector<std::int32_t>{1 + 2 + 32 + 64, 2 + 8 + 16, 4 + 8 + 32, 32});
}

TEST_CASE("interpret: exp, log and sigmoid are built from the base-2 ops at the user's line", "[interpret][natural]") {
  const unsigned line = __LINE__ + 3;
  auto natural = kernel("natural", plain(), [](Memory<dims<M, N>, f32> x, Memory<dims<M, N>, f32> out) {
    auto v = read(x);
    write(exp(v) + log(abs(v)) * 100.0 + sigmoid(v) * 10000.0, out);
  });
  const std::vector<float> x{1, -2, 4, 0.5f};
  std::vector<float> out(4, NAN);
  interpret(natural, sizes(2, 2), {x.data(), out.data()});
  for (std::size_t i = 0; i < 4; ++i) {
    const double v = x[i];
    CHECK(out[i] == Approx(std::exp(v) + std::log(std::abs(v)) * 100 + 1 / (1 + std::exp(-v)) * 10000).epsilon(1e-6));
  }
  // Every op they add points at the line that called them, not into the header.
  std::size_t elsewhere = 0, at_line = 0;
  for (const auto& node : natural.trace().body.nodes) {
    elsewhere += !node.loc.file.ends_with("interpret_test.cpp");
    at_line += node.loc.line == line;
  }
  CHECK(elsewhere == 0);
  CHECK(at_line >= 15);
}

TEST_CASE("interpret: reductions with and without an initial value", "[interpret]") {
  auto reduce = kernel("reduce", plain(),
                       [](Memory<dims<M, N>, f32> x, Memory<dims<M>, f32> init, Memory<dims<M>, f32> top,
                          Memory<dims<M>, f32> total, Memory<dims<N>, f32> column) {
                         auto v = read(x);
                         write(max<N>(v, read(init)), top);
                         write(sum<N>(v), total);
                         write(sum<M>(v), column);
                       });
  const std::vector<float> x{1, 7, -3, -4, -5, -6}, init{0, -10};
  std::vector<float> top(2), total(2), column(3);
  interpret(reduce, sizes(2, 3), {x.data(), init.data(), top.data(), total.data(), column.data()});
  CHECK(top == std::vector<float>{7, -4});
  CHECK(total == std::vector<float>{5, -15});
  CHECK(column == std::vector<float>{-3, 2, -9});
}

TEST_CASE("interpret: min reductions, cumsum runs along its dim, integers wrapping", "[interpret][scan]") {
  auto scan = kernel("scan", plain(),
                     [](Memory<dims<M, N>, f32> x, Memory<dims<M>, f32> floor, Memory<dims<M>, f32> least,
                        Memory<dims<N>, f32> column_least, Memory<dims<M, N>, f32> along_n, Memory<dims<M, N>, f32> along_m) {
                       auto v = read(x);
                       write(min<N>(v, read(floor)), least);
                       write(min<M>(v), column_least);
                       write(cumsum<N>(v), along_n);
                       write(cumsum<M>(v), along_m);
                     });
  const std::vector<float> x{1, 7, -3, -4, 0.5, -6}, floor{-10, 0};
  std::vector<float> least(2), column_least(3), along_n(6), along_m(6);
  interpret(scan, sizes(2, 3), {x.data(), floor.data(), least.data(), column_least.data(), along_n.data(), along_m.data()});
  CHECK(least == std::vector<float>{-10, -6});
  CHECK(column_least == std::vector<float>{-4, 0.5, -6});
  CHECK(along_n == std::vector<float>{1, 8, 5, -4, -3.5, -9.5});
  CHECK(along_m == std::vector<float>{1, 7, -3, -3, 7.5, -9});

  auto counts = kernel("counts", plain(), [](Memory<dims<M, N>, i32> c, Memory<dims<M, N>, i32> offsets, Memory<dims<M>, i32> least) {
    auto v = read(c);
    write(cumsum<N>(v), offsets);
    write(min<N>(v), least);
  });
  const std::vector<std::int32_t> c{3, 0, 5, 2147483647, 1, -7};
  std::vector<std::int32_t> offsets(6), least_i(2);
  interpret(counts, sizes(2, 3), {c.data(), offsets.data(), least_i.data()});
  CHECK(offsets == std::vector<std::int32_t>{3, 3, 8, 2147483647, -2147483647 - 1, 2147483641});
  CHECK(least_i == std::vector<std::int32_t>{0, -7});
}

TEST_CASE("interpret: shuffle trades pairs along its dim, 0 where the partner is past the end", "[interpret][shuffle]") {
  auto pairs = kernel("pairs", plain(),
                      [](Memory<dims<M, N>, f32> x, Memory<dims<M, N>, f32> neighbours, Memory<dims<M, N>, f32> halves,
                         Memory<dims<M, N>, i32> as_int) {
                        auto v = read(x);
                        write(shuffle<N>(v, 1), neighbours);
                        write(shuffle<N>(v, 2), halves);
                        write(shuffle<N>(cast<i32>(v), 3), as_int);
                        workgroup_barrier();
                        set_wave_prio(1);
                      });
  // N = 6: pairs (0 1) (2 3) (4 5) for xor 1; xor 2 sends 4 and 5 to 6 and 7, past the end.
  const std::vector<float> x{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
  std::vector<float> neighbours(12), halves(12);
  std::vector<std::int32_t> as_int(12);
  interpret(pairs, sizes(2, 6), {x.data(), neighbours.data(), halves.data(), as_int.data()});
  CHECK(neighbours == std::vector<float>{1, 0, 3, 2, 5, 4, 11, 10, 13, 12, 15, 14});
  CHECK(halves == std::vector<float>{2, 3, 0, 1, 0, 0, 12, 13, 10, 11, 0, 0});
  CHECK(as_int == std::vector<std::int32_t>{3, 2, 1, 0, 0, 0, 13, 12, 11, 10, 0, 0});
}

TEST_CASE("interpret: extract takes one element per row, 0 outside the dim, and per tile in a loop", "[interpret][extract]") {
  auto picks = kernel("picks", plain(),
                      [](Memory<dims<M, N>, f32> x, Memory<dims<M>, i32> at, Memory<dims<M>, f32> picked,
                         Memory<dims<M>, f32> last, Memory<dims<>, f32> corner) {
                        auto v = read(x);
                        write(extract<N>(v, read(at)), picked);
                        write(extract<N>(v, N - 1), last);
                        write(extract<M>(extract<N>(v, 0), 1), corner);
                      });
  const std::vector<float> x{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  const std::vector<std::int32_t> at{2, -1, 4};
  std::vector<float> picked(3), last(3), corner(1);
  interpret(picks, sizes(3, 4), {x.data(), at.data(), picked.data(), last.data(), corner.data()});
  CHECK(picked == std::vector<float>{2, 0, 0});
  CHECK(last == std::vector<float>{3, 13, 23});
  CHECK(corner == std::vector<float>{10});

  // In a loop over K, each tile gives its element or 0: their sum is the element.
  auto looped_pick = kernel("looped_pick", looped(), [](Memory<dims<M, K>, f32> x, Memory<dims<M>, i32> at, Memory<dims<M>, f32> out) {
    Register<dims<M>, f32> zero(0.0);
    write(iterate<K>(zero, [&](auto acc) { return acc + extract<K>(read(x), read(at)); }), out);
  });
  std::vector<float> rows(30);
  for (std::size_t e = 0; e < rows.size(); ++e) rows[e] = static_cast<float>(e);
  const std::vector<std::int32_t> where{9, 0, 10};
  std::vector<float> out(3);
  interpret(looped_pick, looped_sizes(3, 10, 4), {rows.data(), where.data(), out.data()});
  CHECK(out == std::vector<float>{9, 10, 0});
}

TEST_CASE("interpret: conditional runs its body in the workgroups whose condition holds", "[interpret][conditional]") {
  WAVE_SYMBOL(B);
  auto guarded = kernel(
      "guarded",
      Constraints{WorkgroupConstraint(B, 1, 1), WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(B, 1),
                  WaveConstraint(N, BLOCK_N), HardwareConstraint{.threads_per_wave = 32}},
      [](Memory<dims<B>, i32> counts, Memory<dims<B, N>, f32> x, Memory<dims<B, N>, f32> doubled, Memory<dims<B, N>, f32> shifted,
         Memory<dims<B>, f32> total) {
        auto ok = gt(read(counts), 0);
        auto v = read(x);
        conditional(ok, [&] { write(v * 2.0, doubled); });
        auto [up, sum_up] = conditional(ok, [&] { return std::tuple{v + 1.0, sum<N>(v)}; },
                                        std::tuple{v - 1.0, Register<dims<B>, f32>(-5.0)});
        write(up, shifted);
        write(sum_up, total);
      });
  const std::vector<std::int32_t> counts{3, 0, 1};
  const std::vector<float> x{1, 2, 3, 4, 5, 6};
  std::vector<float> doubled(6, -7), shifted(6), total(3);
  interpret(guarded, {.subs = {{B, 3}, {N, 2}, {BLOCK_N, 16}}},
            {counts.data(), x.data(), doubled.data(), shifted.data(), total.data()});
  CHECK(doubled == std::vector<float>{2, 4, -7, -7, 10, 12});
  CHECK(shifted == std::vector<float>{2, 3, 2, 3, 6, 7});
  CHECK(total == std::vector<float>{3, -5, 11});
}

TEST_CASE("interpret: extract_slice takes windows along its dim, 0 outside it", "[interpret][slice]") {
  WAVE_SYMBOL(W);
  auto windows = kernel("windows", plain(),
                        [](Memory<dims<M, N>, f32> x, Memory<dims<M>, i32> at, Memory<dims<M, W>, f32> from_two,
                           Memory<dims<M, W>, f32> evens, Memory<dims<M, W>, f32> per_row, Memory<dims<M, N>, i32> shifted) {
                          auto v = read(x);
                          write(extract_slice<N, W>(v, 2), from_two);
                          write(extract_slice<N, W>(v, 0, 2), evens);
                          write(extract_slice<N, W>(v, read(at)), per_row);
                          write(extract_slice<N, N>(cast<i32>(v), N - 3), shifted);
                        });
  CompileOptions options = sizes(2, 5);
  options.subs.push_back({W, 3});
  const std::vector<float> x{0, 1, 2, 3, 4, 10, 11, 12, 13, 14};
  const std::vector<std::int32_t> at{-1, 3};
  std::vector<float> from_two(6, NAN), evens(6, NAN), per_row(6, NAN);
  std::vector<std::int32_t> shifted(10, -7);
  interpret(windows, options, {x.data(), at.data(), from_two.data(), evens.data(), per_row.data(), shifted.data()});
  CHECK(from_two == std::vector<float>{2, 3, 4, 12, 13, 14});
  CHECK(evens == std::vector<float>{0, 2, 4, 10, 12, 14});
  CHECK(per_row == std::vector<float>{0, 0, 1, 13, 14, 0});  // -1 and 5 lie outside N
  CHECK(shifted == std::vector<std::int32_t>{2, 3, 4, 0, 0, 12, 13, 14, 0, 0});
}

TEST_CASE("interpret: reshape regroups the dims between those both sides share, row-major", "[interpret][slice]") {
  WAVE_SYMBOL(H);
  WAVE_SYMBOL(D);
  auto heads = kernel("heads", plain(),
                      [](Memory<dims<M, N>, f32> x, Memory<dims<M, D, H>, f32> by_d, Memory<dims<M, H>, f32> head_sums,
                         Memory<dims<M, N>, f32> scaled) {
                        auto v = reshape<dims<M, H, D>>(read(x));
                        write(permute<dims<M, D, H>>(v), by_d);
                        auto sums = sum<D>(v);
                        write(sums, head_sums);
                        write(reshape<dims<M, N>>(v * broadcast<dims<M, H, D>>(sums)), scaled);
                      });
  // N = 6 as H = 2 heads of D = 3: n = 3 h + d.
  CompileOptions options = sizes(2, 6);
  options.subs.push_back({H, 2});
  options.subs.push_back({D, 3});
  const std::vector<float> x{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
  std::vector<float> by_d(12, NAN), head_sums(4, NAN), scaled(12, NAN);
  interpret(heads, options, {x.data(), by_d.data(), head_sums.data(), scaled.data()});
  CHECK(by_d == std::vector<float>{0, 3, 1, 4, 2, 5, 10, 13, 11, 14, 12, 15});
  CHECK(head_sums == std::vector<float>{3, 12, 33, 42});
  CHECK(scaled == std::vector<float>{0, 3, 6, 36, 48, 60, 330, 363, 396, 546, 588, 630});

  // Sizes whose products differ: an error at the user's line.
  options.subs.back() = {D, 4};
  try {
    interpret(heads, options, {x.data(), by_d.data(), head_sums.data(), scaled.data()});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.op() == "reshape");
    CHECK_THAT(e.what(), Catch::Contains("interpret_test.cpp") && Catch::Contains("expected a product of 6"));
  }
}

TEST_CASE("interpret: bitcast keeps the bits, tanh_approx computes tanh", "[interpret][math]") {
  auto bits = kernel("bits", plain(), [](Memory<dims<M, N>, f32> x, Memory<dims<M, N>, i32> as_int, Memory<dims<M, N>, f32> t,
                                         Memory<dims<M, N>, bf16> h) {
    auto v = read(x);
    write(bitcast<i32>(v), as_int);
    write(tanh_approx(v), t);
    write(bitcast<bf16>(bitcast<f16>(cast<f16>(v))), h);
  });
  const std::vector<float> x{1.0f, -2.0f, 0.0f, 0.5f, -0.0f, 3.0f};
  std::vector<std::int32_t> as_int(6);
  std::vector<float> t(6);
  std::vector<std::uint16_t> h(6);
  interpret(bits, sizes(2, 3), {x.data(), as_int.data(), t.data(), h.data()});
  CHECK(as_int == std::vector<std::int32_t>{0x3f800000, std::int32_t(0xc0000000u), 0, 0x3f000000, std::int32_t(0x80000000u), 0x40400000});
  for (std::size_t e = 0; e < x.size(); ++e) CHECK(t[e] == Approx(std::tanh(x[e])));
  // The f16 bits of 1.0 (0x3c00) read as bf16: 2^(0x78 - 127) = 2^-7.
  CHECK(f16_at(h, 0, DataType::bf16) == 0.0078125);
}

TEST_CASE("interpret: casts round, truncate, saturate, and treat i1 as 0 or 1", "[interpret]") {
  auto casts = kernel("casts", plain(),
                      [](Memory<dims<M, N>, f32> x, Memory<dims<M, N>, i32> to_int, Memory<dims<M, N>, bf16> to_bf16,
                         Memory<dims<M, N>, f32> from_bool, Memory<dims<M, N>, i8> wrapped) {
                        auto v = read(x);
                        write(cast<i32>(v), to_int);
                        write(cast<bf16>(v), to_bf16);
                        write(cast<f32>(cast<i1>(v)), from_bool);
                        write(cast<i8>(cast<i32>(v)), wrapped);
                      });
  const std::vector<float> x{-2.7f, 2.7f, 0.0f, 1e20f, 300.0f, 1.00390625f};
  std::vector<std::int32_t> to_int(6);
  std::vector<std::uint16_t> to_bf16(6);
  std::vector<float> from_bool(6);
  std::vector<std::int8_t> wrapped(6);
  interpret(casts, sizes(2, 3), {x.data(), to_int.data(), to_bf16.data(), from_bool.data(), wrapped.data()});
  CHECK(to_int == std::vector<std::int32_t>{-2, 2, 0, 2147483647, 300, 1});
  CHECK(from_bool == std::vector<float>{1, 1, 0, 1, 1, 1});
  CHECK(wrapped == std::vector<std::int8_t>{-2, 2, 0, -1, 44, 1});
  CHECK(f16_at(to_bf16, 5, DataType::bf16) == 1.0);  // 1 + 2^-8: a tie, to even
  CHECK(f16_at(to_bf16, 0, DataType::bf16) == -2.703125);
}

TEST_CASE("interpret: permute, broadcast, select, self_index and apply_expr", "[interpret]") {
  auto shapes = kernel("shapes", plain(),
                       [](Memory<dims<M, N>, f32> x, Memory<dims<N, M>, f32> flipped, Memory<dims<M, N>, f32> masked,
                          Memory<dims<M, N>, i64> positions) {
                         auto v = read(x);
                         write(permute<dims<N, M>>(v), flipped);
                         auto n_at = broadcast<dims<M, N>>(self_index<N, i64>());
                         auto m_at = broadcast<dims<M, N>>(self_index<M, i64>());
                         auto below = cast<i1>(apply_expr(n_at - m_at, [](auto d) { return d <= 0; }));
                         Register<dims<M, N>, f32> zero(0.0);
                         write(select(below, v, zero), masked);
                         write(apply_expr(m_at * 10 + n_at, [](auto p) { return p % N + p / 10 * N; }), positions);
                       });
  const std::vector<float> x{1, 2, 3, 4, 5, 6};
  std::vector<float> flipped(6), masked(6);
  std::vector<std::int64_t> positions(6);
  interpret(shapes, sizes(2, 3), {x.data(), flipped.data(), masked.data(), positions.data()});
  CHECK(flipped == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK(masked == std::vector<float>{1, 0, 0, 4, 5, 0});
  // (10 m + n) mod 3 + (10 m + n) / 10 * 3
  CHECK(positions == std::vector<std::int64_t>{0, 1, 2, 1 + 3, 2 + 3, 0 + 3});
}

TEST_CASE("interpret: iterate walks the loop's tiles, positions past the end do not exist", "[interpret]") {
  // Row sums over K in tiles of 4, K = 10: the last tile holds 2 positions.
  auto row_sum = kernel("row_sum", looped(), [](Memory<dims<M, K>, f32> x, Memory<dims<M, K>, i32> at,
                                                Memory<dims<M>, f32> total, Memory<dims<M>, f32> largest) {
    Register<dims<M>, f32> zero(0.0), low(-100.0);
    auto [s, t] = iterate<K>(std::tuple{zero, low}, [&](auto s, auto t) {
      auto v = read(x);
      write(broadcast<dims<M, K>>(cast<i32>(self_index<K, i64>())), at);
      return std::tuple{sum<K>(v, s), max<K>(v - 1000.0, t)};
    });
    write(s, total);
    write(t, largest);
  });
  std::mt19937 rng(7);
  std::vector<double> values = random_values(3 * 10, rng);
  std::vector<float> x(values.begin(), values.end()), total(3), largest(3);
  std::vector<std::int32_t> at(30, -1);
  interpret(row_sum, looped_sizes(3, 10, 4), {x.data(), at.data(), total.data(), largest.data()});
  for (int m = 0; m < 3; ++m) {
    double want = 0;
    for (int k = 0; k < 10; ++k) want += x[m * 10 + k];
    CHECK(total[m] == Approx(want).epsilon(1e-6));
    CHECK(largest[m] == -100.0f);  // every x - 1000 is below the initial -100
    for (int k = 0; k < 10; ++k) CHECK(at[m * 10 + k] == k);
  }
}

TEST_CASE("interpret: print writes one line per element, masked and limited, inside loops too", "[interpret][print]") {
  auto printing = kernel("printing", looped(), [](Memory<dims<M, K>, f32> x, Memory<dims<M>, f32> total) {
    Register<dims<M>, f32> zero(0.0);
    auto [s] = iterate<K>(std::tuple{zero}, [&](auto s) {
      auto v = read(x);
      // Only where k is odd; the mask over K alone repeats along M.
      auto odd = cast<i1>(apply_expr(self_index<K, i64>(), [](auto k) { return k % 2 > 0; }));
      print(v, odd, "x%", {.limit = 12});
      return std::tuple{sum<K>(v, s)};
    });
    print(s, "sum");
    print(cast<i32>(s), "whole", {.limit = 2});
    write(s, total);
  });
  // M = 3, K = 5 in tiles of 2: x[m, k] = 10 m + k.
  std::vector<float> x(15), total(3);
  for (int m = 0; m < 3; ++m)
    for (int k = 0; k < 5; ++k) x[m * 5 + k] = static_cast<float>(10 * m + k) + 0.5f;
  std::ostringstream out;
  interpret(printing, looped_sizes(3, 5, 2), {x.data(), total.data()}, out);
  // Row-major positions m * 5 + k below 12 with k odd: (0,1) (0,3) (1,1) (1,3) (2,1); the loop
  // visits k in tiles [0, 2), [2, 4), [4, 5), each tile's rows in order.
  CHECK(out.str() ==
        "x%[M=0, K=1] = 1.5\n"
        "x%[M=1, K=1] = 11.5\n"
        "x%[M=2, K=1] = 21.5\n"
        "x%[M=0, K=3] = 3.5\n"
        "x%[M=1, K=3] = 13.5\n"
        "sum[M=0] = 12.5\n"
        "sum[M=1] = 62.5\n"
        "sum[M=2] = 112.5\n"
        "whole[M=0] = 12\n"
        "whole[M=1] = 62\n");
  // The format the GPU's printf is given, and its literal pieces.
  CHECK(print_format("a%b", {"M", "N"}, true) == "a%%b[M=%lld, N=%lld] = %.6g\n");
  CHECK(print_format("i", {}, false) == "i = %lld\n");
  CHECK(split_format("a%%b[M=%lld, N=%lld] = %.6g\n") == std::vector<std::string>{"a%b[M=", ", N=", "] = ", "\n"});
}

TEST_CASE("interpret: print's mistakes are errors at the user's line", "[interpret][print][errors]") {
  auto bad_limit = kernel("bad_limit", plain(), [](Memory<dims<M, N>, f32> x) { print(read(x), "x", {.limit = 0}); });
  auto no_label = kernel("no_label", plain(), [](Memory<dims<M, N>, f32> x) { print(read(x), ""); });
  std::vector<float> x(4);
  auto message = [&](auto& k) {
    try {
      interpret(k, sizes(2, 2), {x.data()});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message(bad_limit), Catch::Contains("bad_limit") && Catch::Contains("print") &&
                                     Catch::Contains("expected a limit of at least one element, but found limit = 0") &&
                                     Catch::Contains("interpret_test.cpp"));
  CHECK_THAT(message(no_label), Catch::Contains("no_label") && Catch::Contains("expected a label"));
}

TEST_CASE("interpret: index mappings on reads and writes", "[interpret]") {
  constexpr auto i = iterator(0), j = iterator(1);
  // Reads x[N, M] transposed through a mapping; writes each row reversed.
  const IndexMapping<dims<M, N>> transposed{.inputs = {{N, j}, {M, i}}, .outputs = {{M, i}, {N, j}}};
  const IndexMapping<dims<M, N>> reversed{.inputs = {{M, i}, {N, j}}, .outputs = {{M, i}, {N, N - 1 - j}}};
  auto mapped = kernel("mapped", plain(), [=](Memory<dims<N, M>, f32> x, Memory<dims<M, N>, f32> y) {
    write(read(x, transposed) * 2.0, y, reversed);
  });
  const std::vector<float> x{1, 2, 3, 4, 5, 6};  // [N=3, M=2]
  std::vector<float> y(6, NAN);
  interpret(mapped, sizes(2, 3), {x.data(), y.data()});
  // y[m, n] = 2 x[N-1-n, m]
  CHECK(y == std::vector<float>{10, 6, 2, 12, 8, 4});

  // The same with the iterators numbered against the dims' order: each runs over the dim
  // its register-side entry names (j over M here), as the compiler reads it.
  const IndexMapping<dims<M, N>> swapped{.inputs = {{N, i}, {M, j}}, .outputs = {{M, j}, {N, i}}};
  const IndexMapping<dims<M, N>> reversed_swapped{.inputs = {{M, j}, {N, i}}, .outputs = {{M, j}, {N, N - 1 - i}}};
  auto renumbered = kernel("renumbered", plain(), [=](Memory<dims<N, M>, f32> x, Memory<dims<M, N>, f32> y) {
    write(read(x, swapped) * 2.0, y, reversed_swapped);
  });
  std::vector<float> z(6, NAN);
  interpret(renumbered, sizes(2, 3), {x.data(), z.data()});
  CHECK(z == std::vector<float>{10, 6, 2, 12, 8, 4});

  const IndexMapping<dims<M, N>> shifted{.inputs = {{N, j + 1}, {M, i}}, .outputs = {{M, i}, {N, j}}};
  auto outside = kernel("outside", plain(), [=](Memory<dims<N, M>, f32> x, Memory<dims<M, N>, f32> y) {
    write(read(x, shifted), y);
  });
  try {
    interpret(outside, sizes(2, 3), {x.data(), y.data()});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.op() == "read");
    CHECK(e.line() > 0);
    CHECK_THAT(e.what(), Catch::Contains("inside the tensor [N=3, M=2]") && Catch::Contains("found N = 3"));
  }
}

TEST_CASE("interpret: mappings with indices read at run time gather, scatter and add", "[interpret][dynamic]") {
  constexpr auto i = iterator(0), j = iterator(1);
  // out[m, n] = table[rows[m], n]: an embedding lookup.
  const IndexMapping<dims<M, N>> by_row{.inputs = {{K, dynamic_val(0)}, {N, j}}, .outputs = {{M, i}, {N, j}}};
  auto gather = kernel("gather", plain(), [=](Memory<dims<K, N>, f32> table, Memory<dims<M>, i32> rows,
                                              Memory<dims<M, N>, f32> out) {
    write(read(table, by_row.with_values(read(rows))), out);
  });
  const std::vector<float> table{1, 2, 3, 10, 20, 30, 100, 200, 300, 7, 8, 9};  // [K=4, N=3]
  const std::vector<std::int32_t> rows{2, 0, 2, 3, 1};
  std::vector<float> out(15, NAN);
  CompileOptions options = sizes(5, 3);
  options.subs.push_back({K, 4});
  interpret(gather, options, {table.data(), rows.data(), out.data()});
  CHECK(out == std::vector<float>{100, 200, 300, 1, 2, 3, 100, 200, 300, 7, 8, 9, 10, 20, 30});

  // The other way: y[rows[m], n] += x[m, n]; two rows sent to one place both land. The
  // index may also enter an expression (rows[m] + 1, wrapped into the table).
  const IndexMapping<dims<M, N>> to_row{.inputs = {{M, i}, {N, j}},
                                        .outputs = {{K, (dynamic_val(0) + 1) % K}, {N, j}}};
  auto scatter = kernel("scatter_add", plain(), [=](Memory<dims<M, N>, f32> x, Memory<dims<M>, i32> at,
                                                    Memory<dims<K, N>, f32> y) {
    atomic_add(read(x), y, to_row.with_values(read(at)));
  });
  const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};  // [M=5, N=3]
  std::vector<float> y(12, 0.5f);
  interpret(scatter, options, {x.data(), rows.data(), y.data()});
  // rows + 1 mod 4 = {3, 1, 3, 0, 2}: y[3] gets rows 0 and 2, y[1] row 1, y[0] row 3, y[2] row 4.
  CHECK(y == std::vector<float>{10.5, 11.5, 12.5, 4.5, 5.5, 6.5, 13.5, 14.5, 15.5, 8.5, 10.5, 12.5});

  // An index outside the table is an error naming the point and the value.
  const std::vector<std::int32_t> bad{2, 0, 4, 3, 1};
  try {
    interpret(gather, options, {table.data(), bad.data(), out.data()});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.op() == "read");
    CHECK_THAT(e.what(), Catch::Contains("dynamic_val(0)=4") && Catch::Contains("found K = 4"));
  }
}

TEST_CASE("interpret: atomic_add adds to memory, rounding once per add, integers wrap", "[interpret][atomic]") {
  auto add = kernel("add", plain(), [](Memory<dims<M, N>, f16> x, Memory<dims<M, N>, f16> y) { atomic_add(read(x), y); });
  const auto x = to_f16({1.0, 0.5, -3.0, 1000.0, 0.0009765625, 2.0});
  auto y = to_f16({2.0, 0.25, 3.0, 1.0, 2048.0, -8.0});
  interpret(add, sizes(2, 3), {x.data(), y.data()});
  // f16: 1000 + 1 = 1001 exactly; 2048 + 2^-10 rounds back to 2048.
  const std::vector<double> expected{3.0, 0.75, 0.0, 1001.0, 2048.0, -6.0};
  for (std::size_t e = 0; e < expected.size(); ++e) CHECK(f16_at(y, e) == expected[e]);

  // Every row into one: out[n] += sum over m of x[m, n], through a mapping that drops M.
  constexpr auto i = iterator(0), j = iterator(1);
  const IndexMapping<dims<M, N>> columns{.inputs = {{M, i}, {N, j}}, .outputs = {{N, j}}};
  auto sums = kernel("columns", plain(), [=](Memory<dims<M, N>, i32> a, Memory<dims<N>, i32> out) {
    atomic_add(read(a), out, columns);
  });
  const std::vector<std::int32_t> a{1, 2, 3, 10, 20, 2147483647};
  std::vector<std::int32_t> out{100, 200, 1};
  interpret(sums, sizes(2, 3), {a.data(), out.data()});
  CHECK(out == std::vector<std::int32_t>{111, 222, -2147483645});  // 1 + 3 + 2^31 - 1 wraps to -2^31 + 3
}

TEST_CASE("interpret: atomic_min and atomic_max keep the least and greatest, a NaN wins", "[interpret][atomic]") {
  constexpr auto i = iterator(0), j = iterator(1);
  const IndexMapping<dims<M, N>> columns{.inputs = {{M, i}, {N, j}}, .outputs = {{N, j}}};
  auto extremes = kernel("extremes", plain(), [=](Memory<dims<M, N>, f32> a, Memory<dims<N>, f32> lo, Memory<dims<N>, f32> hi) {
    auto v = read(a);
    atomic_min(v, lo, columns);
    atomic_max(v, hi, columns);
  });
  const std::vector<float> a{1, -2, NAN, 10, 20, 3};
  std::vector<float> lo{0, -1, 5}, hi{0, 30, 5};
  interpret(extremes, sizes(2, 3), {a.data(), lo.data(), hi.data()});
  CHECK(lo[0] == 0);
  CHECK(lo[1] == -2);
  CHECK(std::isnan(lo[2]));
  CHECK(hi[0] == 10);
  CHECK(hi[1] == 30);
  CHECK(std::isnan(hi[2]));

  auto ints = kernel("ints", plain(), [](Memory<dims<M, N>, i64> a, Memory<dims<M, N>, i64> lo, Memory<dims<M, N>, i64> hi) {
    auto v = read(a);
    atomic_min(v, lo);
    atomic_max(v, hi);
  });
  const std::vector<std::int64_t> b{-5, 6, INT64_MIN, INT64_MAX, 0, 7};
  std::vector<std::int64_t> lo_i(6, 1), hi_i(6, 1);
  interpret(ints, sizes(2, 3), {b.data(), lo_i.data(), hi_i.data()});
  CHECK(lo_i == std::vector<std::int64_t>{-5, 1, INT64_MIN, 1, 0, 1});
  CHECK(hi_i == std::vector<std::int64_t>{1, 6, 1, INT64_MAX, 1, 7});
}

TEST_CASE("interpret: mistakes are errors naming the kernel and the line", "[interpret][errors]") {
  auto copy = kernel("copy", plain(), [](Memory<dims<M, N>, f32> a, Memory<dims<M, N>, f32> b) { write(read(a), b); });
  const std::vector<float> a(6);
  const std::vector<float> b_const(6);
  std::vector<float> b(6);
  CHECK_THROWS_WITH(interpret(copy, sizes(2, 3), {a.data(), b_const.data()}),
                    Catch::Contains("kernel 'copy', op 'write'") && Catch::Contains("pointer to const"));
  CHECK_THROWS_WITH(interpret(copy, sizes(2, 3), {a.data()}), Catch::Contains("expected 2 arguments"));
  CHECK_THROWS_WITH(interpret(copy, {.subs = {{M, 2}, {BLOCK_M, 1}, {BLOCK_N, 1}}}, {a.data(), b.data()}),
                    Catch::Contains("the size of N") && Catch::Contains("interpret_test.cpp"));
  float* null = nullptr;
  CHECK_THROWS_WITH(interpret(copy, sizes(2, 3), {a.data(), null}), Catch::Contains("null"));

  auto divide = kernel("divide", plain(), [](Memory<dims<M, N>, i32> a, Memory<dims<M, N>, i32> b) {
    write(read(a) / read(a), b);
  });
  const std::vector<std::int32_t> zeros(6, 0);
  std::vector<std::int32_t> out(6);
  CHECK_THROWS_WITH(interpret(divide, sizes(2, 3), {zeros.data(), out.data()}),
                    Catch::Contains("op 'div'") && Catch::Contains("division by zero"));
}

TEST_CASE("interpret: the GEMM example matches a float64 reference", "[interpret][examples]") {
  namespace g = examples::gemm;
  std::mt19937 rng(11);
  for (auto [m, n, k] : {std::tuple{256, 256, 256}, std::tuple{70, 33, 100}}) {
    const auto a = to_f16(random_values(std::size_t(m) * k, rng)), b = to_f16(random_values(std::size_t(n) * k, rng));
    std::vector<float> c(std::size_t(m) * n, NAN);
    const auto start = std::chrono::steady_clock::now();
    interpret(g::make_kernel(),
              {.subs = {{g::M, m}, {g::N, n}, {g::K, k}, {g::BLOCK_M, 64}, {g::BLOCK_N, 64}, {g::BLOCK_K, 16},
                        {g::ADDRESS_SPACE, SHARED_ADDRESS_SPACE}}},
              {a.data(), b.data(), c.data()});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (m == 256) WARN("interpreting the GEMM at 256^3 took " << seconds << " s");
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const auto want = examples::host::dot_nt(a, b, i, j, k);
        REQUIRE(std::abs(c[std::size_t(i) * n + j] - want.value) <= 1e-6 * want.magnitude + 1e-6);
      }
  }
}

TEST_CASE("interpret: the int8 GEMM's i32 sums are exact, wrapping as the hardware's do", "[interpret][examples][i8]") {
  namespace g = examples::gemm_i8;
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> byte(-128, 127);
  for (auto [m, n, k] : {std::tuple{64, 48, 96}, std::tuple{37, 21, 70}}) {
    std::vector<std::int8_t> a(std::size_t(m) * k), b(std::size_t(n) * k);
    for (auto& x : a) x = static_cast<std::int8_t>(byte(rng));
    for (auto& x : b) x = static_cast<std::int8_t>(byte(rng));
    std::vector<std::int32_t> c(std::size_t(m) * n, 0x7FFFFFFF);
    const Subs subs{{g::M, m}, {g::N, n}, {g::K, k}, {g::BLOCK_M, 32}, {g::BLOCK_N, 32}, {g::BLOCK_K, 32},
                    {g::WAVE_M, 16}, {g::WAVE_N, 16}};
    interpret(g::make_int_mm(), {.subs = subs}, {a.data(), b.data(), c.data()});
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        std::int64_t want = 0;
        for (int t = 0; t < k; ++t) want += std::int64_t(a[std::size_t(i) * k + t]) * b[std::size_t(j) * k + t];
        REQUIRE(c[std::size_t(i) * n + j] == want);
      }
  }
  // Sums past i32 wrap (two's complement), as the tensor cores' do: K = 2^17 products of
  // -128 * -128 = 2^14 each sum to 2^31, one past INT32_MAX.
  const int k = 1 << 17;
  const std::vector<std::int8_t> a(k, -128), b(k, -128);
  std::vector<std::int32_t> c(1, 0);
  interpret(g::make_int_mm(),
            {.subs = {{g::M, 1}, {g::N, 1}, {g::K, k}, {g::BLOCK_M, 16}, {g::BLOCK_N, 16}, {g::BLOCK_K, 64},
                      {g::WAVE_M, 16}, {g::WAVE_N, 16}}},
            {a.data(), b.data(), c.data()});
  CHECK(c[0] == std::numeric_limits<std::int32_t>::min());
}

TEST_CASE("interpret: the softmax example sums each row to one", "[interpret][examples]") {
  namespace sm = examples::softmax;
  std::mt19937 rng(5);
  const int m = 5, n = 77;
  const auto x = to_f16(random_values(std::size_t(m) * n, rng));
  std::vector<std::uint16_t> y(std::size_t(m) * n, 0xffff);
  interpret(sm::make_kernel(), {.subs = {{sm::M, m}, {sm::N, n}, {sm::BLOCK_M, 1}, {sm::BLOCK_N, 128}, {sm::WAVE_N, 32}}},
            {x.data(), y.data()});
  for (int r = 0; r < m; ++r) {
    double top = -INFINITY, total = 0;
    for (int c = 0; c < n; ++c) top = std::max(top, f16_at(x, r * n + c));
    for (int c = 0; c < n; ++c) total += std::exp(f16_at(x, r * n + c) - top);
    for (int c = 0; c < n; ++c)
      REQUIRE(f16_at(y, r * n + c) == Approx(std::exp(f16_at(x, r * n + c) - top) / total).epsilon(2e-3));
  }
}

TEST_CASE("interpret: flash attention (causal, unaligned keys) matches a float64 reference", "[interpret][examples]") {
  namespace fa = examples::flash_attention;
  std::mt19937 rng(3);
  const int b = 1, h = 2, m = 37, k2 = 45, d = 16, n = 8;
  for (bool causal : {false, true}) {
    std::vector<double> qd = random_values(std::size_t(b) * h * m * d, rng), kd = random_values(std::size_t(b) * h * k2 * d, rng),
                        vd = random_values(std::size_t(b) * h * k2 * n, rng);
    const auto q = to_f16(qd), k = to_f16(kd), v = to_f16(vd);
    std::vector<float> out(std::size_t(b) * h * m * n, NAN);
    interpret(fa::make_kernel({.head_dim = d, .causal = causal, .waves = 4}),
              {.subs = {{fa::B, b}, {fa::H, h}, {fa::M, m}, {fa::K2, k2}, {fa::K1, d}, {fa::N, n}, {fa::BLOCK_M, 64},
                        {fa::BLOCK_K2, 16}}},
              {q.data(), k.data(), v.data(), out.data()});
    for (int hi = 0; hi < h; ++hi)
      for (int mi = 0; mi < m; ++mi) {
        const int keys = causal ? std::min(mi + 1, k2) : k2;
        std::vector<double> s(keys);
        double top = -INFINITY, total = 0;
        for (int j = 0; j < keys; ++j) {
          double dot = 0;
          for (int x = 0; x < d; ++x) dot += f16_at(q, (hi * m + mi) * d + x) * f16_at(k, (hi * k2 + j) * d + x);
          top = std::max(top, s[j] = dot / std::sqrt(double(d)));
        }
        for (double& x : s) total += (x = std::exp(x - top));
        for (int c = 0; c < n; ++c) {
          double want = 0, magnitude = 0;
          for (int j = 0; j < keys; ++j) {
            want += s[j] / total * f16_at(v, (hi * k2 + j) * n + c);
            magnitude += std::abs(s[j] / total * f16_at(v, (hi * k2 + j) * n + c));
          }
          INFO("causal " << causal << " head " << hi << " row " << mi << " column " << c);
          REQUIRE(std::abs(out[(std::size_t(hi) * m + mi) * n + c] - want) <= 2e-3 * magnitude + 1e-6);
        }
      }
  }
}

TEST_CASE("interpret: conv2d through index mappings matches a direct convolution", "[interpret][examples]") {
  namespace cv = examples::conv2d;
  std::mt19937 rng(9);
  const int n = 1, c = 3, h = 6, w = 5, nf = 4, hf = 3, wf = 2, ho = h - hf + 1, wo = w - wf + 1;
  const auto x = to_f16(random_values(std::size_t(n) * h * w * c, rng));
  const auto we = to_f16(random_values(std::size_t(hf) * wf * c * nf, rng));
  std::vector<float> out(std::size_t(n) * ho * wo * nf, NAN);
  interpret(cv::make_kernel(),
            {.subs = {{cv::N, n}, {cv::C, c}, {cv::H, h}, {cv::W, w}, {cv::NF, nf}, {cv::HF, hf}, {cv::WF, wf},
                      {cv::H_OUT, ho}, {cv::W_OUT, wo}, {cv::SZ_OUT, ho * wo}, {cv::M, n * ho * wo},
                      {cv::K, hf * wf * c}, {cv::BLOCK_M, 64}, {cv::BLOCK_N, 64}, {cv::BLOCK_K, 4}, {cv::WAVE_M, 32}, {cv::WAVE_N, 32},
                      {cv::ADDRESS_SPACE, GLOBAL_ADDRESS_SPACE}}},
            {x.data(), we.data(), out.data()});
  for (int oh = 0; oh < ho; ++oh)
    for (int ow = 0; ow < wo; ++ow)
      for (int f = 0; f < nf; ++f) {
        double want = 0;
        for (int dy = 0; dy < hf; ++dy)
          for (int dx = 0; dx < wf; ++dx)
            for (int ch = 0; ch < c; ++ch)
              want += f16_at(x, ((oh + dy) * w + ow + dx) * c + ch) * f16_at(we, ((dy * wf + dx) * c + ch) * nf + f);
        REQUIRE(out[(std::size_t(oh) * wo + ow) * nf + f] == Approx(want).margin(1e-5));
      }
}

TEST_CASE("interpret: paged decode attention matches softmax over each sequence's pages", "[interpret][examples][dynamic]") {
  namespace pd = examples::paged_decode_attention;
  std::mt19937 rng(13);
  // Three sequences (one token; one ending inside a page; one over 4 pages + 6), 8 query
  // heads over 2 kv heads, pages of 16 shuffled through a cache of 9, two chunks each.
  const std::vector<int> lengths{1, 37, 70};
  const int b = 3, heads = 8, kv_heads = 2, d = 16, page = 16, splits = 2, g = heads / kv_heads;
  const pd::Shape shape{b, heads, kv_heads, d, page, 70, splits};
  const int max_pages = shape.max_pages(), pages = 9;
  const std::vector<std::int32_t> table{7, 0, 0, 0, 0,   //
                                        2, 5, 1, 0, 0,   //
                                        8, 3, 6, 4, 0};  // entries past a sequence: page 0
  const std::vector<std::int32_t> lens(lengths.begin(), lengths.end());
  const std::size_t slot = std::size_t(kv_heads) * d;
  const auto q = to_f16(random_values(std::size_t(b) * heads * d, rng));
  const auto k = to_f16(random_values(std::size_t(pages) * page * slot, rng));
  const auto v = to_f16(random_values(std::size_t(pages) * page * slot, rng));
  const std::size_t parts = std::size_t(b) * splits * heads;
  std::vector<float> o_part(parts * d, NAN), lse_part(parts, NAN);
  CompileOptions chunk_options{.subs = pd::chunk_sizes(shape)};
  chunk_options.subs.push_back({pd::PAGES, pages});
  interpret(pd::make_chunk_kernel({.head_dim = d}), chunk_options,
            {q.data(), k.data(), v.data(), table.data(), lens.data(), o_part.data(), lse_part.data()});
  std::vector<float> out(std::size_t(b) * heads * d, NAN);
  interpret(pd::make_combine_kernel<f32>(), {.subs = pd::combine_sizes(shape)},
            {o_part.data(), lse_part.data(), out.data()});
  for (int s = 0; s < b; ++s)
    for (int h = 0; h < heads; ++h) {
      auto row = [&](int t) {
        return (std::size_t(table[std::size_t(s) * max_pages + t / page]) * page + t % page) * slot +
               std::size_t(h / g) * d;
      };
      std::vector<double> p(static_cast<std::size_t>(lengths[std::size_t(s)]));
      double top = -INFINITY, total = 0;
      for (std::size_t t = 0; t < p.size(); ++t) {
        double dot = 0;
        for (int x = 0; x < d; ++x) dot += f16_at(q, (std::size_t(s) * heads + h) * d + x) * f16_at(k, row(int(t)) + x);
        top = std::max(top, p[t] = dot / std::sqrt(double(d)));
      }
      for (double& x : p) total += (x = std::exp(x - top));
      for (int x = 0; x < d; ++x) {
        double want = 0;
        for (std::size_t t = 0; t < p.size(); ++t) want += p[t] / total * f16_at(v, row(int(t)) + x);
        // The probabilities go through f16 before P V, as on the GPU.
        REQUIRE(out[(std::size_t(s) * heads + h) * d + x] == Approx(want).margin(4e-3));
      }
    }
}

TEST_CASE("interpret: set_symbol ends a dim per workgroup: loops, reads and writes stop there", "[interpret][set_symbol]") {
  namespace vl = fixtures::varlen;
  // Lengths inside, at and past N = 10 (clamped), zero and negative (nothing).
  const std::vector<std::int32_t> lens{3, 0, 10, 25, -4, 7};
  const std::int64_t b = static_cast<std::int64_t>(lens.size()), n = 10;
  const CompileOptions options{.subs = {{vl::B, b}, {vl::N, n}, {vl::BLOCK_N, 4}, {vl::WAVE_N, 4}}};
  std::vector<float> x(static_cast<std::size_t>(b * n));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 2.5f;
  std::vector<float> doubled(x.size(), NAN), total(static_cast<std::size_t>(b), NAN), scaled(x.size(), NAN);
  interpret(vl::row_sums<f32>(), options, {x.data(), lens.data(), doubled.data(), total.data()});
  interpret(vl::scaled_rows<f32>(), options, {x.data(), lens.data(), scaled.data()});
  for (std::int64_t r = 0; r < b; ++r) {
    const std::int64_t end = std::clamp<std::int64_t>(lens[static_cast<std::size_t>(r)], 0, n);
    double want = 0;
    for (std::int64_t c = 0; c < n; ++c) {
      const auto e = static_cast<std::size_t>(r * n + c);
      INFO("row " << r << ", column " << c << ", end " << end);
      if (c < end) {
        want += x[e];
        CHECK(doubled[e] == 2 * x[e]);
        CHECK(scaled[e] == 3 * x[e]);
      } else {
        CHECK(std::isnan(doubled[e]));
        CHECK(std::isnan(scaled[e]));
      }
    }
    CHECK(total[static_cast<std::size_t>(r)] == static_cast<float>(want));
  }
}

TEST_CASE("interpret: set_symbol's size is one element per workgroup", "[interpret][set_symbol]") {
  // plain() gives each workgroup 16 rows of M: a size over M is not one per workgroup.
  auto per_rows = kernel("per_rows", plain(), [](Memory<dims<M, N>, f32> a, Memory<dims<M>, i32> lens, Memory<dims<M, N>, f32> b) {
    set_symbol<N>(read(lens));
    write(read(a), b);
  });
  std::vector<float> a(6, 1.0f), out(6, 0.0f);
  std::vector<std::int32_t> lens{1, 2};
  CHECK_THROWS_WITH(interpret(per_rows, sizes(2, 3), {a.data(), lens.data(), out.data()}),
                    Catch::Contains("set_symbol") && Catch::Contains("a workgroup tile of 1 along M") &&
                        Catch::Contains("16"));
  // Inside a loop: an error where it is traced.
  auto in_loop = kernel("in_loop", looped(), [](Memory<dims<M, K>, f32> a, Memory<dims<M>, i32> lens, Memory<dims<M>, f32> out) {
    Register<dims<M>, f32> zero(0.0);
    write(iterate<K>(zero, [&](auto acc) {
            set_symbol<N>(read(lens));
            return sum<K>(read(a), acc);
          }),
          out);
  });
  CHECK_THROWS_WITH(in_loop.trace(), Catch::Contains("set_symbol") && Catch::Contains("inside an iterate or conditional body"));
}

TEST_CASE("interpret: packed varlen attention matches float64 per sequence", "[interpret][set_symbol][varlen]") {
  namespace va = examples::varlen_attention;
  std::mt19937 rng(7);
  for (bool causal : {true, false}) {
    const va::Shape shape{.lengths = {1, 5, 17, 8}, .heads = 4, .kv_heads = 2, .head_dim = 16, .padding = 3};
    const examples::host::VarlenInputs in = examples::host::random_varlen(shape, causal, rng);
    std::vector<std::uint16_t> out(std::size_t(shape.rows()) * shape.heads * shape.head_dim, 0xFFFF);
    const std::vector<std::int32_t> cu = shape.offsets();
    interpret(va::make_kernel<f16>({.head_dim = 16, .causal = causal, .waves = 1}), {.subs = va::sizes(shape, 8, 4)},
              {in.q.data(), in.k.data(), in.v.data(), cu.data(), out.data()});
    CHECK(examples::host::varlen_mismatches(in, out, examples::host::half_to_float, true, std::uint16_t{0xFFFF}) == 0);
  }
}

TEST_CASE("interpret: extend attention over a paged prefix matches float64 per sequence", "[interpret][set_symbol][extend]") {
  namespace ea = examples::extend_attention;
  std::mt19937 rng(11);
  for (double cap : {0.0, 2.0}) {
    // An empty prefix, ones ending inside a page and at one; one new token alone.
    const ea::Shape shape{.prefix_lens = {0, 5, 17, 8}, .extend_lens = {1, 9, 6, 12}, .heads = 4, .kv_heads = 2,
                          .head_dim = 16, .page = 4, .padding = 3};
    const examples::host::ExtendInputs in = examples::host::random_extend(shape, rng);
    std::vector<std::uint16_t> out(std::size_t(shape.rows()) * shape.heads * shape.head_dim, 0xFFFF);
    const std::vector<std::int32_t> cu = shape.offsets(), prefix(shape.prefix_lens.begin(), shape.prefix_lens.end());
    std::vector<Sub> subs = ea::sizes(shape, 8, 4);
    subs.push_back({ea::PAGES, in.pages});
    interpret(ea::make_kernel<f16>({.head_dim = 16, .waves = 1, .logit_cap = cap}), {.subs = subs},
              {in.q.data(), in.k.data(), in.v.data(), in.k_cache.data(), in.v_cache.data(), in.block_table.data(),
               cu.data(), prefix.data(), out.data()});
    CHECK(examples::host::extend_mismatches(in, out, examples::host::half_to_float, true, std::uint16_t{0xFFFF}, cap) ==
          0);
  }
}

TEST_CASE("interpret: tree attention sees each draft token's ancestors, as float64 does", "[interpret][set_symbol][extend]") {
  namespace ea = examples::extend_attention;
  std::mt19937 rng(13);
  const ea::Shape shape{.prefix_lens = {6, 0, 13}, .extend_lens = {7, 1, 5}, .heads = 2, .kv_heads = 1, .head_dim = 16,
                        .page = 4, .padding = 2};
  const examples::host::ExtendInputs in = examples::host::random_tree(shape, rng);
  std::vector<std::uint16_t> out(std::size_t(shape.rows()) * shape.heads * shape.head_dim, 0xFFFF);
  const std::vector<std::int32_t> cu = shape.offsets(), prefix(shape.prefix_lens.begin(), shape.prefix_lens.end());
  std::vector<Sub> subs = ea::sizes(shape, 8, 4);
  subs.push_back({ea::PAGES, in.pages});
  interpret(ea::make_tree_kernel<f16>({.head_dim = 16, .waves = 1}), {.subs = subs},
            {in.q.data(), in.k.data(), in.v.data(), in.k_cache.data(), in.v_cache.data(), in.block_table.data(),
             cu.data(), prefix.data(), in.tree_mask.data(), out.data()});
  CHECK(examples::host::extend_mismatches(in, out, examples::host::half_to_float, true, std::uint16_t{0xFFFF}) == 0);
  // The tree differs from the causal mask: the causal reference does not match.
  examples::host::ExtendInputs causal = in;
  causal.tree_mask.clear();
  CHECK(examples::host::extend_mismatches(causal, out, examples::host::half_to_float, true, std::uint16_t{0xFFFF}, 0, 0) >
        0);
}

namespace {

// The MoE layer in the interpreter, in blocks of 16 slots and 16 x 16 tiles; every step
// checked (the sorted order, each GEMM's rows, the output). Returns the outputs.
examples::host::MoeOutputs check_moe_interpreted(const examples::host::MoeInputs& in) {
  const examples::moe::Tiling tiling{.block_m = 16, .block_n = 16, .block_k = 16, .wave_m = 16, .wave_n = 16};
  const examples::host::MoeOutputs o =
      examples::host::run_moe(in, tiling, [](const auto& kernel, const std::vector<Sub>& subs, auto&... buffers) {
        interpret(kernel, {.subs = subs}, {buffers.data()...});
      });
  CHECK(examples::host::routing_mismatches(in, o, tiling.block_m) == 0);
  CHECK(examples::host::gemm_mismatches(in, o, tiling.block_m) == 0);
  CHECK(examples::host::moe_mismatches(in, o.out) == 0);
  return o;
}

}  // namespace

TEST_CASE("interpret: a MoE layer sorts its pairs by expert and matches float64", "[interpret][set_symbol][moe]") {
  namespace moe = examples::moe;
  std::mt19937 rng(17);
  struct Case {
    moe::Shape shape;
    int used;  // experts the tokens pick among (0: all)
  };
  // Runs within one block and across several (3 of 8 experts used), a hidden size that
  // ends inside a BLOCK_K tile and an intermediate size inside a BLOCK_N tile.
  for (const Case& c : {Case{{7, 4, 2, 32, 24}, 0}, Case{{37, 8, 2, 40, 16}, 3}, Case{{3, 16, 6, 16, 40}, 0}}) {
    INFO("T = " << c.shape.tokens << ", E = " << c.shape.experts << ", TOPK = " << c.shape.topk);
    check_moe_interpreted(examples::host::random_moe(c.shape, rng, c.used));
  }
}

TEST_CASE("interpret: a bf16 MoE layer matches float64", "[interpret][moe]") {
  std::mt19937 rng(23);
  const examples::host::MoeInputs in = examples::host::random_moe({21, 8, 2, 40, 24}, rng, 0, /*bf16=*/true);
  const examples::host::MoeOutputs o = check_moe_interpreted(in);
  // Read as f16, the same bits are far from the bf16 layer's values: the check tells.
  examples::host::MoeInputs as_f16 = in;
  as_f16.bf16 = false;
  CHECK(examples::host::moe_mismatches(as_f16, o.out) > 0);
}

TEST_CASE("interpret: a MoE pair routed to no expert is dropped, its token's other pairs kept", "[interpret][moe]") {
  std::mt19937 rng(19);
  examples::host::MoeInputs in = examples::host::random_moe({9, 4, 2, 16, 16}, rng);
  in.topk_ids[3] = 4;   // E
  in.topk_ids[10] = -1;
  check_moe_interpreted(in);
}

TEST_CASE("interpret: scalar() values, numbers and expressions of symbols, broadcast against a row", "[interpret][scalar]") {
  namespace sc = fixtures::scalars;
  for (int m : {1, 100, 256}) {
    std::vector<std::int32_t> x(static_cast<std::size_t>(m)), ints(x.size(), -1), capped(x.size(), -1);
    std::vector<float> floats(x.size(), std::nanf(""));
    for (int i = 0; i < m; ++i) x[static_cast<std::size_t>(i)] = (i * 37) % 23 - 5;
    interpret(sc::make_kernel(), {.subs = {{sc::M, m}, {sc::N, 7}, {sc::BLOCK_M, 64}}},
              {x.data(), ints.data(), floats.data(), capped.data()});
    CHECK(sc::mismatches(x, ints, floats, capped, 7, 64) == 0);
  }
}
