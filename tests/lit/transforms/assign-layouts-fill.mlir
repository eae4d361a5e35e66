// wave-assign-layouts on the shared tiles' fills of a GEMM on six waves (96 x 64 tiles,
// waves of 32 x 32): A's [96, 32] tile splits its rows among the waves; no dim of B's
// [64, 32] tile divides among six, so the workgroup's 192 threads take its 256 runs of 8
// halves in turn (two steps, the second wrapping), instead of each wave copying it whole
// (eight steps).
// RUN: wave-opt %s --wave-promote-shared --wave-assign-layouts | FileCheck %s

// CHECK-LABEL: func.func @gemm_six_waves
// CHECK: wave.iterate "K"
// A: 16 rows a wave, runs of 8 halves, two steps.
// CHECK: wave.read %arg0 {{.*}} -> !wave.tensor<[M, K] of f16, #wave.layout<registers = [2, 8], lanes = [32], waves = [6], map = (d0, d1, d2, d3) -> (d0 * 8 + d3 * 16 + d2 floordiv 4 - ((d0 * 8 + d2 floordiv 4) floordiv 16) * 16, d1 + d2 * 8 - (d2 floordiv 4) * 32)>>
// B: run q = 192 step + 32 wave + lane, at row q / 4 mod 64, column (q mod 4) * 8.
// CHECK: wave.read %arg1 {{.*}} -> !wave.tensor<[N, K] of f16, #wave.layout<registers = [2, 8], lanes = [32], waves = [6], map = (d0, d1, d2, d3) -> ((d0 * 48 + d3 * 8 + d2 floordiv 4) mod 64, d1 + d2 * 8 - (d2 floordiv 4) * 32)>>
func.func @gemm_six_waves(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                          %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"96">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K = 96 : i64, M = 192 : i64, N = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}
