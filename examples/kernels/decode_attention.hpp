// Decode attention: a few queries per head (M up to 16: one MMA row tile) against a long
// run of keys, [B, H, S, D] layout. The body is flash attention's (kernels/flash_attention.hpp);
// only the schedule differs: each workgroup takes one (batch, head), and a wave constraint
// on K2 splits every key tile among its waves. Each wave runs the online softmax over its
// slices of the keys as if it were a workgroup of its own, and after the loop the waves'
// running max, sum and output combine (each rescaled by exp2 of its max minus the overall
// one): the compiler derives that from the loop's carried values, a running max and two
// sums rescaled by it (wave-split-loop-across-waves).
#pragma once

#include "kernels/flash_attention.hpp"

namespace examples::decode_attention {
using namespace wave;
using flash_attention::B, flash_attention::H, flash_attention::M, flash_attention::N, flash_attention::K1,
    flash_attention::K2, flash_attention::BLOCK_M, flash_attention::BLOCK_K2;

// `key_waves` waves per workgroup, each BLOCK_K2 / key_waves keys of every key tile.
template <class Out = f32>
auto make_kernel(int head_dim = 128, int key_waves = 4) {
  return kernel("decode_attention",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(H, 1, 1),
                            WorkgroupConstraint(B, 1, 2), TilingConstraint(K2, BLOCK_K2),
                            WaveConstraint(M, BLOCK_M), WaveConstraint(K2, BLOCK_K2 / key_waves),
                            HardwareConstraint{.vector_shapes = {{B, 0}, {H, 0}}}},
                flash_attention::attention_body<Out>(
                    flash_attention::softmax_scale(head_dim), false));
}

// One query per head over 4096 keys; K2 may also be left out of subs and given at launch.
inline CompileOptions default_options() {
  return {.subs = {{B, 8}, {H, 32}, {M, 1}, {K2, 4096}, {K1, 128}, {N, 128}, {BLOCK_M, 16}, {BLOCK_K2, 128}}};
}

}  // namespace examples::decode_attention
