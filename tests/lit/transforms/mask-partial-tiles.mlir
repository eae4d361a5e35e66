// wave-mask-partial-tiles: the adds of score masks that are zero in most tiles are
// marked, the mask as their rhs; a causal mask (k - m <= 2) sets where its zeros end
// (the workgroup's first row + 3). The lowering computes the masks under a branch that
// only the tiles from floor(min(K2, m0 + 3) / 32) on take.
// RUN: wave-opt %s --split-input-file --wave-mask-partial-tiles | FileCheck %s
// RUN: wave-opt %s --split-input-file --wave-mask-partial-tiles --wave-assign-layouts --wave-lower-to-gpu \
// RUN:   | FileCheck %s --check-prefix=LOWERED

// CHECK-LABEL: func.func @row_max
// CHECK: wave.iterate "K2" {{.*}}unmasked_end = #wave.expr<"$0 + 3">, unmasked_end_dims = ["M"]
// The bounds mask was the lhs: it moves to the rhs.
// CHECK: %[[BOUNDS:.*]] = wave.select
// CHECK: wave.add %[[X:.*]], %[[BOUNDS]] {wave.hiding_mask}
// CHECK: %[[CAUSAL:.*]] = wave.select
// CHECK: wave.add %{{.*}}, %[[CAUSAL]] {wave.hiding_mask}
// The loop's first masked tile, then a branch per mask.
// LOWERED-LABEL: gpu.func @row_max
// LOWERED: arith.minsi
// LOWERED: %[[FIRST:.*]] = arith.minsi
// LOWERED: scf.for %[[T:.*]] = {{.*}} iter_args
// LOWERED: %[[MASKED:.*]] = arith.cmpi sge, %[[T]], %[[FIRST]] : index
// LOWERED: scf.if %[[MASKED]] -> (vector<{{.*}}xf32>) {
// LOWERED: arith.select
// LOWERED: arith.addf
// LOWERED: } else {
// LOWERED-NEXT: scf.yield
// LOWERED: scf.if %[[MASKED]] -> (vector<{{.*}}xf32>) {
// LOWERED: arith.cmpi sle
// LOWERED: arith.select
// LOWERED: arith.addf
// LOWERED: } else {
// LOWERED-NEXT: scf.yield
// LOWERED: arith.maximumf
func.func @row_max(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 32}>],
    wave.hyperparameters = {M = 100 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %r = wave.iterate "K2" iter_args(%max0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%max: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %in = wave.apply_expr %ki {expr = #wave.expr<"$0 < K2">} : !wave.tensor<[K2] of i64> -> !wave.tensor<[K2] of i64>
    %inb = wave.broadcast %in : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %inc = wave.cast %inb : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %bounds = wave.select %inc, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %x1 = wave.add %bounds, %x : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 2">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %causal = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x1, %causal : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m : !wave.tensor<[M] of f32>
  }
  wave.write %r, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// K2 a whole number of its 32-wide tiles: no key lies past its end in any tile, so the
// bounds mask adds zeros everywhere and goes, with what only it used; the causal mask
// stays marked.
// CHECK-LABEL: func.func @causal_on_whole_tiles
// CHECK: wave.iterate "K2" {{.*}}unmasked_end = #wave.expr<"$0 + 3">
// CHECK-NOT: "$0 < K2"
// CHECK: %[[CAUSAL:.*]] = wave.select
// CHECK-NEXT: wave.add %[[X:.*]], %[[CAUSAL]] {wave.hiding_mask}
// CHECK-NOT: wave.add
// CHECK: wave.reduce_max
func.func @causal_on_whole_tiles(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 32}>],
    wave.hyperparameters = {M = 100 : i64, K2 = 128 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %r = wave.iterate "K2" iter_args(%max0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%max: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %in = wave.apply_expr %ki {expr = #wave.expr<"$0 < K2">} : !wave.tensor<[K2] of i64> -> !wave.tensor<[K2] of i64>
    %inb = wave.broadcast %in : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %inc = wave.cast %inb : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %bounds = wave.select %inc, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %x1 = wave.add %bounds, %x : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 2">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %causal = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x1, %causal : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m : !wave.tensor<[M] of f32>
  }
  wave.write %r, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// A select whose hidden value is not far enough below (-10 is no mask): nothing marked.
// CHECK-LABEL: func.func @not_a_mask
// CHECK-NOT: hiding_mask
// CHECK-NOT: unmasked_end
// CHECK: return
func.func @not_a_mask(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 32}>],
    wave.hyperparameters = {M = 100 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %r = wave.iterate "K2" iter_args(%max0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%max: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %low = wave.register -10.0 : !wave.tensor<[M, K2] of f32>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %in = wave.apply_expr %ki {expr = #wave.expr<"$0 < K2">} : !wave.tensor<[K2] of i64> -> !wave.tensor<[K2] of i64>
    %inb = wave.broadcast %in : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %inc = wave.cast %inb : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %bias = wave.select %inc, %zero, %low : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %bias : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m : !wave.tensor<[M] of f32>
  }
  wave.write %r, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// K2 a whole number of tiles, known: no tile is masked, so the mask goes, and the lowering
// has no branch over it in any tile.
// CHECK-LABEL: func.func @whole_tiles
// CHECK-NOT: hiding_mask
// CHECK: %[[X:.*]] = wave.read
// CHECK-NEXT: wave.reduce_max %[[X]]
// LOWERED-LABEL: gpu.func @whole_tiles
// LOWERED: scf.for
// LOWERED-NOT: scf.if
// LOWERED-NOT: arith.select
// LOWERED: arith.maximumf
// LOWERED: scf.yield
func.func @whole_tiles(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 32}>],
    wave.hyperparameters = {M = 100 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %r = wave.iterate "K2" iter_args(%max0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%max: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %in = wave.apply_expr %ki {expr = #wave.expr<"$0 < K2">} : !wave.tensor<[K2] of i64> -> !wave.tensor<[K2] of i64>
    %inb = wave.broadcast %in : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %inc = wave.cast %inb : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %bounds = wave.select %inc, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %bounds : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m : !wave.tensor<[M] of f32>
  }
  wave.write %r, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// K2's static size is a whole number of tiles, but set_symbol ends it at a length read at
// run time: the end mask can hide keys, so it stays (marked).
// CHECK-LABEL: func.func @end_set_at_run_time
// CHECK: wave.apply_expr %{{.*}} {expr = #wave.expr<"$0 < K2">}
// CHECK: wave.add %{{.*}}, %{{.*}} {wave.hiding_mask}
func.func @end_set_at_run_time(%s: !wave.memory<[M, K2] of f32, global>, %lens: !wave.memory<[M] of i32, global>,
                               %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 1, K2 = 32}>],
    wave.hyperparameters = {M = 100 : i64, K2 = 256 : i64}} {
  %len = wave.read %lens : !wave.memory<[M] of i32, global> -> !wave.tensor<[M] of i32>
  wave.set_symbol "K2" = %len : !wave.tensor<[M] of i32>
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %r = wave.iterate "K2" iter_args(%max0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%max: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %in = wave.apply_expr %ki {expr = #wave.expr<"$0 < K2">} : !wave.tensor<[K2] of i64> -> !wave.tensor<[K2] of i64>
    %inb = wave.broadcast %in : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %inc = wave.cast %inb : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %bounds = wave.select %inc, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %bounds : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m : !wave.tensor<[M] of f32>
  }
  wave.write %r, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}
