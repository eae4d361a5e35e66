// Index mappings with values read at run time (dynamic values), run on the device: gathers
// (an embedding lookup), scatters, adds through an index, and paged decode attention over
// a KV cache addressed through a block table, each against a float64 reference with the
// outputs poisoned (or random, where added to) beforehand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "fixtures/device_run.hpp"
#include "fixtures/sanitizer.hpp"
#include "host_half.hpp"
#include "kernels/paged_decode_attention.hpp"
#include "wave/interpreter/elements.hpp"

using namespace wave;
using examples::host::half_to_float;

namespace {

WAVE_SYMBOL(T);
WAVE_SYMBOL(V);
WAVE_SYMBOL(E);
WAVE_SYMBOL(BLOCK_T);
WAVE_SYMBOL(BLOCK_E);

constexpr auto i = iterator(0), j = iterator(1);

// out[t, e] = table[rows[t], e]: an embedding lookup, 16-byte loads along E. With
// `outside` OutOfBounds::zero, a row outside the table (a padding token's -1) reads 0.
auto lookup(OutOfBounds outside = OutOfBounds::error) {
  return kernel("embedding_lookup",
                Constraints{WorkgroupConstraint(T, BLOCK_T, 0), WorkgroupConstraint(E, BLOCK_E, 1),
                            WaveConstraint(T, BLOCK_T / 2), HardwareConstraint{.threads_per_wave = 32}},
                [outside](Memory<dims<V, E>, f16> table, Memory<dims<T>, i32> rows, Memory<dims<T, E>, f16> out) {
                  const IndexMapping<dims<T, E>> by_row{.inputs = {{V, dynamic_val(0)}, {E, j}},
                                                        .outputs = {{T, i}, {E, j}},
                                                        .out_of_bounds = outside};
                  write(read(table, by_row.with_values(read(rows))), out);
                });
}

// table[rows[t], e] (+)= x[t, e]: a scatter, or with `add` a scatter-add (rows repeat).
auto scatter(bool add) {
  return kernel(add ? "scatter_add" : "scatter",
                Constraints{WorkgroupConstraint(T, BLOCK_T, 0), WorkgroupConstraint(E, BLOCK_E, 1),
                            WaveConstraint(T, BLOCK_T / 2), HardwareConstraint{.threads_per_wave = 32}},
                [add](Memory<dims<T, E>, f32> x, Memory<dims<T>, i32> rows, Memory<dims<V, E>, f32> table) {
                  const IndexMapping<dims<T, E>> to_row{.inputs = {{T, i}, {E, j}},
                                                        .outputs = {{V, dynamic_val(0)}, {E, j}}};
                  if (add)
                    atomic_add(read(x), table, to_row.with_values(read(rows)));
                  else
                    write(read(x), table, to_row.with_values(read(rows)));
                });
}

// f16 words of values uniform in [-scale, scale).
std::vector<std::uint16_t> random_f16(std::size_t n, std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<std::uint16_t> v(n);
  for (std::size_t e = 0; e < n; ++e)
    elements::store_float(DataType::f16, v.data(), std::int64_t(e), elements::round_float(DataType::f16, u(rng)));
  return v;
}

}  // namespace

TEST_CASE("a read through indices from a tensor gathers rows (embedding lookup)", "[gpu][dynamic]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [t, v, e] : std::vector<std::array<int, 3>>{{1000, 5000, 128}, {77, 300, 100}, {1, 3, 8}, {513, 64, 264}}) {
    INFO("T = " << t << ", V = " << v << ", E = " << e);
    const auto compiled =
        compile(lookup(), {.subs = {{T, t}, {E, e}, {BLOCK_T, 64}, {BLOCK_E, 64}}});  // V given at launch
    const auto table = random_f16(std::size_t(v) * e, rng);
    std::vector<std::int32_t> rows(static_cast<std::size_t>(t));
    std::uniform_int_distribution<int> row(0, v - 1);
    for (auto& r : rows) r = row(rng);
    auto out = fixtures::poisoned<std::uint16_t>(std::size_t(t) * e);
    fixtures::run_on_device(compiled, {.sizes = {{V, v}}}, table, rows, out);
    std::size_t wrong = 0;
    for (int a = 0; a < t; ++a)
      for (int c = 0; c < e; ++c)
        if (out[std::size_t(a) * e + c] != table[std::size_t(rows[std::size_t(a)]) * e + c] && wrong++ < 5)
          UNSCOPED_INFO("out[" << a << ", " << c << "] is not table[" << rows[std::size_t(a)] << ", " << c << "]");
    CHECK(wrong == 0);
  }
}

