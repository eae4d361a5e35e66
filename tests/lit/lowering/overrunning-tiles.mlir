// Elements past a dim's end kept out of reductions and mma contractions: where a loop's
// dim is not a whole number of tiles, only its last tile reaches past the end, so the
// selects that fill those elements (the reduction's identity, zeros for an mma operand)
// sit under a branch on the tile's end, one value per workgroup; the other tiles combine
// their elements with no select. With overrun-branches=false (gfx942) the selects are
// in every tile.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu --canonicalize | FileCheck %s
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu=overrun-branches=false --canonicalize \
// RUN:   | FileCheck %s --check-prefix=EVERY

// A row sum over K = 1000 in tiles of 64.
// CHECK-LABEL: gpu.func @loop_sum
// CHECK: scf.for %[[T:.*]] = %c0 to %c16
// CHECK: %[[START:.*]] = arith.muli %[[T]], %c64
// CHECK: %[[END:.*]] = arith.addi %[[START]], %c64
// CHECK: %[[OVER:.*]] = arith.cmpi sgt, %[[END]], %c1000
// CHECK: scf.if %[[OVER]] -> (f32) {
// CHECK-COUNT-4: arith.select
// CHECK: } else {
// CHECK-NOT: arith.select
// CHECK: }
// CHECK-NEXT: gpu.shuffle
// EVERY-LABEL: gpu.func @loop_sum
// EVERY: scf.for
// EVERY-NOT: arith.cmpi sgt, %{{.*}}, %c1000
// EVERY-COUNT-4: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// EVERY-NEXT: arith.addf
// EVERY-NEXT: arith.addf
// EVERY-NEXT: arith.addf
// EVERY-NEXT: gpu.shuffle
func.func @loop_sum(%x: !wave.memory<[M, K] of f32, global>, %y: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {K = 1000 : i64, M = 3 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%acc: !wave.tensor<[M] of f32>):
    %v = wave.read %x : !wave.memory<[M, K] of f32, global> -> !wave.tensor<[M, K] of f32>
    %s = wave.reduce_sum %v init(%acc) along "K" : (!wave.tensor<[M, K] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %s : !wave.tensor<[M] of f32>
  }
  wave.write %1, %y : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// A GEMM over K = 1000 in tiles of 32 whose A is computed in registers (a + 1: not zero
// past the end, as reads are): its registers past K zeroed under the branch, before the
// mmas.
// CHECK-LABEL: gpu.func @gemm_of_computed
// CHECK: scf.for
// CHECK: %[[X:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<32xf16>
// CHECK: %[[OVER:.*]] = arith.cmpi sgt, %{{.*}}, %c1000
// CHECK: scf.if %[[OVER]] -> (vector<32xf16>) {
// CHECK-COUNT-32: arith.select
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[X]] : vector<32xf16>
// CHECK: nvvm.mma.sync
// EVERY-LABEL: gpu.func @gemm_of_computed
// EVERY: arith.addf %{{.*}}, %{{.*}} : vector<32xf16>
// EVERY-NOT: arith.cmpi sgt, %{{.*}}, %c1000
// EVERY-COUNT-32: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f16
// EVERY: nvvm.mma.sync
func.func @gemm_of_computed(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                            %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K = 1000 : i64, M = 128 : i64, N = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %r = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %one = wave.register 1.0 : !wave.tensor<[] of f16>
    %x = wave.add %r, %one : (!wave.tensor<[M, K] of f16>, !wave.tensor<[] of f16>) -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}
