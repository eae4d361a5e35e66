// Bad input: each mistake gets a wave::Error that names the kernel, the op and the user's
// source line, and says what was expected and what was found.
#include <catch2/catch.hpp>

#include <functional>
#include <optional>

#include <wave/wave.hpp>

using namespace wave;
using Catch::Matchers::Contains;

namespace {

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);
WAVE_SYMBOL(Q);
WAVE_SYMBOL(BM);
WAVE_SYMBOL(BN);
WAVE_SYMBOL(BK);
WAVE_SYMBOL(SPACE);

std::optional<Error> caught(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

void check_error(const std::optional<Error>& e, unsigned line, const std::string& kernel,
                 const std::string& op, const std::string& text) {
  REQUIRE(e.has_value());
  INFO(e->what());
  CHECK(e->line() == line);
  CHECK_THAT(e->file(), Contains("errors_test.cpp"));
  CHECK(e->kernel() == kernel);
  CHECK(e->op() == op);
  CHECK_THAT(e->message(), Contains(text));
  CHECK_THAT(e->message(), Contains("expected"));
  // what() carries all of it, compiler-style.
  CHECK_THAT(std::string(e->what()),
             Contains("errors_test.cpp:" + std::to_string(line) + ": error: kernel '" + kernel));
}

Constraints gemm_constraints(HardwareConstraint hw = {.threads_per_wave = 32,
                                                      .mma = MMA::F32_16x8x16_F16}) {
  return {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(N, BN, 1), TilingConstraint(K, BK),
          WaveConstraint(M, BM / 2), WaveConstraint(N, BN / 2), hw};
}

auto gemm_body = [](Memory<dims<M, K>, f16, SPACE> a, Memory<dims<N, K>, f16, SPACE> b,
                    Memory<dims<M, N>, f32> c) {
  Register<dims<M, N>, f32> acc(0.0);
  write(iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); }), c);
};

}  // namespace

TEST_CASE("error: unknown symbol in subs", "[error]") {
  auto k = kernel("gemm", gemm_constraints(), gemm_body);
  unsigned line = 0;
  auto e = caught([&] { line = __LINE__; k.trace({.subs = {{M, 64}, {Q, 3}}}); });
  check_error(e, line, "gemm", "subs", "found 'Q'");
  CHECK_THAT(e->message(), Contains("BM, BN, K, M, N"));
}

TEST_CASE("error: a symbol value that is not positive", "[error]") {
  auto k = kernel("gemm", gemm_constraints(), gemm_body);
  unsigned line = 0;
  auto e = caught([&] { line = __LINE__; k.trace({.subs = {{M, 0}}}); });
  check_error(e, line, "gemm", "subs", "M: expected a positive size, but found 0");
}

TEST_CASE("error: an address-space symbol given a number", "[error]") {
  auto k = kernel("gemm", gemm_constraints(), gemm_body);
  unsigned line = 0;
  auto e = caught([&] { line = __LINE__; k.trace({.subs = {{SPACE, 1}}}); });
  check_error(e, line, "gemm", "subs", "SPACE: expected an address space");
}

TEST_CASE("error: an address space given to a size symbol", "[error]") {
  auto k = kernel("gemm", gemm_constraints(), gemm_body);
  unsigned line = 0;
  auto e = caught([&] { line = __LINE__; k.trace({.subs = {{M, SHARED_ADDRESS_SPACE}}}); });
  check_error(e, line, "gemm", "subs", "M: expected a size (it is not a Memory's address space), but found an address space");
}

TEST_CASE("error: a wave tile that does not divide the workgroup tile", "[error]") {
  const unsigned line = __LINE__ + 2;
  auto k = kernel("gemm",
                  {WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM / 3),
                   WorkgroupConstraint(N, BN, 1), TilingConstraint(K, BK),
                   HardwareConstraint{.threads_per_wave = 32}},
                  gemm_body);
  auto e = caught([&] { k.trace({.subs = {{BM, 128}, {BN, 64}, {BK, 32}}}); });
  check_error(e, line, "gemm", "WaveConstraint",
              "expected a divisor of the workgroup tile 128, but found 42");
}

TEST_CASE("error: an assumption the values contradict", "[error]") {
  Constraints cs = gemm_constraints();
  const unsigned line = __LINE__ + 1;
  cs += Assumption(K > BK * 4);
  auto k = kernel("gemm", cs, gemm_body);
  auto e = caught([&] { k.trace({.subs = {{K, 128}, {BK, 64}}}); });
  check_error(e, line, "gemm", "Assumption", "expected K > BK * 4 to hold, but found 128 > 64 * 4");
}

