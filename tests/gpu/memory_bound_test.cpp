// Memory-bound kernels traced, compiled and run: every output element checked against a
// host reference in double precision, on random inputs, for aligned and unaligned sizes,
// with the output poisoned first so unwritten elements show.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "fixtures/index_masks.hpp"
#include "host_half.hpp"
#include "kernels/copy.hpp"
#include "wave/interpret.hpp"
#include "wave/interpreter/elements.hpp"
#include "wave/runtime.hpp"

using namespace wave;
using examples::host::half_to_float;
using fixtures::poisoned;
using fixtures::run_on_device;
using examples::host::random_half;

namespace {

WAVE_SYMBOL(B);
WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_B);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);

// Copies [m, n] f16 with `copy` and counts elements that differ from the input.
std::size_t copy_errors(const CompiledKernel& copy, int m, int n, const LaunchOptions& how, std::mt19937& rng) {
  std::vector<std::uint16_t> a(static_cast<std::size_t>(m) * n);
  for (auto& h : a) h = random_half(rng);
  auto b = poisoned<std::uint16_t>(a.size());
  run_on_device(copy, how, a, b);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < a.size(); ++i) wrong += a[i] != b[i];
  return wrong;
}

}  // namespace

TEST_CASE("copy f16, 2-D, aligned and unaligned", "[gpu][memory]") {
  std::mt19937 rng(Catch::rngSeed());
  const auto copy = examples::copy::make_kernel();
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {7, 1000}, {3, 4096}, {64, 4097}, {1000, 7}}) {
    INFO("M = " << m << ", N = " << n);
    namespace ex = examples::copy;
    const auto compiled = compile(copy, {.subs = {{ex::M, m}, {ex::N, n}, {ex::BLOCK_M, 1}, {ex::BLOCK_N, 1024}}});
    CHECK(copy_errors(compiled, m, n, {}, rng) == 0);
  }
}

TEST_CASE("copy f16 with dynamic dims: one kernel for every size", "[gpu][memory][dynamic]") {
  namespace ex = examples::copy;
  std::mt19937 rng(Catch::rngSeed());
  const auto copy = compile(ex::make_kernel(), {.subs = {{ex::BLOCK_M, 1}, {ex::BLOCK_N, 1024}}});
  REQUIRE(copy.dynamic_dims() == std::vector<std::string>{"M", "N"});
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {1, 7}, {2, 1000}, {3, 4097}, {7, 4096}, {1000, 7}, {5, 2049}}) {
    INFO("M = " << m << ", N = " << n);
    CHECK(copy_errors(copy, m, n, {.sizes = {{ex::M, m}, {ex::N, n}}}, rng) == 0);
  }
}

TEST_CASE("a launch on a stream runs there", "[gpu][memory][stream]") {
  namespace ex = examples::copy;
  std::mt19937 rng(Catch::rngSeed());
  const auto copy = compile(ex::make_kernel(), {.subs = {{ex::BLOCK_M, 1}, {ex::BLOCK_N, 1024}}});
  runtime::Stream stream;
  CHECK(copy_errors(copy, 64, 4097, {.sizes = {{ex::M, 64}, {ex::N, 4097}}, .stream = &stream}, rng) == 0);
}

