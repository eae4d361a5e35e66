// wave-scale-after-masks: marked masks added to scores times a positive constant move
// before the scale, their hidden value divided by it (-1e6 / 0.25 = -4e6), so that one
// multiply by 0.25 follows both masks and the row max takes it.
// RUN: wave-opt %s --split-input-file --wave-mask-partial-tiles --wave-scale-after-masks | FileCheck %s
// RUN: wave-opt %s --split-input-file --wave-mask-partial-tiles --wave-scale-after-masks --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu | FileCheck %s --check-prefix=LOWERED

// CHECK-LABEL: func.func @scaled_logits
// CHECK: %[[X:.*]] = wave.read
// CHECK: %[[SCALE:.*]] = wave.register 2.500000e-01 : !wave.tensor<[] of f32>
// CHECK-NOT: wave.mul
// CHECK: %[[HIDDEN:.*]] = wave.register -4.000000e+06 : !wave.tensor<[M, K2] of f32>
// CHECK: %[[BOUNDS:.*]] = wave.select %{{.*}}, %{{.*}}, %[[HIDDEN]]
// CHECK: %[[Y:.*]] = wave.add %[[X]], %[[BOUNDS]] {wave.hiding_mask}
// CHECK-NOT: wave.mul
// CHECK: %[[HIDDEN2:.*]] = wave.register -4.000000e+06 : !wave.tensor<[M, K2] of f32>
// CHECK: %[[CAUSAL:.*]] = wave.select %{{.*}}, %{{.*}}, %[[HIDDEN2]]
// CHECK: %[[Z:.*]] = wave.add %[[Y]], %[[CAUSAL]] {wave.hiding_mask}
// CHECK: %[[LOGITS:.*]] = wave.mul %[[Z]], %[[SCALE]]
// CHECK: wave.reduce_max %[[LOGITS]]
// CHECK: wave.sub %[[LOGITS]]
// Lowered: both branches yield unscaled scores; one multiply after them.
// LOWERED-LABEL: gpu.func @scaled_logits
// LOWERED: scf.for
// LOWERED: scf.if
// LOWERED: arith.addf
// LOWERED: } else {
// LOWERED: scf.if
// LOWERED: arith.addf
// LOWERED: } else {
// LOWERED: }
// LOWERED: arith.mulf
// LOWERED: arith.maximumf
func.func @scaled_logits(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 32}>],
    wave.hyperparameters = {M = 100 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %c = wave.register 0.25 : !wave.tensor<[] of f32>
    %xs = wave.mul %x, %c : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %in = wave.apply_expr %ki {expr = #wave.expr<"$0 < K2">} : !wave.tensor<[K2] of i64> -> !wave.tensor<[K2] of i64>
    %inb = wave.broadcast %in : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %inc = wave.cast %inb : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %bounds = wave.select %inc, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %x1 = wave.add %xs, %bounds : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 0">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %causal = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x1, %causal : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %d : !wave.tensor<[M, K2] of f32>
    %t = wave.reduce_sum %e init(%sum) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %t : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  wave.write %r#1, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// Scaled scores that something else uses too, or a negative scale: the masks stay after
// the multiply.
// CHECK-LABEL: func.func @kept
// CHECK: %[[XS:.*]] = wave.mul %{{.*}}, %{{.*}} :
// CHECK: wave.add %[[XS]], %{{.*}} {wave.hiding_mask}
// CHECK: %[[XN:.*]] = wave.mul %{{.*}}, %{{.*}} :
// CHECK: wave.add %[[XN]], %{{.*}} {wave.hiding_mask}
// CHECK-NOT: wave.mul
// CHECK: return
func.func @kept(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 32}>],
    wave.hyperparameters = {M = 100 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %max0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %raw: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %c = wave.register 0.25 : !wave.tensor<[] of f32>
    %xs = wave.mul %x, %c : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %in = wave.apply_expr %ki {expr = #wave.expr<"$0 < K2">} : !wave.tensor<[K2] of i64> -> !wave.tensor<[K2] of i64>
    %inb = wave.broadcast %in : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %inc = wave.cast %inb : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %bounds = wave.select %inc, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %xs, %bounds : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %n = wave.register -0.25 : !wave.tensor<[] of f32>
    %xn = wave.mul %x, %n : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[M, K2] of f32>
    %z = wave.add %xn, %bounds : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %zm = wave.reduce_max %z init(%raw) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %w = wave.reduce_max %xs init(%zm) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %w : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  wave.write %r#1, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}
