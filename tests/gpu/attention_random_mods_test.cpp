// Attention with random score modifications and masks, on random schedules: what kernel
// authors write beside the example and no other test names. From a seed: a chain of one
// to four value mods (scale, shift, tanh soft-cap, clamp, a bias tensor, ALiBi, a relative
// position term, a sine of the key position) and zero to two masks (causal, shifted or
// bottom-right aligned, a sliding window, a key-length cut), some mods after the masks as
// ALiBi is; a tiling, lengths aligned or not, and schedule options (TMA, stages, a
// producer warpgroup, a persistent grid, the P V overlap, the running max folded or not,
// the lengths known at compile time or only at launch).
// The same chain is applied to float64 scores on the host; every output element must match
// (attention_close), the output poisoned first.
// WAVE_RANDOM_ATTENTION sets how many (default 24); the seeds start at Catch's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "attention_scores_reference.hpp"
#include "fixtures/random_data.hpp"

using namespace wave;
using namespace examples::flash_attention;
using namespace attention_tests;

namespace {

enum class ModKind { Scale, Shift, Softcap, ClampBelow, ClampAbove, Bias, Alibi, RelativePosition, SineOfKey };
enum class MaskKind { Causal, CausalShifted, CausalBottomRight, Window, KeyLength };

struct Mod {
  ModKind kind;
  double c;
};
struct MaskSpec {
  MaskKind kind;
  int n;
};

// One random score program: value mods, then masks, then mods that keep a hidden key hidden.
struct ScoreProgram {
  std::vector<Mod> before, after;
  std::vector<MaskSpec> masks;
  std::string text;
};

// Mods in the kernel's log2-scaled domain (x = s log2 e) on the kernel's scores.
Scores apply_mod(const Mod& mod, const Scores& x, const Memory<dims<M, K2>, f32>& bias) {
  using Positions = Register<dims<B, H, M, K2>, f32>;
  auto spread = [](auto v) { return broadcast<dims<B, H, M, K2>>(v); };
  switch (mod.kind) {
    case ModKind::Scale: return x * mod.c;
    case ModKind::Shift: return x + mod.c;
    case ModKind::Softcap: return tanh(x * (1.0 / mod.c)) * mod.c;
    case ModKind::ClampBelow: return maximum(x, Positions(mod.c));
    case ModKind::ClampAbove: return minimum(x, Positions(mod.c));
    case ModKind::Bias: return x + read(bias) * (mod.c * kLog2e);
    case ModKind::Alibi: {
      auto distance = abs(cast<f32>(query_at()) - cast<f32>(key_at()));
      auto slope = exp2(cast<f32>(self_index<H, i64>()) * -1.0 - 1.0);  // [H]: 2^-(h+1)
      return x - spread(distance) * spread(slope) * (mod.c * kLog2e);
    }
    case ModKind::RelativePosition:
      return x + spread(cast<f32>(query_at()) - cast<f32>(key_at())) * (mod.c * kLog2e);
    case ModKind::SineOfKey: return x + spread(sin(cast<f32>(key_at()) * mod.c)) * kLog2e;
  }
  return x;
}

// The same mod on the host's log2-scaled score x of query m, key j, head h.
double apply_mod(const Mod& mod, double x, int h, int m, int j, double bias) {
  switch (mod.kind) {
    case ModKind::Scale: return x * mod.c;
    case ModKind::Shift: return x + mod.c;
    case ModKind::Softcap: return std::tanh(x / mod.c) * mod.c;
    case ModKind::ClampBelow: return std::max(x, mod.c);
    case ModKind::ClampAbove: return std::min(x, mod.c);
    case ModKind::Bias: return x + bias * mod.c * kLog2e;
    case ModKind::Alibi: return x - std::abs(double(m - j)) * std::ldexp(1.0, -(h + 1)) * mod.c * kLog2e;
    case ModKind::RelativePosition: return x + double(m - j) * mod.c * kLog2e;
    case ModKind::SineOfKey: return x + std::sin(double(j) * mod.c) * kLog2e;
  }
  return x;
}

Mask apply_mask(const MaskSpec& mask) {
  const int n = mask.n;
  switch (mask.kind) {
    case MaskKind::Causal: return additive(apply_expr(key_at() - query_at(), [](auto d) { return d <= 0; }));
    case MaskKind::CausalShifted:
      return additive(apply_expr(key_at() - query_at(), [n](auto d) { return d <= n; }));
    case MaskKind::CausalBottomRight:  // query m sees keys k <= m + (K2 - M), as FlashAttention-2 aligns
      return additive(apply_expr(key_at() - query_at(), [](auto d) { return d <= K2 - M; }));
    case MaskKind::Window: return additive(apply_expr(query_at() - key_at(), [n](auto d) { return d < n; }));
    case MaskKind::KeyLength: return additive(apply_expr(key_at(), [n](auto j) { return j < n; }));
  }
  return Mask(0.0);
}

bool visible(const MaskSpec& mask, int m, int j, int m_size, int k2_size) {
  switch (mask.kind) {
    case MaskKind::Causal: return j <= m;
    case MaskKind::CausalShifted: return j - m <= mask.n;
    case MaskKind::CausalBottomRight: return j - m <= k2_size - m_size;
    case MaskKind::Window: return m - j < mask.n;
    case MaskKind::KeyLength: return j < mask.n;
  }
  return true;
}

ScoreProgram random_program(std::mt19937_64& rng, int m_size, int k2) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  ScoreProgram p;
  std::ostringstream text;
  auto random_mod = [&](bool after_masks) {
    // After a mask only the mods that keep -1e6 hidden: sums of bounded terms, positive scales.
    static const ModKind any[] = {ModKind::Scale,      ModKind::Shift, ModKind::Softcap,
                                  ModKind::ClampBelow, ModKind::ClampAbove, ModKind::Bias,
                                  ModKind::Alibi,      ModKind::RelativePosition, ModKind::SineOfKey};
    static const ModKind keeping[] = {ModKind::Scale, ModKind::Shift, ModKind::Bias, ModKind::Alibi,
                                      ModKind::RelativePosition, ModKind::SineOfKey};
    const ModKind kind = after_masks ? keeping[pick(0, 5)] : any[pick(0, 8)];
    double c = 1.0;
    switch (kind) {
      case ModKind::Scale: c = uniform(0.5, 1.5); break;
      case ModKind::Shift: c = uniform(-3.0, 3.0); break;
      case ModKind::Softcap: c = uniform(1.0, 8.0); break;
      case ModKind::ClampBelow: c = uniform(-4.0, 0.0); break;
      case ModKind::ClampAbove: c = uniform(0.0, 4.0); break;
      case ModKind::Bias: c = uniform(0.25, 1.0); break;
      case ModKind::Alibi: c = uniform(0.05, 1.0); break;
      case ModKind::RelativePosition: c = uniform(-0.02, 0.02); break;
      case ModKind::SineOfKey: c = uniform(0.05, 0.3); break;
    }
    static const char* names[] = {"scale", "shift", "softcap", "clamp_below", "clamp_above", "bias",
                                  "alibi", "relative_position", "sine_of_key"};
    text << names[int(kind)] << "(" << c << ") ";
    return Mod{kind, c};
  };
  for (int i = pick(1, 3); i > 0; --i) p.before.push_back(random_mod(false));
  for (int i = pick(0, 2); i > 0; --i) {
    static const char* names[] = {"causal", "causal_shifted", "causal_bottom_right", "window", "key_length"};
    MaskSpec mask{MaskKind(pick(0, 4)), 0};
    if (mask.kind == MaskKind::CausalShifted) mask.n = pick(1, 80);
    if (mask.kind == MaskKind::Window) mask.n = pick(1, 100);
    if (mask.kind == MaskKind::KeyLength) mask.n = pick(1, k2);
    p.masks.push_back(mask);
    // Every query must keep a key (else its softmax is undefined): a window after a key
    // length can leave none.
    bool every_row_sees_a_key = true;
    for (int m = 0; m < m_size && every_row_sees_a_key; ++m) {
      bool any = false;
      for (int j = 0; j < k2 && !any; ++j)
        any = std::all_of(p.masks.begin(), p.masks.end(), [&](const MaskSpec& x) { return visible(x, m, j, m_size, k2); });
      every_row_sees_a_key = any;
    }
    if (!every_row_sees_a_key) {
      p.masks.pop_back();
      continue;
    }
    text << "mask " << names[int(mask.kind)] << "(" << mask.n << ") ";
  }
  if (!p.masks.empty())
    for (int i = pick(0, 1); i > 0; --i) p.after.push_back(random_mod(true));
  p.text = text.str();
  return p;
}

}  // namespace

