// Reductions through the layout pipeline: each thread's registers along the reduced dim
// combined in the thread (masked past the edge), lanes by xor shuffles, waves through a
// buffer in the dynamic shared memory; the result gathered back over the row's registers.
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu --split-input-file | FileCheck %s

// Rows of 100 in a tile of 128: 2 waves of 64 per row (runs of 4 f32, 16 lanes per row),
// so 4 shuffles and a buffer of a slot per thread; the last run of a row is masked.
// CHECK-LABEL: gpu.func @row_max
// CHECK-SAME: wave.shared_memory_bytes = 256
// CHECK: scf.if {{.*}} -> (vector<4xf32>)
// CHECK: vector.maskedload
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: %[[BUF:.*]] = memref.view {{.*}} to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK-COUNT-2: memref.load %[[BUF]]
// CHECK: arith.subf
func.func @row_max(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 100 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %m = wave.reduce_max %v along "N" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M] of f32>
  %d = wave.sub %v, %m : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, N] of f32>
  wave.write %d, %y : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// Whole rows in one wave: no mask, no buffer; 5 shuffles, then the init value joins once.
// CHECK-LABEL: gpu.func @row_sum
// CHECK-NOT: memref.view
// CHECK-NOT: vector.create_mask
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: arith.addf
// CHECK: arith.mulf
func.func @row_sum(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 128 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %init = wave.register 1.0 : !wave.tensor<[M] of f32>
  %s = wave.reduce_sum %v init(%init) along "N" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  %d = wave.mul %v, %s : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, N] of f32>
  wave.write %d, %y : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// Over the outer dim: each thread holds a column's 4 rows, reduced in the thread alone.
// CHECK-LABEL: gpu.func @outer_dim
// CHECK-COUNT-4: vector.load
// CHECK-NOT: gpu.shuffle
// CHECK: arith.maximumf
// CHECK: arith.subf
func.func @outer_dim(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 4 : i64, N = 128 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %m = wave.reduce_max %v along "M" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[N] of f32>
  %d = wave.sub %v, %m : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[M, N] of f32>
  wave.write %d, %y : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// Two runs of 4 per thread (a row of 256 f32 over 32 lanes): both loaded, all 8
// registers summed in the thread before the 5 shuffles, both runs stored.
// CHECK-LABEL: gpu.func @two_steps
// CHECK-COUNT-2: vector.load
// CHECK-COUNT-7: arith.addf
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-COUNT-2: vector.store
func.func @two_steps(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"256">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 256 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %s = wave.reduce_sum %v along "N" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M] of f32>
  %d = wave.mul %v, %s : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, N] of f32>
  wave.write %d, %y : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// Rows of N = 100, a dim no constraint tiles, in a tile padded to 128: runs of 4 f16, so
// each of a workgroup's 4 rows is 32 runs, one per lane, and reduces in 5 shuffles; the
// loads past 100 are masked, and rows past M = 9 too.
// CHECK-LABEL: gpu.func @row_sum_whole_rows
// CHECK-SAME: block_tile = [4, 128]
// CHECK: arith.cmpi ult, %{{.*}}, %c9
// CHECK: vector.maskedload
// CHECK-COUNT-20: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
func.func @row_sum_whole_rows(%x: !wave.memory<[M, N] of f16, global>, %y: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 9 : i64, N = 100 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f16, global> -> !wave.tensor<[M, N] of f16>
  %f = wave.cast %v : !wave.tensor<[M, N] of f16> to !wave.tensor<[M, N] of f32>
  %s = wave.reduce_sum %f along "N" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M] of f32>
  wave.write %s, %y : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// A minimum: the identity past the edge is +inf, lanes combine by minimumf.
// CHECK-LABEL: gpu.func @row_min
// CHECK: arith.constant 0x7F800000 : f32
// CHECK-COUNT-4: arith.minimumf
// CHECK-NOT: arith.maximumf
func.func @row_min(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 100 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %m = wave.reduce_min %v along "N" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M] of f32>
  wave.write %m, %y : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}