TEST_CASE("fused exp2(a * b) + c in f32, 1-D to 3-D", "[gpu][memory]") {
  std::mt19937 rng(Catch::rngSeed());
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  auto fused3 = kernel("fused3",
                       {WorkgroupConstraint(B, BLOCK_B, 2), WorkgroupConstraint(M, BLOCK_M, 1),
                        WorkgroupConstraint(N, BLOCK_N, 0), WaveConstraint(N, BLOCK_N / 2),
                        HardwareConstraint{.threads_per_wave = 32}},
                       [](Memory<dims<B, M, N>, f32> a, Memory<dims<B, M, N>, f32> b,
                          Memory<dims<B, M, N>, f32> c, Memory<dims<B, M, N>, f32> out) {
                         write(exp2(read(a) * read(b)) + read(c), out);
                       });
  struct Shape { int b, m, n, block_n; };
  for (Shape s : {Shape{1, 1, 1, 256}, Shape{1, 1, 4097, 256}, Shape{1, 7, 1000, 512}, Shape{3, 5, 7, 64},
                  Shape{2, 16, 4096, 1024}}) {
    INFO("B = " << s.b << ", M = " << s.m << ", N = " << s.n);
    // Sizes set in subs, or left dynamic and given at launch.
    const bool dynamic = s.n % 2 == 1;
    const auto fused = dynamic ? compile(fused3, {.subs = {{BLOCK_B, 1}, {BLOCK_M, 1}, {BLOCK_N, s.block_n}}})
                               : compile(fused3, {.subs = {{B, s.b}, {M, s.m}, {N, s.n}, {BLOCK_B, 1}, {BLOCK_M, 1},
                                                           {BLOCK_N, s.block_n}}});
    const LaunchOptions how{.sizes = dynamic ? Subs{{B, s.b}, {M, s.m}, {N, s.n}} : Subs{}};
    INFO((dynamic ? "dynamic dims" : "static dims"));
    const std::size_t size = static_cast<std::size_t>(s.b) * s.m * s.n;
    std::vector<float> a(size), b(size), c(size);
    for (std::size_t i = 0; i < size; ++i) a[i] = uniform(rng), b[i] = uniform(rng), c[i] = uniform(rng);
    auto out = poisoned<float>(size);
    run_on_device(fused, how, a, b, c, out);
    double err2 = 0, ref2 = 0;
    std::size_t unwritten = 0;
    for (std::size_t i = 0; i < size; ++i) {
      const double ref = std::exp2(static_cast<double>(a[i]) * b[i]) + c[i];
      unwritten += std::isnan(out[i]);
      err2 += (out[i] - ref) * (out[i] - ref);
      ref2 += ref * ref;
    }
    CHECK(unwritten == 0);
    CHECK(std::sqrt(err2 / ref2) < 1e-5);
  }
}

TEST_CASE("sin, cos, sinh, cbrt, roundeven, log10, softsign, atan2, powf and comparisons", "[gpu][memory][math]") {
  std::mt19937 rng(Catch::rngSeed());
  // One kernel per op: out[M, N] = op(x[M, N], y[M, N]) in f32, or in f16 (computed by the
  // GPU in f32 and rounded: within an f16 ulp). Comparisons pick x or y by select, and
  // write their i1 as a float 0 or 1 (cast).
  enum Op { Sin, Cos, Sinh, Cbrt, RoundEven, Log10, Softsign, Atan2, Powf, Gt, Le, Ne, PickGe, PickLtScalar, Count };
  auto body = [](Op op, auto x, auto y) {
    using R = decltype(x);
    switch (op) {
      case Sin: return sin(x);
      case Cos: return cos(x);
      case Sinh: return sinh(x);
      case Cbrt: return cbrt(x);
      case RoundEven: return roundeven(x * 4.0);
      case Log10: return log10(abs(x) + 0.5);
      case Softsign: return softsign(x);
      case Atan2: return atan2(y, x);
      case Powf: return powf(abs(x) + 0.5, y);
      case Gt: return cast<typename R::dtype>(gt(x, y));
      case Le: return cast<typename R::dtype>(le(x, y));
      case Ne: return cast<typename R::dtype>(ne(x, y));
      case PickGe: return select(ge(x, y), x, y);
      default: return select(lt(x, 0.25), x, y);
    }
  };
  // `round` rounds to the kernel's dtype what the kernel rounds before the op itself.
  auto reference = [](Op op, double x, double y, auto round) {
    switch (op) {
      case Sin: return std::sin(x);
      case Cos: return std::cos(x);
      case Sinh: return std::sinh(x);
      case Cbrt: return std::cbrt(x);
      case RoundEven: return std::nearbyint(x * 4.0);
      case Log10: return std::log10(round(std::abs(x) + 0.5));
      case Softsign: return x / (1 + std::abs(x));
      case Atan2: return std::atan2(y, x);
      case Powf: return std::pow(round(std::abs(x) + 0.5), y);
      case Gt: return double(x > y);
      case Le: return double(x <= y);
      case Ne: return double(x != y);
      case PickGe: return x >= y ? x : y;
      default: return x < 0.25 ? x : y;
    }
  };
  auto run = [&](auto dtype, Op op, int m, int n) {
    using T = decltype(dtype);
    constexpr bool half = std::is_same_v<T, f16>;
    INFO("op " << int(op) << (half ? " f16" : " f32") << ", M = " << m << ", N = " << n);
    auto k = kernel("math",
                    {WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0),
                     WaveConstraint(N, BLOCK_N / 2), HardwareConstraint{.threads_per_wave = 32}},
                    [&](Memory<dims<M, N>, T> x, Memory<dims<M, N>, T> y, Memory<dims<M, N>, T> out) {
                      write(body(op, read(x), read(y)), out);
                    });
    const auto compiled = compile(k, {.subs = {{M, m}, {N, n}, {BLOCK_M, 1}, {BLOCK_N, 256}}});
    using Word = std::conditional_t<half, std::uint16_t, float>;
    const DataType t = T::value;
    const std::size_t size = std::size_t(m) * n;
    std::uniform_real_distribution<double> uniform(-3.0, 3.0);
    std::vector<Word> x(size), y(size);
    for (std::size_t i = 0; i < size; ++i) {
      elements::store_float(t, x.data(), std::int64_t(i), elements::round_float(t, uniform(rng)));
      // Every eighth pair equal, so that the comparisons see ties.
      const double other = i % 8 == 0 ? elements::load_float(t, x.data(), std::int64_t(i)) : uniform(rng);
      elements::store_float(t, y.data(), std::int64_t(i), elements::round_float(t, other));
    }
    auto out = poisoned<Word>(size);
    run_on_device(compiled, {}, x, y, out);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < size; ++i) {
      const double a = elements::load_float(t, x.data(), std::int64_t(i)), b = elements::load_float(t, y.data(), std::int64_t(i));
      const double ref = reference(op, a, b, [&](double v) { return elements::round_float(t, v); }), got = elements::load_float(t, out.data(), std::int64_t(i));
      // libdevice's f32 functions: a few ulps; f16: the rounding of the f32 result too.
      const double tolerance = (half ? std::ldexp(1.0, -10) : 1e-6) * std::max(1.0, std::abs(ref));
      if (!(std::abs(got - ref) <= tolerance)) {
        if (wrong < 5) UNSCOPED_INFO("out[" << i << "] = " << got << " for x = " << a << ", y = " << b << ", expected " << ref);
        ++wrong;
      }
    }
    CHECK(wrong == 0);
  };
  for (int op = 0; op < Count; ++op)
    for (auto [m, n] : std::vector<std::pair<int, int>>{{3, 1000}, {2, 4096}}) {
      run(f32{}, Op(op), m, n);
      run(f16{}, Op(op), m, n);
    }
}