TEST_CASE("a gather through a masking mapping reads 0 for rows outside the table", "[gpu][dynamic][padding]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [t, v, e] : std::vector<std::array<int, 3>>{{1000, 5000, 128}, {77, 300, 100}, {513, 64, 264}}) {
    INFO("T = " << t << ", V = " << v << ", E = " << e);
    const auto compiled = compile(lookup(OutOfBounds::zero), {.subs = {{T, t}, {E, e}, {BLOCK_T, 64}, {BLOCK_E, 64}}});
    const auto table = random_f16(std::size_t(v) * e, rng);
    // A quarter of the rows outside the table: -1 (padding), V, or far past it.
    std::vector<std::int32_t> rows(static_cast<std::size_t>(t));
    std::uniform_int_distribution<int> row(0, v - 1), pick(0, 11);
    for (auto& r : rows) {
      const int p = pick(rng);
      r = p == 0 ? -1 : p == 1 ? v : p == 2 ? v + 1000 : row(rng);
    }
    auto out = fixtures::poisoned<std::uint16_t>(std::size_t(t) * e);
    fixtures::run_on_device(compiled, {.sizes = {{V, v}}}, table, rows, out);
    std::size_t wrong = 0;
    for (int a = 0; a < t; ++a) {
      const int r = rows[std::size_t(a)];
      for (int c = 0; c < e; ++c) {
        const std::uint16_t want = r >= 0 && r < v ? table[std::size_t(r) * e + c] : 0;
        if (out[std::size_t(a) * e + c] != want && wrong++ < 5)
          UNSCOPED_INFO("out[" << a << ", " << c << "] for row " << r << " is " << out[std::size_t(a) * e + c]);
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("a write through indices from a tensor scatters rows, atomic_add sums repeated ones", "[gpu][dynamic]") {
  std::mt19937 rng(Catch::rngSeed());
  for (auto [t, v, e] : std::vector<std::array<int, 3>>{{256, 300, 128}, {77, 100, 36}, {1000, 7, 64}}) {
    INFO("T = " << t << ", V = " << v << ", E = " << e);
    const CompileOptions options{.subs = {{T, t}, {V, v}, {E, e}, {BLOCK_T, 32}, {BLOCK_E, 64}}};
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    std::vector<float> x(std::size_t(t) * e), table0(std::size_t(v) * e);
    for (auto& a : x) a = u(rng);
    for (auto& a : table0) a = u(rng);
    std::vector<std::int32_t> rows(static_cast<std::size_t>(t));
    std::uniform_int_distribution<int> row(0, v - 1);
    // Repeated rows added; for the plain scatter, distinct rows (a permutation's first T).
    for (auto& r : rows) r = row(rng);
    {
      auto table = table0;
      fixtures::run_on_device(compile(scatter(true), options), {}, x, rows, table);
      std::vector<double> expected(table0.begin(), table0.end()), magnitude(expected.size());
      for (std::size_t k = 0; k < expected.size(); ++k) magnitude[k] = std::abs(expected[k]);
      for (int a = 0; a < t; ++a)
        for (int c = 0; c < e; ++c) {
          const std::size_t at = std::size_t(rows[std::size_t(a)]) * e + c;
          expected[at] += x[std::size_t(a) * e + c];
          magnitude[at] += std::abs(x[std::size_t(a) * e + c]);
        }
      std::size_t wrong = 0;
      for (std::size_t k = 0; k < expected.size(); ++k)
        wrong += !(std::abs(table[k] - expected[k]) <= (t + 1) * std::ldexp(magnitude[k], -24));
      CHECK(wrong == 0);
    }
    if (t <= v) {
      std::vector<std::int32_t> perm(static_cast<std::size_t>(v));
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      perm.resize(std::size_t(t));
      auto table = table0;
      fixtures::run_on_device(compile(scatter(false), options), {}, x, perm, table);
      auto expected = table0;
      for (int a = 0; a < t; ++a)
        for (int c = 0; c < e; ++c) expected[std::size_t(perm[std::size_t(a)]) * e + c] = x[std::size_t(a) * e + c];
      CHECK(table == expected);
    }
  }
}

namespace {

namespace pd = examples::paged_decode_attention;

struct PagedCase {
  std::vector<int> lengths;
  int heads, kv_heads, head_dim, page, splits;
  double cap = 0;
};

// Runs both kernels on a cache of shuffled pages and compares with softmax(q k^T) v in
// float64 per sequence and head.
void check_paged(const PagedCase& c, std::mt19937& rng) {
  const int b = static_cast<int>(c.lengths.size());
  const int max_len = *std::max_element(c.lengths.begin(), c.lengths.end());
  const int d = c.head_dim, g = c.heads / c.kv_heads;
  INFO("lengths " << Catch::Detail::stringify(c.lengths) << ", heads " << c.heads << "/" << c.kv_heads << ", D "
                  << d << ", page " << c.page << ", splits " << c.splits << ", cap " << c.cap);
  const pd::Shape shape{b, c.heads, c.kv_heads, d, c.page, max_len, c.splits};
  const int max_pages = (max_len + c.page - 1) / c.page;
  // Every sequence's pages, shuffled through the cache, plus a few no table names.
  int pages = 3;
  for (int len : c.lengths) pages += (len + c.page - 1) / c.page;
  std::vector<std::int32_t> order(static_cast<std::size_t>(pages));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::int32_t> table(std::size_t(b) * max_pages, -1), lens(c.lengths.begin(), c.lengths.end());
  std::size_t next = 0;
  for (int s = 0; s < b; ++s)
    for (int p = 0; p < (c.lengths[std::size_t(s)] + c.page - 1) / c.page; ++p)
      table[std::size_t(s) * max_pages + p] = order[next++];
  const std::size_t slot = std::size_t(c.kv_heads) * d;
  const auto q = random_f16(std::size_t(b) * c.heads * d, rng, 2.0);
  const auto k = random_f16(std::size_t(pages) * c.page * slot, rng, 2.0);
  const auto v = random_f16(std::size_t(pages) * c.page * slot, rng);

  const auto chunks = compile(pd::make_chunk_kernel({.head_dim = d, .logit_cap = c.cap}), {.subs = pd::chunk_sizes(shape)});
  const auto combine = compile(pd::make_combine_kernel<f16>(), {.subs = pd::combine_sizes(shape)});
  const std::size_t parts = std::size_t(b) * c.splits * c.kv_heads * g;
  auto o_part = fixtures::poisoned<float>(parts * d);
  auto lse_part = fixtures::poisoned<float>(parts);
  fixtures::run_on_device(chunks, {.sizes = {{pd::PAGES, pages}}}, q, k, v, table, lens, o_part, lse_part);
  auto out = fixtures::poisoned<std::uint16_t>(std::size_t(b) * c.heads * d);
  fixtures::run_on_device(combine, {}, std::as_const(o_part), std::as_const(lse_part), out);

  const double scale = 1.0 / std::sqrt(double(d));
  std::size_t wrong = 0;
  double worst = 0;
  for (int s = 0; s < b; ++s)
    for (int h = 0; h < c.heads; ++h) {
      const int len = c.lengths[std::size_t(s)], kvh = h / g;
      std::vector<double> score(static_cast<std::size_t>(len));
      double top = -INFINITY;
      for (int t = 0; t < len; ++t) {
        const std::size_t at = (std::size_t(table[std::size_t(s) * max_pages + t / c.page]) * c.page + t % c.page) * slot +
                               std::size_t(kvh) * d;
        double dot = 0;
        for (int x = 0; x < d; ++x)
          dot += double(half_to_float(q[(std::size_t(s) * c.heads + h) * d + x])) * half_to_float(k[at + x]);
        dot *= scale;
        if (c.cap > 0) dot = c.cap * std::tanh(dot / c.cap);
        score[std::size_t(t)] = dot;
        top = std::max(top, dot);
      }
      double total = 0;
      for (double& x : score) total += (x = std::exp(x - top));
      for (int x = 0; x < d; ++x) {
        double o = 0;
        for (int t = 0; t < len; ++t) {
          const std::size_t at = (std::size_t(table[std::size_t(s) * max_pages + t / c.page]) * c.page + t % c.page) * slot +
                                 std::size_t(kvh) * d;
          o += score[std::size_t(t)] * half_to_float(v[at + x]);
        }
        o /= total;
        const double got = half_to_float(out[(std::size_t(s) * c.heads + h) * d + x]);
        const double err = std::abs(got - o);
        worst = std::max(worst, err);
        if (!(err <= 4e-3 + 8e-3 * std::abs(o)) && wrong++ < 5)
          UNSCOPED_INFO("out[" << s << ", " << h << ", " << x << "] = " << got << ", expected " << o);
      }
    }
  INFO("largest error " << worst);
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("paged decode attention: mixed lengths, GQA, pages of 16 and 64, splits, logit cap", "[gpu][dynamic][paged]") {
  std::mt19937 rng(Catch::rngSeed());
  // One sequence of a single token, one ending inside a page, long ones; G = 4 and 8.
  check_paged({.lengths = {1, 37, 256, 1000, 4097}, .heads = 32, .kv_heads = 8, .head_dim = 128, .page = 16,
               .splits = 8},
              rng);
  check_paged({.lengths = {300, 1, 64, 129}, .heads = 32, .kv_heads = 4, .head_dim = 128, .page = 64, .splits = 3},
              rng);
  check_paged({.lengths = {5, 2000, 17}, .heads = 8, .kv_heads = 8, .head_dim = 64, .page = 16, .splits = 4,
               .cap = 30.0},
              rng);
}
