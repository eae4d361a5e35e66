// Each op verifier rule, broken once.
// RUN: wave-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// wave.register
//===----------------------------------------------------------------------===//

func.func @register_float_for_int() {
  // expected-error @+1 {{expected an integer for elements of type 'i32', but found 1.5}}
  %r = wave.register 1.5 : !wave.tensor<[M] of i32>
  return
}

// -----

func.func @register_bool_for_int() {
  // expected-error @+1 {{expected an integer for elements of type 'i32', but found true}}
  %r = wave.register true : !wave.tensor<[M] of i32>
  return
}

// -----

func.func @register_out_of_range() {
  // expected-error @+1 {{expected a constant that fits in 'i8', but found 256}}
  %r = wave.register 256 : !wave.tensor<[M] of i8>
  return
}

// -----

func.func @register_bits() {
  // expected-error @+1 {{expected the 16 bits of a 'f16', but found 0xFF800000}}
  %r = wave.register 0xFF800000 : !wave.tensor<[M] of f16>
  return
}

// -----

func.func @register_constant_type() {
  // expected-error @+1 {{expected a constant of element type 'f32', but found 'f16'}}
  %r = "wave.register"() {value = 1.0 : f16} : () -> !wave.tensor<[M] of f32>
  return
}

//===----------------------------------------------------------------------===//
// wave.allocate
//===----------------------------------------------------------------------===//

// -----