TEST_CASE("error: iterate over a dim without a TilingConstraint", "[error]") {
  unsigned line = 0;
  auto k = kernel("sum_k",
                  {WorkgroupConstraint(M, BM, 0), HardwareConstraint{.threads_per_wave = 32}},
                  [&](Memory<dims<M, K>, f32> a, Memory<dims<M>, f32> c) {
                    Register<dims<M>, f32> acc(0.0);
                    line = __LINE__; auto r = iterate<K>(acc, [&](auto acc) { return sum<K>(read(a), acc); });
                    write(r, c);
                  });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "sum_k", "iterate",
              "expected a TilingConstraint on K (the loop walks its tiles), but found no TilingConstraint on K");
}

TEST_CASE("error: a constraint on a dim the kernel does not have", "[error]") {
  const unsigned line = __LINE__ + 2;
  auto k = kernel("copy",
                  {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(Q, BN, 1),
                   HardwareConstraint{.threads_per_wave = 32}},
                  [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "copy", "WorkgroupConstraint",
              "expected a dim of the kernel's tensors (M, N), but found 'Q'");
}

TEST_CASE("error: a wave tile that does not divide the tile a loop walks", "[error]") {
  // Waves may split each K tile of the loop (decode attention's keys); the split must divide.
  const unsigned line = __LINE__ + 3;
  auto k = kernel("gemm",
                  {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(N, BN, 1), TilingConstraint(K, BK),
                   WaveConstraint(K, BK / 3), HardwareConstraint{.threads_per_wave = 32}},
                  gemm_body);
  auto e = caught([&] { k.trace({.subs = {{BM, 128}, {BN, 64}, {BK, 64}}}); });
  check_error(e, line, "gemm", "WaveConstraint", "expected a divisor of the tiling tile 64, but found 21");
  auto fine = kernel("gemm",
                     {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(N, BN, 1), TilingConstraint(K, BK),
                      WaveConstraint(K, BK / 4), HardwareConstraint{.threads_per_wave = 32}},
                     gemm_body);
  CHECK_FALSE(caught([&] { fine.trace({.subs = {{BM, 128}, {BN, 64}, {BK, 64}}}); }));
}

TEST_CASE("error: a WaveConstraint without a WorkgroupConstraint", "[error]") {
  const unsigned line = __LINE__ + 2;
  auto k = kernel("copy",
                  {WorkgroupConstraint(M, BM, 0), WaveConstraint(N, BN),
                   HardwareConstraint{.threads_per_wave = 32}},
                  [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "copy", "WaveConstraint",
              "expected a WorkgroupConstraint or TilingConstraint on N");
}

TEST_CASE("error: two WorkgroupConstraints on one grid axis", "[error]") {
  const unsigned line = __LINE__ + 1;
  auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(N, BN, 0),
                           HardwareConstraint{.threads_per_wave = 32}},
                  [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "copy", "WorkgroupConstraint",
              "workgroup_dim 0: expected a grid axis of its own, but found it is taken by M");
}

TEST_CASE("error: no HardwareConstraint", "[error]") {
  const unsigned line = __LINE__ + 1;
  auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0)},
                  [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "copy", "HardwareConstraint",
              "expected one HardwareConstraint among the constraints, but found none");
}

TEST_CASE("error: threads_per_wave that no GPU has", "[error]") {
  const unsigned line = __LINE__ + 1;
  auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{.threads_per_wave = 48}},
                  [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "copy", "HardwareConstraint",
              "threads_per_wave: expected 32 (NVIDIA), 64 (AMD CDNA) or 0 (the target's), but found 48");
}

TEST_CASE("error: an MMA kind of another vendor's wave size", "[error]") {
  const unsigned line = __LINE__ + 1;
  auto k = kernel("gemm", gemm_constraints({.threads_per_wave = 32, .mma = MMA::F32_32x32x8_F16}),
                  gemm_body);
  auto e = caught([&] { k.trace(); });
  REQUIRE(e);
  // The HardwareConstraint was built inside gemm_constraints' default argument: the line is
  // the call that supplied it.
  CHECK(e->line() == line);
  CHECK_THAT(e->message(), Contains("expected 64 for MMA kind f32_32x32x8_f16, but found 32"));
}

