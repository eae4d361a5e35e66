// wave-overlap-warpgroup-mma where the key dim ends inside a tile (K2 = 500 in tiles of
// 64): the zeros P's registers past the end take in that tile are chosen by a branch
// (the distribution's fill for an mma operand), which moves with the P V batch it feeds
// into the next iteration, so that P's registers are written before that batch starts
// and not while the one before it reads them (ptxas serializes the loop's wgmmas
// otherwise). The branch's condition is carried; the row max and sum keep their own
// branches in stage 0.
// RUN: wave-opt %s --wave-hoist-invariant-reads=keep-mma-operands-shared=true --wave-promote-shared \
// RUN:   --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts --wave-lower-to-gpu \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies{warp-specialize=true},wave-insert-barriers,wave-overlap-warpgroup-mma,canonicalize,cse)))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: gpu.func @attention
// CHECK: scf.for %{{.*}} = %c1 to %c8 step %c1 iter_args(
// Iteration i's Q K^T batch; then iteration i - 1's P, filled where its tile overran
// (the condition carried), right before the P V batch that reads it.
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: %[[P:.*]] = scf.if %[[OLD_OVER:arg[0-9]+]] -> (vector<32xf16>) {
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[OLD_P:arg[0-9]+]] : vector<32xf16>
// CHECK: vector.extract_strided_slice %[[P]]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// Iteration i's softmax: the row max and sum branch on its own tile's end; P leaves as
// it is, with that condition.
// CHECK: %[[OVER:.*]] = arith.cmpi sgt, %{{.*}}, %c500 : index
// CHECK: scf.if %[[OVER]] -> (f32, f32)
// CHECK: scf.if %[[OVER]] -> (f32, f32)
// CHECK: %[[NEW_P:.*]] = arith.truncf
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.yield {{.*}}%[[NEW_P]], {{.*}}%[[OVER]], %{{.*}} :
// The last iteration's P, filled where its tile overran, before the last P V batch.
// CHECK: scf.if %{{.*}}#{{[0-9]+}} -> (vector<32xf16>)
// CHECK: nvvm.wgmma.fence.aligned
module {
  func.func @attention(%arg0: !wave.memory<[B, H, M, K1] of f16, shared>, %arg1: !wave.memory<[B, H, K2, K1] of f16, shared>, %arg2: !wave.memory<[B, H, K2, N] of f16, shared>, %arg3: !wave.memory<[B, H, M, N] of f32, global>) attributes {wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>, #wave.workgroup_constraint<dim = "H", tile = #wave.expr<"1">, workgroup_dim = 1>, #wave.workgroup_constraint<dim = "B", tile = #wave.expr<"1">, workgroup_dim = 2>, #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"BLOCK_K2">>, #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 8">>, #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>, vector_shapes = {B = 0 : i64, H = 0 : i64}>], wave.hyperparameters = {B = 1 : i64, BLOCK_K2 = 64 : i64, BLOCK_M = 128 : i64, H = 2 : i64, K1 = 64 : i64, K2 = 500 : i64, M = 256 : i64, N = 64 : i64}} {
    %0 = wave.register 0.000000e+00 : !wave.tensor<[B, H, N, M] of f32>
    %1 = wave.register 0.000000e+00 : !wave.tensor<[B, H, M] of f32>
    %2 = wave.register -1.000000e+06 : !wave.tensor<[B, H, M] of f32>
    %3:3 = wave.iterate "K2" iter_args(%2, %1, %0) : (!wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, N, M] of f32>) -> (!wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, N, M] of f32>) {
    ^bb0(%arg4: !wave.tensor<[B, H, M] of f32>, %arg5: !wave.tensor<[B, H, M] of f32>, %arg6: !wave.tensor<[B, H, N, M] of f32>):
      %6 = wave.register 0.000000e+00 : !wave.tensor<[B, H, K2, M] of f32>
      %7 = wave.read %arg0 : !wave.memory<[B, H, M, K1] of f16, shared> -> !wave.tensor<[B, H, M, K1] of f16>
      %8 = wave.read %arg1 : !wave.memory<[B, H, K2, K1] of f16, shared> -> !wave.tensor<[B, H, K2, K1] of f16>
      %9 = wave.mma %8, %7, %6 : (!wave.tensor<[B, H, K2, K1] of f16>, !wave.tensor<[B, H, M, K1] of f16>, !wave.tensor<[B, H, K2, M] of f32>) -> !wave.tensor<[B, H, K2, M] of f32>
      %10 = wave.permute %9 : !wave.tensor<[B, H, K2, M] of f32> to !wave.tensor<[B, H, M, K2] of f32>
      %11 = wave.register 0.127517432 : !wave.tensor<[] of f32>
      %12 = wave.mul %10, %11 : (!wave.tensor<[B, H, M, K2] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[B, H, M, K2] of f32>
      %13 = wave.self_index "K2" : !wave.tensor<[K2] of i64>
      %14 = wave.apply_expr %13 {expr = #wave.expr<"$0 < K2">} : !wave.tensor<[K2] of i64> -> !wave.tensor<[K2] of i64>
      %15 = wave.broadcast %14 : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
      %16 = wave.cast %15 : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
      %17 = wave.register 0.000000e+00 : !wave.tensor<[M, K2] of f32>
      %18 = wave.register -1.000000e+06 : !wave.tensor<[M, K2] of f32>
      %19 = wave.select %16, %17, %18 : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
      %20 = wave.add %12, %19 : (!wave.tensor<[B, H, M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[B, H, M, K2] of f32>
      %21 = wave.reduce_max %20 init(%arg4) along "K2" : (!wave.tensor<[B, H, M, K2] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, M] of f32>
      %22 = wave.sub %arg4, %21 : (!wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, M] of f32>
      %23 = wave.exp2 %22 : !wave.tensor<[B, H, M] of f32>
      %24 = wave.sub %20, %21 : (!wave.tensor<[B, H, M, K2] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, M, K2] of f32>
      %25 = wave.exp2 %24 : !wave.tensor<[B, H, M, K2] of f32>
      %26 = wave.mul %arg5, %23 : (!wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, M] of f32>
      %27 = wave.reduce_sum %25 init(%26) along "K2" : (!wave.tensor<[B, H, M, K2] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, M] of f32>
      %28 = wave.cast %25 : !wave.tensor<[B, H, M, K2] of f32> to !wave.tensor<[B, H, M, K2] of f16>
      %29 = wave.mul %arg6, %23 : (!wave.tensor<[B, H, N, M] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, N, M] of f32>
      %30 = wave.read %arg2 : !wave.memory<[B, H, K2, N] of f16, shared> -> !wave.tensor<[B, H, K2, N] of f16>
      %31 = wave.mma %30, %28, %29 : (!wave.tensor<[B, H, K2, N] of f16>, !wave.tensor<[B, H, M, K2] of f16>, !wave.tensor<[B, H, N, M] of f32>) -> !wave.tensor<[B, H, N, M] of f32>
      wave.yield %21, %27, %31 : !wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, N, M] of f32>
    }
    %4 = wave.reciprocal %3#1 : !wave.tensor<[B, H, M] of f32>
    %5 = wave.mul %3#2, %4 : (!wave.tensor<[B, H, N, M] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, N, M] of f32>
    wave.write %5, %arg3 : !wave.tensor<[B, H, N, M] of f32>, !wave.memory<[B, H, M, N] of f32, global>
    return
  }
}
