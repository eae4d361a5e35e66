// wave.extract_slice and wave.reshape: the input's workgroup tile stored to shared memory
// (rows one element longer), then each result register loaded from the place its own
// position computes: offset + s * step along the sliced dim (0 outside it), or the
// row-major place over the regrouped dims; a reshape whose sources every thread holds
// itself permutes its registers instead.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu | FileCheck %s

// A window of 9 from a per-row offset, step 3, along N = 40 held whole by each wave.
// CHECK-LABEL: gpu.func @window
// CHECK: %[[TILE:.*]] = memref.view {{.*}} to memref<2x41xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[TILE]]
// CHECK: %[[OFFSET:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[STEPS:.*]] = arith.muli %{{.*}}, %c3
// CHECK: %[[AT:.*]] = arith.addi %[[OFFSET]], %[[STEPS]]
// CHECK: arith.cmpi sge, %[[AT]], %c0
// CHECK: arith.cmpi slt, %[[AT]], %c40
// CHECK: arith.cmpi ult, %[[AT]], %c40
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: %[[SAFE:.*]] = arith.select %[[OK]], %[[AT]]
// CHECK: %[[V:.*]] = memref.load %[[TILE]][%{{.*}}, %[[SAFE]]]
// CHECK: arith.select %[[OK]], %[[V]], %cst
// CHECK-NOT: memref.load %[[TILE]]
// CHECK: gpu.return
func.func @window(%x: !wave.memory<[T, N] of f32, global>, %at: !wave.memory<[T] of i32, global>, %y: !wave.memory<[T, W] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "T", tile = #wave.expr<"2">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "T", tile = #wave.expr<"1">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {T = 100 : i64, N = 40 : i64, W = 9 : i64}} {
  %v = wave.read %x : !wave.memory<[T, N] of f32, global> -> !wave.tensor<[T, N] of f32>
  %a = wave.read %at : !wave.memory<[T] of i32, global> -> !wave.tensor<[T] of i32>
  %o = wave.broadcast %a : !wave.tensor<[T] of i32> to !wave.tensor<[T, W] of i32>
  %s = wave.extract_slice %v at %o along "N" step 3 : (!wave.tensor<[T, N] of f32>, !wave.tensor<[T, W] of i32>) -> !wave.tensor<[T, W] of f32>
  wave.write %s, %y : !wave.tensor<[T, W] of f32>, !wave.memory<[T, W] of f32, global>
  return
}

// -----

// [T, N] -> [T, H, D] with N = 12 = 3 x 4: each thread's run of 4 along N is one head's
// D, so every thread holds its result's sources: a permutation of its registers, no
// shared memory.
// CHECK-LABEL: gpu.func @heads
// CHECK-NOT: memref.view
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3] : vector<4xf16>, vector<4xf16>
// CHECK-NOT: memref.load
// CHECK: gpu.return
func.func @heads(%x: !wave.memory<[T, N] of f16, global>, %y: !wave.memory<[T, H, D] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "T", tile = #wave.expr<"2">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "T", tile = #wave.expr<"1">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {T = 100 : i64, N = 12 : i64, H = 3 : i64, D = 4 : i64}} {
  %v = wave.read %x : !wave.memory<[T, N] of f16, global> -> !wave.tensor<[T, N] of f16>
  %r = wave.reshape %v : !wave.tensor<[T, N] of f16> -> !wave.tensor<[T, H, D] of f16>
  wave.write %r, %y : !wave.tensor<[T, H, D] of f16>, !wave.memory<[T, H, D] of f16, global>
  return
}

// -----

// [T, N] -> [T, D, H]: n = d * 3 + h, so a thread's run along N holds other threads'
// elements: the tile goes through shared memory; each register's place d * 3 + h split by
// 12 into the input's N and a quotient that must be 0.
// CHECK-LABEL: gpu.func @across
// CHECK: %[[TILE:.*]] = memref.view {{.*}} to memref<2x13xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[TILE]]
// CHECK: arith.remui %{{.*}}, %c12
// CHECK: %[[REST:.*]] = arith.divui %{{.*}}, %c12
// CHECK: arith.cmpi eq, %[[REST]], %c0
// CHECK: memref.load %[[TILE]]
// CHECK: gpu.return
func.func @across(%x: !wave.memory<[T, N] of f16, global>, %y: !wave.memory<[T, D, H] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "T", tile = #wave.expr<"2">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "T", tile = #wave.expr<"1">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {T = 100 : i64, N = 12 : i64, H = 3 : i64, D = 4 : i64}} {
  %v = wave.read %x : !wave.memory<[T, N] of f16, global> -> !wave.tensor<[T, N] of f16>
  %r = wave.reshape %v : !wave.tensor<[T, N] of f16> -> !wave.tensor<[T, D, H] of f16>
  wave.write %r, %y : !wave.tensor<[T, D, H] of f16>, !wave.memory<[T, D, H] of f16, global>
  return
}