func.func @allocate_global() {
  // expected-error @+1 {{expected memory in the shared address space, but found "global"}}
  %s = wave.allocate {tile = [#wave.expr<"64">], padding = 8} : !wave.memory<[M] of f16, global>
  return
}

// -----

func.func @allocate_rank() {
  // expected-error @+1 {{expected one tile extent per dim (2), but found 1}}
  %s = wave.allocate {tile = [#wave.expr<"64">], padding = 8} : !wave.memory<[M, K] of f16, shared>
  return
}

// -----

func.func @allocate_extent() {
  // expected-error @+1 {{expected tile extents over symbols only, but found #wave.expr<"K > 4">}}
  %s = wave.allocate {tile = [#wave.expr<"K > 4">], padding = 0} : !wave.memory<[M] of f16, shared>
  return
}

// -----

func.func @allocate_padding() {
  // expected-error @+1 {{expected a padding of 0 or more elements, but found -8}}
  %s = wave.allocate {tile = [#wave.expr<"64">], padding = -8} : !wave.memory<[M] of f16, shared>
  return
}

//===----------------------------------------------------------------------===//
// wave.tma_copy
//===----------------------------------------------------------------------===//

// -----

func.func @tma_copy_from_tile() {
  %t = wave.allocate {tile = [#wave.expr<"64">, #wave.expr<"64">], padding = 0, swizzle = 128} : !wave.memory<[M, K] of f16, shared>
  %s = wave.allocate {tile = [#wave.expr<"64">, #wave.expr<"64">], padding = 0, swizzle = 128} : !wave.memory<[M, K] of f16, shared>
  // expected-error @+1 {{expected a kernel argument (global memory) as the source}}
  wave.tma_copy %t, %s : !wave.memory<[M, K] of f16, shared>, !wave.memory<[M, K] of f16, shared>
  return
}

// -----

func.func @tma_copy_dims(%a: !wave.memory<[M, K] of f16, shared>) {
  %s = wave.allocate {tile = [#wave.expr<"64">, #wave.expr<"64">], padding = 0, swizzle = 128} : !wave.memory<[K, M] of f16, shared>
  // expected-error @+1 {{expected a tile of the source's dims [M, K], in order, but found [K, M]}}
  wave.tma_copy %a, %s : !wave.memory<[M, K] of f16, shared>, !wave.memory<[K, M] of f16, shared>
  return
}

// -----

func.func @tma_copy_element(%a: !wave.memory<[M, K] of f16, shared>) {
  %s = wave.allocate {tile = [#wave.expr<"64">, #wave.expr<"64">], padding = 0, swizzle = 128} : !wave.memory<[M, K] of bf16, shared>
  // expected-error @+1 {{expected a tile of element type 'f16', but found 'bf16'}}
  wave.tma_copy %a, %s : !wave.memory<[M, K] of f16, shared>, !wave.memory<[M, K] of bf16, shared>
  return
}

// -----

func.func @tma_copy_unswizzled(%a: !wave.memory<[M, K] of f16, shared>) {
  %s = wave.allocate {tile = [#wave.expr<"64">, #wave.expr<"64">], padding = 8} : !wave.memory<[M, K] of f16, shared>
  // expected-error @+1 {{expected a swizzled wave.allocate as the tile}}
  wave.tma_copy %a, %s : !wave.memory<[M, K] of f16, shared>, !wave.memory<[M, K] of f16, shared>
  return
}

//===----------------------------------------------------------------------===//
// wave.read and wave.write
//===----------------------------------------------------------------------===//

// -----

func.func @read_dims(%a: !wave.memory<[M, K] of f16, global>) {
  // expected-error @+1 {{expected the memory's dims [M, K] (in any order), but found [N, M]}}
  %r = wave.read %a : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[N, M] of f16>
  return
}

// -----

func.func @read_element_type(%a: !wave.memory<[M] of f16, global>) {
  // expected-error @+1 {{expected a result of element type 'f16', but found 'f32'}}
  %r = wave.read %a : !wave.memory<[M] of f16, global> -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @read_mapping_iterators(%a: !wave.memory<[N, C] of f16, global>) {
  // expected-error @+1 {{expected one mapping iterator per register dim (2), but found 1}}
  %r = wave.read %a {mapping = #wave.index_mapping<iterators = 1, inputs = {N = #wave.expr<"$0">, C = #wave.expr<"$0">}, outputs = {M = #wave.expr<"$0">, K = #wave.expr<"$0">}>} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  return
}

// -----

func.func @read_mapping_outputs(%a: !wave.memory<[N, C] of f16, global>) {
  // expected-error @+1 {{expected the mapping's outputs to be the register dims [M, K], but found [M, Q]}}
  %r = wave.read %a {mapping = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1">}, outputs = {M = #wave.expr<"$0">, Q = #wave.expr<"$1">}>} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  return
}

// -----

func.func @read_mapping_inputs(%a: !wave.memory<[N, C] of f16, global>) {
  // expected-error @+1 {{expected the mapping's inputs to be the memory dims [N, C], but found [N]}}
  %r = wave.read %a {mapping = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0">}, outputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}>} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  return
}

// -----

func.func @write_dims(%v: !wave.tensor<[M, K] of f32>, %c: !wave.memory<[M, N] of f32, global>) {
  // expected-error @+1 {{expected a value with the memory's dims [M, N] (in any order), but found [M, K]}}
  wave.write %v, %c : !wave.tensor<[M, K] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

func.func @compare_result(%x: !wave.tensor<[M] of f32>, %y: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected an i1 result with the dims [M], but found '!wave.tensor<[M] of f32>'}}
  %c = wave.lt %x, %y : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @sin_of_integers(%x: !wave.tensor<[M] of i32>) {
  // expected-error @+1 {{expected a float element type, but found 'i32'}}
  %s = wave.sin %x : !wave.tensor<[M] of i32>
  return
}

// -----

func.func @add_element_type(%v: !wave.tensor<[M] of f8E4M3FN>, %c: !wave.memory<[M] of f8E4M3FN, global>) {
  // expected-error @+1 {{expected f16, bf16, f32, f64, i32 or i64 elements to add to memory atomically, but found 'f8E4M3FN'}}
  wave.write %v, %c {combine = #wave.combine<add>} : !wave.tensor<[M] of f8E4M3FN>, !wave.memory<[M] of f8E4M3FN, global>
  return
}

// -----

func.func @add_to_shared(%v: !wave.tensor<[M] of f32>, %c: !wave.memory<[M] of f32, shared>) {
  // expected-error @+1 {{expected global memory to combine with atomically (add), but found a shared tile}}
  wave.write %v, %c {combine = #wave.combine<add>} : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, shared>
  return
}

// -----

func.func @min_element_type(%v: !wave.tensor<[M] of f16>, %c: !wave.memory<[M] of f16, global>) {
  // expected-error @+1 {{expected f32, f64, i32 or i64 elements to combine by min atomically, but found 'f16'}}
  wave.write %v, %c {combine = #wave.combine<min>} : !wave.tensor<[M] of f16>, !wave.memory<[M] of f16, global>
  return
}

// -----

func.func @max_to_shared(%v: !wave.tensor<[M] of i32>, %c: !wave.memory<[M] of i32, shared>) {
  // expected-error @+1 {{expected global memory to combine with atomically (max), but found a shared tile}}
  wave.write %v, %c {combine = #wave.combine<max>} : !wave.tensor<[M] of i32>, !wave.memory<[M] of i32, shared>
  return
}

// -----

func.func @write_element_type(%v: !wave.tensor<[M] of f32>, %c: !wave.memory<[M] of f16, global>) {
  // expected-error @+1 {{expected a value of element type 'f16', but found 'f32'}}
  wave.write %v, %c : !wave.tensor<[M] of f32>, !wave.memory<[M] of f16, global>
  return
}

// -----

func.func @write_mapping_iterators(%v: !wave.tensor<[M, K] of f16>, %c: !wave.memory<[N, C] of f16, global>) {
  // expected-error @+1 {{expected one mapping iterator per register dim (2), but found 3}}
  wave.write %v, %c {mapping = #wave.index_mapping<iterators = 3, inputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}, outputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1">}>} : !wave.tensor<[M, K] of f16>, !wave.memory<[N, C] of f16, global>
  return
}

// -----

func.func @write_mapping_inputs(%v: !wave.tensor<[M, K] of f16>, %c: !wave.memory<[N, C] of f16, global>) {
  // expected-error @+1 {{expected the mapping's inputs to be the register dims [M, K], but found [C, N]}}
  wave.write %v, %c {mapping = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1">}, outputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}>} : !wave.tensor<[M, K] of f16>, !wave.memory<[N, C] of f16, global>
  return
}

// -----

func.func @write_mapping_outputs(%v: !wave.tensor<[M, K] of f16>, %c: !wave.memory<[N, C] of f16, global>) {
  // expected-error @+1 {{expected the mapping's outputs to be the memory dims [N, C], but found [C]}}
  wave.write %v, %c {mapping = #wave.index_mapping<iterators = 2, inputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}, outputs = {C = #wave.expr<"$1">}>} : !wave.tensor<[M, K] of f16>, !wave.memory<[N, C] of f16, global>
  return
}

//===----------------------------------------------------------------------===//
// wave.iterate and wave.yield
//===----------------------------------------------------------------------===//

// -----

func.func @iterate_block_arguments(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected block arguments of the iter_args' types ('!wave.tensor<[M] of f32>'), but found ('!wave.tensor<[N] of f32>')}}
  %r = wave.iterate "K" iter_args(%x) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%a: !wave.tensor<[N] of f32>):
    wave.yield %x : !wave.tensor<[M] of f32>
  }
  return
}

// -----

func.func @iterate_results(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected results of the iter_args' types ('!wave.tensor<[M] of f32>'), but found ('!wave.tensor<[M] of f16>')}}
  %r = wave.iterate "K" iter_args(%x) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f16> {
  ^bb0(%a: !wave.tensor<[M] of f32>):
    wave.yield %a : !wave.tensor<[M] of f32>
  }
  return
}

// -----

func.func @iterate_yield(%x: !wave.tensor<[M] of f32>, %y: !wave.tensor<[N] of f32>) {
  %r = wave.iterate "K" iter_args(%x) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%a: !wave.tensor<[M] of f32>):
    // expected-error @+1 {{expected to yield the iter_args' types ('!wave.tensor<[M] of f32>'), but found ('!wave.tensor<[N] of f32>')}}
    wave.yield %y : !wave.tensor<[N] of f32>
  }
  return
}

// -----

func.func @iterate_carries_its_dim(%x: !wave.tensor<[M, K] of f32>) {
  // expected-error @+1 {{expected carried values without K, the dim it walks (each trip holds another tile of it), but carried value #0 is '!wave.tensor<[M, K] of f32>'}}
  %r = wave.iterate "K" iter_args(%x) : (!wave.tensor<[M, K] of f32>) -> !wave.tensor<[M, K] of f32> {
  ^bb0(%a: !wave.tensor<[M, K] of f32>):
    wave.yield %a : !wave.tensor<[M, K] of f32>
  }
  return
}

// -----

func.func @yield_outside_iterate(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expects parent op to be one of 'wave.iterate, wave.conditional'}}
  wave.yield %x : !wave.tensor<[M] of f32>
}

//===----------------------------------------------------------------------===//
// wave.mma
//===----------------------------------------------------------------------===//

// -----

func.func @mma_result(%a: !wave.tensor<[M, K] of f16>, %b: !wave.tensor<[N, K] of f16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected the result to have the accumulator's type '!wave.tensor<[M, N] of f32>', but found '!wave.tensor<[N, M] of f32>'}}
  %d = wave.mma %a, %b, %c : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[N, M] of f32>
  return
}

// -----

func.func @mma_accumulator_rank(%a: !wave.tensor<[M, K] of f16>, %b: !wave.tensor<[M, K] of f16>, %c: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected an accumulator with at least two dims [..., M, N], but found [M]}}
  %d = wave.mma %a, %b, %c : (!wave.tensor<[M, K] of f16>, !wave.tensor<[M, K] of f16>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @mma_no_contraction(%a: !wave.tensor<[M, K] of f16>, %b: !wave.tensor<[N, K2] of f16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected lhs and rhs to share exactly one contraction dim that the accumulator lacks, but found [] in lhs [M, K] and rhs [N, K2]}}
  %d = wave.mma %a, %b, %c : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K2] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @mma_two_contractions(%a: !wave.tensor<[M, K, L] of f16>, %b: !wave.tensor<[N, K, L] of f16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{but found [K, L] in lhs [M, K, L] and rhs [N, K, L]}}
  %d = wave.mma %a, %b, %c : (!wave.tensor<[M, K, L] of f16>, !wave.tensor<[N, K, L] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @mma_rows(%a: !wave.tensor<[P, K] of f16>, %b: !wave.tensor<[N, K] of f16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected lhs to hold the accumulator's dim M, but found [P, K]}}
  %d = wave.mma %a, %b, %c : (!wave.tensor<[P, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @mma_columns(%a: !wave.tensor<[M, K] of f16>, %b: !wave.tensor<[M, K] of f16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected rhs to hold the accumulator's dim N, but found [M, K]}}
  %d = wave.mma %a, %b, %c : (!wave.tensor<[M, K] of f16>, !wave.tensor<[M, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @mma_stray_dim(%a: !wave.tensor<[M, K, X] of f16>, %b: !wave.tensor<[N, K] of f16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected every operand dim to be the contraction dim K or an accumulator dim, but found X}}
  %d = wave.mma %a, %b, %c : (!wave.tensor<[M, K, X] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @mma_operand_types(%a: !wave.tensor<[M, K] of f16>, %b: !wave.tensor<[N, K] of bf16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected rhs of element type 'f16', but found 'bf16'}}
  %d = wave.mma %a, %b, %c : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of bf16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @mma_kind(%a: !wave.tensor<[M, K] of bf16>, %b: !wave.tensor<[N, K] of bf16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected operands of 'f16' and an accumulator of 'f32' for #wave.mma_kind<f32_16x8x16_f16>, but found 'bf16' and 'f32'}}
  %d = wave.mma %a, %b, %c {kind = #wave.mma_kind<f32_16x8x16_f16>} : (!wave.tensor<[M, K] of bf16>, !wave.tensor<[N, K] of bf16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @mma_kind_accumulator(%a: !wave.tensor<[M, K] of f16>, %b: !wave.tensor<[N, K] of f16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected operands of 'f16' and an accumulator of 'f16' for #wave.mma_kind<f16_16x8x16_f16>, but found 'f16' and 'f32'}}
  %d = wave.mma %a, %b, %c {kind = #wave.mma_kind<f16_16x8x16_f16>} : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// -----

func.func @binary_element_types(%x: !wave.tensor<[M] of f32>, %y: !wave.tensor<[M] of f16>) {
  // expected-error @+1 {{expected operands of element type 'f32', but found 'f16'}}
  %z = wave.add %x, %y : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f16>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @binary_broadcast(%x: !wave.tensor<[M, N] of f32>, %y: !wave.tensor<[M, K] of f32>) {
  // expected-error @+1 {{expected one operand's dims to be a subset of the other's, but found [M, N] and [M, K]}}
  %z = wave.maximum %x, %y : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, K] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @binary_result(%x: !wave.tensor<[M, N] of f32>, %y: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected result type '!wave.tensor<[M, N] of f32>', but found '!wave.tensor<[M] of f32>'}}
  %z = wave.mul %x, %y : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @binary_equal_sets(%x: !wave.tensor<[M, N] of f32>, %y: !wave.tensor<[N, M] of f32>) {
  // expected-error @+1 {{expected result type '!wave.tensor<[M, N] of f32>', but found '!wave.tensor<[N, M] of f32>'}}
  %z = wave.sub %x, %y : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[N, M] of f32>
  return
}

// -----

func.func @unary_float(%x: !wave.tensor<[M] of i32>) {
  // expected-error @+1 {{expected a float element type, but found 'i32'}}
  %y = wave.exp2 %x : !wave.tensor<[M] of i32>
  return
}

// -----

func.func @unary_type(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %y = "wave.neg"(%x) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f16>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_missing_dim(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected the input to have the dim K, but found [M, N]}}
  %y = wave.reduce_max %x along "K" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @reduce_result_dims(%x: !wave.tensor<[M, N, K] of f32>) {
  // expected-error @+1 {{expected result dims [M, K], but found [K, M]}}
  %y = wave.reduce_sum %x along "N" : (!wave.tensor<[M, N, K] of f32>) -> !wave.tensor<[K, M] of f32>
  return
}

// -----

func.func @reduce_result_element_type(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected a result of element type 'f32', but found 'f16'}}
  %y = wave.reduce_sum %x along "N" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M] of f16>
  return
}

// -----

func.func @reduce_init(%x: !wave.tensor<[M, N] of f32>, %i: !wave.tensor<[N] of f32>) {
  // expected-error @+1 {{expected init of the result type '!wave.tensor<[M] of f32>', but found '!wave.tensor<[N] of f32>'}}
  %y = wave.reduce_sum %x init(%i) along "N" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[M] of f32>
  return
}

//===----------------------------------------------------------------------===//
// Shape and type changes
//===----------------------------------------------------------------------===//

// -----

func.func @cast_dims(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected the input's dims [M, N], but found [N, M]}}
  %y = wave.cast %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, M] of f16>
  return
}

// -----

func.func @permute_dims(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected a reordering of [M, N], but found [N, K]}}
  %y = wave.permute %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, K] of f32>
  return
}

// -----

func.func @permute_element_type(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected a result of element type 'f32', but found 'f16'}}
  %y = wave.permute %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, M] of f16>
  return
}

// -----

func.func @broadcast_dims(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected result dims that include [M, N], but found [M, K]}}
  %y = wave.broadcast %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, K] of f32>
  return
}

// -----

func.func @broadcast_element_type(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected a result of element type 'f32', but found 'i32'}}
  %y = wave.broadcast %x : !wave.tensor<[M] of f32> to !wave.tensor<[M, N] of i32>
  return
}

// -----

func.func @select_cond(%c: !wave.tensor<[M] of i32>, %x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected an i1 condition, but found 'i32'}}
  %y = wave.select %c, %x, %x : (!wave.tensor<[M] of i32>, !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @select_choices(%c: !wave.tensor<[M] of i1>, %x: !wave.tensor<[M] of f32>, %y: !wave.tensor<[M] of f16>) {
  // expected-error @+1 {{expected both choices of one type, but found '!wave.tensor<[M] of f32>' and '!wave.tensor<[M] of f16>'}}
  %z = wave.select %c, %x, %y : (!wave.tensor<[M] of i1>, !wave.tensor<[M] of f32>, !wave.tensor<[M] of f16>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @select_cond_dims(%c: !wave.tensor<[K] of i1>, %x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected condition dims within [M], but found [K]}}
  %z = wave.select %c, %x, %x : (!wave.tensor<[K] of i1>, !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @select_result(%c: !wave.tensor<[M] of i1>, %x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected the choices' type '!wave.tensor<[M] of f32>' as result, but found '!wave.tensor<[M] of f16>'}}
  %z = wave.select %c, %x, %x : (!wave.tensor<[M] of i1>, !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f16>
  return
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

// -----

func.func @self_index_dims() {
  // expected-error @+1 {{expected result dims [K2], but found [M]}}
  %i = wave.self_index "K2" : !wave.tensor<[M] of i64>
  return
}

// -----

func.func @self_index_element_type() {
  // expected-error @+1 {{expected an integer element type, but found 'f32'}}
  %i = wave.self_index "K2" : !wave.tensor<[K2] of f32>
  return
}

// -----

func.func @apply_expr_variables(%x: !wave.tensor<[M] of i64>) {
  // expected-error @+1 {{expected an expression of $0 alone, but found #wave.expr<"$1 < M">}}
  %y = wave.apply_expr %x {expr = #wave.expr<"$1 < M">} : !wave.tensor<[M] of i64> -> !wave.tensor<[M] of i64>
  return
}

// -----

func.func @apply_expr_dims(%x: !wave.tensor<[M] of i64>) {
  // expected-error @+1 {{expected the input's dims [M] as result, but found [N]}}
  %y = wave.apply_expr %x {expr = #wave.expr<"$0 + 1">} : !wave.tensor<[M] of i64> -> !wave.tensor<[N] of i64>
  return
}

// -----

func.func @apply_expr_element_type(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected an integer element type, but found 'f32'}}
  %y = wave.apply_expr %x {expr = #wave.expr<"$0 + 1">} : !wave.tensor<[M] of f32> -> !wave.tensor<[M] of f32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// wave.print
//===----------------------------------------------------------------------===//

func.func @print_empty_label(%x: !wave.tensor<[N] of f32>) {
  // expected-error @+1 {{expected a label to start each line, but found an empty one}}
  wave.print %x "" {limit = 4 : i64} : !wave.tensor<[N] of f32>
  return
}

// -----

func.func @print_limit(%x: !wave.tensor<[N] of f32>) {
  // expected-error @+1 {{expected a limit of at least one element, but found 0}}
  wave.print %x "x" {limit = 0 : i64} : !wave.tensor<[N] of f32>
  return
}

// -----

func.func @print_mask_type(%x: !wave.tensor<[N] of f32>, %m: !wave.tensor<[N] of f32>) {
  // expected-error @+1 {{expected an i1 mask, but found 'f32'}}
  wave.print %x where %m "x" {limit = 4 : i64} : !wave.tensor<[N] of f32>, !wave.tensor<[N] of f32>
  return
}

// -----

func.func @print_mask_dims(%x: !wave.tensor<[M, N] of f32>, %m: !wave.tensor<[N] of i1>) {
  // expected-error @+1 {{expected a mask of the value's dims [M, N], but found [N]}}
  wave.print %x where %m "x" {limit = 4 : i64} : !wave.tensor<[M, N] of f32>, !wave.tensor<[N] of i1>
  return
}

// -----

func.func @iterate_end_alone(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected end and end_dims together, but found only end}}
  %r = wave.iterate "K" iter_args(%x) {end = #wave.expr<"$0 + 64">} : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%a: !wave.tensor<[M] of f32>):
    wave.yield %a : !wave.tensor<[M] of f32>
  }
  return
}

// -----

func.func @iterate_end_dims(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected end to be one value over $0..$0 (one per end_dims entry), but found $0 + $1}}
  %r = wave.iterate "K" iter_args(%x) {end = #wave.expr<"$0 + $1">, end_dims = ["M"]} : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%a: !wave.tensor<[M] of f32>):
    wave.yield %a : !wave.tensor<[M] of f32>
  }
  return
}

// -----

func.func @iterate_unmasked_end_alone(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected unmasked_end and unmasked_end_dims together, but found only unmasked_end_dims}}
  %r = wave.iterate "K" iter_args(%x) {unmasked_end_dims = ["M"]} : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%a: !wave.tensor<[M] of f32>):
    wave.yield %a : !wave.tensor<[M] of f32>
  }
  return
}

// -----

func.func @hiding_mask_outside_a_loop(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected wave.hiding_mask to be a unit attribute on a wave.add inside a wave.iterate}}
  %s = wave.add %x, %x {wave.hiding_mask} : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @folds_per_value(%a: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected one wave_folds entry per carried value (1), but found 2}}
  %r = wave.iterate "K" iter_args(%a) {wave_folds = ["max", "sum"]} : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%x: !wave.tensor<[M] of f32>):
    wave.yield %x : !wave.tensor<[M] of f32>
  }
  return
}

// -----

func.func @fold_kind(%a: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected wave_folds entries "max" or "sum", but found "min"}}
  %r = wave.iterate "K" iter_args(%a) {wave_folds = ["min"]} : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%x: !wave.tensor<[M] of f32>):
    wave.yield %x : !wave.tensor<[M] of f32>
  }
  return
}

// -----

func.func @combine_over_own_dim(%a: !wave.tensor<[M, K] of f32>) {
  // expected-error @+1 {{expected a value without K, the dim its partials were folded over, but found '!wave.tensor<[M, K] of f32>'}}
  %c = wave.combine_waves sum %a along "K" : !wave.tensor<[M, K] of f32>
  return
}

// -----

func.func @dynamic_count(%a: !wave.memory<[V, E] of f16, global>) {
  // expected-error @+1 {{expected 1 dynamic values for the mapping, but found 0}}
  %r = wave.read %a {mapping = #wave.index_mapping<iterators = 2, inputs = {V = #wave.expr<"$2">, E = #wave.expr<"$1">}, outputs = {T = #wave.expr<"$0">, E = #wave.expr<"$1">}, dynamic = 1>} : !wave.memory<[V, E] of f16, global> -> !wave.tensor<[T, E] of f16>
  return
}

// -----

func.func @dynamic_float(%a: !wave.memory<[V, E] of f16, global>, %rows: !wave.tensor<[T] of f32>) {
  // expected-error @+1 {{expected dynamic value 0 to hold indices (i8, i32 or i64), but found 'f32'}}
  %r = wave.read %a dynamic(%rows : !wave.tensor<[T] of f32>) {mapping = #wave.index_mapping<iterators = 2, inputs = {V = #wave.expr<"$2">, E = #wave.expr<"$1">}, outputs = {T = #wave.expr<"$0">, E = #wave.expr<"$1">}, dynamic = 1>} : !wave.memory<[V, E] of f16, global> -> !wave.tensor<[T, E] of f16>
  return
}

// -----

func.func @dynamic_dims(%a: !wave.memory<[V, E] of f16, global>, %rows: !wave.tensor<[Q] of i32>) {
  // expected-error @+1 {{expected dynamic value 0's dims to be some of the register dims [T, E], but found [Q]}}
  %r = wave.read %a dynamic(%rows : !wave.tensor<[Q] of i32>) {mapping = #wave.index_mapping<iterators = 2, inputs = {V = #wave.expr<"$2">, E = #wave.expr<"$1">}, outputs = {T = #wave.expr<"$0">, E = #wave.expr<"$1">}, dynamic = 1>} : !wave.memory<[V, E] of f16, global> -> !wave.tensor<[T, E] of f16>
  return
}

// -----

func.func @dynamic_register_side(%a: !wave.memory<[V, E] of f16, global>, %rows: !wave.tensor<[T] of i32>) {
  // expected-error @+1 {{expected the mapping's register side to use iterators only, but T uses a dynamic value}}
  %r = wave.read %a dynamic(%rows : !wave.tensor<[T] of i32>) {mapping = #wave.index_mapping<iterators = 2, inputs = {V = #wave.expr<"$2">, E = #wave.expr<"$1">}, outputs = {T = #wave.expr<"$2">, E = #wave.expr<"$1">}, dynamic = 1>} : !wave.memory<[V, E] of f16, global> -> !wave.tensor<[T, E] of f16>
  return
}

// -----

func.func @dynamic_without_mapping(%a: !wave.memory<[T, E] of f16, global>, %rows: !wave.tensor<[T] of i32>) {
  // expected-error @+1 {{expected dynamic values only with an index mapping that uses them}}
  %r = wave.read %a dynamic(%rows : !wave.tensor<[T] of i32>) : !wave.memory<[T, E] of f16, global> -> !wave.tensor<[T, E] of f16>
  return
}

// -----

func.func @cumsum_dim(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected the input to have the dim K, but found [M, N]}}
  %s = wave.cumsum %x along "K" : !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @cumsum_i1(%x: !wave.tensor<[M, N] of i1>) {
  // expected-error @+1 {{expected numbers to sum, but found i1 elements (cast<i32>() them first)}}
  %s = wave.cumsum %x along "N" : !wave.tensor<[M, N] of i1>
  return
}

// -----

func.func @bitcast_width(%x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected an element type of 'f32''s width (not i1), but found 'f16'}}
  %b = wave.bitcast %x : !wave.tensor<[M] of f32> to !wave.tensor<[M] of f16>
  return
}

// -----

func.func @set_symbol_float(%n: !wave.tensor<[B] of f32>) {
  // expected-error @+1 {{expected an integer size (i8, i32 or i64), but found 'f32'}}
  wave.set_symbol "N" = %n : !wave.tensor<[B] of f32>
  return
}

// -----

func.func @set_symbol_over_its_dim(%n: !wave.tensor<[B, N] of i32>) {
  // expected-error @+1 {{expected a size that does not vary along N, the dim it sets, but found a size over [B, N]}}
  wave.set_symbol "N" = %n : !wave.tensor<[B, N] of i32>
  return
}

// -----

func.func @set_symbol_in_loop(%n: !wave.tensor<[B] of i32>, %x: !wave.tensor<[B] of f32>) {
  %r = wave.iterate "K" iter_args(%x) : (!wave.tensor<[B] of f32>) -> !wave.tensor<[B] of f32> {
  ^bb0(%acc: !wave.tensor<[B] of f32>):
    // expected-error @+1 {{expected to be in the kernel's body itself (a size is set once per workgroup), but found it inside wave.iterate}}
    wave.set_symbol "N" = %n : !wave.tensor<[B] of i32>
    wave.yield %acc : !wave.tensor<[B] of f32>
  }
  return
}

// -----

func.func @set_symbol_late(%n: !wave.tensor<[B] of i32>, %x: !wave.memory<[B, N] of f16, global>) {
  // expected-note @+1 {{the earlier op over N}}
  %v = wave.read %x : !wave.memory<[B, N] of f16, global> -> !wave.tensor<[B, N] of f16>
  // expected-error @+1 {{expected before every op over N, but found wave.read over it before}}
  wave.set_symbol "N" = %n : !wave.tensor<[B] of i32>
  return
}

// -----

func.func @set_symbol_twice(%n: !wave.tensor<[B] of i32>) {
  // expected-note @+1 {{the earlier op over N}}
  wave.set_symbol "N" = %n : !wave.tensor<[B] of i32>
  // expected-error @+1 {{expected before every op over N, but found wave.set_symbol over it before}}
  wave.set_symbol "N" = %n : !wave.tensor<[B] of i32>
  return
}

// -----

func.func @wait_on_float_flags(%flags: !wave.memory<[M] of f32, global>) {
  // expected-error @+1 {{expected i32 or i64 flags to wait for, but found 'f32'}}
  %seen = wave.read %flags {wait_at_least = #wave.expr<"1">} : !wave.memory<[M] of f32, global> -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @take_without_wait(%flags: !wave.memory<[M] of i32, global>) {
  // expected-error @+1 {{expected take only on a wait (wait_at_least)}}
  %seen = wave.read %flags {take} : !wave.memory<[M] of i32, global> -> !wave.tensor<[M] of i32>
  return
}

// -----

func.func @wait_for_a_comparison(%flags: !wave.memory<[M] of i32, global>) {
  // expected-error @+1 {{expected wait_at_least to be one value of the kernel's symbols, but found $0 + 1}}
  %seen = wave.read %flags {wait_at_least = #wave.expr<"$0 + 1">} : !wave.memory<[M] of i32, global> -> !wave.tensor<[M] of i32>
  return
}

// -----

func.func @signal_shared_flags(%v: !wave.tensor<[M] of i32>, %flags: !wave.memory<[M] of i32, shared>) {
  // expected-error @+1 {{expected flags in global memory to signal, but found a shared tile}}
  wave.write %v, %flags {release} : !wave.tensor<[M] of i32>, !wave.memory<[M] of i32, shared>
  return
}

// -----

func.func @signal_that_adds(%v: !wave.tensor<[M] of i32>, %flags: !wave.memory<[M] of i32, global>) {
  // expected-error @+1 {{expected a release store or a combining write, not both}}
  wave.write %v, %flags {release, combine = #wave.combine<add>} : !wave.tensor<[M] of i32>, !wave.memory<[M] of i32, global>
  return
}

// -----

func.func @shuffle_dim(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected the input to have the dim K, but found [M, N]}}
  %y = wave.shuffle %x xor 1 along "K" : !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @shuffle_mask(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected an xor mask of at least 1, but found 0}}
  %y = wave.shuffle %x xor 0 along "N" : !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @extract_position_dims(%x: !wave.tensor<[M, N] of f32>, %at: !wave.tensor<[N] of i32>) {
  // expected-error @+1 {{expected a position of the result's dims [M], but found [N]}}
  %y = wave.extract %x at %at along "N" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of i32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @extract_position_type(%x: !wave.tensor<[M, N] of f32>, %at: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected an integer position (i8, i32 or i64), but found 'f32'}}
  %y = wave.extract %x at %at along "N" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @extract_result_dims(%x: !wave.tensor<[M, N] of f32>, %at: !wave.tensor<[N] of i32>) {
  // expected-error @+1 {{expected result dims [N], but found [M]}}
  %y = wave.extract %x at %at along "M" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of i32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @wave_priority() {
  // expected-error @+1 {{attribute 'priority' failed to satisfy constraint}}
  wave.set_wave_prio 4
  return
}

// -----

func.func @conditional_condition(%c: !wave.tensor<[B] of i32>) {
  // expected-error @+1 {{expected an i1 condition, but found 'i32'}}
  wave.conditional %c else() : (!wave.tensor<[B] of i32>) -> () {
    wave.yield
  }
  return
}

// -----

func.func @conditional_results(%c: !wave.tensor<[B] of i1>, %x: !wave.tensor<[B] of f32>) {
  // expected-error @+1 {{expected results of the otherwise values' types ('!wave.tensor<[B] of f32>'), but found ('!wave.tensor<[B] of f16>')}}
  %r = wave.conditional %c else(%x) : (!wave.tensor<[B] of i1>, !wave.tensor<[B] of f32>) -> !wave.tensor<[B] of f16> {
    %h = wave.cast %x : !wave.tensor<[B] of f32> to !wave.tensor<[B] of f16>
    wave.yield %h : !wave.tensor<[B] of f16>
  }
  return
}

// -----

func.func @conditional_yield(%c: !wave.tensor<[B] of i1>, %x: !wave.tensor<[B] of f32>) {
  %r = wave.conditional %c else(%x) : (!wave.tensor<[B] of i1>, !wave.tensor<[B] of f32>) -> !wave.tensor<[B] of f32> {
    // expected-error @+1 {{expected to yield the conditional's result types ('!wave.tensor<[B] of f32>'), but found ()}}
    wave.yield
  }
  return
}

// -----

func.func @conditional_in_loop(%c: !wave.tensor<[] of i1>, %x: !wave.tensor<[M] of f32>) {
  %r = wave.iterate "K" iter_args(%x) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%a: !wave.tensor<[M] of f32>):
    // expected-error @+1 {{expected to be in the kernel's body itself, but found it inside wave.iterate}}
    wave.conditional %c else() : (!wave.tensor<[] of i1>) -> () {
      wave.yield
    }
    wave.yield %a : !wave.tensor<[M] of f32>
  }
  return
}

// -----

func.func @extract_slice_dim(%x: !wave.tensor<[M, N] of f32>, %at: !wave.tensor<[M, W] of i32>) {
  // expected-error @+1 {{expected the input to have the dim K, but found [M, N]}}
  %y = wave.extract_slice %x at %at along "K" step 1 : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, W] of i32>) -> !wave.tensor<[M, W] of f32>
  return
}

// -----

func.func @extract_slice_result(%x: !wave.tensor<[M, N] of f32>, %at: !wave.tensor<[W, M] of i32>) {
  // expected-error @+1 {{expected a result of the input's dims with N replaced in its place by a dim the input lacks (or by N), but found [M, N] -> [W, M]}}
  %y = wave.extract_slice %x at %at along "N" step 1 : (!wave.tensor<[M, N] of f32>, !wave.tensor<[W, M] of i32>) -> !wave.tensor<[W, M] of f32>
  return
}

// -----

func.func @extract_slice_offset(%x: !wave.tensor<[M, N] of f32>, %at: !wave.tensor<[M] of i32>) {
  // expected-error @+1 {{expected an offset of the result's dims [M, W], but found [M]}}
  %y = wave.extract_slice %x at %at along "N" step 1 : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of i32>) -> !wave.tensor<[M, W] of f32>
  return
}

// -----

func.func @extract_slice_float_offset(%x: !wave.tensor<[M, N] of f32>, %at: !wave.tensor<[M, W] of f32>) {
  // expected-error @+1 {{expected an integer offset (i8, i32 or i64), but found 'f32'}}
  %y = wave.extract_slice %x at %at along "N" step 1 : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, W] of f32>) -> !wave.tensor<[M, W] of f32>
  return
}

// -----

func.func @extract_slice_step(%x: !wave.tensor<[M, N] of f32>, %at: !wave.tensor<[M, W] of i32>) {
  // expected-error @+1 {{attribute 'step' failed to satisfy constraint}}
  %y = wave.extract_slice %x at %at along "N" step 0 : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, W] of i32>) -> !wave.tensor<[M, W] of f32>
  return
}