TEST_CASE("error: an MMA kind the operand dtypes do not fit", "[error]") {
  unsigned line = 0;
  auto k = kernel("gemm_bf16", gemm_constraints(),
                  [&](Memory<dims<M, K>, bf16> a, Memory<dims<N, K>, bf16> b, Memory<dims<M, N>, f32> c) {
                    Register<dims<M, N>, f32> acc(0.0);
                    auto r = iterate<K>(acc, [&](auto acc) {
                      line = __LINE__; return mma(read(a), read(b), acc);
                    });
                    write(r, c);
                  });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "gemm_bf16", "mma",
              "MMA kind f32_16x8x16_f16: expected operands of f16 and an accumulator of f32, but "
              "found operands of bf16 and an accumulator of f32");
}

TEST_CASE("error: an index mapping whose register side is not the result's dims", "[error]") {
  unsigned line = 0;
  constexpr auto i = iterator(0), j = iterator(1);
  auto k = kernel("transpose", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{}},
                  [&](Memory<dims<M, N>, f16> a, Memory<dims<N, M>, f16> b) {
                    const IndexMapping<dims<N, M>> bad{.inputs = {{M, j}, {N, i}},
                                                       .outputs = {{N, i}, {Q, j}}};
                    line = __LINE__; auto t = read(a, bad);
                    write(t, b);
                  });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "transpose", "read",
              "index mapping outputs: expected the register dims [N, M], but found [N, Q]");
}

TEST_CASE("error: an index mapping that uses more iterators than it has", "[error]") {
  unsigned line = 0;
  constexpr auto i = iterator(0), j = iterator(2);
  auto k = kernel("gather", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{}},
                  [&](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) {
                    const IndexMapping<dims<M, N>> bad{.inputs = {{M, i}, {N, j}},
                                                       .outputs = {{M, i}, {N, j}}};
                    line = __LINE__; write(read(a, bad), b);
                  });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "gather", "read",
              "expected iterators $0..$1, but found $2");
}

TEST_CASE("error: dynamic values a mapping lacks, does not use, or uses on its register side", "[error][dynamic]") {
  constexpr auto i = iterator(0), j = iterator(1);
  unsigned line = 0;
  auto missing = kernel("paged", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{}},
                        [&](Memory<dims<Q, N>, f16> a, Memory<dims<M, N>, f16> b) {
                          const IndexMapping<dims<M, N>> by_page{.inputs = {{Q, dynamic_val(0)}, {N, j}},
                                                                 .outputs = {{M, i}, {N, j}}};
                          line = __LINE__; write(read(a, by_page), b);
                        });
  auto missing_error = caught([&] { missing.trace(); });
  check_error(missing_error, line, "paged", "read",
              "expected a value for dynamic_val(0) given with mapping.with_values(...), but found 0 values");

  auto unused = kernel("paged", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{}},
                       [&](Memory<dims<Q, N>, f16> a, Memory<dims<M>, i32> pages, Memory<dims<M, N>, f16> b) {
                         const IndexMapping<dims<M, N>> plain{.inputs = {{Q, i}, {N, j}}, .outputs = {{M, i}, {N, j}}};
                         line = __LINE__; write(read(a, plain.with_values(read(pages))), b);
                       });
  auto unused_error = caught([&] { unused.trace(); });
  check_error(unused_error, line, "paged", "read",
              "expected dynamic_val(0) in an expression, but found a value given for it that no expression uses");

  auto register_side = kernel("scatter", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{}},
                              [&](Memory<dims<M, N>, f16> a, Memory<dims<M>, i32> at, Memory<dims<Q, N>, f16> b) {
                                const IndexMapping<dims<M, N>> bad{.inputs = {{M, dynamic_val(0)}, {N, j}},
                                                                   .outputs = {{Q, i}, {N, j}}};
                                line = __LINE__; write(read(a), b, bad.with_values(read(at)));
                              });
  auto register_side_error = caught([&] { register_side.trace(); });
  check_error(register_side_error, line, "scatter", "write",
              "expected iterators only on the register side, but found a dynamic value");
}

TEST_CASE("error: a value used after the iterate body that made it", "[error]") {
  unsigned line = 0;
  auto k = kernel("leak", gemm_constraints(),
                  [&](Memory<dims<M, K>, f16> a, Memory<dims<N, K>, f16> b, Memory<dims<M, N>, f32> c) {
                    Register<dims<M, N>, f32> acc(0.0);
                    std::optional<Register<dims<M, N>, f32>> inner;
                    auto r = iterate<K>(acc, [&](auto acc) {
                      inner = mma(read(a), read(b), acc);
                      return *inner;
                    });
                    line = __LINE__; write(*inner + r, c);
                  });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "leak", "add",
              "expected a value defined in this scope or an enclosing one");
}

