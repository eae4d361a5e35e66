// Each type verifier rule, broken once.
// RUN: wave-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{expected an element type of f16, bf16, f32, f64, f8E4M3FN, f8E5M2, i1, i8, i32 or i64, but found 'i16'}}
func.func private @tensor_element_type(!wave.tensor<[M] of i16>)

// -----

// expected-error @+1 {{expected distinct dims, but found "M" twice}}
func.func private @tensor_duplicate_dims(!wave.tensor<[M, M] of f32>)

// -----

// expected-error @+1 {{but found 'index'}}
func.func private @memory_element_type(!wave.memory<[M] of index, global>)

// -----

// expected-error @+1 {{expected distinct dims, but found "K" twice}}
func.func private @memory_duplicate_dims(!wave.memory<[K, N, K] of f16, global>)

// -----

// expected-error @+1 {{expected an address space (global, shared or a symbol)}}
func.func private @memory_address_space(!wave.memory<[M] of f16, "">)
