// Extend and tree attention (examples/kernels/extend_attention.hpp) on the device against
// float64: batches whose sequences hold prefixes in a paged cache of shuffled pages (empty
// ones, ones ending inside a page, pages of 16 and 64) and new tokens of mixed lengths (one
// of length 1, ones ending inside a tile) seen causally or through a random draft tree's
// mask, GQA, a soft cap; padding rows past the last sequence's new tokens must stay
// poisoned.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "extend_attention_reference.hpp"
#include "fixtures/device_run.hpp"
#include "wave/wave.hpp"

using namespace wave;
namespace ea = examples::extend_attention;
namespace host = examples::host;

namespace {

void check_extend(const ea::Shape& shape, int waves, double cap, bool tree, std::mt19937& rng) {
  INFO("prefixes " << Catch::Detail::stringify(shape.prefix_lens) << ", new tokens "
                   << Catch::Detail::stringify(shape.extend_lens) << (tree ? " (a draft tree)" : "") << ", heads "
                   << shape.heads << "/" << shape.kv_heads << ", D " << shape.head_dim << ", page " << shape.page << ", "
                   << waves << " waves, cap " << cap);
  const host::ExtendInputs in = tree ? host::random_tree(shape, rng) : host::random_extend(shape, rng);
  const ea::Variant variant{.head_dim = shape.head_dim, .waves = waves, .logit_cap = cap};
  const CompileOptions options{.subs = ea::sizes(shape, 16 * waves)};
  auto out = fixtures::poisoned<std::uint16_t>(std::size_t(shape.rows()) * shape.heads * shape.head_dim);
  const std::vector<std::int32_t> cu = shape.offsets(), prefix(shape.prefix_lens.begin(), shape.prefix_lens.end());
  if (tree)
    fixtures::run_on_device(compile(ea::make_tree_kernel<f16>(variant), options), {.sizes = {{ea::PAGES, in.pages}}},
                            in.q, in.k, in.v, in.k_cache, in.v_cache, in.block_table, cu, prefix, in.tree_mask, out);
  else
    fixtures::run_on_device(compile(ea::make_kernel<f16>(variant), options), {.sizes = {{ea::PAGES, in.pages}}}, in.q,
                            in.k, in.v, in.k_cache, in.v_cache, in.block_table, cu, prefix, out);
  const std::uint16_t poison = fixtures::poisoned<std::uint16_t>(1)[0];
  CHECK(host::extend_mismatches(in, out, host::half_to_float, true, poison, cap) == 0);
}

}  // namespace

TEST_CASE("extend attention: new tokens over a paged prefix and causally over each other", "[gpu][dynamic][extend]") {
  std::mt19937 rng(Catch::rngSeed());
  check_extend({.prefix_lens = {0, 37, 1000, 16, 300, 5},
                .extend_lens = {1, 64, 300, 129, 17, 70},
                .heads = 8,
                .kv_heads = 2,
                .head_dim = 128,
                .page = 16,
                .padding = 40},
               4, 0, false, rng);
  check_extend({.prefix_lens = {513, 1, 200},
                .extend_lens = {77, 1, 260},
                .heads = 4,
                .kv_heads = 4,
                .head_dim = 64,
                .page = 64,
                .padding = 9},
               4, 30.0, false, rng);
  check_extend({.prefix_lens = {2000, 0, 64}, .extend_lens = {1, 200, 3}, .heads = 4, .kv_heads = 1, .head_dim = 128,
                .page = 16, .padding = 3},
               8, 0, false, rng);
}

TEST_CASE("tree attention: draft trees over a paged prefix, each token seeing its ancestors", "[gpu][dynamic][extend][tree]") {
  std::mt19937 rng(Catch::rngSeed());
  // Trees of 1 to 64 draft tokens (a lone root; trees ending inside a tile) over prefixes
  // of 0 to 3000 tokens.
  check_extend({.prefix_lens = {3000, 0, 517, 64, 1},
                .extend_lens = {64, 7, 1, 33, 20},
                .heads = 8,
                .kv_heads = 2,
                .head_dim = 128,
                .page = 16,
                .padding = 5},
               4, 0, true, rng);
  check_extend({.prefix_lens = {100, 2048}, .extend_lens = {16, 48}, .heads = 4, .kv_heads = 4, .head_dim = 64,
                .page = 64, .padding = 0},
               8, 20.0, true, rng);
}
