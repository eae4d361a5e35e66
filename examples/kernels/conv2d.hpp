// 2-D convolution as an implicit GEMM, NHWC input and HWCF weights: the same kernel as
// GEMM, with index mappings that read the im2col matrix straight out of the input.
//
// GEMM view: out[M, NF] = X[M, K] * W[NF, K]^T with M = N * H_OUT * W_OUT output pixels and
// K = HF * WF * C taps, k = (hf * WF + wf) * C + c. With zero padding P, output pixel (oh,
// ow)'s tap (hf, wf) reads input row oh * stride + hf - P and column ow * stride + wf - P;
// the taps that fall outside the image read 0 (OutOfBounds::zero). SZ_OUT = H_OUT * W_OUT. The symbols M, K
// and SZ_OUT are set in `subs` from the others; WAVE_M and WAVE_N are each wave's share of
// the workgroup tile (BLOCK_M / 2 and BLOCK_N / 2 give four waves). Out is the output's
// type: f32, or f16/bf16 that the f32 sums are cast to (what cuDNN writes for f16 inputs).
#pragma once

#include <type_traits>
#include <vector>

#include <wave/wave.hpp>

namespace examples::conv2d {
using namespace wave;

WAVE_SYMBOL(N);
WAVE_SYMBOL(C);
WAVE_SYMBOL(H);
WAVE_SYMBOL(W);
WAVE_SYMBOL(NF);
WAVE_SYMBOL(HF);
WAVE_SYMBOL(WF);
WAVE_SYMBOL(H_OUT);
WAVE_SYMBOL(W_OUT);
WAVE_SYMBOL(SZ_OUT);
WAVE_SYMBOL(M);
WAVE_SYMBOL(K);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(BLOCK_K);
WAVE_SYMBOL(WAVE_M);
WAVE_SYMBOL(WAVE_N);
WAVE_SYMBOL(ADDRESS_SPACE);

template <class Out = f32>
inline auto make_kernel(int stride = 1, int padding = 0) {
  constexpr auto i = iterator(0);
  constexpr auto j = iterator(1);
  // Output pixel i = (n, oh, ow); tap j = (hf, wf, c), `padding` rows and columns up and
  // to the left.
  auto padded = [padding](auto at) { return padding > 0 ? to_expr(at) - Expr(padding) : to_expr(at); };
  const IndexMapping<dims<M, K>> x_mapping{
      .inputs = {{N, i / SZ_OUT},
                 {H, padded(i % SZ_OUT / W_OUT * stride + j / C / WF)},
                 {W, padded(i % SZ_OUT % W_OUT * stride + j / C % WF)},
                 {C, j % C}},
      .outputs = {{M, i}, {K, j}},
      .out_of_bounds = padding > 0 ? OutOfBounds::zero : OutOfBounds::error};
  const IndexMapping<dims<NF, K>> w_mapping{
      .inputs = {{HF, j / C / WF}, {WF, j / C % WF}, {C, j % C}, {NF, i}},
      .outputs = {{NF, i}, {K, j}}};
  const IndexMapping<dims<M, NF>> out_mapping{
      .inputs = {{M, i}, {NF, j}},
      .outputs = {{N, i / SZ_OUT}, {H_OUT, i % SZ_OUT / W_OUT}, {W_OUT, i % SZ_OUT % W_OUT},
                  {NF, j}}};

  return kernel(
      "conv2d_igemm",
      Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(NF, BLOCK_N, 1),
                  TilingConstraint(K, BLOCK_K), WaveConstraint(M, WAVE_M), WaveConstraint(NF, WAVE_N),
                  HardwareConstraint{}},
      [=](Memory<dims<N, H, W, C>, f16, ADDRESS_SPACE> x,
          Memory<dims<HF, WF, C, NF>, f16, ADDRESS_SPACE> we,
          Memory<dims<N, H_OUT, W_OUT, NF>, Out> out) {
        Register<dims<M, NF>, f32> acc(0.0);
        auto result = iterate<K>(acc, [&](auto acc) {
          return mma(read(x, x_mapping), read(we, w_mapping), acc);
        });
        if constexpr (std::is_same_v<Out, f32>) write(result, out, out_mapping);
        else write(cast<Out>(result), out, out_mapping);
      });
}

// A convolution: N images of H x W x C, NF filters of F x F, a stride, and zero padding of
// `pad` pixels on each side.
struct Problem {
  int n, c, h, w, nf, f, stride, pad = 0;
  int h_out() const { return (h + 2 * pad - f) / stride + 1; }
  int w_out() const { return (w + 2 * pad - f) / stride + 1; }
};
// The implicit GEMM's tile (BLOCK_M x BLOCK_N x BLOCK_K) and each wave's share of it.
struct Tiling {
  int m, n, k, wave_m, wave_n;
};

// The sizes of `p` and those it makes (H_OUT, W_OUT, SZ_OUT = H_OUT W_OUT, M = N SZ_OUT,
// K = F F C), the tiling `t`, and where the operand tiles go.
inline std::vector<Sub> sizes(const Problem& p, const Tiling& t, AddressSpace space) {
  const int ho = p.h_out(), wo = p.w_out();
  return {{N, p.n}, {C, p.c}, {H, p.h}, {W, p.w}, {NF, p.nf}, {HF, p.f}, {WF, p.f}, {H_OUT, ho}, {W_OUT, wo},
          {SZ_OUT, ho * wo}, {M, p.n * ho * wo}, {K, p.f * p.f * p.c}, {BLOCK_M, t.m}, {BLOCK_N, t.n},
          {BLOCK_K, t.k}, {WAVE_M, t.wave_m}, {WAVE_N, t.wave_n}, {ADDRESS_SPACE, space}};
}

// N=2, 64x64x64 input, 3x3 filters, 128 filters, stride 1, no padding.
inline CompileOptions default_options() {
  return {.subs = sizes({2, 64, 64, 64, 128, 3, 1}, {64, 64, 32, 32, 32}, SHARED_ADDRESS_SPACE)};
}

}  // namespace examples::conv2d
