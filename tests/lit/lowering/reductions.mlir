// wave-lower-to-gpu on reductions over the innermost dim: steps unrolled, each thread's
// runs reduced (masked past the edge), lanes combined by xor shuffles, waves through a
// workgroup buffer; the result splat over the row's runs.
// RUN: wave-opt %s --wave-infer-index --wave-lower-to-gpu --split-input-file --verify-diagnostics | FileCheck %s

// Rows of 100 in a tile of 128: 2 waves of 64 per row (runs of 4 f32, 16 lanes per row,
// one step), so 4 shuffles per reduction and a buffer of one slot per lane group.
// CHECK-LABEL: gpu.func @row_max
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[X:.*]] = scf.if {{.*}} -> (vector<4xf32>)
// CHECK: vector.maskedload
// CHECK: %[[MASK:.*]] = vector.create_mask
// CHECK: %[[MASKED:.*]] = arith.select %[[MASK]], %[[X]], %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: vector.reduction <maximumf>, %[[MASKED]] : vector<4xf32> into f32
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %[[BUF]]
// CHECK-COUNT-2: memref.load %[[BUF]]
// CHECK: vector.broadcast %{{.*}} : f32 to vector<4xf32>
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

// Whole rows in one wave and one step: no mask, no buffer; the init value joins once.
// CHECK-LABEL: gpu.func @row_sum
// CHECK-NOT: workgroup(
// CHECK-NOT: vector.create_mask
// CHECK: vector.reduction <add>
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: vector.extract
// CHECK-NEXT: arith.addf
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

func.func @outer_dim(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 4 : i64, N = 128 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  // expected-error @+1 {{'wave.reduce_max' op is not yet supported by wave-lower-to-gpu: a reduction over M, which is not the innermost dim (N) of the iteration space}}
  %m = wave.reduce_max %v along "M" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[N] of f32>
  %d = wave.sub %v, %m : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[M, N] of f32>
  wave.write %d, %y : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// Two steps per thread (a wave tile of 256 f32, runs of 4): each step's reads and writes
// address its own run (_STEP = 0, then 1), and the reduction combines both steps.
// CHECK-LABEL: gpu.func @two_steps
// CHECK: %[[S0:.*]] = arith.constant 0 : index
// CHECK: %[[S1:.*]] = arith.constant 1 : index
// CHECK: %[[N0:.*]] = affine.apply #{{.*}}(%[[S0]], %{{.*}}, %{{.*}})
// CHECK-NEXT: %[[X0:.*]] = vector.load %{{.*}}[%{{.*}}, %[[N0]]]
// CHECK: %[[N1:.*]] = affine.apply #{{.*}}(%[[S1]], %{{.*}}, %{{.*}})
// CHECK-NEXT: %[[X1:.*]] = vector.load %{{.*}}[%{{.*}}, %[[N1]]]
// CHECK: %[[R0:.*]] = vector.reduction <add>, %[[X0]]
// CHECK: %[[R1:.*]] = vector.reduction <add>, %[[X1]]
// CHECK: arith.addf %[[R0]], %[[R1]]
// CHECK: affine.apply #{{.*}}(%[[S0]], %{{.*}}, %{{.*}})
// CHECK-NEXT: vector.store
// CHECK: affine.apply #{{.*}}(%[[S1]], %{{.*}}, %{{.*}})
// CHECK-NEXT: vector.store
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