TEST_CASE("self_index, apply_expr, select and broadcast: masks from positions", "[gpu][memory]") {
  std::mt19937 rng(Catch::rngSeed());
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  struct Shape { int m, n; bool dynamic; };
  for (Shape s : {Shape{7, 1000, false}, Shape{64, 4097, false}, Shape{3, 37, true}, Shape{130, 1025, true}}) {
    INFO("M x N = " << s.m << " x " << s.n << (s.dynamic ? ", dynamic" : ", static"));
    const auto masks = s.dynamic ? compile(fixtures::index_masks(), {.subs = {{fixtures::masks::BLOCK_M, 1}, {fixtures::masks::BLOCK_N, 512}}})
                                 : compile(fixtures::index_masks(), {.subs = {{fixtures::masks::M, s.m}, {fixtures::masks::N, s.n}, {fixtures::masks::BLOCK_M, 1}, {fixtures::masks::BLOCK_N, 512}}});
    std::vector<float> x(std::size_t(s.m) * s.n);
    for (float& v : x) v = uniform(rng);
    auto y = poisoned<float>(x.size());
    run_on_device(masks, {.sizes = s.dynamic ? Subs{{fixtures::masks::M, s.m}, {fixtures::masks::N, s.n}} : Subs{}}, x, y);
    std::size_t wrong = 0;
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        const float v = x[std::size_t(i) * s.n + j];
        const float w = i >= j ? v : -v;
        const float want = j >= s.n - 2 ? 0.0f : j % 3 == 0 ? w : w * 2.0f;
        wrong += y[std::size_t(i) * s.n + j] != want;  // exact: sign flips and doubling
      }
    CHECK(wrong == 0);
  }
}

