// wave.register: the constant is written without its type, which the element type gives.
// RUN: wave-opt %s | FileCheck %s
// RUN: wave-opt %s | wave-opt | FileCheck %s
// RUN: wave-opt %s > %t.once && wave-opt %t.once > %t.twice && diff %t.once %t.twice

// CHECK-LABEL: func.func @constants
func.func @constants() {
  // CHECK: wave.register 0.000000e+00 : !wave.tensor<[M, N] of f32>
  %f32 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  // An integer literal is a float where the element type is one.
  // CHECK: wave.register 2.000000e+00 : !wave.tensor<[M] of f16>
  %f16 = wave.register 2 : !wave.tensor<[M] of f16>
  // CHECK: wave.register -1.500000e+00 : !wave.tensor<[M] of bf16>
  %bf16 = wave.register -1.5 : !wave.tensor<[M] of bf16>
  // Decimal text is rounded once, to the element type.
  // CHECK: wave.register 1.000000e-01 : !wave.tensor<[M] of f64>
  %f64 = wave.register 0.1 : !wave.tensor<[M] of f64>
  // CHECK: wave.register 4.480000e+02 : !wave.tensor<[M] of f8E4M3FN>
  %e4m3 = wave.register 448.0 : !wave.tensor<[M] of f8E4M3FN>
  // CHECK: wave.register 5.734400e+04 : !wave.tensor<[M] of f8E5M2>
  %e5m2 = wave.register 57344.0 : !wave.tensor<[M] of f8E5M2>
  // Infinities and NaNs print as their bits (the usual start of a running maximum).
  // CHECK: wave.register 0xFF800000 : !wave.tensor<[M] of f32>
  %ninf = wave.register 0xFF800000 : !wave.tensor<[M] of f32>
  // CHECK: wave.register 0x7FF8000000000000 : !wave.tensor<[M] of f64>
  %nan = wave.register 0x7FF8000000000000 : !wave.tensor<[M] of f64>
  // CHECK: wave.register 0xFC00 : !wave.tensor<[M] of f16>
  %ninf16 = wave.register 0xFC00 : !wave.tensor<[M] of f16>
  // CHECK: wave.register 3 : !wave.tensor<[] of i32>
  %i32 = wave.register 3 : !wave.tensor<[] of i32>
  // CHECK: wave.register -9223372036854775808 : !wave.tensor<[M] of i64>
  %i64 = wave.register -9223372036854775808 : !wave.tensor<[M] of i64>
  // Signless: 255 and -1 are the same i8.
  // CHECK: wave.register -1 : !wave.tensor<[M] of i8>
  %i8 = wave.register 255 : !wave.tensor<[M] of i8>
  // CHECK: wave.register true : !wave.tensor<[M] of i1>
  %true = wave.register true : !wave.tensor<[M] of i1>
  // CHECK: wave.register false : !wave.tensor<[M] of i1>
  %false = wave.register 0 : !wave.tensor<[M] of i1>
  return
}
