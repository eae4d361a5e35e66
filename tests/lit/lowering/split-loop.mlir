// A loop whose dim a workgroup constraint splits too (split-K): each workgroup along
// grid z walks the tiles of its part of K, from its own start, and only the first keeps
// the loop's initial value; what the parts reach is held to linear ops and adds.
// RUN: wave-opt %s --split-input-file --verify-diagnostics --wave-assign-layouts --wave-lower-to-gpu --canonicalize | FileCheck %s

// K = 1000 in parts of 256 (4 workgroups along z, the last with 232: 8 tiles of 32, the
// last partial): trips = ceil(min(1000 - start, 256) / 32), indices from start.
// CHECK-LABEL: gpu.func @gemm_split
// CHECK-SAME: known_grid_size = array<i32: 2, 3, 4>
// CHECK: %[[Z:.*]] = gpu.block_id  z
// CHECK: %[[START:.*]] = arith.muli %[[Z]], %c256
// CHECK: %[[LEFT:.*]] = arith.subi %c1000, %[[START]]
// CHECK: arith.minsi %[[LEFT]], %c256
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[START]], %c0
// CHECK: arith.select %[[FIRST]], %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK: scf.for
// CHECK: arith.addi %[[START]]
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: arith.mulf
// CHECK: memref.atomic_rmw addf
func.func @gemm_split(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                      %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "K", tile = #wave.expr<"256">, workgroup_dim = 2>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K = 1000 : i64, M = 100 : i64, N = 150 : i64}} {
  %0 = wave.register 1.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  %h = wave.register 0.5 : !wave.tensor<[] of f32>
  %s = wave.mul %1, %h : (!wave.tensor<[M, N] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[M, N] of f32>
  wave.write %s, %c {combine = #wave.combine<add>} : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// An exponential of a part is not the part of an exponential.
func.func @nonlinear(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                     %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "K", tile = #wave.expr<"256">, workgroup_dim = 2>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K = 1000 : i64, M = 100 : i64, N = 150 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  // expected-error @+1 {{expected only linear ops (float casts, negation, products with or quotients by other values, sums of such parts) or atomic_add to take one workgroup's part of the sums of iterate<K> (a WorkgroupConstraint splits K across workgroups), but found wave.exp2}}
  %e = wave.exp2 %1 : !wave.tensor<[M, N] of f32>
  wave.write %e, %c {combine = #wave.combine<add>} : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// acc + acc * s per trip is no sum over K: its term is computed from the carried value.
func.func @carried_term(%x: !wave.memory<[M, K] of f32, global>, %c: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "K", tile = #wave.expr<"256">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {K = 1000 : i64, M = 100 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  // expected-error @+1 {{walks K, which a WorkgroupConstraint splits across workgroups: expected each carried value to be a sum over it (an mma's accumulator, or the value plus a term not computed from carried values), but carried value #0 is updated by wave.add}}
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%acc: !wave.tensor<[M] of f32>):
    %v = wave.read %x : !wave.memory<[M, K] of f32, global> -> !wave.tensor<[M, K] of f32>
    %s = wave.reduce_sum %v along "K" : (!wave.tensor<[M, K] of f32>) -> !wave.tensor<[M] of f32>
    %p = wave.mul %acc, %s : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %n = wave.add %acc, %p : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %n : !wave.tensor<[M] of f32>
  }
  wave.write %1, %c {combine = #wave.combine<add>} : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}
