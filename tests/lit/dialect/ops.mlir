// Every op prints in the form it parses from.
// RUN: wave-opt %s | FileCheck %s
// RUN: wave-opt %s | wave-opt | FileCheck %s
// RUN: wave-opt %s > %t.once && wave-opt %t.once > %t.twice && diff %t.once %t.twice
// The generic form verifies the same way.
// RUN: wave-opt %s -mlir-print-op-generic | wave-opt | FileCheck %s

// CHECK-LABEL: func.func @memory
// CHECK-SAME: (%[[A:.*]]: !wave.memory<[M, K] of f16, global>, %[[C:.*]]: !wave.memory<[M, N] of f32, shared>)
func.func @memory(%a: !wave.memory<[M, K] of f16, global>, %c: !wave.memory<[M, N] of f32, shared>) {
  // CHECK: %[[RA:.*]] = wave.read %[[A]] : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
  %ra = wave.read %a : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
  // CHECK: wave.read %[[A]] {elements_per_thread = 8 : i64} : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
  %rb = wave.read %a {elements_per_thread = 8 : i64} : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
  %v = wave.register 1.0 : !wave.tensor<[N, M] of f32>
  // A write may take the memory's dims in another order.
  // CHECK: wave.write %{{.*}}, %[[C]] : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, shared>
  wave.write %v, %c : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, shared>
  // CHECK: wave.write %{{.*}}, %[[C]] {elements_per_thread = 4 : i64} : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, shared>
  wave.write %v, %c {elements_per_thread = 4 : i64} : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, shared>
  return
}

