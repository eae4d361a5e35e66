// GEMMs that do more than multiply: epilogues on the accumulator (bias, residual, ReLU,
// GELU, SiLU, scaling, casts), work inside the K loop (int8 weights dequantized by a
// per-column scale) and two chained GEMMs. Only the layout pipeline lowers these. Each
// output element is compared with a float64 host reference on random data, aligned and
// unaligned shapes, two tilings, outputs poisoned first.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "fixtures/device_run.hpp"
#include "fixtures/random_data.hpp"
#include "host_half.hpp"
#include "wave/runtime.hpp"
#include "wave/wave.hpp"

using namespace wave;
using examples::host::bfloat16_to_float;
using examples::host::half_to_float;
using examples::host::random_half;
using fixtures::poisoned;
using fixtures::random_floats;
using fixtures::run_on_device;

namespace {

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);
WAVE_SYMBOL(P);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(BLOCK_K);
WAVE_SYMBOL(BLOCK_P);
WAVE_SYMBOL(Z);

Constraints gemm_constraints(MMA mma = MMA::F32_16x8x16_F16) {
  return {WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1), TilingConstraint(K, BLOCK_K),
          WaveConstraint(M, BLOCK_M / 2), WaveConstraint(N, BLOCK_N / 2),
          HardwareConstraint{.threads_per_wave = 32, .mma = mma}};
}

using Acc = Register<dims<M, N>, f32>;
using SharedA = Memory<dims<M, K>, f16, SHARED_ADDRESS_SPACE>;
using SharedB = Memory<dims<N, K>, f16, SHARED_ADDRESS_SPACE>;
using Bias = Memory<dims<N>, f32>;
using Residual = Memory<dims<M, N>, f16>;

// C = epilogue(A B^T, bias, residual), A [M, K] and B [N, K] in f16.
template <class Out, class Epilogue>
auto epilogue_gemm(const char* name, Epilogue epilogue) {
  return kernel(name, gemm_constraints(),
                [epilogue](SharedA a, SharedB b, Bias bias, Residual residual, Memory<dims<M, N>, Out> c) {
                  Acc acc(0.0);
                  Acc result = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
                  write(epilogue(result, bias, residual), c);
                });
}

struct Shape {
  int m, n, k;
};
struct Tiles {
  int m, n, k;
};
const Tiles kTilings[] = {{64, 64, 32}, {128, 64, 64}};
const Shape kShapes[] = {{256, 192, 128}, {129, 257, 65}, {33, 70, 200}};

std::vector<std::uint16_t> random_halves(std::size_t n, std::mt19937& rng) {
  std::vector<std::uint16_t> v(n);
  for (auto& x : v) x = random_half(rng);
  return v;
}

// A B^T in float64, and the sum of the products' magnitudes (the scale of f32 rounding).
struct Product {
  double value, magnitude;
};
Product dot(const std::vector<std::uint16_t>& a, const std::vector<float>& b, std::size_t i, std::size_t j, int k) {
  Product p{0, 0};
  for (int kk = 0; kk < k; ++kk) {
    const double x = half_to_float(a[i * k + kk]), y = b[j * k + kk];
    p.value += x * y;
    p.magnitude += std::abs(x * y);
  }
  return p;
}

// The output's value as a double: f32 words, or f16/bf16 halves.
template <class Out, class Word>
double decode(Word w) {
  if constexpr (std::is_same_v<Out, f32>) {
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  } else if constexpr (std::is_same_v<Out, f16>) {
    return half_to_float(w);
  } else {
    return bfloat16_to_float(w);
  }
}

template <class Out>
double output_ulp() {
  if constexpr (std::is_same_v<Out, f32>) return std::ldexp(1.0, -22);
  if constexpr (std::is_same_v<Out, f16>) return std::ldexp(1.0, -10);
  return std::ldexp(1.0, -7);
}

// The elements of an m x n output off their reference by more than their tolerance,
// the first five reported; `check(i, j)` gives the element's {got, want, tolerance}.
struct Checked {
  double got, want, tolerance;
};
std::size_t mismatches(int m, int n, const std::function<Checked(int, int)>& check) {
  std::size_t wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const Checked c = check(i, j);
      if (!(std::abs(c.got - c.want) <= c.tolerance)) {
        if (wrong < 5) UNSCOPED_INFO("C[" << i << ", " << j << "] = " << c.got << ", expected " << c.want);
        ++wrong;
      }
    }
  return wrong;
}

