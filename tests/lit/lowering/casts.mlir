// Casts through the layout pipeline keep the language's meaning (wave/interpret.hpp):
// to i1 nonzero is true, for floats too (NaN included); from i1, true is 1 (zero
// extension and unsigned conversion, never the -1 a sign extension gives).
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu --canonicalize | FileCheck %s

// CHECK-LABEL: gpu.func @bool_casts
// CHECK: arith.cmpf une, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT: arith.sitofp
// CHECK: arith.uitofp %{{.*}} : vector<4xi1> to vector<4xf32>
// CHECK-NOT: arith.extsi
// CHECK: arith.extui %{{.*}} : vector<4xi1> to vector<4xi32>
func.func @bool_casts(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M, N] of f32, global>,
                      %z: !wave.memory<[M, N] of i32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 128 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %b = wave.cast %v : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of i1>
  %f = wave.cast %b : !wave.tensor<[M, N] of i1> to !wave.tensor<[M, N] of f32>
  wave.write %f, %y : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  %i = wave.cast %b : !wave.tensor<[M, N] of i1> to !wave.tensor<[M, N] of i32>
  wave.write %i, %z : !wave.tensor<[M, N] of i32>, !wave.memory<[M, N] of i32, global>
  return
}
