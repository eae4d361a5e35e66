// wave.set_symbol: the size's one element (every thread holds it), clamped to [0, the
// dim's size], becomes the dim's end: the loop walks ceil(end / tile) tiles, and the
// reads and the reduction compare positions with it.
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @row_sums
// CHECK: %[[LEN:.*]] = memref.load %{{.*}} : memref<6xi32>
// CHECK: %[[ELT:.*]] = vector.extract %{{.*}}[0] : i32 from vector<1xi32>
// CHECK: %[[IDX:.*]] = arith.index_cast %[[ELT]] : i32 to index
// CHECK: %[[LOW:.*]] = arith.minsi %[[IDX]], %c1024 : index
// CHECK: %[[END:.*]] = arith.maxsi %[[LOW]], %{{.*}} : index
// CHECK: %[[TILES:.*]] = affine.apply #{{.*}}(%[[END]])
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[TILES]] step
// The run of four is whole only where it ends before the end; each element summed only
// there: in a tile reaching past the end, the room left (end - start - this thread's
// position) against each register's place in the run.
// CHECK: arith.subi %[[END]], %{{.*}} : index
// CHECK: vector.maskedload
// CHECK: %[[OVER:.*]] = arith.cmpi sgt, %{{.*}}, %[[END]] : index
// CHECK: scf.if %[[OVER]] -> (f32)
// CHECK: %[[LEFT:.*]] = arith.subi %[[END]], %{{.*}} : index
// CHECK: %[[ROOM:.*]] = arith.subi %[[LEFT]], %{{.*}} : index
// CHECK: arith.cmpi slt, %{{.*}}, %[[ROOM]] : index
func.func @row_sums(%x: !wave.memory<[B, N] of f32, global>, %lens: !wave.memory<[B] of i32, global>, %total: !wave.memory<[B] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "B", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "N", tile = #wave.expr<"128">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"128">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {B = 0 : i64}>],
    wave.hyperparameters = {B = 6 : i64, N = 1024 : i64}} {
  %len = wave.read %lens : !wave.memory<[B] of i32, global> -> !wave.tensor<[B] of i32>
  wave.set_symbol "N" = %len : !wave.tensor<[B] of i32>
  %zero = wave.register 0.0 : !wave.tensor<[B] of f32>
  %r = wave.iterate "N" iter_args(%zero) : (!wave.tensor<[B] of f32>) -> !wave.tensor<[B] of f32> {
  ^bb0(%acc: !wave.tensor<[B] of f32>):
    %v = wave.read %x : !wave.memory<[B, N] of f32, global> -> !wave.tensor<[B, N] of f32>
    %s = wave.reduce_sum %v init(%acc) along "N" : (!wave.tensor<[B, N] of f32>, !wave.tensor<[B] of f32>) -> !wave.tensor<[B] of f32>
    wave.yield %s : !wave.tensor<[B] of f32>
  }
  wave.write %r, %total : !wave.tensor<[B] of f32>, !wave.memory<[B] of f32, global>
  return
}