// Runs an epilogue GEMM at every shape and tiling; `reference(acc, bias, residual)` is the
// epilogue on the host.
template <class Out, class Kernel>
void check_epilogue(const Kernel& k, std::function<double(double, double, double)> reference, std::mt19937& rng) {
  using Word = std::conditional_t<std::is_same_v<Out, f32>, std::uint32_t, std::uint16_t>;
  for (Tiles t : kTilings)
    for (Shape s : kShapes) {
      INFO(k.name() << ": M x N x K = " << s.m << " x " << s.n << " x " << s.k << ", tiles " << t.m << " x " << t.n
                    << " x " << t.k);
      const auto compiled =
          compile(k, {.subs = {{M, s.m}, {N, s.n}, {K, s.k}, {BLOCK_M, t.m}, {BLOCK_N, t.n}, {BLOCK_K, t.k}}});
      auto a = random_halves(std::size_t(s.m) * s.k, rng), b = random_halves(std::size_t(s.n) * s.k, rng);
      auto residual = random_halves(std::size_t(s.m) * s.n, rng);
      std::vector<float> bias = random_floats(s.n, rng);
      auto c = poisoned<Word>(std::size_t(s.m) * s.n);
      run_on_device(compiled, {}, a, b, bias, residual, c);
      std::vector<float> bf(b.size());
      for (std::size_t i = 0; i < b.size(); ++i) bf[i] = half_to_float(b[i]);
      std::size_t wrong = 0;
      for (int i = 0; i < s.m; ++i)
        for (int j = 0; j < s.n; ++j) {
          const Product p = dot(a, bf, i, j, s.k);
          const double ref = reference(p.value, bias[j], half_to_float(residual[std::size_t(i) * s.n + j]));
          const double got = decode<Out>(c[std::size_t(i) * s.n + j]);
          // f32 accumulation (see gemm_test.cpp), through epilogues of slope at most 1.2,
          // f32 math in the epilogue, then the output's rounding.
          const double tolerance = 6e-5 * p.magnitude + 1e-5 * (1 + std::abs(ref)) + output_ulp<Out>() * std::abs(ref);
          if (!(std::abs(got - ref) <= tolerance)) {
            if (wrong < 5) UNSCOPED_INFO("C[" << i << ", " << j << "] = " << got << ", expected " << ref);
            ++wrong;
          }
        }
      CHECK(wrong == 0);
    }
}

double gelu(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

}  // namespace

TEST_CASE("GEMM epilogue: + bias[N], ReLU, cast to f16", "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  auto k = epilogue_gemm<f16>("gemm_bias_relu", [](Acc acc, Bias bias, Residual) {
    return cast<f16>(maximum(acc + read(bias), Register<dims<>, f32>(0.0)));
  });
  check_epilogue<f16>(k, [](double acc, double bias, double) { return std::max(acc + bias, 0.0); }, rng);
}

TEST_CASE("GEMM epilogue: + a residual [M, N] tensor read in f16", "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  auto k = epilogue_gemm<f32>("gemm_residual",
                              [](Acc acc, Bias, Residual residual) { return acc + cast<f32>(read(residual)); });
  check_epilogue<f32>(k, [](double acc, double, double residual) { return acc + residual; }, rng);
}

TEST_CASE("GEMM epilogue: GELU (tanh form) of acc * alpha + bias, cast to bf16", "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  auto k = epilogue_gemm<bf16>("gemm_gelu", [](Acc acc, Bias bias, Residual) {
    Acc x = acc * 0.5 + read(bias);
    return cast<bf16>(x * 0.5 * (tanh((x + x * x * x * 0.044715) * 0.7978845608028654) + 1.0));
  });
  check_epilogue<bf16>(k, [](double acc, double bias, double) { return gelu(acc * 0.5 + bias); }, rng);
}

TEST_CASE("GEMM epilogue: SiLU, f32 out", "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  auto k = epilogue_gemm<f32>("gemm_silu", [](Acc acc, Bias, Residual) {
    return acc * reciprocal(exp2(acc * -1.4426950408889634) + 1.0);
  });
  check_epilogue<f32>(k, [](double acc, double, double) { return acc / (1 + std::exp(-acc)); }, rng);
}

