// Mixture of experts on the host: random layers and routings, the six kernels of
// examples/kernels/moe.hpp run one after another on host vectors (in the interpreter or on
// the device), and float64 references for the sorted order and the layer's output.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/moe.hpp"
#include "run_on_device.hpp"

namespace examples::host {

struct MoeInputs {
  moe::Shape shape;
  std::vector<std::uint16_t> x, w1, w2;  // f16 or bf16: [T, D], [E, 2 I, D] (gate rows, then up rows), [E, D, I]
  std::vector<std::int32_t> topk_ids;    // [T, TOPK]
  std::vector<float> topk_weights;       // [T, TOPK]
  bool bf16 = false;                     // the 16-bit type of x, the weights and every output
  // One element's value, exact (the reference reads billions of weights: no table).
  float value(std::uint16_t bits) const {
    if (bf16) {
      const std::uint32_t word = std::uint32_t(bits) << 16;
      float f;
      std::memcpy(&f, &word, sizeof f);
      return f;
    }
    _Float16 h;
    std::memcpy(&h, &bits, sizeof h);
    return static_cast<float>(h);
  }
  // The largest relative error of one rounding to the type: half an ulp at 1.
  double unit() const { return bf16 ? 0x1p-8 : 0x1p-11; }
};

// 16-bit values uniform in [-scale, scale): a fast generator seeded from `rng` (a Mixtral
// layer holds 1.4 billion weights); bf16 rounded to nearest even.
inline std::vector<std::uint16_t> random_16bit(std::size_t n, double scale, bool bf16, std::mt19937& rng) {
  std::vector<std::uint16_t> v(n);
  std::uint64_t state = (std::uint64_t(rng()) << 32 | rng()) | 1;
  for (auto& h : v) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;  // xorshift64
    const float x = static_cast<float>((double(state >> 11) * 0x1.0p-53 * 2.0 - 1.0) * scale);
    if (bf16) {
      std::uint32_t word;
      std::memcpy(&word, &x, sizeof word);
      h = static_cast<std::uint16_t>((word + 0x7fff + ((word >> 16) & 1)) >> 16);
    } else {
      const _Float16 half = static_cast<_Float16>(x);
      std::memcpy(&h, &half, sizeof h);
    }
  }
  return v;
}

// Weights scaled by 1/sqrt(fan-in), so sums stay near 1 at any size. Each token picks
// `topk` distinct experts among the first `used` (all by default: fewer crowds them, so
// an expert's run spans several blocks), weights positive and summing to 1.
inline MoeInputs random_moe(const moe::Shape& s, std::mt19937& rng, int used = 0, bool bf16 = false) {
  if (used <= 0) used = s.experts;
  MoeInputs in{s, {}, {}, {}, {}, {}, bf16};
  const std::size_t d = std::size_t(s.hidden), i = std::size_t(s.intermediate), e = std::size_t(s.experts);
  in.x = random_16bit(std::size_t(s.tokens) * d, 1.0, bf16, rng);
  in.w1 = random_16bit(e * 2 * i * d, 1.0 / std::sqrt(double(d)), bf16, rng);
  in.w2 = random_16bit(e * d * i, 1.0 / std::sqrt(double(i)), bf16, rng);
  std::vector<std::int32_t> experts(static_cast<std::size_t>(used));
  std::iota(experts.begin(), experts.end(), 0);
  std::uniform_real_distribution<float> weight(0.05f, 1.0f);
  for (int t = 0; t < s.tokens; ++t) {
    std::shuffle(experts.begin(), experts.end(), rng);
    float total = 0;
    for (int k = 0; k < s.topk; ++k) {
      in.topk_ids.push_back(experts[std::size_t(k)]);
      in.topk_weights.push_back(weight(rng));
      total += in.topk_weights.back();
    }
    for (int k = 0; k < s.topk; ++k) in.topk_weights[in.topk_weights.size() - 1 - std::size_t(k)] /= total;
  }
  return in;
}

// What the six kernels leave: every intermediate, for checks of each step.
struct MoeOutputs {
  std::vector<std::int32_t> ranks, counts, sorted, block_expert, block_rows;
  std::vector<std::uint16_t> h, y, out;
};

