// wave-assign-layouts picks each mma's orientation: attention computes its scores as
// S^T = K Q^T (keys on the accumulator's rows) and its output as O^T; run transposed,
// both put the queries on the instruction's rows, so the scores reach the second mma as
// its A registers and the row max and sum meet the output's rows without conversions
// that cross threads. A GEMM whose output is written along N keeps its orientation.
// RUN: wave-opt %s --split-input-file --wave-promote-shared --wave-assign-layouts | FileCheck %s

// One conversion is left, a register permutation: the f16 scores as the second mma's A
// registers hold the same elements in every thread as the first mma's accumulator.
// CHECK-LABEL: func.func @attention
// CHECK-NOT: wave.convert_layout
// CHECK: wave.mma {{.*}} {transposed}
// CHECK-NOT: wave.convert_layout
// CHECK: wave.convert_layout %{{.*}} : !wave.tensor<[M, K2] of f16
// CHECK-NOT: wave.convert_layout
// CHECK: wave.mma {{.*}} {transposed}
// CHECK-NOT: wave.convert_layout
// CHECK: return
func.func @attention(%q: !wave.memory<[M, K1] of f16, shared>, %k: !wave.memory<[K2, K1] of f16, shared>,
                     %v: !wave.memory<[K2, N] of f16, shared>, %o: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K1 = 64 : i64, N = 64 : i64, M = 128 : i64, K2 = 128 : i64}} {
  %acc0 = wave.register 0.0 : !wave.tensor<[N, M] of f32>
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %q0 = wave.read %q : !wave.memory<[M, K1] of f16, shared> -> !wave.tensor<[M, K1] of f16>
  %r:3 = wave.iterate "K2" iter_args(%max0, %sum0, %acc0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>, %acc: !wave.tensor<[N, M] of f32>):
    %z = wave.register 0.0 : !wave.tensor<[K2, M] of f32>
    %k0 = wave.read %k : !wave.memory<[K2, K1] of f16, shared> -> !wave.tensor<[K2, K1] of f16>
    %s = wave.mma %k0, %q0, %z : (!wave.tensor<[K2, K1] of f16>, !wave.tensor<[M, K1] of f16>, !wave.tensor<[K2, M] of f32>) -> !wave.tensor<[K2, M] of f32>
    %x = wave.permute %s : !wave.tensor<[K2, M] of f32> to !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %x init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %xm = wave.sub %x, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %xm : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %p = wave.cast %e : !wave.tensor<[M, K2] of f32> to !wave.tensor<[M, K2] of f16>
    %acc1 = wave.mul %acc, %scale : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
    %v0 = wave.read %v : !wave.memory<[K2, N] of f16, shared> -> !wave.tensor<[K2, N] of f16>
    %acc2 = wave.mma %v0, %p, %acc1 : (!wave.tensor<[K2, N] of f16>, !wave.tensor<[M, K2] of f16>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[N, M] of f32>
    wave.yield %m, %sum2, %acc2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  %out = wave.mul %r#2, %inv : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
  wave.write %out, %o : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// CHECK-LABEL: func.func @gemm
// CHECK-NOT: transposed
// CHECK: return
func.func @gemm(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]} {
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
