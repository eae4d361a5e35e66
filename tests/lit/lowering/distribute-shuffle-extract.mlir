// wave.shuffle: where each pair stays in a wave, registers (and lane shuffles, two f16s
// to a word); across waves, through shared memory; partners past the end masked to 0.
// wave.extract: each element compared with the row's position and summed as a reduction.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu | FileCheck %s
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu=wave-priority=true | FileCheck %s --check-prefix=AMD

// Rows of 128 halves over two waves of 64, runs of 8 per thread. xor 4 stays in the
// thread's run: no shuffle; D = 120, so partners at 120 or past are 0.
// CHECK-LABEL: gpu.func @registers
// CHECK-NOT: gpu.shuffle
// CHECK: arith.xori %{{.*}}, %c4
// CHECK: arith.cmpi ult, %{{.*}}, %c120
// CHECK: arith.select
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @registers(%x: !wave.memory<[S, D] of f16, global>, %y: !wave.memory<[S, D] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "S", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "D", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "S", tile = #wave.expr<"1">>,
                        #wave.wave_constraint<dim = "D", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {S = 100 : i64, D = 120 : i64}} {
  %v = wave.read %x : !wave.memory<[S, D] of f16, global> -> !wave.tensor<[S, D] of f16>
  %s = wave.shuffle %v xor 4 along "D" : !wave.tensor<[S, D] of f16>
  wave.write %s, %y : !wave.tensor<[S, D] of f16>, !wave.memory<[S, D] of f16, global>
  return
}

// -----

// xor 8 is the next lane's run: 8 halves in four words, one shuffle xor 1 each; D is
// whole tiles, so no masks.
// CHECK-LABEL: gpu.func @lanes
// CHECK-COUNT-4: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : i32
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: arith.cmpi ult
// CHECK: gpu.return
func.func @lanes(%x: !wave.memory<[S, D] of f16, global>, %y: !wave.memory<[S, D] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "S", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "D", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "S", tile = #wave.expr<"1">>,
                        #wave.wave_constraint<dim = "D", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {S = 100 : i64, D = 128 : i64}} {
  %v = wave.read %x : !wave.memory<[S, D] of f16, global> -> !wave.tensor<[S, D] of f16>
  %s = wave.shuffle %v xor 8 along "D" : !wave.tensor<[S, D] of f16>
  wave.write %s, %y : !wave.tensor<[S, D] of f16>, !wave.memory<[S, D] of f16, global>
  return
}

// -----

// xor 64 is the other wave's element: stored at its place in a 1 x 129 tile, loaded from
// the partner's.
// CHECK-LABEL: gpu.func @waves
// CHECK: %[[TILE:.*]] = memref.view {{.*}} to memref<1x129xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: memref.store %{{.*}}, %[[TILE]]
// CHECK: %[[AT:.*]] = arith.xori %{{.*}}, %c64
// CHECK: memref.load %[[TILE]][%{{.*}}, %[[AT]]]
// CHECK-NOT: gpu.shuffle
func.func @waves(%x: !wave.memory<[S, D] of f16, global>, %y: !wave.memory<[S, D] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "S", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "D", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "S", tile = #wave.expr<"1">>,
                        #wave.wave_constraint<dim = "D", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {S = 100 : i64, D = 128 : i64}} {
  %v = wave.read %x : !wave.memory<[S, D] of f16, global> -> !wave.tensor<[S, D] of f16>
  %s = wave.shuffle %v xor 64 along "D" : !wave.tensor<[S, D] of f16>
  wave.write %s, %y : !wave.tensor<[S, D] of f16>, !wave.memory<[S, D] of f16, global>
  return
}

// -----

// Row m's element at at[m]: each of the thread's 4 elements kept where its index is
// before N's end and equals the position, then summed over the lanes and the two waves.
// The barrier is gpu.barrier; the wave priority is AMDGPU's s_setprio, nothing on NVIDIA.
// CHECK-LABEL: gpu.func @pick
// CHECK: %[[AT:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-COUNT-4: arith.cmpi eq, %{{.*}}, %[[AT]] : index
// CHECK: gpu.shuffle  xor
// CHECK: memref.store %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NOT: rocdl
// AMD-LABEL: gpu.func @pick
// AMD: gpu.barrier
// AMD-NEXT: rocdl.s.setprio 3
func.func @pick(%x: !wave.memory<[M, N] of f32, global>, %at: !wave.memory<[M] of i32, global>, %y: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"1">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 100 : i64, N = 100 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %i = wave.read %at : !wave.memory<[M] of i32, global> -> !wave.tensor<[M] of i32>
  %e = wave.extract %v at %i along "N" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of i32>) -> !wave.tensor<[M] of f32>
  wave.workgroup_barrier
  wave.set_wave_prio 3
  wave.write %e, %y : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}
