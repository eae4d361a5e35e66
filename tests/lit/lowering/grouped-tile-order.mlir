// The tile scheduler's grouped order where the grid's y axis holds one tile: a GEMM with
// M over x (32 tiles of 128) and N over z (32 tiles of 128), as a grouped GEMM puts its
// blocks of rows along x, one tile of a block's rows along y and its columns along z.
// Workgroups go in groups of 8 along x down z (8 x 32 = 256 per group), so that those
// running at once read each row tile for all its columns; y is left alone.

// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse)))' | FileCheck %s

// CHECK-LABEL: gpu.func @gemm
// CHECK-SAME: known_grid_size = array<i32: 32, 1, 32>
// CHECK: %[[X:.*]] = gpu.block_id x
// CHECK-NEXT: %[[Z:.*]] = gpu.block_id z
// CHECK-NEXT: %[[BEFORE:.*]] = arith.muli %[[Z]], %c32
// CHECK-NEXT: %[[LINEAR:.*]] = arith.addi %[[BEFORE]], %[[X]]
// CHECK-NEXT: %[[GROUP:.*]] = arith.divui %[[LINEAR]], %c256
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[GROUP]], %c8
// CHECK-NEXT: %[[IN_GROUP:.*]] = arith.remui %[[LINEAR]], %c256
// CHECK-NEXT: %[[ROW:.*]] = arith.remui %[[IN_GROUP]], %c8
// CHECK-NEXT: %[[TILE_X:.*]] = arith.addi %[[FIRST]], %[[ROW]]
// CHECK-NEXT: %[[TILE_Z:.*]] = arith.divui %[[IN_GROUP]], %c8
// CHECK-NEXT: arith.muli %[[TILE_X]], %c128
// CHECK-NEXT: arith.muli %[[TILE_Z]], %c128
// CHECK-NOT: gpu.block_id y

#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 2>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

func.func @gemm(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = #gemm_constraints,
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, K = 4000 : i64,
                            M = 4000 : i64, N = 4000 : i64}} {
  %sb = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
  %sa = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %gb = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    wave.write %gb, %sb : !wave.tensor<[N, K] of f16>, !wave.memory<[N, K] of f16, shared>
    %ga = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    wave.write %ga, %sa : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, shared>
    %y = wave.read %sb : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %x = wave.read %sa : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}
