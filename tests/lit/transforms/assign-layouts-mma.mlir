// wave-assign-layouts on a GEMM with a fused epilogue: the mma anchors its operands and
// accumulator, the loop carries the accumulator's layout, the shared tiles are filled by the
// whole workgroup, and the epilogue's bias read takes the accumulator's layout sliced to N,
// with no conversion anywhere.
// RUN: wave-opt %s --wave-promote-shared --wave-assign-layouts | FileCheck %s

// 64 x 64 workgroup tiles, 2 x 2 waves of 32 x 32, K tiles of 32 (m16n8k16).
// CHECK-LABEL: func.func @gemm_bias_relu
// CHECK-NOT: wave.convert_layout
// The init takes the accumulator layout: [2 x 4 tiles, 4 floats] per lane.
// CHECK: wave.register 0.000000e+00 : !wave.tensor<[M, N] of f32, #wave.layout<registers = [2, 4, 4], lanes = [32], waves = [2, 2]
// CHECK: wave.iterate "K"
// The global tile of A is read in runs of 8 halves, the 4 waves over its rows, into shared memory.
// CHECK: %[[GA:.*]] = wave.read %arg0 {{.*}} -> !wave.tensor<[M, K] of f16, #wave.layout<registers = [2, 8], lanes = [32], waves = [4]
// CHECK: wave.write %[[GA]], %[[TA:[0-9]+]]
// A's fragments: [2 row tiles, 2 K tiles, 8 halves]; B's: [4 column tiles, 2 K tiles, 4 halves].
// CHECK: %[[FA:.*]] = wave.read %[[TA]] {{.*}} -> !wave.tensor<[M, K] of f16, #wave.layout<registers = [2, 2, 8], lanes = [32], waves = [2, 2]
// CHECK: %[[FB:.*]] = wave.read {{.*}} -> !wave.tensor<[N, K] of f16, #wave.layout<registers = [4, 2, 4], lanes = [32], waves = [2, 2]
// CHECK: wave.mma %[[FA]], %[[FB]]
// CHECK: wave.yield {{.*}} #wave.layout<registers = [2, 4, 4]
// The bias: per lane its 4 column tiles' pairs (the rows dropped).
// CHECK: wave.read %arg2 {{.*}} -> !wave.tensor<[N] of f32, #wave.layout<registers = [4, 4], lanes = [32], waves = [2, 2]
// CHECK: wave.write {{.*}} : !wave.tensor<[M, N] of f16, #wave.layout<registers = [2, 4, 4]
func.func @gemm_bias_relu(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                          %bias: !wave.memory<[N] of f32, global>, %c: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K = 96 : i64, M = 100 : i64, N = 150 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  %r = wave.read %bias : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  %s = wave.add %1, %r : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[M, N] of f32>
  %z = wave.register 0.0 : !wave.tensor<[] of f32>
  %m = wave.maximum %s, %z : (!wave.tensor<[M, N] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[M, N] of f32>
  %h = wave.cast %m : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of f16>
  wave.write %h, %c : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}