TEST_CASE("attention with random score mods and masks on random schedules matches float64",
          "[gpu][attention][variants][random]") {
  const char* env = std::getenv("WAVE_RANDOM_ATTENTION");
  const int count = env ? std::atoi(env) : 24;
  std::mt19937 data_rng(Catch::rngSeed());
  for (int i = 0; i < count; ++i) {
    const std::uint64_t seed = std::uint64_t(Catch::rngSeed()) * 1000003u + std::uint64_t(i);
    std::mt19937_64 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    struct Tiling {
      int block_m, waves, block_k2;
    };
    static const Tiling tilings[] = {{64, 4, 32}, {64, 4, 64}, {128, 8, 64}, {128, 4, 64}, {128, 8, 128}};
    const Tiling t = tilings[pick(0, 4)];
    static const int lengths[] = {64, 100, 128, 130, 200, 256, 300};
    const int m = lengths[pick(0, 6)];
    const int k2 = std::max(m, lengths[pick(0, 6)]);  // every query sees a key under every mask
    const Shape shape{pick(1, 2), pick(1, 2), m, k2, t.block_m, t.waves, t.block_k2, pick(0, 1) ? 0.0 : 1.0};
    const ScoreProgram program = random_program(rng, m, k2);
    const bool fold = pick(0, 1);
    const bool tma = pick(0, 5) > 0, specialize = pick(0, 1), persistent = pick(0, 2) == 0, overlap = pick(0, 3) > 0;
    const int stages = pick(0, 3);
    // Lengths known only at launch: both, the queries' or the keys'.
    const int dynamic = pick(0, 5);  // 0: both, 1: M, 2: K2, else none
    const bool dynamic_m = dynamic == 0 || dynamic == 1, dynamic_k2 = dynamic == 0 || dynamic == 2;
    INFO("seed " << seed << ": " << program.text << "| B " << shape.b << " H " << shape.h << " M " << m << " K2 " << k2
                 << ", BLOCK_M " << t.block_m << " over " << t.waves << " waves, BLOCK_K2 " << t.block_k2
                 << (fold ? ", max folded" : ", max of maxima") << ", stages " << stages << (tma ? "" : ", no TMA")
                 << (specialize ? ", specialized" : "") << (persistent ? ", persistent" : "")
                 << (overlap ? "" : ", no P V overlap") << (dynamic_m ? ", M at launch" : "")
                 << (dynamic_k2 ? ", K2 at launch" : ""));
    auto scores = [program](auto raw, Memory<dims<M, K2>, f32> bias) {
      Scores x = raw * scale_log2(kHeadDim);
      for (const Mod& mod : program.before) x = apply_mod(mod, x, bias);
      for (const MaskSpec& mask : program.masks) x = x + apply_mask(mask);
      for (const Mod& mod : program.after) x = apply_mod(mod, x, bias);
      return x;
    };
    const HostScore host = [program, m, k2](double s, int h, int mi, int j, double bias) {
      double x = s * kLog2e;
      for (const Mod& mod : program.before) x = apply_mod(mod, x, h, mi, j, bias);
      for (const MaskSpec& mask : program.masks)
        if (!visible(mask, mi, j, m, k2)) return -std::numeric_limits<double>::infinity();
      for (const Mod& mod : program.after) x = apply_mod(mod, x, h, mi, j, bias);
      return x / kLog2e;
    };
    auto schedule = [&](CompileOptions& o) {
      o.cache = false;
      o.tma = tma;
      o.pipeline_stages = stages;
      o.warp_specialize = specialize;
      o.persistent = persistent;
      o.overlap_mma = overlap;
      std::erase_if(o.subs, [&](const Sub& sub) {
        return (dynamic_m && sub.symbol == "M") || (dynamic_k2 && sub.symbol == "K2");
      });
    };
    auto random_bias = [&](int rows, int cols) { return fixtures::random_floats(std::size_t(rows) * cols, data_rng); };
    const std::string name = "attention_random_" + std::to_string(i);
    const std::size_t wrong =
        fold ? wrong_elements(masked_attention<RunningMax::Fold>(name.c_str(), scores), shape, host, random_bias,
                              data_rng, schedule)
             : wrong_elements(masked_attention<RunningMax::Maximum>(name.c_str(), scores), shape, host, random_bias,
                              data_rng, schedule);
    CHECK(wrong == 0);
  }
}
