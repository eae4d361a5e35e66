// wave-split-loop-across-waves: four waves split every tile of K2 (32 keys, 8 each). An
// online softmax (a running max, a sum rescaled by it with exp2 scale 0.5) folds apart:
// the loop gets wave_folds and, after it, the max combines first, each wave's sum is
// rescaled by exp2(0.5 (m_w - m)), then the sums combine. Loops whose carried values are
// no such folds keep their exchanges in every tile.
// RUN: wave-opt %s --split-input-file --wave-split-loop-across-waves | FileCheck %s
// RUN: wave-opt %s --split-input-file --wave-split-loop-across-waves --wave-assign-layouts --wave-lower-to-gpu \
// RUN:   | FileCheck %s --check-prefix=LOWERED

// CHECK-LABEL: func.func @online_softmax
// CHECK: %[[R:.*]]:2 = wave.iterate "K2" iter_args({{.*}}) {wave_folds = ["max", "sum"]}
// CHECK: %[[M:.*]] = wave.combine_waves max %[[R]]#0 along "K2" : !wave.tensor<[M] of f32>
// CHECK: %[[D:.*]] = wave.sub %[[R]]#0, %[[M]]
// CHECK: %[[K:.*]] = wave.register 5.000000e-01 : !wave.tensor<[] of f32>
// CHECK: %[[E:.*]] = wave.mul %[[D]], %[[K]]
// CHECK: %[[F:.*]] = wave.exp2 %[[E]]
// CHECK: %[[S:.*]] = wave.mul %[[R]]#1, %[[F]]
// CHECK: %[[L:.*]] = wave.combine_waves sum %[[S]] along "K2"
// CHECK: wave.div %[[L]], %[[M]]
// The first wave along K2 (wave / 1 mod 4 == 0) starts the sum from its init; in the
// loop, shuffles within the wave only; the exchange through shared memory comes after.
// LOWERED-LABEL: gpu.func @online_softmax
// LOWERED: arith.cmpi eq
// LOWERED: arith.select
// LOWERED: scf.for
// LOWERED-NOT: #gpu.address_space<workgroup>
// LOWERED: gpu.shuffle
// LOWERED-NOT: #gpu.address_space<workgroup>
// LOWERED: scf.yield
// LOWERED: memref.store {{.*}} #gpu.address_space<workgroup>>
// LOWERED: arith.maximumf
// LOWERED: math.exp2
// LOWERED: memref.store {{.*}} #gpu.address_space<workgroup>>
// LOWERED: arith.addf
func.func @online_softmax(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "K2", tile = #wave.expr<"8">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 8}>],
    wave.hyperparameters = {M = 64 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 1.0 : !wave.tensor<[M] of f32>
  %half = wave.register 0.5 : !wave.tensor<[] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %x init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %dm = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %dmk = wave.mul %dm, %half : (!wave.tensor<[M] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[M] of f32>
    %f = wave.exp2 %dmk : !wave.tensor<[M] of f32>
    %dx = wave.sub %x, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %dxk = wave.mul %half, %dx : (!wave.tensor<[] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %p = wave.exp2 %dxk : !wave.tensor<[M, K2] of f32>
    %scaled = wave.mul %sum, %f : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %l = wave.reduce_sum %p init(%scaled) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %l : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  %q = wave.div %r#1, %r#0 : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  wave.write %q, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// A running max as maximum(m, reduce_max x) and a plain running sum.
// CHECK-LABEL: func.func @max_and_sum
// CHECK: %[[R:.*]]:2 = wave.iterate "K2" iter_args({{.*}}) {wave_folds = ["max", "sum"]}
// CHECK: wave.combine_waves max %[[R]]#0 along "K2"
// CHECK: wave.combine_waves sum %[[R]]#1 along "K2"
// LOWERED-LABEL: gpu.func @max_and_sum
func.func @max_and_sum(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>,
                       %p: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "K2", tile = #wave.expr<"8">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 8}>],
    wave.hyperparameters = {M = 64 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %t = wave.reduce_max %x along "K2" : (!wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M] of f32>
    %m = wave.maximum %max, %t : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %ts = wave.reduce_sum %x along "K2" : (!wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M] of f32>
    %l = wave.add %sum, %ts : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %l : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  wave.write %r#0, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  wave.write %r#1, %p : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// A sum whose running value also goes through exp2: no fold; the loop is left alone and
// its reductions exchange across the waves in every tile.
// CHECK-LABEL: func.func @not_a_fold
// CHECK-NOT: wave_folds
// CHECK-NOT: combine_waves
// CHECK: return
// LOWERED-LABEL: gpu.func @not_a_fold
// LOWERED: scf.for
// LOWERED: memref.store {{.*}} #gpu.address_space<workgroup>>
// LOWERED: scf.yield
func.func @not_a_fold(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "K2", tile = #wave.expr<"8">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 8}>],
    wave.hyperparameters = {M = 64 : i64, K2 = 256 : i64}} {
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r = wave.iterate "K2" iter_args(%sum0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %sum : !wave.tensor<[M] of f32>
    %l = wave.reduce_sum %x init(%e) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %l : !wave.tensor<[M] of f32>
  }
  wave.write %r, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// Terms scaled by 0.5 but the rescaling by 1: not the online softmax's algebra, left alone.
// CHECK-LABEL: func.func @scales_disagree
// CHECK-NOT: wave_folds
// CHECK: return
// LOWERED-LABEL: gpu.func @scales_disagree
func.func @scales_disagree(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "K2", tile = #wave.expr<"8">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 8}>],
    wave.hyperparameters = {M = 64 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %half = wave.register 0.5 : !wave.tensor<[] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %x init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %dm = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %f = wave.exp2 %dm : !wave.tensor<[M] of f32>
    %dx = wave.sub %x, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %dxk = wave.mul %dx, %half : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[M, K2] of f32>
    %p = wave.exp2 %dxk : !wave.tensor<[M, K2] of f32>
    %scaled = wave.mul %sum, %f : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %l = wave.reduce_sum %p init(%scaled) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %l : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  wave.write %r#1, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}