// -----

func.func @reshape_element(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected the input's element type, but found 'f16'}}
  %y = wave.reshape %x : !wave.tensor<[M, N] of f32> -> !wave.tensor<[M, H, D] of f16>
  return
}

// -----

func.func @masked_wait(%flags: !wave.memory<[M] of i32, global>) {
  // expected-error @+1 {{expected a wait for flags inside the memory, but found an index mapping that masks the points outside it}}
  %seen = wave.read %flags {wait_at_least = #wave.expr<"1">, mapping = #wave.index_mapping<iterators = 1, inputs = {M = #wave.expr<"$0 - 1">}, outputs = {M = #wave.expr<"$0">}, masked = true>} : !wave.memory<[M] of i32, global> -> !wave.tensor<[M] of i32>
  return
}

// -----

func.func @masked_signal(%v: !wave.tensor<[M] of i32>, %flags: !wave.memory<[M] of i32, global>) {
  // expected-error @+1 {{expected a signal of flags inside the memory, but found an index mapping that masks the points outside it}}
  wave.write %v, %flags {release, mapping = #wave.index_mapping<iterators = 1, inputs = {M = #wave.expr<"$0">}, outputs = {M = #wave.expr<"$0 + 1">}, masked = true>} : !wave.tensor<[M] of i32>, !wave.memory<[M] of i32, global>
  return
}