TEST_CASE("GEMM epilogue: SiLU written with sigmoid(), + a residual, f16 out", "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  auto k = epilogue_gemm<f16>("gemm_sigmoid_silu", [](Acc acc, Bias, Residual residual) {
    return cast<f16>(acc * sigmoid(acc) + cast<f32>(read(residual)));
  });
  check_epilogue<f16>(k, [](double acc, double, double residual) { return acc / (1 + std::exp(-acc)) + residual; },
                      rng);
}

TEST_CASE("GEMM with int8 weights dequantized in the loop by a per-column scale", "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  // W [N, K] in i8 and scale [N] in f16: B = cast<f16>(W) * scale, before each mma.
  auto k = kernel("gemm_int8_weights", gemm_constraints(),
                  [](SharedA a, Memory<dims<N, K>, i8, SHARED_ADDRESS_SPACE> w, Memory<dims<N>, f16> scale,
                     Memory<dims<M, N>, f32> c) {
                    Acc acc(0.0);
                    Acc result = iterate<K>(acc, [&](auto acc) {
                      return mma(read(a), cast<f16>(read(w)) * read(scale), acc);
                    });
                    write(result, c);
                  });
  for (Tiles t : kTilings)
    for (Shape s : kShapes) {
      INFO("M x N x K = " << s.m << " x " << s.n << " x " << s.k << ", tiles " << t.m << " x " << t.n << " x " << t.k);
      const auto compiled =
          compile(k, {.subs = {{M, s.m}, {N, s.n}, {K, s.k}, {BLOCK_M, t.m}, {BLOCK_N, t.n}, {BLOCK_K, t.k}}});
      auto a = random_halves(std::size_t(s.m) * s.k, rng);
      std::vector<std::int8_t> w(std::size_t(s.n) * s.k);
      std::uniform_int_distribution<int> weight(-127, 127), exponent(5, 8);
      for (auto& x : w) x = static_cast<std::int8_t>(weight(rng));
      // Powers of two: W * scale is exact in f16, so the host product is the device's.
      std::vector<std::uint16_t> scale(s.n);
      std::vector<float> b(w.size());
      for (int j = 0; j < s.n; ++j) {
        const int e = exponent(rng);
        scale[j] = static_cast<std::uint16_t>((15 - e) << 10);
        for (int kk = 0; kk < s.k; ++kk)
          b[std::size_t(j) * s.k + kk] = std::ldexp(static_cast<float>(w[std::size_t(j) * s.k + kk]), -e);
      }
      auto c = poisoned<float>(std::size_t(s.m) * s.n);
      run_on_device(compiled, {}, a, w, scale, c);
      std::size_t wrong = 0;
      for (int i = 0; i < s.m; ++i)
        for (int j = 0; j < s.n; ++j) {
          const Product p = dot(a, b, i, j, s.k);
          const double got = c[std::size_t(i) * s.n + j];
          if (!(std::abs(got - p.value) <= 5e-5 * p.magnitude + 1e-6)) {
            if (wrong < 5) UNSCOPED_INFO("C[" << i << ", " << j << "] = " << got << ", expected " << p.value);
            ++wrong;
          }
        }
      CHECK(wrong == 0);
    }
}

// (A B^T) C^T: the loop walks N; S = A B^T for a tile of N (all of K at once), then
// O += S C^T. With `split_n`, waves also split N, so S's tiles meet in shared memory before
// the second mma, which contracts over all of the tile.
auto chained_gemm(bool split_n) {
  Constraints constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(P, BLOCK_P, 1),
                          TilingConstraint(N, BLOCK_N),
                          HardwareConstraint{.threads_per_wave = 32, .mma = MMA::F32_16x8x16_F16}};
  constraints += WaveConstraint(M, split_n ? BLOCK_M / 2 : BLOCK_M / 4);
  if (split_n) constraints += WaveConstraint(N, BLOCK_N / 2);
  return kernel(split_n ? "chained_gemm_split_n" : "chained_gemm", constraints,
                [](Memory<dims<M, K>, f16> a, Memory<dims<N, K>, f16> b, Memory<dims<P, N>, f16> c,
                   Memory<dims<M, P>, f32> out) {
                  Register<dims<M, P>, f32> acc(0.0);
                  auto result = iterate<N>(acc, [&](auto acc) {
                    Register<dims<M, N>, f32> s = mma(read(a), read(b), Register<dims<M, N>, f32>(0.0));
                    return mma(cast<f16>(s), read(c), acc);
                  });
                  write(result, out);
                });
}

