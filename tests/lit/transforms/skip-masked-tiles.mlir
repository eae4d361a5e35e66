// wave-skip-masked-tiles: causal attention's key loop ends after the last key any row of
// the workgroup sees (its first row + BLOCK_M + the mask's slack); masks and uses it cannot
// prove harmless leave the loop whole.
// RUN: wave-opt %s --split-input-file --wave-skip-masked-tiles | FileCheck %s
// RUN: wave-opt %s --split-input-file --wave-skip-masked-tiles --wave-assign-layouts --wave-lower-to-gpu \
// RUN:   | FileCheck %s --check-prefix=LOWERED

// Keys k <= m: the workgroup of rows m0 .. m0 + 63 needs keys below m0 + 64.
// CHECK-LABEL: func.func @causal
// CHECK: wave.iterate "K2" iter_args({{.*}}) {end = #wave.expr<"$0 + 64">, end_dims = ["M"]}
// The lowered loop runs ceil(min(K2, m0 + 64) / 32) tiles; the workgroups of the last
// query tiles, the longest, go first (M's grid axis reversed).
// LOWERED-LABEL: gpu.func @causal
// LOWERED: %[[LAST:.*]] = arith.subi %{{.*}}, %c1{{.*}} : index
// LOWERED-NEXT: arith.subi %[[LAST]], %{{.*}} : index
// LOWERED: %[[END:.*]] = arith.minsi
// LOWERED: scf.for
func.func @causal(%q: !wave.memory<[M, K1] of f16, global>, %k: !wave.memory<[K2, K1] of f16, global>,
    %v: !wave.memory<[K2, N] of f16, global>, %o: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K1 = 64 : i64, N = 64 : i64}} {
  %acc0 = wave.register 0.0 : !wave.tensor<[N, M] of f32>
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:3 = wave.iterate "K2" iter_args(%max0, %sum0, %acc0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>, %acc: !wave.tensor<[N, M] of f32>):
    %z = wave.register 0.0 : !wave.tensor<[K2, M] of f32>
    %q0 = wave.read %q : !wave.memory<[M, K1] of f16, global> -> !wave.tensor<[M, K1] of f16>
    %k0 = wave.read %k : !wave.memory<[K2, K1] of f16, global> -> !wave.tensor<[K2, K1] of f16>
    %s = wave.mma %k0, %q0, %z : (!wave.tensor<[K2, K1] of f16>, !wave.tensor<[M, K1] of f16>, !wave.tensor<[K2, M] of f32>) -> !wave.tensor<[K2, M] of f32>
    %x = wave.permute %s : !wave.tensor<[K2, M] of f32> to !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 0">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %p = wave.cast %e : !wave.tensor<[M, K2] of f32> to !wave.tensor<[M, K2] of f16>
    %acc1 = wave.mul %acc, %scale : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
    %v0 = wave.read %v : !wave.memory<[K2, N] of f16, global> -> !wave.tensor<[K2, N] of f16>
    %acc2 = wave.mma %v0, %p, %acc1 : (!wave.tensor<[K2, N] of f16>, !wave.tensor<[M, K2] of f16>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[N, M] of f32>
    wave.yield %m, %sum2, %acc2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  %out = wave.mul %r#2, %inv : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
  wave.write %out, %o : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// A slack of 2 (k <= m + 2): two keys more.
// CHECK-LABEL: func.func @slack
// CHECK: {end = #wave.expr<"$0 + 66">, end_dims = ["M"]}
func.func @slack(%q: !wave.memory<[M, K1] of f16, global>, %k: !wave.memory<[K2, K1] of f16, global>,
    %v: !wave.memory<[K2, N] of f16, global>, %o: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K1 = 64 : i64, N = 64 : i64}} {
  %acc0 = wave.register 0.0 : !wave.tensor<[N, M] of f32>
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:3 = wave.iterate "K2" iter_args(%max0, %sum0, %acc0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>, %acc: !wave.tensor<[N, M] of f32>):
    %z = wave.register 0.0 : !wave.tensor<[K2, M] of f32>
    %q0 = wave.read %q : !wave.memory<[M, K1] of f16, global> -> !wave.tensor<[M, K1] of f16>
    %k0 = wave.read %k : !wave.memory<[K2, K1] of f16, global> -> !wave.tensor<[K2, K1] of f16>
    %s = wave.mma %k0, %q0, %z : (!wave.tensor<[K2, K1] of f16>, !wave.tensor<[M, K1] of f16>, !wave.tensor<[K2, M] of f32>) -> !wave.tensor<[K2, M] of f32>
    %x = wave.permute %s : !wave.tensor<[K2, M] of f32> to !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 2">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %p = wave.cast %e : !wave.tensor<[M, K2] of f32> to !wave.tensor<[M, K2] of f16>
    %acc1 = wave.mul %acc, %scale : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
    %v0 = wave.read %v : !wave.memory<[K2, N] of f16, global> -> !wave.tensor<[K2, N] of f16>
    %acc2 = wave.mma %v0, %p, %acc1 : (!wave.tensor<[K2, N] of f16>, !wave.tensor<[M, K2] of f16>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[N, M] of f32>
    wave.yield %m, %sum2, %acc2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  %out = wave.mul %r#2, %inv : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
  wave.write %out, %o : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// k <= m - 1 hides key 0 from row 0: the first tile may not set every row's max, so
// nothing is skipped.
// CHECK-LABEL: func.func @negative_slack
// CHECK-NOT: end =
// CHECK: return
func.func @negative_slack(%q: !wave.memory<[M, K1] of f16, global>, %k: !wave.memory<[K2, K1] of f16, global>,
    %v: !wave.memory<[K2, N] of f16, global>, %o: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K1 = 64 : i64, N = 64 : i64}} {
  %acc0 = wave.register 0.0 : !wave.tensor<[N, M] of f32>
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:3 = wave.iterate "K2" iter_args(%max0, %sum0, %acc0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>, %acc: !wave.tensor<[N, M] of f32>):
    %z = wave.register 0.0 : !wave.tensor<[K2, M] of f32>
    %q0 = wave.read %q : !wave.memory<[M, K1] of f16, global> -> !wave.tensor<[M, K1] of f16>
    %k0 = wave.read %k : !wave.memory<[K2, K1] of f16, global> -> !wave.tensor<[K2, K1] of f16>
    %s = wave.mma %k0, %q0, %z : (!wave.tensor<[K2, K1] of f16>, !wave.tensor<[M, K1] of f16>, !wave.tensor<[K2, M] of f32>) -> !wave.tensor<[K2, M] of f32>
    %x = wave.permute %s : !wave.tensor<[K2, M] of f32> to !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= -1">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %p = wave.cast %e : !wave.tensor<[M, K2] of f32> to !wave.tensor<[M, K2] of f16>
    %acc1 = wave.mul %acc, %scale : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
    %v0 = wave.read %v : !wave.memory<[K2, N] of f16, global> -> !wave.tensor<[K2, N] of f16>
    %acc2 = wave.mma %v0, %p, %acc1 : (!wave.tensor<[K2, N] of f16>, !wave.tensor<[M, K2] of f16>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[N, M] of f32>
    wave.yield %m, %sum2, %acc2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  %out = wave.mul %r#2, %inv : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
  wave.write %out, %o : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// The masked scores also leave the loop through a write: every tile must run.
// CHECK-LABEL: func.func @written
// CHECK-NOT: end =
// CHECK: return
func.func @written(%q: !wave.memory<[M, K1] of f16, global>, %k: !wave.memory<[K2, K1] of f16, global>,
    %v: !wave.memory<[K2, N] of f16, global>, %o: !wave.memory<[M, N] of f32, global>, %w: !wave.memory<[M, K2] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K1 = 64 : i64, N = 64 : i64}} {
  %acc0 = wave.register 0.0 : !wave.tensor<[N, M] of f32>
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:3 = wave.iterate "K2" iter_args(%max0, %sum0, %acc0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>, %acc: !wave.tensor<[N, M] of f32>):
    %z = wave.register 0.0 : !wave.tensor<[K2, M] of f32>
    %q0 = wave.read %q : !wave.memory<[M, K1] of f16, global> -> !wave.tensor<[M, K1] of f16>
    %k0 = wave.read %k : !wave.memory<[K2, K1] of f16, global> -> !wave.tensor<[K2, K1] of f16>
    %s = wave.mma %k0, %q0, %z : (!wave.tensor<[K2, K1] of f16>, !wave.tensor<[M, K1] of f16>, !wave.tensor<[K2, M] of f32>) -> !wave.tensor<[K2, M] of f32>
    %x = wave.permute %s : !wave.tensor<[K2, M] of f32> to !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 0">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %p = wave.cast %e : !wave.tensor<[M, K2] of f32> to !wave.tensor<[M, K2] of f16>
    %acc1 = wave.mul %acc, %scale : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
    %v0 = wave.read %v : !wave.memory<[K2, N] of f16, global> -> !wave.tensor<[K2, N] of f16>
    %acc2 = wave.mma %v0, %p, %acc1 : (!wave.tensor<[K2, N] of f16>, !wave.tensor<[M, K2] of f16>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[N, M] of f32>
    wave.write %y, %w : !wave.tensor<[M, K2] of f32>, !wave.memory<[M, K2] of f32, global>
    wave.yield %m, %sum2, %acc2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  %out = wave.mul %r#2, %inv : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
  wave.write %out, %o : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// Spellings and carried values (wave-skip-masked-tiles proves each carried value unchanged
// by a hidden tile).
// The loop also carries the max of the unmasked scores, which a tile past the diagonal
// changes: every tile must run.
// CHECK-LABEL: func.func @carried_unmasked_max
// CHECK-NOT: end =
// CHECK: return
func.func @carried_unmasked_max(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 256 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %raw0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %r:3 = wave.iterate "K2" iter_args(%max0, %sum0, %raw0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>, %raw: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 0">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %raw1 = wave.reduce_max %x init(%raw) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %sum2, %raw1 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  wave.write %inv, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// Causal spelled `m - k >= 0`.
// CHECK-LABEL: func.func @rows_minus_keys
// CHECK: {end = #wave.expr<"$0 + 64">, end_dims = ["M"]}
func.func @rows_minus_keys(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 256 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %mb, %kb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 >= 0">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %sum2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  wave.write %inv, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// The scores themselves selected: `select(visible, scores, -BIG)`.
// CHECK-LABEL: func.func @select_scores
// CHECK: {end = #wave.expr<"$0 + 64">, end_dims = ["M"]}
func.func @select_scores(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 256 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 0">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %y = wave.select %cond, %x, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %sum2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  wave.write %inv, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// The running max as `maximum(old, max<K2>(x))`.
// CHECK-LABEL: func.func @maximum_of_tile_max
// CHECK: {end = #wave.expr<"$0 + 64">, end_dims = ["M"]}
func.func @maximum_of_tile_max(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 256 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 0">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %mt = wave.reduce_max %y along "K2" : (!wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M] of f32>
    %m = wave.maximum %max, %mt : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %sum2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  wave.write %inv, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// The scale applied after the mask: a positive scale keeps the masked scores hidden.
// CHECK-LABEL: func.func @scale_after_mask
// CHECK: {end = #wave.expr<"$0 + 64">, end_dims = ["M"]}
func.func @scale_after_mask(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 256 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 0">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y0 = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %c = wave.register 0.18 : !wave.tensor<[M, K2] of f32>
    %y = wave.mul %y0, %c : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %sum2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  wave.write %inv, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// A negative scale after the mask turns the masked scores into the largest: nothing is skipped.
// CHECK-LABEL: func.func @negative_scale_after_mask
// CHECK-NOT: end =
// CHECK: return
func.func @negative_scale_after_mask(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 256 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 0">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y0 = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %c = wave.register -0.18 : !wave.tensor<[M, K2] of f32>
    %y = wave.mul %y0, %c : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %sum2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  wave.write %inv, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// Bottom-right causal, `k - m <= K2 - M`: with K2 = 264 and M = 200 the slack is 64.
// CHECK-LABEL: func.func @bottom_right
// CHECK: {end = #wave.expr<"$0 + 128">, end_dims = ["M"]}
func.func @bottom_right(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 200 : i64, K2 = 264 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= K2 - M">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %sum2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  wave.write %inv, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// Bottom-right causal with M > K2: the first rows see no key, nothing is skipped.
// CHECK-LABEL: func.func @bottom_right_past
// CHECK-NOT: end =
// CHECK: return
func.func @bottom_right_past(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 300 : i64, K2 = 264 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= K2 - M">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %x, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %sum2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  wave.write %inv, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// A sliding window (`m - k < 16`) beside the causal mask: the tiles past the diagonal
// stay hidden.
// CHECK-LABEL: func.func @sliding_window
// CHECK: {end = #wave.expr<"$0 + 64">, end_dims = ["M"]}
func.func @sliding_window(%s: !wave.memory<[M, K2] of f32, global>, %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 256 : i64, K2 = 256 : i64}} {
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r:2 = wave.iterate "K2" iter_args(%max0, %sum0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>):
    %x = wave.read %s : !wave.memory<[M, K2] of f32, global> -> !wave.tensor<[M, K2] of f32>
    %zero = wave.register 0.0 : !wave.tensor<[M, K2] of f32>
    %neg = wave.register -1.0e6 : !wave.tensor<[M, K2] of f32>
    %mi = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb = wave.broadcast %mi : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb = wave.broadcast %ki : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff = wave.sub %kb, %mb : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis = wave.apply_expr %diff {expr = #wave.expr<"$0 <= 0">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %cond = wave.cast %vis : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %mi_near = wave.self_index "M" : !wave.tensor<[M] of i64>
    %mb_near = wave.broadcast %mi_near : !wave.tensor<[M] of i64> to !wave.tensor<[M, K2] of i64>
    %ki_near = wave.self_index "K2" : !wave.tensor<[K2] of i64>
    %kb_near = wave.broadcast %ki_near : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
    %diff_near = wave.sub %mb_near, %kb_near : (!wave.tensor<[M, K2] of i64>, !wave.tensor<[M, K2] of i64>) -> !wave.tensor<[M, K2] of i64>
    %vis_near = wave.apply_expr %diff_near {expr = #wave.expr<"$0 < 16">} : !wave.tensor<[M, K2] of i64> -> !wave.tensor<[M, K2] of i64>
    %near = wave.cast %vis_near : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
    %mask = wave.select %cond, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %wmask = wave.select %near, %zero, %neg : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y0 = wave.add %x, %wmask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %y = wave.add %y0, %mask : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %y init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %ym = wave.sub %y, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %ym : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m, %sum2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  wave.write %inv, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}
