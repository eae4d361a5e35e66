// f8 arithmetic is computed in f32; extensions from f8 become paired cvt to f16x2 (then
// f32), truncations to f8 paired cvt.rn.satfinite from f32x2 (the first operand to the
// high byte) or f16x2 (half by half); f8 constants become their bits. Kernels without f8 are left alone.
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(wave-lower-f8-to-nvvm))' | FileCheck %s

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @widen
  gpu.func @widen(%x: vector<3xf8E4M3FN>) -> vector<3xf32> {
    // Three elements: two pairs, the third element paired with itself.
    // CHECK: %[[X2:.*]] = vector.extract %{{.*}}[2]
    // CHECK: %[[PAIR:.*]] = vector.bitcast %{{.*}} : vector<2xf8E4M3FN> to vector<2xi8>
    // CHECK: nvvm.convert.f8x2.to.f16x2 %[[PAIR]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
    // CHECK: vector.from_elements %[[X2]], %[[X2]] : vector<2xf8E4M3FN>
    // CHECK: nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
    // CHECK-NOT: nvvm.convert.f8x2.to.f16x2
    // CHECK: arith.extf %{{.*}} : vector<3xf16> to vector<3xf32>
    %y = arith.extf %x : vector<3xf8E4M3FN> to vector<3xf32>
    gpu.return %y : vector<3xf32>
  }

  // CHECK-LABEL: gpu.func @narrow
  gpu.func @narrow(%x: vector<2xf32>, %h: vector<2xf16>, %d: f64) -> (vector<2xf8E5M2>, vector<2xf8E4M3FN>, f8E4M3FN) {
    // CHECK: %[[X0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<2xf32>
    // CHECK: %[[X1:.*]] = vector.extract %{{.*}}[1] : f32 from vector<2xf32>
    // CHECK: nvvm.convert.f32x2.to.f8x2 %[[X1]], %[[X0]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E5M2)
    %a = arith.truncf %x : vector<2xf32> to vector<2xf8E5M2>
    // CHECK: %[[H0:.*]] = vector.extract %{{.*}}[0] : f16 from vector<2xf16>
    // CHECK: %[[H1:.*]] = vector.extract %{{.*}}[1] : f16 from vector<2xf16>
    // CHECK: %[[HALVES:.*]] = vector.from_elements %[[H0]], %[[H1]] : vector<2xf16>
    // CHECK: nvvm.convert.f16x2.to.f8x2 %[[HALVES]] : vector<2xf16> -> vector<2xi8>(f8E4M3FN)
    %b = arith.truncf %h : vector<2xf16> to vector<2xf8E4M3FN>
    // f64 rounds to f32 first.
    // CHECK: arith.truncf %{{.*}} : f64 to f32
    // CHECK: nvvm.convert.f32x2.to.f8x2
    %c = arith.truncf %d : f64 to f8E4M3FN
    gpu.return %a, %b, %c : vector<2xf8E5M2>, vector<2xf8E4M3FN>, f8E4M3FN
  }

  // CHECK-LABEL: gpu.func @arithmetic
  gpu.func @arithmetic(%x: f8E4M3FN, %y: f8E4M3FN) -> f8E4M3FN {
    // CHECK-NOT: arith.mulf %{{.*}} : f8E4M3FN
    // CHECK: nvvm.convert.f8x2.to.f16x2
    // CHECK: arith.mulf %{{.*}} : f32
    // CHECK: nvvm.convert.f32x2.to.f8x2
    %p = arith.mulf %x, %y : f8E4M3FN
    // A constant of 1.0 (0x38 in E4M3) as its bits.
    // CHECK: %[[BITS:.*]] = arith.constant 56 : i8
    // CHECK: arith.bitcast %[[BITS]] : i8 to f8E4M3FN
    %one = arith.constant 1.0 : f8E4M3FN
    %s = arith.addf %p, %one : f8E4M3FN
    gpu.return %s : f8E4M3FN
  }

  // CHECK-LABEL: gpu.func @no_f8
  gpu.func @no_f8(%x: f16) -> f32 {
    // CHECK: arith.extf %{{.*}} : f16 to f32
    %y = arith.extf %x : f16 to f32
    gpu.return %y : f32
  }
}
