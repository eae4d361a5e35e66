// Prefix sums through shared memory: every thread stores its elements at their tile
// positions, then log2(extent) steps each load the element `step` places before (where
// there is one) and add it; the result keeps the input's layout.
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu | FileCheck %s

// 64 experts over two waves along E, runs of 4 i32 per thread (the lanes past a row's 8
// runs repeat it): six steps of 1, 2, .. 32, each storing the 4 registers; a buffer of
// 2 x 65 i32 (rows one longer).
// CHECK-LABEL: gpu.func @offsets
// CHECK: %[[BUF:.*]] = memref.view {{.*}} to memref<2x65xi32, #gpu.address_space<workgroup>>
// CHECK-COUNT-24: memref.store %{{.*}}, %[[BUF]]
// CHECK-NOT: memref.store %{{.*}}, %[[BUF]]
// CHECK: vector.store
func.func @offsets(%c: !wave.memory<[T, E] of i32, global>, %o: !wave.memory<[T, E] of i32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "T", tile = #wave.expr<"2">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "E", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "T", tile = #wave.expr<"1">>,
                        #wave.wave_constraint<dim = "E", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {T = 100 : i64, E = 64 : i64}} {
  %v = wave.read %c : !wave.memory<[T, E] of i32, global> -> !wave.tensor<[T, E] of i32>
  %s = wave.cumsum %v along "E" : !wave.tensor<[T, E] of i32>
  wave.write %s, %o : !wave.tensor<[T, E] of i32>, !wave.memory<[T, E] of i32, global>
  return
}
