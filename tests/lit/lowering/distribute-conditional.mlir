// wave.conditional: a two-way scf.index_switch on the condition's one element per
// workgroup, marked uniform (wave-insert-barriers then places barriers inside); the body
// in case 1, the otherwise values in the default case.
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu | FileCheck %s

// One row per workgroup over two waves: where counts[b] > 0 the row's sum (lane shuffles,
// then the waves' partials through shared memory, inside the case), else -5.
// CHECK-LABEL: gpu.func @guarded_sum
// CHECK: %[[OK:.*]] = vector.extract %{{.*}}[0] : i1 from vector<1xi1>
// CHECK: %[[BIT:.*]] = arith.extui %[[OK]] : i1 to i32
// CHECK: %[[WHICH:.*]] = arith.index_cast %[[BIT]] : i32 to index
// CHECK: scf.index_switch %[[WHICH]] {wave.uniform_branch} -> vector<1xf32>
// CHECK: case 1 {
// CHECK: gpu.shuffle
// CHECK: memref.store %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: scf.yield
// CHECK: default {
// CHECK: scf.yield
func.func @guarded_sum(%c: !wave.memory<[B] of i32, global>, %x: !wave.memory<[B, N] of f32, global>,
                       %t: !wave.memory<[B] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "B", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "B", tile = #wave.expr<"1">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {B = 40 : i64, N = 128 : i64}} {
  %counts = wave.read %c : !wave.memory<[B] of i32, global> -> !wave.tensor<[B] of i32>
  %zero = wave.register 0 : !wave.tensor<[B] of i32>
  %ok = wave.gt %counts, %zero : (!wave.tensor<[B] of i32>, !wave.tensor<[B] of i32>) -> !wave.tensor<[B] of i1>
  %v = wave.read %x : !wave.memory<[B, N] of f32, global> -> !wave.tensor<[B, N] of f32>
  %none = wave.register -5.0 : !wave.tensor<[B] of f32>
  %s = wave.conditional %ok else(%none) : (!wave.tensor<[B] of i1>, !wave.tensor<[B] of f32>) -> !wave.tensor<[B] of f32> {
    %sum = wave.reduce_sum %v along "N" : (!wave.tensor<[B, N] of f32>) -> !wave.tensor<[B] of f32>
    wave.yield %sum : !wave.tensor<[B] of f32>
  }
  wave.write %s, %t : !wave.tensor<[B] of f32>, !wave.memory<[B] of f32, global>
  return
}