TEST_CASE("two chained GEMMs, (A B^T) C^T, the first's tiles in registers or through shared memory",
          "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  struct Chain {
    int m, n, k, p;
  };
  for (bool split_n : {false, true})
    for (int block_m : {64, 128})
      for (Chain s : {Chain{128, 256, 64, 64}, Chain{100, 77, 32, 48}}) {
        INFO("M, N, K, P = " << s.m << ", " << s.n << ", " << s.k << ", " << s.p << ", BLOCK_M " << block_m
                             << (split_n ? ", N split among waves" : ""));
        const auto compiled = compile(chained_gemm(split_n), {.subs = {{M, s.m}, {N, s.n}, {K, s.k}, {P, s.p},
                                                                       {BLOCK_P, s.p}, {BLOCK_M, block_m},
                                                                       {BLOCK_N, 32}}});
        auto a = random_halves(std::size_t(s.m) * s.k, rng), b = random_halves(std::size_t(s.n) * s.k, rng),
             c = random_halves(std::size_t(s.p) * s.n, rng);
        auto out = poisoned<float>(std::size_t(s.m) * s.p);
        run_on_device(compiled, {}, a, b, c, out);
        std::vector<float> bf(b.size());
        for (std::size_t i = 0; i < b.size(); ++i) bf[i] = half_to_float(b[i]);
        std::size_t wrong = 0;
        for (int i = 0; i < s.m; ++i) {
          // S's row in f32, rounded to f16 as the kernel casts it: the tolerance allows one
          // f16 rounding of each S element.
          std::vector<double> srow(s.n), smag(s.n);
          for (int j = 0; j < s.n; ++j) {
            const Product p = dot(a, bf, i, j, s.k);
            srow[j] = p.value;
            smag[j] = p.magnitude;
          }
          for (int q = 0; q < s.p; ++q) {
            double ref = 0, tolerance = 1e-6;
            for (int j = 0; j < s.n; ++j) {
              const double y = half_to_float(c[std::size_t(q) * s.n + j]);
              ref += srow[j] * y;
              tolerance += (std::ldexp(std::abs(srow[j]), -10) + 6e-5 * smag[j]) * std::abs(y);
            }
            const double got = out[std::size_t(i) * s.p + q];
            if (!(std::abs(got - ref) <= tolerance)) {
              if (wrong < 5) UNSCOPED_INFO("O[" << i << ", " << q << "] = " << got << ", expected " << ref);
              ++wrong;
            }
          }
        }
        CHECK(wrong == 0);
      }
}

TEST_CASE("GEMM bf16 with a per-row scale [M] and a sigmoid, bf16 out, other tiles", "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  // Not one of the epilogues above: bf16 operands, a scale over the rows (M), a sigmoid,
  // 64 x 128 x 32 tiles split 2 x 2.
  auto k = kernel("gemm_row_scale_sigmoid", gemm_constraints(MMA::F32_16x8x16_BF16),
                  [](Memory<dims<M, K>, bf16, SHARED_ADDRESS_SPACE> a, Memory<dims<N, K>, bf16, SHARED_ADDRESS_SPACE> b,
                     Memory<dims<M>, f32> scale, Memory<dims<M, N>, bf16> c) {
                    Acc acc(0.0);
                    Acc r = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); }) * read(scale);
                    write(cast<bf16>(reciprocal(exp2(r * -1.4426950408889634) + 1.0)), c);
                  });
  for (Shape s : kShapes) {
    INFO("M x N x K = " << s.m << " x " << s.n << " x " << s.k);
    const auto compiled = compile(k, {.subs = {{M, s.m}, {N, s.n}, {K, s.k}, {BLOCK_M, 64}, {BLOCK_N, 128},
                                               {BLOCK_K, 32}}});
    std::vector<std::uint16_t> a(std::size_t(s.m) * s.k), b(std::size_t(s.n) * s.k);
    for (auto& x : a) x = examples::host::random_bfloat16(rng);
    for (auto& x : b) x = examples::host::random_bfloat16(rng);
    std::vector<float> scale = random_floats(s.m, rng);
    auto c = poisoned<std::uint16_t>(std::size_t(s.m) * s.n);
    run_on_device(compiled, {}, a, b, scale, c);
    std::size_t wrong = 0;
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        double dot = 0, magnitude = 0;
        for (int kk = 0; kk < s.k; ++kk) {
          const double p = double(bfloat16_to_float(a[std::size_t(i) * s.k + kk])) *
                           bfloat16_to_float(b[std::size_t(j) * s.k + kk]);
          dot += p;
          magnitude += std::abs(p);
        }
        const double want = 1 / (1 + std::exp(-dot * scale[i]));
        const double got = bfloat16_to_float(c[std::size_t(i) * s.n + j]);
        // The sigmoid's slope is at most 1/4; then bf16's rounding.
        if (!(std::abs(got - want) <= 5e-5 * magnitude * std::abs(scale[i]) + std::ldexp(want, -8) + 1e-5)) {
          if (wrong < 5) UNSCOPED_INFO("C[" << i << ", " << j << "] = " << got << ", expected " << want);
          ++wrong;
        }
      }
    CHECK(wrong == 0);
  }
}

