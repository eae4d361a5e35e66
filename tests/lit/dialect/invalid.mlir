// Each verifier rule, broken once.
// RUN: wave-opt %s -split-input-file -verify-diagnostics

func.func @read_dims(%a: !wave.memory<[M, K] of f16, global>) {
  // expected-error @+1 {{expected the memory's dims [M, K], but found [K, M]}}
  %r = wave.read %a : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[K, M] of f16>
  return
}

// -----

func.func @read_element_type(%a: !wave.memory<[M] of f16, global>) {
  // expected-error @+1 {{expected a result of element type 'f16', but found 'f32'}}
  %r = wave.read %a : !wave.memory<[M] of f16, global> -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @read_mapping(%a: !wave.memory<[N, C] of f16, global>) {
  // expected-error @+1 {{expected the mapping's outputs to be the register dims [M, K], but found [M, Q]}}
  %r = wave.read %a {mapping = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1">}, outputs = {M = #wave.expr<"$0">, Q = #wave.expr<"$1">}>} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  return
}

// -----

func.func @write_dims(%v: !wave.tensor<[M, K] of f32>, %c: !wave.memory<[M, N] of f32, global>) {
  // expected-error @+1 {{expected a value with the memory's dims [M, N] (in any order), but found [M, K]}}
  wave.write %v, %c : !wave.tensor<[M, K] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

func.func @mma_contraction(%a: !wave.tensor<[M, K] of f16>, %b: !wave.tensor<[N, K2] of f16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected lhs and rhs to share exactly one contraction dim that the accumulator lacks, but found [] in lhs [M, K] and rhs [N, K2]}}
  %d = wave.mma %a, %b, %c : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K2] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @mma_rows(%a: !wave.tensor<[P, K] of f16>, %b: !wave.tensor<[N, K] of f16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected lhs to hold the accumulator's dim M, but found [P, K]}}
  %d = wave.mma %a, %b, %c : (!wave.tensor<[P, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @mma_kind(%a: !wave.tensor<[M, K] of bf16>, %b: !wave.tensor<[N, K] of bf16>, %c: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected operands of 'f16' and an accumulator of 'f32' for #wave.mma_kind<f32_16x8x16_f16>, but found 'bf16' and 'f32'}}
  %d = wave.mma %a, %b, %c {kind = #wave.mma_kind<f32_16x8x16_f16>} : (!wave.tensor<[M, K] of bf16>, !wave.tensor<[N, K] of bf16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @broadcast_operands(%x: !wave.tensor<[M, N] of f32>, %y: !wave.tensor<[M, K] of f32>) {
  // expected-error @+1 {{expected one operand's dims to be a subset of the other's, but found [M, N] and [M, K]}}
  %z = wave.add %x, %y : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, K] of f32>) -> !wave.tensor<[M, N] of f32>
  return
}

// -----

func.func @binary_result(%x: !wave.tensor<[M, N] of f32>, %y: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected result type '!wave.tensor<[M, N] of f32>', but found '!wave.tensor<[M] of f32>'}}
  %z = wave.mul %x, %y : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @exp2_int(%x: !wave.tensor<[M] of i32>) {
  // expected-error @+1 {{expected a float element type, but found 'i32'}}
  %y = wave.exp2 %x : !wave.tensor<[M] of i32>
  return
}

// -----

func.func @reduce_missing_dim(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected the input to have the dim K, but found [M, N]}}
  %y = wave.reduce_max %x along "K" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @reduce_init(%x: !wave.tensor<[M, N] of f32>, %i: !wave.tensor<[N] of f32>) {
  // expected-error @+1 {{expected init of the result type '!wave.tensor<[M] of f32>', but found '!wave.tensor<[N] of f32>'}}
  %y = wave.reduce_sum %x init(%i) along "N" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @permute_dims(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected a reordering of [M, N], but found [N, K]}}
  %y = wave.permute %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, K] of f32>
  return
}