TEST_CASE("cast f32 -> f16, 1-D", "[gpu][memory]") {
  std::mt19937 rng(Catch::rngSeed());
  std::uniform_real_distribution<float> uniform(-100.0f, 100.0f);
  auto to_half = kernel("to_half",
                        {WorkgroupConstraint(N, BLOCK_N, 0), HardwareConstraint{.threads_per_wave = 32}},
                        [](Memory<dims<N>, f32> x, Memory<dims<N>, f16> y) { write(cast<f16>(read(x)), y); });
  for (int n : {1, 7, 1000, 4097}) {
    INFO("N = " << n);
    const auto compiled = compile(to_half, {.subs = {{N, n}, {BLOCK_N, 256}}});
    std::vector<float> x(n);
    for (float& v : x) v = uniform(rng);
    auto y = poisoned<std::uint16_t>(n);
    run_on_device(compiled, {}, x, y);
    std::size_t wrong = 0;
    for (int i = 0; i < n; ++i) {
      // Round to nearest: within half an f16 ulp (2^-11 relative) of the input.
      const double r = half_to_float(y[i]);
      wrong += !(std::abs(r - x[i]) <= std::abs(x[i]) * std::ldexp(1.0, -11) + 1e-7);
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("bitcast keeps every bit; tanh_approx is the hardware's tanh, in f32 and through f32 for f16", "[gpu][memory][math]") {
  std::mt19937 rng(Catch::rngSeed());
  std::uniform_real_distribution<float> uniform(-6.0f, 6.0f);
  // bits[N] = x's bits as i32, plus 1 (an integer op between the casts), read back as
  // f32: the next float up; t[N] = tanh_approx(x); h[N] = tanh_approx of x in f16.
  auto k = kernel("bits_and_tanh", {WorkgroupConstraint(N, BLOCK_N, 0), HardwareConstraint{.threads_per_wave = 32}},
                  [](Memory<dims<N>, f32> x, Memory<dims<N>, f32> next, Memory<dims<N>, f32> t, Memory<dims<N>, f16> h) {
                    auto v = read(x);
                    write(bitcast<f32>(bitcast<i32>(v) + 1), next);
                    write(tanh_approx(v), t);
                    write(tanh_approx(cast<f16>(v)), h);
                  });
  for (int n : {1, 7, 1000, 4097}) {
    INFO("N = " << n);
    const auto compiled = compile(k, {.subs = {{N, n}, {BLOCK_N, 256}}});
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& v : x) v = uniform(rng);
    x[0] = 1.0f;  // tanh(1) = 0.7616; the float after 1 is 1 + 2^-23
    auto next = poisoned<float>(x.size()), t = poisoned<float>(x.size());
    auto h = poisoned<std::uint16_t>(x.size());
    run_on_device(compiled, {}, x, next, t, h);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double want = std::tanh(static_cast<double>(x[i]));
      const double want_h = std::tanh(elements::round_float(DataType::f16, x[i]));
      const bool ok = next[i] == std::nextafter(x[i], x[i] > 0 ? INFINITY : -INFINITY) &&
                      std::abs(t[i] - want) <= std::abs(want) * std::ldexp(1.0, -10) + std::ldexp(1.0, -20) &&
                      std::abs(half_to_float(h[i]) - want_h) <= std::abs(want_h) * std::ldexp(1.0, -9) + std::ldexp(1.0, -14);
      if (!ok && wrong++ < 5)
        UNSCOPED_INFO("x = " << x[i] << ": next " << next[i] << ", tanh " << t[i] << " (" << want << "), f16 "
                             << half_to_float(h[i]) << " (" << want_h << ")");
    }
    CHECK(wrong == 0);
  }
}

namespace {

// The language's float-to-integer cast: toward zero, saturated to the integer's range,
// NaN to 0 (docs/language.md).
template <class Int>
Int saturating_cast(double x) {
  if (std::isnan(x)) return 0;
  const double t = std::trunc(x);
  if (t <= double(std::numeric_limits<Int>::min())) return std::numeric_limits<Int>::min();
  if (t >= std::ldexp(1.0, std::numeric_limits<Int>::digits)) return std::numeric_limits<Int>::max();
  return static_cast<Int>(t);
}

}  // namespace

TEST_CASE("casts from floats to integers at the edges: the GPU, the interpreter and the definition agree",
          "[gpu][memory]") {
  auto edges = kernel("cast_edges", {WorkgroupConstraint(N, BLOCK_N, 0), HardwareConstraint{.threads_per_wave = 32}},
                      [](Memory<dims<N>, f32> x, Memory<dims<N>, f16> h, Memory<dims<N>, i32> x_i32,
                         Memory<dims<N>, i8> x_i8, Memory<dims<N>, i64> x_i64, Memory<dims<N>, i32> x_i1,
                         Memory<dims<N>, i32> h_i32, Memory<dims<N>, i8> h_i8) {
                        auto v = read(x);
                        write(cast<i32>(v), x_i32);
                        write(cast<i8>(v), x_i8);
                        write(cast<i64>(v), x_i64);
                        write(cast<i32>(cast<i1>(v)), x_i1);
                        auto w = read(h);
                        write(cast<i32>(w), h_i32);
                        write(cast<i8>(w), h_i8);
                      });
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x{inf,   -inf,  nan,        -nan,        3e9f,         -3e9f,       1e20f,  -1e20f,
                             -0.5f, 0.5f,  -1.5f,      1.5f,        2147483648.f, 2147483520.f, -2147483648.f,
                             -0.0f, 0.0f,  127.9f,     128.0f,      -128.9f,      -129.0f,     255.5f, 9.2e18f,
                             -9.3e18f, 1e-30f, 65504.f, 300.7f};
  const int n = int(x.size());
  // The same values as f16 (those beyond its range become infinities).
  std::vector<std::uint16_t> h(n);
  for (int i = 0; i < n; ++i) {
    const _Float16 v = static_cast<_Float16>(x[i]);
    std::memcpy(&h[i], &v, 2);
  }
  const CompileOptions options{.subs = {{N, n}, {BLOCK_N, 64}}};
  struct Outputs {
    std::vector<std::int32_t> x_i32, x_i1, h_i32;
    std::vector<std::int8_t> x_i8, h_i8;
    std::vector<std::int64_t> x_i64;
  };
  auto poisoned_outputs = [&] {
    return Outputs{std::vector<std::int32_t>(n, -123456789), std::vector<std::int32_t>(n, -123456789),
                   std::vector<std::int32_t>(n, -123456789), std::vector<std::int8_t>(n, 77),
                   std::vector<std::int8_t>(n, 77),          std::vector<std::int64_t>(n, -123456789)};
  };
  Outputs gpu = poisoned_outputs(), host = poisoned_outputs();
  run_on_device(compile(edges, options), {}, x, h, gpu.x_i32, gpu.x_i8, gpu.x_i64, gpu.x_i1, gpu.h_i32, gpu.h_i8);
  interpret(edges, options,
            {x.data(), h.data(), host.x_i32.data(), host.x_i8.data(), host.x_i64.data(), host.x_i1.data(),
             host.h_i32.data(), host.h_i8.data()});
  for (int i = 0; i < n; ++i) {
    const double hv = half_to_float(h[i]);
    INFO("x = " << x[i] << " (as f16: " << hv << ")");
    CHECK(gpu.x_i32[i] == host.x_i32[i]);
    CHECK(gpu.x_i8[i] == host.x_i8[i]);
    CHECK(gpu.x_i64[i] == host.x_i64[i]);
    CHECK(gpu.x_i1[i] == host.x_i1[i]);
    CHECK(gpu.h_i32[i] == host.h_i32[i]);
    CHECK(gpu.h_i8[i] == host.h_i8[i]);
    CHECK(gpu.x_i32[i] == saturating_cast<std::int32_t>(x[i]));
    CHECK(int(gpu.x_i8[i]) == int(saturating_cast<std::int8_t>(x[i])));
    CHECK(gpu.x_i64[i] == saturating_cast<std::int64_t>(x[i]));
    CHECK(gpu.h_i32[i] == saturating_cast<std::int32_t>(hv));
    CHECK(int(gpu.h_i8[i]) == int(saturating_cast<std::int8_t>(hv)));
    // To i1: nonzero (NaN included) is true; read back through an i32 cast, which is 0 or
    // nonzero whichever extension the cast takes.
    CHECK((gpu.x_i1[i] != 0) == (x[i] != 0 || std::isnan(x[i])));
  }
}

TEST_CASE("compile() and launch: the copy example end to end", "[gpu][memory]") {
  namespace ex = examples::copy;
  std::mt19937 rng(Catch::rngSeed());
  const auto copy = compile(ex::make_kernel(), {.subs = {{ex::M, 33}, {ex::N, 2050}, {ex::BLOCK_M, 1}, {ex::BLOCK_N, 1024}}});
  std::vector<std::uint16_t> a(33 * 2050);
  for (auto& h : a) h = random_half(rng);
  auto b = poisoned<std::uint16_t>(a.size());
  runtime::DeviceBuffer da(a.size() * 2), db(b.size() * 2);
  da.copy_from_host(a.data());
  db.copy_from_host(b.data());
  copy(reinterpret_cast<void*>(da.address()), reinterpret_cast<void*>(db.address()));
  runtime::synchronize();
  db.copy_to_host(b.data());
  CHECK(a == b);
}
