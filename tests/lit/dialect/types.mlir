// !wave.tensor and !wave.memory print in the form they parse from.
// RUN: wave-opt %s | FileCheck %s
// RUN: wave-opt %s | wave-opt | FileCheck %s
// RUN: wave-opt %s > %t.once && wave-opt %t.once > %t.twice && diff %t.once %t.twice

// CHECK-LABEL: func.func private @tensors
// CHECK-SAME: !wave.tensor<[] of f32>
// CHECK-SAME: !wave.tensor<[M] of f16>
// CHECK-SAME: !wave.tensor<[M, N] of bf16>
// CHECK-SAME: !wave.tensor<[B, H, M, K2] of f64>
// CHECK-SAME: !wave.tensor<[M] of f8E4M3FN>
// CHECK-SAME: !wave.tensor<[M] of f8E5M2>
// CHECK-SAME: !wave.tensor<[M] of i1>
// CHECK-SAME: !wave.tensor<[M] of i8>
// CHECK-SAME: !wave.tensor<[M] of i32>
// CHECK-SAME: !wave.tensor<[M] of i64>
func.func private @tensors(!wave.tensor<[] of f32>, !wave.tensor<[M] of f16>,
                           !wave.tensor<[M, N] of bf16>, !wave.tensor<[B, H, M, K2] of f64>,
                           !wave.tensor<[M] of f8E4M3FN>, !wave.tensor<[M] of f8E5M2>,
                           !wave.tensor<[M] of i1>, !wave.tensor<[M] of i8>,
                           !wave.tensor<[M] of i32>, !wave.tensor<[M] of i64>)

// Dims are matched by name, so their order is part of the type.
// CHECK-LABEL: func.func private @dim_order
// CHECK-SAME: (!wave.tensor<[M, N] of f32>, !wave.tensor<[N, M] of f32>)
func.func private @dim_order(!wave.tensor<[M, N] of f32>, !wave.tensor<[N, M] of f32>)

// The address space is global, shared, or a symbol set at compile time.
// CHECK-LABEL: func.func private @memories
// CHECK-SAME: !wave.memory<[M, K] of f16, global>
// CHECK-SAME: !wave.memory<[K, N] of bf16, shared>
// CHECK-SAME: !wave.memory<[M, N] of f32, ADDRESS_SPACE>
// CHECK-SAME: !wave.memory<[] of i32, global>
func.func private @memories(!wave.memory<[M, K] of f16, global>, !wave.memory<[K, N] of bf16, shared>,
                            !wave.memory<[M, N] of f32, ADDRESS_SPACE>, !wave.memory<[] of i32, global>)