// -----

func.func @broadcast_dims(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected result dims that include [M, N], but found [M, K]}}
  %y = wave.broadcast %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, K] of f32>
  return
}

// -----

func.func @cast_dims(%x: !wave.tensor<[M, N] of f32>) {
  // expected-error @+1 {{expected the input's dims [M, N], but found [N, M]}}
  %y = wave.cast %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, M] of f16>
  return
}

// -----

func.func @select_cond(%c: !wave.tensor<[M] of i32>, %x: !wave.tensor<[M] of f32>) {
  // expected-error @+1 {{expected an i1 condition, but found 'i32'}}
  %y = wave.select %c, %x, %x : (!wave.tensor<[M] of i32>, !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
  return
}

// -----

func.func @self_index_dims() {
  // expected-error @+1 {{expected result dims [K2], but found [M]}}
  %i = wave.self_index "K2" : !wave.tensor<[M] of i64>
  return
}

// -----

func.func @apply_expr_vars(%x: !wave.tensor<[M] of i64>) {
  // expected-error @+1 {{expected an expression of $0 alone}}
  %y = wave.apply_expr %x {expr = #wave.expr<"$1 < M">} : !wave.tensor<[M] of i64> -> !wave.tensor<[M] of i64>
  return
}

// -----

func.func @register_type() {
  // expected-error @+1 {{expected an integer for elements of type 'i32'}}
  %r = wave.register 1.5 : !wave.tensor<[M] of i32>
  return
}

// -----

func.func @iterate_yield(%x: !wave.tensor<[M] of f32>, %y: !wave.tensor<[N] of f32>) {
  %r = wave.iterate "K" iter_args(%x) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%a: !wave.tensor<[M] of f32>):
    // expected-error @+1 {{expected to yield the iter_args' types}}
    wave.yield %y : !wave.tensor<[N] of f32>
  }
  return
}

// -----

// expected-error @+1 {{expected distinct dims, but found "M" twice}}
func.func @duplicate_dims(%x: !wave.tensor<[M, M] of f32>) {
  return
}

// -----

func.func @expr_syntax() attributes {
  // expected-error @+1 {{expected '(' at column 5 of "max M"}}
  x = #wave.expr<"max M">
} {
  return
}

// -----

func.func @expr_nested_min() attributes {
  // expected-error @+1 {{min and max may appear only at the top of an expression}}
  x = #wave.expr<"M + min(M, N)">
} {
  return
}

// -----

func.func @expr_nonaffine() attributes {
  // expected-error @+1 {{expected a constant or symbolic operand}}
  x = #wave.expr<"$0 * $1">
} {
  return
}

// -----

// expected-error @+1 {{expected threads_per_wave 32 or 64, but found 48}}
func.func @hardware() attributes {wave.constraints = [#wave.hardware_constraint<threads_per_wave = 48>]} {
  return
}

// -----

// expected-error @+1 {{expected one workgroup_constraint per grid axis, but found two on axis 0}}
func.func @axes() attributes {wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BM">, workgroup_dim = 0>, #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BN">, workgroup_dim = 0>]} {
  return
}

// -----

// expected-error @+1 {{expected a workgroup_constraint on "N" for its wave_constraint, but found none}}
func.func @wave_without_workgroup() attributes {wave.constraints = [#wave.wave_constraint<dim = "N", tile = #wave.expr<"BN">>]} {
  return
}

// -----

// expected-error @+1 {{expected a comparison, but found #wave.expr<"K">}}
func.func @assumption() attributes {wave.constraints = [#wave.assumption<#wave.expr<"K">>]} {
  return
}

// -----

// expected-error @+1 {{expected hyperparameter "BLOCK_M" to be a positive integer, but found 0 : i64}}
func.func @hyperparameters() attributes {wave.hyperparameters = {BLOCK_M = 0 : i64}} {
  return
}