TEST_CASE("error: a value from another kernel's trace", "[error]") {
  std::optional<Register<dims<M, N>, f16>> stolen;
  auto first = kernel("first", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{}},
                      [&](Memory<dims<M, N>, f16> a) { stolen = read(a); });
  first.trace();
  unsigned line = 0;
  auto second = kernel("second", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{}},
                       [&](Memory<dims<M, N>, f16> b) { line = __LINE__; write(*stolen, b); });
  auto e = caught([&] { second.trace(); });
  check_error(e, line, "second", "write",
              "expected a value of this kernel's trace, but found a value from another kernel");
}

TEST_CASE("error: a DSL op outside of any kernel", "[error]") {
  unsigned line = 0;
  auto e = caught([&] { line = __LINE__; Register<dims<M>, f32> r(1.0); });
  REQUIRE(e);
  CHECK(e->line() == line);
  CHECK(e->op() == "register");
  CHECK_THAT(e->message(),
             Contains("expected a call inside a kernel body being traced, but found a call "
                      "outside of any kernel trace"));
}

TEST_CASE("error: a TilingConstraint no loop uses", "[error]") {
  const unsigned line = __LINE__ + 1;
  auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0), TilingConstraint(N, BN), HardwareConstraint{}},
                  [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); });
  auto e = caught([&] { k.trace(); });
  check_error(e, line, "copy", "TilingConstraint",
              "expected an iterate<N> in the kernel body, but found none");
}

namespace {
auto copy_body = [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) { write(read(a), b); };
}  // namespace

TEST_CASE("error: two HardwareConstraints", "[error]") {
  const unsigned line = __LINE__ + 2;
  auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{.threads_per_wave = 32},
                           HardwareConstraint{.threads_per_wave = 32}},
                  copy_body);
  check_error(caught([&] { k.trace(); }), line, "copy", "HardwareConstraint",
              "expected one HardwareConstraint, but found 2");
}

TEST_CASE("error: a grid axis past 2", "[error]") {
  const unsigned line = __LINE__ + 1;
  auto k = kernel("copy", {WorkgroupConstraint(M, BM, 3), HardwareConstraint{.threads_per_wave = 32}}, copy_body);
  check_error(caught([&] { k.trace(); }), line, "copy", "WorkgroupConstraint",
              "workgroup_dim: expected 0, 1 or 2, but found 3");
}

TEST_CASE("error: two WorkgroupConstraints on one dim", "[error]") {
  const unsigned line = __LINE__ + 1;
  auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0), WorkgroupConstraint(M, BN, 1),
                           HardwareConstraint{.threads_per_wave = 32}},
                  copy_body);
  check_error(caught([&] { k.trace(); }), line, "copy", "WorkgroupConstraint",
              "expected one WorkgroupConstraint per dim, but found a second one on M");
}

TEST_CASE("error: a vector shape for a dim the kernel does not have", "[error]") {
  const unsigned line = __LINE__ + 2;
  auto k = kernel("copy",
                  {WorkgroupConstraint(M, BM, 0), HardwareConstraint{.threads_per_wave = 32, .vector_shapes = {{Q, 0}}}},
                  copy_body);
  check_error(caught([&] { k.trace(); }), line, "copy", "HardwareConstraint",
              "expected a dim of the kernel's tensors (M, N), but found 'Q'");
}

TEST_CASE("error: a symbol given two values", "[error]") {
  auto k = kernel("copy", {WorkgroupConstraint(M, BM, 0), HardwareConstraint{.threads_per_wave = 32}}, copy_body);
  unsigned line = 0;
  auto e = caught([&] { line = __LINE__; k.trace({.subs = {{BM, 64}, {M, 128}, {BM, 32}}}); });
  check_error(e, line, "copy", "subs", "expected one value per symbol, but found two for BM");
}

TEST_CASE("error: a tile that comes out zero or negative", "[error]") {
  const unsigned line = __LINE__ + 1;
  auto k = kernel("copy", {WorkgroupConstraint(M, BM - 64, 0), HardwareConstraint{.threads_per_wave = 32}},
                  copy_body);
  check_error(caught([&] { k.trace({.subs = {{BM, 64}}}); }), line, "copy", "WorkgroupConstraint",
              "tile of M = BM - 64: expected a positive size, but found 0");
}
