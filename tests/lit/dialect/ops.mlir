// Every op, type and attribute prints in the form it parses from.
// RUN: wave-opt %s | FileCheck %s
// RUN: wave-opt %s | wave-opt | FileCheck %s

// CHECK-LABEL: func.func @all_ops
// CHECK-SAME: (%[[A:.*]]: !wave.memory<[M, K] of f16, global>, %[[B:.*]]: !wave.memory<[K, N] of bf16, SPACE>, %[[C:.*]]: !wave.memory<[M, N] of f32, shared>)
func.func @all_ops(%a: !wave.memory<[M, K] of f16, global>, %b: !wave.memory<[K, N] of bf16, SPACE>,
                   %c: !wave.memory<[M, N] of f32, shared>) {
  // CHECK: %[[ZERO:.*]] = wave.register 0.000000e+00 : !wave.tensor<[M, N] of f32>
  %zero = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  // CHECK: wave.register 3 : !wave.tensor<[] of i32>
  %three = wave.register 3 : !wave.tensor<[] of i32>
  // CHECK: wave.register 2.500000e+00 : !wave.tensor<[] of f16>
  %half = wave.register 2.5 : !wave.tensor<[] of f16>
  // CHECK: %[[R:.*]]:2 = wave.iterate "K" iter_args(%[[ZERO]], %[[ZERO]]) : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>)
  %r:2 = wave.iterate "K" iter_args(%zero, %zero) : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>, %other: !wave.tensor<[M, N] of f32>):
    // CHECK: wave.read %[[A]] {elements_per_thread = 8 : i64} : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
    %ra = wave.read %a {elements_per_thread = 8 : i64} : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
    %rb = wave.read %b : !wave.memory<[K, N] of bf16, SPACE> -> !wave.tensor<[K, N] of bf16>
    %rbf = wave.cast %rb : !wave.tensor<[K, N] of bf16> to !wave.tensor<[K, N] of f16>
    // CHECK: wave.mma %{{.*}}, %{{.*}}, %{{.*}} {kind = #wave.mma_kind<f32_16x8x16_f16>} : (!wave.tensor<[M, K] of f16>, !wave.tensor<[K, N] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    %d = wave.mma %ra, %rbf, %acc {kind = #wave.mma_kind<f32_16x8x16_f16>} : (!wave.tensor<[M, K] of f16>, !wave.tensor<[K, N] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    // CHECK: wave.yield %{{.*}}, %{{.*}} : !wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>
    wave.yield %d, %other : !wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>
  }
  // CHECK: wave.reduce_max %[[R]]#0 along "N" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M] of f32>
  %rowmax = wave.reduce_max %r#0 along "N" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M] of f32>
  // CHECK: wave.reduce_sum %[[R]]#1 init(%{{.*}}) along "N"
  %rowsum = wave.reduce_sum %r#1 init(%rowmax) along "N" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  // CHECK: wave.sub %[[R]]#0, %{{.*}} : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, N] of f32>
  %centered = wave.sub %r#0, %rowmax : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, N] of f32>
  %e = wave.exp2 %centered : !wave.tensor<[M, N] of f32>
  %l = wave.log2 %e : !wave.tensor<[M, N] of f32>
  %rc = wave.reciprocal %rowsum : !wave.tensor<[M] of f32>
  %s = wave.sqrt %e : !wave.tensor<[M, N] of f32>
  %rs = wave.rsqrt %s : !wave.tensor<[M, N] of f32>
  %t = wave.tanh %rs : !wave.tensor<[M, N] of f32>
  %ab = wave.abs %t : !wave.tensor<[M, N] of f32>
  %ng = wave.neg %ab : !wave.tensor<[M, N] of f32>
  %ni = wave.neg %three : !wave.tensor<[] of i32>
  // CHECK: wave.mul %{{.*}}, %{{.*}} : (!wave.tensor<[M] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  %scaled = wave.mul %rc, %ng : (!wave.tensor<[M] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  %sum = wave.add %scaled, %l : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  %q = wave.div %sum, %l : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  %mx = wave.maximum %q, %sum : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  %mn = wave.minimum %mx, %q : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  // CHECK: wave.permute %{{.*}} : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, M] of f32>
  %p = wave.permute %mn : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, M] of f32>
  // CHECK: wave.self_index "N" : !wave.tensor<[N] of i64>
  %idx = wave.self_index "N" : !wave.tensor<[N] of i64>
  // CHECK: wave.apply_expr %{{.*}} {expr = #wave.expr<"$0 < N">} : !wave.tensor<[N] of i64> -> !wave.tensor<[N] of i64>
  %lt = wave.apply_expr %idx {expr = #wave.expr<"$0 < N">} : !wave.tensor<[N] of i64> -> !wave.tensor<[N] of i64>
  // CHECK: wave.broadcast %{{.*}} : !wave.tensor<[N] of i64> to !wave.tensor<[N, M] of i64>
  %bl = wave.broadcast %lt : !wave.tensor<[N] of i64> to !wave.tensor<[N, M] of i64>
  %mask = wave.cast %bl : !wave.tensor<[N, M] of i64> to !wave.tensor<[N, M] of i1>
  // CHECK: wave.select %{{.*}}, %{{.*}}, %{{.*}} : (!wave.tensor<[N, M] of i1>, !wave.tensor<[N, M] of f32>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[N, M] of f32>
  %sel = wave.select %mask, %p, %p : (!wave.tensor<[N, M] of i1>, !wave.tensor<[N, M] of f32>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[N, M] of f32>
  // CHECK: wave.write %{{.*}}, %[[C]] : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, shared>
  wave.write %sel, %c : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, shared>
  return
}

// CHECK-LABEL: func.func @mapped
func.func @mapped(%x: !wave.memory<[N, C] of f16, global>, %y: !wave.memory<[C, N] of f16, global>) {
  // CHECK: wave.read %{{.*}} {mapping = #wave.index_mapping<iterators = 2, inputs = {C = #wave.expr<"$1 mod C">, N = #wave.expr<"$0">}, outputs = {K = #wave.expr<"$1">, M = #wave.expr<"$0">}>}
  %r = wave.read %x {mapping = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1 mod C">}, outputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}>} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  // CHECK: wave.write %{{.*}} {mapping = #wave.index_mapping<iterators = 2
  wave.write %r, %y {mapping = #wave.index_mapping<iterators = 2, inputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}, outputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1">}>} : !wave.tensor<[M, K] of f16>, !wave.memory<[C, N] of f16, global>
  return
}

// CHECK-LABEL: func.func @kernel_attributes
// CHECK-SAME: wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>, #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>, #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>, #wave.hardware_constraint<threads_per_wave = 64, waves_per_block = [2, 2, 1], mma = #wave.mma_kind<f32_32x32x8_f16>, vector_shapes = {B = 0 : i64}>, #wave.assumption<#wave.expr<"K > BLOCK_K * 4">>]
// CHECK-SAME: wave.hyperparameters = {BLOCK_M = 128 : i64}
func.func @kernel_attributes() attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.hardware_constraint<threads_per_wave = 64, waves_per_block = [2, 2, 1], mma = #wave.mma_kind<f32_32x32x8_f16>, vector_shapes = {B = 0 : i64}>,
                        #wave.assumption<#wave.expr<"K > BLOCK_K * 4">>],
    wave.hyperparameters = {BLOCK_M = 128 : i64}} {
  return
}