// CHECK-LABEL: func.func @allocate
func.func @allocate(%a: !wave.memory<[M, K] of f16, shared>) {
  // CHECK: %[[S:.*]] = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
  %s = wave.allocate {tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">], padding = 8} : !wave.memory<[M, K] of f16, shared>
  %g = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
  // CHECK: wave.write %{{.*}}, %[[S]]
  wave.write %g, %s : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, shared>
  // CHECK: wave.read %[[S]]
  %r = wave.read %s : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
  return
}

// CHECK-LABEL: func.func @tma_copy
func.func @tma_copy(%a: !wave.memory<[M, K] of f16, shared>) {
  // CHECK: %[[S:.*]] = wave.allocate {padding = 0 : i64, swizzle = 128 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
  %s = wave.allocate {tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">], padding = 0, swizzle = 128} : !wave.memory<[M, K] of f16, shared>
  // CHECK: wave.tma_copy %{{.*}}, %[[S]] : !wave.memory<[M, K] of f16, shared>, !wave.memory<[M, K] of f16, shared>
  wave.tma_copy %a, %s : !wave.memory<[M, K] of f16, shared>, !wave.memory<[M, K] of f16, shared>
  %r = wave.read %s : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
  return
}

// CHECK-LABEL: func.func @mapped
func.func @mapped(%x: !wave.memory<[N, C] of f16, global>, %y: !wave.memory<[C, N] of f16, global>) {
  // CHECK: %[[R:.*]] = wave.read %{{.*}} {elements_per_thread = 8 : i64, mapping = #wave.index_mapping<iterators = 2, inputs = {C = #wave.expr<"$1 mod C">, N = #wave.expr<"$0">}, outputs = {K = #wave.expr<"$1">, M = #wave.expr<"$0">}>} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  %r = wave.read %x {mapping = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1 mod C">}, outputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}>, elements_per_thread = 8 : i64} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  // CHECK: wave.write %[[R]], %{{.*}} {mapping = #wave.index_mapping<iterators = 2, inputs = {K = #wave.expr<"$1">, M = #wave.expr<"$0">}, outputs = {C = #wave.expr<"$1">, N = #wave.expr<"$0">}>} : !wave.tensor<[M, K] of f16>, !wave.memory<[C, N] of f16, global>
  wave.write %r, %y {mapping = #wave.index_mapping<iterators = 2, inputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}, outputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1">}>} : !wave.tensor<[M, K] of f16>, !wave.memory<[C, N] of f16, global>
  return
}

// CHECK-LABEL: func.func @dynamic_values
func.func @dynamic_values(%table: !wave.memory<[V, E] of f16, global>, %rows: !wave.tensor<[T] of i32>, %out: !wave.memory<[V, E] of f16, global>) {
  // CHECK: %[[G:.*]] = wave.read %{{.*}} dynamic(%{{.*}} : !wave.tensor<[T] of i32>) {mapping = #wave.index_mapping<iterators = 2, inputs = {E = #wave.expr<"$1">, V = #wave.expr<"$2">}, outputs = {E = #wave.expr<"$1">, T = #wave.expr<"$0">}, dynamic = 1>} : !wave.memory<[V, E] of f16, global> -> !wave.tensor<[T, E] of f16>
  %g = wave.read %table dynamic(%rows : !wave.tensor<[T] of i32>) {mapping = #wave.index_mapping<iterators = 2, inputs = {V = #wave.expr<"$2">, E = #wave.expr<"$1">}, outputs = {T = #wave.expr<"$0">, E = #wave.expr<"$1">}, dynamic = 1>} : !wave.memory<[V, E] of f16, global> -> !wave.tensor<[T, E] of f16>
  // CHECK: wave.write %[[G]], %{{.*}} dynamic(%{{.*}} : !wave.tensor<[T] of i32>) {mapping = #wave.index_mapping<iterators = 2, inputs = {E = #wave.expr<"$1">, T = #wave.expr<"$0">}, outputs = {E = #wave.expr<"$1">, V = #wave.expr<"($2 + 1) mod V">}, dynamic = 1>} : !wave.tensor<[T, E] of f16>, !wave.memory<[V, E] of f16, global>
  wave.write %g, %out dynamic(%rows : !wave.tensor<[T] of i32>) {mapping = #wave.index_mapping<iterators = 2, inputs = {T = #wave.expr<"$0">, E = #wave.expr<"$1">}, outputs = {V = #wave.expr<"($2 + 1) mod V">, E = #wave.expr<"$1">}, dynamic = 1>} : !wave.tensor<[T, E] of f16>, !wave.memory<[V, E] of f16, global>
  return
}

// CHECK-LABEL: func.func @math_and_comparisons
func.func @math_and_comparisons(%x: !wave.tensor<[M, N] of f32>, %y: !wave.tensor<[N] of f32>) -> !wave.tensor<[M, N] of i1> {
  // CHECK: wave.sin %{{.*}} : !wave.tensor<[M, N] of f32>
  %s = wave.sin %x : !wave.tensor<[M, N] of f32>
  // CHECK: wave.roundeven %{{.*}} : !wave.tensor<[M, N] of f32>
  %r = wave.roundeven %s : !wave.tensor<[M, N] of f32>
  // CHECK: wave.atan2 %{{.*}}, %{{.*}} : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[M, N] of f32>
  %a = wave.atan2 %r, %y : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[M, N] of f32>
  // CHECK: wave.ge %{{.*}}, %{{.*}} : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[M, N] of i1>
  %c = wave.ge %a, %y : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[M, N] of i1>
  return %c : !wave.tensor<[M, N] of i1>
}

// CHECK-LABEL: func.func @adds
func.func @adds(%v: !wave.tensor<[M, N] of f32>, %c: !wave.memory<[M, N] of f32, global>, %d: !wave.memory<[N] of i32, global>, %w: !wave.tensor<[M, N] of i32>) {
  // CHECK: wave.write %{{.*}}, %{{.*}} {combine = #wave.combine<add>} : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  wave.write %v, %c {combine = #wave.combine<add>} : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  // CHECK: wave.write %{{.*}}, %{{.*}} {combine = #wave.combine<min>} : !wave.tensor<[M, N] of f32>
  wave.write %v, %c {combine = #wave.combine<min>} : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  // CHECK: wave.write %{{.*}}, %{{.*}} {combine = #wave.combine<max>} : !wave.tensor<[M, N] of f32>
  wave.write %v, %c {combine = #wave.combine<max>} : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  // CHECK: wave.write %{{.*}}, %{{.*}} {combine = #wave.combine<add>, mapping = #wave.index_mapping<iterators = 2, inputs = {M = #wave.expr<"$0">, N = #wave.expr<"$1">}, outputs = {N = #wave.expr<"$1">}>}
  wave.write %w, %d {combine = #wave.combine<add>, mapping = #wave.index_mapping<iterators = 2, inputs = {M = #wave.expr<"$0">, N = #wave.expr<"$1">}, outputs = {N = #wave.expr<"$1">}>} : !wave.tensor<[M, N] of i32>, !wave.memory<[N] of i32, global>
  return
}

// CHECK-LABEL: func.func @gemm_loop
func.func @gemm_loop(%a: !wave.memory<[M, K] of f16, global>, %b: !wave.memory<[N, K] of f16, global>) -> !wave.tensor<[M, N] of f32> {
  // CHECK: %[[ZERO:.*]] = wave.register 0.000000e+00 : !wave.tensor<[M, N] of f32>
  %zero = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  // CHECK: %[[LOOP:.*]]:2 = wave.iterate "K" iter_args(%[[ZERO]], %[[ZERO]]) : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) {
  // CHECK-NEXT: ^bb0(%[[ACC:.*]]: !wave.tensor<[M, N] of f32>, %[[OTHER:.*]]: !wave.tensor<[M, N] of f32>):
  %r:2 = wave.iterate "K" iter_args(%zero, %zero) : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>, %other: !wave.tensor<[M, N] of f32>):
    %ra = wave.read %a : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
    %rb = wave.read %b : !wave.memory<[N, K] of f16, global> -> !wave.tensor<[N, K] of f16>
    // CHECK: %[[D:.*]] = wave.mma %{{.*}}, %{{.*}}, %[[ACC]] {kind = #wave.mma_kind<f32_16x8x16_f16>} : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    %d = wave.mma %ra, %rb, %acc {kind = #wave.mma_kind<f32_16x8x16_f16>} : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    // The kind is optional.
    // CHECK: wave.mma %{{.*}}, %{{.*}}, %[[OTHER]] : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    %e = wave.mma %ra, %rb, %other : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    // CHECK: wave.yield %[[D]], %{{.*}} : !wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>
    wave.yield %d, %e : !wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>
  }
  // CHECK: return %[[LOOP]]#0
  return %r#0 : !wave.tensor<[M, N] of f32>
}

// Batch dims lead the accumulator; the operands may hold their dims in any order.
// CHECK-LABEL: func.func @batched_mma
func.func @batched_mma(%q: !wave.tensor<[B, M, K1] of f16>, %k: !wave.tensor<[B, K2, K1] of f16>, %acc: !wave.tensor<[B, M, K2] of f32>) {
  // CHECK: wave.mma %{{.*}}, %{{.*}}, %{{.*}} : (!wave.tensor<[B, M, K1] of f16>, !wave.tensor<[B, K2, K1] of f16>, !wave.tensor<[B, M, K2] of f32>) -> !wave.tensor<[B, M, K2] of f32>
  %s = wave.mma %q, %k, %acc : (!wave.tensor<[B, M, K1] of f16>, !wave.tensor<[B, K2, K1] of f16>, !wave.tensor<[B, M, K2] of f32>) -> !wave.tensor<[B, M, K2] of f32>
  return
}

// A loop with no carried values.
// CHECK-LABEL: func.func @empty_loop
func.func @empty_loop() {
  // CHECK: wave.iterate "K" iter_args() : () -> () {
  // CHECK-NEXT: wave.yield
  wave.iterate "K" iter_args() : () -> () {
    wave.yield
  }
  return
}

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: !wave.tensor<[M, N] of f32>, %row: !wave.tensor<[M] of f32>, %s: !wave.tensor<[] of f32>, %i: !wave.tensor<[M] of i32>) {
  // CHECK: wave.add %{{.*}}, %{{.*}} : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  %add = wave.add %x, %x : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  // The operand with fewer dims is broadcast, on either side.
  // CHECK: wave.sub %{{.*}}, %{{.*}} : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, N] of f32>
  %sub = wave.sub %x, %row : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, N] of f32>
  // CHECK: wave.mul %{{.*}}, %{{.*}} : (!wave.tensor<[M] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  %mul = wave.mul %row, %x : (!wave.tensor<[M] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  // CHECK: wave.div %{{.*}}, %{{.*}} : (!wave.tensor<[M, N] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[M, N] of f32>
  %div = wave.div %x, %s : (!wave.tensor<[M, N] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[M, N] of f32>
  // Equal dim sets in another order: the result is the lhs's type.
  // CHECK: wave.maximum %{{.*}}, %{{.*}} : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[M, N] of f32>
  %t = wave.permute %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, M] of f32>
  %max = wave.maximum %x, %t : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[M, N] of f32>
  // CHECK: wave.minimum %{{.*}}, %{{.*}} : (!wave.tensor<[M] of i32>, !wave.tensor<[M] of i32>) -> !wave.tensor<[M] of i32>
  %min = wave.minimum %i, %i : (!wave.tensor<[M] of i32>, !wave.tensor<[M] of i32>) -> !wave.tensor<[M] of i32>
  // CHECK: wave.neg %{{.*}} : !wave.tensor<[M, N] of f32>
  %neg = wave.neg %x : !wave.tensor<[M, N] of f32>
  // CHECK: wave.neg %{{.*}} : !wave.tensor<[M] of i32>
  %negi = wave.neg %i : !wave.tensor<[M] of i32>
  // CHECK: wave.abs %{{.*}} : !wave.tensor<[M] of i32>
  %absi = wave.abs %i : !wave.tensor<[M] of i32>
  // CHECK: wave.abs %{{.*}} : !wave.tensor<[M, N] of f32>
  %abs = wave.abs %x : !wave.tensor<[M, N] of f32>
  // CHECK: wave.exp2 %{{.*}} : !wave.tensor<[M, N] of f32>
  %exp2 = wave.exp2 %x : !wave.tensor<[M, N] of f32>
  // CHECK: wave.log2 %{{.*}} : !wave.tensor<[M, N] of f32>
  %log2 = wave.log2 %x : !wave.tensor<[M, N] of f32>
  // CHECK: wave.reciprocal %{{.*}} : !wave.tensor<[M] of f32>
  %rcp = wave.reciprocal %row : !wave.tensor<[M] of f32>
  // CHECK: wave.sqrt %{{.*}} : !wave.tensor<[] of f32>
  %sqrt = wave.sqrt %s : !wave.tensor<[] of f32>
  // CHECK: wave.rsqrt %{{.*}} : !wave.tensor<[M, N] of f32>
  %rsqrt = wave.rsqrt %x : !wave.tensor<[M, N] of f32>
  // CHECK: wave.tanh %{{.*}} : !wave.tensor<[M, N] of f32>
  %tanh = wave.tanh %x : !wave.tensor<[M, N] of f32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: !wave.tensor<[B, M, K2] of f32>, %init: !wave.tensor<[B, K2] of f32>) {
  // CHECK: wave.reduce_max %{{.*}} along "K2" : (!wave.tensor<[B, M, K2] of f32>) -> !wave.tensor<[B, M] of f32>
  %max = wave.reduce_max %x along "K2" : (!wave.tensor<[B, M, K2] of f32>) -> !wave.tensor<[B, M] of f32>
  // The result keeps the remaining dims in order.
  // CHECK: wave.reduce_sum %{{.*}} init(%{{.*}}) along "M" : (!wave.tensor<[B, M, K2] of f32>, !wave.tensor<[B, K2] of f32>) -> !wave.tensor<[B, K2] of f32>
  %sum = wave.reduce_sum %x init(%init) along "M" : (!wave.tensor<[B, M, K2] of f32>, !wave.tensor<[B, K2] of f32>) -> !wave.tensor<[B, K2] of f32>
  // CHECK: wave.reduce_max %{{.*}} init(%{{.*}}) along "M" : (!wave.tensor<[B, M, K2] of f32>, !wave.tensor<[B, K2] of f32>) -> !wave.tensor<[B, K2] of f32>
  %max2 = wave.reduce_max %x init(%init) along "M" : (!wave.tensor<[B, M, K2] of f32>, !wave.tensor<[B, K2] of f32>) -> !wave.tensor<[B, K2] of f32>
  // A reduction to a scalar.
  // CHECK: wave.reduce_sum %{{.*}} along "M" : (!wave.tensor<[M] of f32>) -> !wave.tensor<[] of f32>
  %row = wave.reduce_max %max along "B" : (!wave.tensor<[B, M] of f32>) -> !wave.tensor<[M] of f32>
  %total = wave.reduce_sum %row along "M" : (!wave.tensor<[M] of f32>) -> !wave.tensor<[] of f32>
  // CHECK: wave.reduce_min %{{.*}} init(%{{.*}}) along "M" : (!wave.tensor<[B, M, K2] of f32>, !wave.tensor<[B, K2] of f32>) -> !wave.tensor<[B, K2] of f32>
  %min = wave.reduce_min %x init(%init) along "M" : (!wave.tensor<[B, M, K2] of f32>, !wave.tensor<[B, K2] of f32>) -> !wave.tensor<[B, K2] of f32>
  // CHECK: wave.cumsum %{{.*}} along "K2" : !wave.tensor<[B, M, K2] of f32>
  %running = wave.cumsum %x along "K2" : !wave.tensor<[B, M, K2] of f32>
  return
}

// CHECK-LABEL: func.func @pairs_and_picks
func.func @pairs_and_picks(%x: !wave.tensor<[M, N] of f16>, %at: !wave.tensor<[M] of i32>) {
  // CHECK: wave.shuffle %{{.*}} xor 1 along "N" : !wave.tensor<[M, N] of f16>
  %swapped = wave.shuffle %x xor 1 along "N" : !wave.tensor<[M, N] of f16>
  // CHECK: wave.extract %{{.*}} at %{{.*}} along "N" : (!wave.tensor<[M, N] of f16>, !wave.tensor<[M] of i32>) -> !wave.tensor<[M] of f16>
  %picked = wave.extract %swapped at %at along "N" : (!wave.tensor<[M, N] of f16>, !wave.tensor<[M] of i32>) -> !wave.tensor<[M] of f16>
  // CHECK: wave.workgroup_barrier
  wave.workgroup_barrier
  // CHECK: wave.set_wave_prio 2
  wave.set_wave_prio 2
  return
}

// CHECK-LABEL: func.func @windows_and_regroups
func.func @windows_and_regroups(%x: !wave.tensor<[T, N] of f16>, %at: !wave.tensor<[T, W] of i32>) {
  // CHECK: wave.extract_slice %{{.*}} at %{{.*}} along "N" step 2 : (!wave.tensor<[T, N] of f16>, !wave.tensor<[T, W] of i32>) -> !wave.tensor<[T, W] of f16>
  %w = wave.extract_slice %x at %at along "N" step 2 : (!wave.tensor<[T, N] of f16>, !wave.tensor<[T, W] of i32>) -> !wave.tensor<[T, W] of f16>
  // CHECK: wave.reshape %{{.*}} : !wave.tensor<[T, N] of f16> -> !wave.tensor<[T, H, D] of f16>
  %h = wave.reshape %x : !wave.tensor<[T, N] of f16> -> !wave.tensor<[T, H, D] of f16>
  return
}

// CHECK-LABEL: func.func @conditionals
func.func @conditionals(%ok: !wave.tensor<[B] of i1>, %x: !wave.tensor<[B, N] of f32>, %out: !wave.memory<[B, N] of f32, global>) {
  // CHECK: wave.conditional %{{.*}} else() : (!wave.tensor<[B] of i1>) -> () {
  // CHECK: wave.write
  // CHECK: wave.yield
  wave.conditional %ok else() : (!wave.tensor<[B] of i1>) -> () {
    wave.write %x, %out : !wave.tensor<[B, N] of f32>, !wave.memory<[B, N] of f32, global>
    wave.yield
  }
  // CHECK: %{{.*}} = wave.conditional %{{.*}} else(%{{.*}}) : (!wave.tensor<[B] of i1>, !wave.tensor<[B, N] of f32>) -> !wave.tensor<[B, N] of f32> {
  %r = wave.conditional %ok else(%x) : (!wave.tensor<[B] of i1>, !wave.tensor<[B, N] of f32>) -> !wave.tensor<[B, N] of f32> {
    %y = wave.exp2 %x : !wave.tensor<[B, N] of f32>
    // CHECK: wave.yield %{{.*}} : !wave.tensor<[B, N] of f32>
    wave.yield %y : !wave.tensor<[B, N] of f32>
  }
  return
}

// CHECK-LABEL: func.func @set_symbol
func.func @set_symbol(%lens: !wave.memory<[B] of i32, global>, %x: !wave.memory<[B, N] of f16, global>) {
  %len = wave.read %lens : !wave.memory<[B] of i32, global> -> !wave.tensor<[B] of i32>
  // CHECK: wave.set_symbol "N" = %{{.*}} : !wave.tensor<[B] of i32>
  wave.set_symbol "N" = %len : !wave.tensor<[B] of i32>
  %v = wave.read %x : !wave.memory<[B, N] of f16, global> -> !wave.tensor<[B, N] of f16>
  return
}

// CHECK-LABEL: func.func @shapes_and_types
func.func @shapes_and_types(%x: !wave.tensor<[M, N] of f32>) {
  // CHECK: wave.bitcast %{{.*}} : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of i32>
  %bits = wave.bitcast %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of i32>
  // CHECK: wave.tanh_approx %{{.*}} : !wave.tensor<[M, N] of f32>
  %t = wave.tanh_approx %x : !wave.tensor<[M, N] of f32>
  // CHECK: wave.cast %{{.*}} : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of f16>
  %h = wave.cast %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of f16>
  // CHECK: wave.cast %{{.*}} : !wave.tensor<[M, N] of f16> to !wave.tensor<[M, N] of i8>
  %q = wave.cast %h : !wave.tensor<[M, N] of f16> to !wave.tensor<[M, N] of i8>
  // CHECK: wave.permute %{{.*}} : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, M] of f32>
  %p = wave.permute %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, M] of f32>
  // CHECK: wave.broadcast %{{.*}} : !wave.tensor<[M, N] of f32> to !wave.tensor<[B, N, M] of f32>
  %b = wave.broadcast %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[B, N, M] of f32>
  return
}

// Masking a tile: an index, compared with a bound, selects between two values.
// CHECK-LABEL: func.func @masking
func.func @masking(%x: !wave.tensor<[M, N] of f32>) {
  // CHECK: %[[IDX:.*]] = wave.self_index "N" : !wave.tensor<[N] of i64>
  %idx = wave.self_index "N" : !wave.tensor<[N] of i64>
  // CHECK: %[[LT:.*]] = wave.apply_expr %[[IDX]] {expr = #wave.expr<"$0 < N">} : !wave.tensor<[N] of i64> -> !wave.tensor<[N] of i1>
  %lt = wave.apply_expr %idx {expr = #wave.expr<"$0 < N">} : !wave.tensor<[N] of i64> -> !wave.tensor<[N] of i1>
  // CHECK: wave.apply_expr %[[IDX]] {expr = #wave.expr<"$0 * 4 + BLOCK_N">} : !wave.tensor<[N] of i64> -> !wave.tensor<[N] of i64>
  %off = wave.apply_expr %idx {expr = #wave.expr<"$0 * 4 + BLOCK_N">} : !wave.tensor<[N] of i64> -> !wave.tensor<[N] of i64>
  %zero = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  // The condition is broadcast to the choices' dims.
  // CHECK: wave.select %[[LT]], %{{.*}}, %{{.*}} : (!wave.tensor<[N] of i1>, !wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  %sel = wave.select %lt, %x, %zero : (!wave.tensor<[N] of i1>, !wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// Printing, all of a value or where a mask holds.
// CHECK-LABEL: func.func @printing
func.func @printing(%x: !wave.tensor<[M, N] of f32>, %m: !wave.tensor<[M, N] of i1>) {
  // CHECK: wave.print %{{.*}} "x" {limit = 64 : i64} : !wave.tensor<[M, N] of f32>
  wave.print %x "x" {limit = 64 : i64} : !wave.tensor<[M, N] of f32>
  // CHECK: wave.print %{{.*}} where %{{.*}} "x where m" {limit = 8 : i64} : !wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of i1>
  wave.print %x where %m "x where m" {limit = 8 : i64} : !wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of i1>
  return
}