TEST_CASE("SwiGLU: two GEMMs over one A in one loop, silu(A W1^T) * (A W3^T), f16 out", "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  // An LLM MLP's gate, written as a kernel author would: two accumulators carried by one
  // loop, the A tile shared by both mmas, the gate's SiLU and the product in the epilogue.
  auto k = kernel("swiglu", gemm_constraints(),
                  [](SharedA a, SharedB w1, SharedB w3, Memory<dims<M, N>, f16> c) {
                    auto [gate, up] = iterate<K>(std::tuple{Acc(0.0), Acc(0.0)}, [&](auto g, auto u) {
                      auto x = read(a);
                      return std::tuple{mma(x, read(w1), g), mma(x, read(w3), u)};
                    });
                    write(cast<f16>(gate * reciprocal(exp2(gate * -1.4426950408889634) + 1.0) * up), c);
                  });
  for (Tiles t : kTilings)
    for (Shape s : kShapes) {
      INFO("M x N x K = " << s.m << " x " << s.n << " x " << s.k << ", tiles " << t.m << " x " << t.n << " x " << t.k);
      const auto compiled =
          compile(k, {.subs = {{M, s.m}, {N, s.n}, {K, s.k}, {BLOCK_M, t.m}, {BLOCK_N, t.n}, {BLOCK_K, t.k}}});
      auto a = random_halves(std::size_t(s.m) * s.k, rng), w1 = random_halves(std::size_t(s.n) * s.k, rng),
           w3 = random_halves(std::size_t(s.n) * s.k, rng);
      auto c = poisoned<std::uint16_t>(std::size_t(s.m) * s.n);
      run_on_device(compiled, {}, a, w1, w3, c);
      std::vector<float> f1(w1.size()), f3(w3.size());
      for (std::size_t i = 0; i < w1.size(); ++i) f1[i] = half_to_float(w1[i]), f3[i] = half_to_float(w3[i]);
      CHECK(mismatches(s.m, s.n, [&](int i, int j) {
              const Product g = dot(a, f1, i, j, s.k), u = dot(a, f3, i, j, s.k);
              const double silu = g.value / (1 + std::exp(-g.value)), want = silu * u.value;
              // Each product's f32 accumulation error (SiLU's slope is at most 1.1) times
              // the other factor, then f16's rounding.
              return Checked{half_to_float(c[std::size_t(i) * s.n + j]), want,
                             6e-5 * (g.magnitude * 1.1 * std::abs(u.value) + u.magnitude * std::abs(silu)) +
                                 std::ldexp(std::abs(want), -10) + 1e-5};
            }) == 0);
    }
}

TEST_CASE("GEMM with f16 accumulators (F16_16x8x16_F16), f16 out", "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  auto k = kernel("gemm_f16_acc", gemm_constraints(MMA::F16_16x8x16_F16),
                  [](SharedA a, SharedB b, Memory<dims<M, N>, f16> c) {
                    Register<dims<M, N>, f16> acc(0.0);
                    write(iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); }), c);
                  });
  for (Tiles t : kTilings)
    for (Shape s : kShapes) {
      INFO("M x N x K = " << s.m << " x " << s.n << " x " << s.k << ", tiles " << t.m << " x " << t.n << " x " << t.k);
      const auto compiled =
          compile(k, {.subs = {{M, s.m}, {N, s.n}, {K, s.k}, {BLOCK_M, t.m}, {BLOCK_N, t.n}, {BLOCK_K, t.k}}});
      auto a = random_halves(std::size_t(s.m) * s.k, rng), b = random_halves(std::size_t(s.n) * s.k, rng);
      auto c = poisoned<std::uint16_t>(std::size_t(s.m) * s.n);
      run_on_device(compiled, {}, a, b, c);
      std::vector<float> bf(b.size());
      for (std::size_t i = 0; i < b.size(); ++i) bf[i] = half_to_float(b[i]);
      CHECK(mismatches(s.m, s.n, [&](int i, int j) {
              const Product p = dot(a, bf, i, j, s.k);
              // An f16 rounding of the running sum per 16-deep step, then the output's.
              return Checked{half_to_float(c[std::size_t(i) * s.n + j]), p.value,
                             (s.k / 16 + 2) * std::ldexp(p.magnitude, -11) + std::ldexp(std::abs(p.value), -10)};
            }) == 0);
    }
}