// Runs the layer through `stage(kernel, subs, buffers...)` (which compiles or interprets
// the kernel with the sizes `subs` and runs it on the buffers in the kernel's argument
// order); outputs poisoned first.
template <class Stage>
MoeOutputs run_moe(const MoeInputs& in, const moe::Tiling& tiling, Stage&& stage) {
  const moe::Shape& s = in.shape;
  const std::size_t p = std::size_t(s.pairs()), nb = std::size_t(s.blocks(tiling.block_m));
  const std::size_t slots = std::size_t(s.slots(tiling.block_m)), d = std::size_t(s.hidden);
  const std::vector<wave::Sub> all = moe::sizes(s, tiling);
  auto run = [&](const auto& kernel, auto&... buffers) { stage(kernel, moe::sizes_for(kernel, all), buffers...); };
  MoeOutputs o;
  o.ranks = poisoned<std::int32_t>(p);
  o.counts = poisoned<std::int32_t>(std::size_t(s.chunks()) * std::size_t(s.experts));
  o.sorted = poisoned<std::int32_t>(slots);
  o.block_expert = poisoned<std::int32_t>(nb);
  o.block_rows = poisoned<std::int32_t>(nb);
  o.h = poisoned<std::uint16_t>(slots * std::size_t(s.intermediate));
  o.y = poisoned<std::uint16_t>(p * d);
  o.out = poisoned<std::uint16_t>(std::size_t(s.tokens) * d);
  run(moe::make_count_kernel(), in.topk_ids, o.ranks, o.counts);
  run(moe::make_place_kernel(), in.topk_ids, o.ranks, o.counts, o.sorted);
  run(moe::make_blocks_kernel(), o.counts, o.block_expert, o.block_rows);
  auto experts = [&](auto type) {
    using In = decltype(type);
    run(moe::make_gate_up_kernel<In>(), in.x, in.w1, o.sorted, o.block_expert, o.block_rows, o.h);
    run(moe::make_down_kernel<In>(), o.h, in.w2, o.sorted, o.block_expert, o.block_rows, in.topk_weights, o.y);
    run(moe::make_sum_kernel<In>(), o.y, in.topk_ids, o.out);
  };
  if (in.bf16) experts(wave::bf16{});
  else experts(wave::f16{});
  return o;
}

// How many entries of the sorted order differ from a stable counting sort's: each
// expert's pairs in order from its run's first slot (runs padded to blocks of `block_m`),
// each block's expert and filled slots. Prints the first few.
inline std::size_t routing_mismatches(const MoeInputs& in, const MoeOutputs& o, int block_m) {
  const moe::Shape& s = in.shape;
  std::size_t wrong = 0;
  auto report = [&](const char* what, std::size_t at, long got, long want) {
    if (wrong++ < 5) std::fprintf(stderr, "%s[%zu] = %ld, expected %ld\n", what, at, got, want);
  };
  std::vector<std::vector<std::int32_t>> runs(std::size_t(s.experts));
  for (std::size_t pair = 0; pair < in.topk_ids.size(); ++pair) {
    const std::int32_t e = in.topk_ids[pair];
    if (e >= 0 && e < s.experts) runs[std::size_t(e)].push_back(std::int32_t(pair));
  }
  std::size_t first = 0;
  for (int e = 0; e < s.experts; ++e) {
    const auto& run = runs[std::size_t(e)];
    for (std::size_t j = 0; j < run.size(); ++j)
      if (o.sorted[first + j] != run[j]) report("sorted", first + j, o.sorted[first + j], run[j]);
    for (std::size_t b = first / std::size_t(block_m); b * block_m < first + run.size(); ++b) {
      const long rows = std::min<long>(block_m, long(first + run.size()) - long(b * block_m));
      if (o.block_expert[b] != e) report("block_expert", b, o.block_expert[b], e);
      if (o.block_rows[b] != rows) report("block_rows", b, o.block_rows[b], rows);
    }
    first += (run.size() + std::size_t(block_m) - 1) / std::size_t(block_m) * std::size_t(block_m);
  }
  for (std::size_t b = first / std::size_t(block_m); b < o.block_rows.size(); ++b)
    if (o.block_rows[b] != 0) report("block_rows past the runs", b, o.block_rows[b], 0);
  return wrong;
}

// The layer in float64 for token t: out[d] and the sum of the magnitudes of its terms
// (the scale of the roundings of SiLU(gate) * up, of each pair's row and of the sum).
struct MoeRow {
  std::vector<double> out, magnitude;
};

