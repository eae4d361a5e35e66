// wave-lower-to-gpu: a causal mask's `k - m <= 2`, each thread's keys its part (4 lane +
// the tile's start) plus a constant per register (0..3), becomes one value per thread,
// room = 2 - part - tile start + m, and a compare of each constant with it: no position
// computed per register. A product of positions is no such sum: its positions are built
// per register and multiplied as vectors.
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu --canonicalize | FileCheck %s

// CHECK-LABEL: gpu.func @causal
// CHECK: %[[LANE:.*]] = arith.remui %thread_id_x, %c32
// CHECK: %[[M:.*]] = gpu.block_id x
// CHECK: scf.for %[[T:.*]] = %c0 to %c2
// CHECK: %[[START:.*]] = arith.muli %[[T]], %c64
// CHECK: vector.load
// CHECK-NEXT: %[[PART:.*]] = affine.apply #{{.*}}()[%[[LANE]]]
// CHECK-NEXT: %[[LESS_PART:.*]] = arith.subi %c2, %[[PART]]
// CHECK-NEXT: %[[LESS_START:.*]] = arith.subi %[[LESS_PART]], %[[START]]
// CHECK-NEXT: %[[ROOM:.*]] = arith.addi %[[LESS_START]], %[[M]]
// CHECK-NEXT: %[[R0:.*]] = arith.cmpi sge, %[[ROOM]], %c0
// CHECK-NEXT: %[[R1:.*]] = arith.cmpi sge, %[[ROOM]], %c1
// CHECK-NEXT: %[[R2:.*]] = arith.cmpi sge, %[[ROOM]], %c2
// CHECK-NEXT: %[[R3:.*]] = arith.cmpi sge, %[[ROOM]], %c3
// CHECK-NEXT: %[[MASK:.*]] = vector.from_elements %[[R0]], %[[R1]], %[[R2]], %[[R3]] : vector<4xi1>
// CHECK-NEXT: arith.select %[[MASK]]
// CHECK-NOT: vector<4xi64>
// CHECK: gpu.return

func.func @causal(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 64}>],
    wave.hyperparameters = {M = 128 : i64, K2 = 128 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %r = wave.iterate "K2" iter_args(%max0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%max: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 2">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %causal = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %causal : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m : !wave.tensor<[M] of f32>
  }
  wave.write %r, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// CHECK-LABEL: gpu.func @product
// CHECK: arith.muli %{{.*}}, %{{.*}} : vector<4xi64>
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : vector<4xi64>
func.func @product(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 64}>],
    wave.hyperparameters = {M = 128 : i64, K2 = 128 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %r = wave.iterate "K2" iter_args(%max0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%max: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.mul %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 2">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %causal = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %causal : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m : !wave.tensor<[M] of f32>
  }
  wave.write %r, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}