TEST_CASE("batched GEMM with a softmax over each row of the result", "[gpu][gemm][fusion]") {
  std::mt19937 rng(Catch::rngSeed());
  // P[z] = softmax2(A[z] B[z]^T) over N (base 2, as attention's scores): a whole row of N
  // in each workgroup, its max and sum across the two waves that split it.
  auto k = kernel("bgemm_softmax",
                  {WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, N, 1), WorkgroupConstraint(Z, 1, 2),
                   TilingConstraint(K, BLOCK_K), WaveConstraint(M, BLOCK_M / 2), WaveConstraint(N, N / 2),
                   HardwareConstraint{.threads_per_wave = 32, .mma = MMA::F32_16x8x16_F16}},
                  [](Memory<dims<Z, M, K>, f16, SHARED_ADDRESS_SPACE> a, Memory<dims<Z, N, K>, f16, SHARED_ADDRESS_SPACE> b,
                     Memory<dims<Z, M, N>, f32> p) {
                    Register<dims<Z, M, N>, f32> acc(0.0);
                    auto s = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
                    auto e = exp2(s - max<N>(s));
                    write(e * reciprocal(sum<N>(e)), p);
                  });
  struct Batched {
    int z, m, n, k;
  };
  for (Batched s : {Batched{3, 200, 128, 96}, Batched{2, 64, 64, 40}}) {
    INFO("Z x M x N x K = " << s.z << " x " << s.m << " x " << s.n << " x " << s.k);
    const auto compiled = compile(k, {.subs = {{Z, s.z}, {M, s.m}, {N, s.n}, {K, s.k}, {BLOCK_M, 64}, {BLOCK_K, 32}}});
    auto a = random_halves(std::size_t(s.z) * s.m * s.k, rng), b = random_halves(std::size_t(s.z) * s.n * s.k, rng);
    auto p = poisoned<float>(std::size_t(s.z) * s.m * s.n);
    run_on_device(compiled, {}, a, b, p);
    std::vector<float> bf(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) bf[i] = half_to_float(b[i]);
    std::size_t wrong = 0;
    for (int z = 0; z < s.z; ++z)
      for (int i = 0; i < s.m; ++i) {
        std::vector<double> row(s.n);
        double top = -INFINITY, total = 0, slack = 0;
        for (int j = 0; j < s.n; ++j) {
          // A[z] row i against B[z] row j: offsets into the batched arrays.
          const std::vector<std::uint16_t> arow(a.begin() + (std::size_t(z) * s.m + i) * s.k,
                                                a.begin() + (std::size_t(z) * s.m + i + 1) * s.k);
          const std::vector<float> brow(bf.begin() + (std::size_t(z) * s.n + j) * s.k,
                                        bf.begin() + (std::size_t(z) * s.n + j + 1) * s.k);
          const Product d = dot(arow, brow, 0, 0, s.k);
          row[j] = d.value;
          slack = std::max(slack, 6e-5 * d.magnitude);
          top = std::max(top, d.value);
        }
        for (double x : row) total += std::exp2(x - top);
        for (int j = 0; j < s.n; ++j) {
          const double want = std::exp2(row[j] - top) / total;
          const double got = p[(std::size_t(z) * s.m + i) * s.n + j];
          // Each score's f32 error moves its term by ln 2 times that, relatively.
          if (!(std::abs(got - want) <= want * (2 * 0.7 * slack + 1e-5) + 1e-7)) {
            if (wrong < 5) UNSCOPED_INFO("P[" << z << ", " << i << ", " << j << "] = " << got << ", expected " << want);
            ++wrong;
          }
        }
      }
    CHECK(wrong == 0);
  }
}