inline MoeRow moe_row(const MoeInputs& in, int t) {
  const moe::Shape& s = in.shape;
  const std::size_t d = std::size_t(s.hidden), n = std::size_t(s.intermediate);
  MoeRow row{std::vector<double>(d, 0.0), std::vector<double>(d, 0.0)};
  std::vector<double> x(d), h(n);
  for (std::size_t c = 0; c < d; ++c) x[c] = in.value(in.x[std::size_t(t) * d + c]);
  for (int k = 0; k < s.topk; ++k) {
    const std::int32_t e = in.topk_ids[std::size_t(t) * std::size_t(s.topk) + std::size_t(k)];
    if (e < 0 || e >= s.experts) continue;
    const double w = in.topk_weights[std::size_t(t) * std::size_t(s.topk) + std::size_t(k)];
    const std::uint16_t* w1 = in.w1.data() + std::size_t(e) * 2 * n * d;
    const std::uint16_t* w2 = in.w2.data() + std::size_t(e) * d * n;
    for (std::size_t j = 0; j < n; ++j) {
      double gate = 0, up = 0;
      for (std::size_t c = 0; c < d; ++c) {
        gate += x[c] * in.value(w1[j * d + c]);
        up += x[c] * in.value(w1[(n + j) * d + c]);
      }
      h[j] = gate / (1 + std::exp(-gate)) * up;
    }
    for (std::size_t c = 0; c < d; ++c) {
      double sum = 0, magnitude = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double term = h[j] * in.value(w2[c * n + j]);
        sum += term;
        magnitude += std::abs(term);
      }
      row.out[c] += w * sum;
      row.magnitude[c] += w * (magnitude + std::abs(sum));
    }
  }
  return row;
}

// How many of the grouped GEMMs' rows differ from float64 beyond 16-bit roundings, each
// step checked on the device's input to it (the sorted order `o` already checked):
// SiLU(gate) * up per filled slot (`h`), and each routed pair's weighted row of `y` from
// the device's `h`. Prints the first few.
inline std::size_t gemm_mismatches(const MoeInputs& in, const MoeOutputs& o, int block_m) {
  const moe::Shape& s = in.shape;
  const std::size_t d = std::size_t(s.hidden), n = std::size_t(s.intermediate), topk = std::size_t(s.topk);
  std::size_t wrong = 0;
  for (std::size_t b = 0; b < o.block_rows.size(); ++b)
    for (std::size_t r = 0; r < std::size_t(std::max(0, o.block_rows[b])); ++r) {
      const std::size_t slot = b * std::size_t(block_m) + r, pair = std::size_t(o.sorted[slot]), t = pair / topk;
      const std::size_t e = std::size_t(o.block_expert[b]);
      const std::uint16_t* w1 = in.w1.data() + e * 2 * n * d;
      const std::uint16_t* w2 = in.w2.data() + e * d * n;
      const double weight = in.topk_weights[pair];
      for (std::size_t j = 0; j < n; ++j) {
        double gate = 0, up = 0, gate_size = 0, up_size = 0;
        for (std::size_t c = 0; c < d; ++c) {
          const double x = in.value(in.x[t * d + c]), g = x * in.value(w1[j * d + c]), u = x * in.value(w1[(n + j) * d + c]);
          gate += g, up += u, gate_size += std::abs(g), up_size += std::abs(u);
        }
        const double want = gate / (1 + std::exp(-gate)) * up, got = in.value(o.h[slot * n + j]);
        if (!(std::abs(got - want) <= 2 * in.unit() * (gate_size * up_size + std::abs(want)) + 1e-6) && wrong++ < 5)
          std::fprintf(stderr, "h: slot %zu (pair %zu, expert %zu) [%zu]: %g, expected %g\n", slot, pair, e, j, got, want);
      }
      for (std::size_t c = 0; c < d; ++c) {
        double sum = 0, size = 0;
        for (std::size_t j = 0; j < n; ++j) {
          const double term = in.value(o.h[slot * n + j]) * in.value(w2[c * n + j]);
          sum += term, size += std::abs(term);
        }
        const double want = weight * sum, got = in.value(o.y[pair * d + c]);
        if (!(std::abs(got - want) <= 2 * in.unit() * (weight * size + std::abs(want)) + 1e-6) && wrong++ < 5)
          std::fprintf(stderr, "y: pair %zu (slot %zu, expert %zu) [%zu]: %g, expected %g\n", pair, slot, e, c, got, want);
      }
    }
  return wrong;
}

// How many of the output's elements differ from float64 beyond its 16-bit roundings;
// `tokens` picks the tokens checked (all when empty). Prints the first few.
inline std::size_t moe_mismatches(const MoeInputs& in, const std::vector<std::uint16_t>& out,
                                  std::vector<int> tokens = {}) {
  const std::size_t d = std::size_t(in.shape.hidden);
  if (tokens.empty())
    for (int t = 0; t < in.shape.tokens; ++t) tokens.push_back(t);
  std::size_t wrong = 0;
  for (int t : tokens) {
    const MoeRow want = moe_row(in, t);
    for (std::size_t c = 0; c < d; ++c) {
      const double got = in.value(out[std::size_t(t) * d + c]);
      const double tolerance = 4 * in.unit() * want.magnitude[c] + 2 * in.unit() * std::abs(want.out[c]) + 1e-5;
      if (!(std::abs(got - want.out[c]) <= tolerance) && wrong++ < 5)
        std::fprintf(stderr, "token %d [%zu]: %g, expected %g\n", t, c, got, want.out[c]);
    }
  }
  return wrong;
}

}  // namespace examples::host
