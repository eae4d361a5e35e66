// f32 exp2 becomes the flushing approximation, one intrinsic call per element; f16 is
// left to the NVVM pipeline.
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(wave-lower-exp2-to-nvvm))' | FileCheck %s

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @softmax_weights
  gpu.func @softmax_weights(%x: vector<2xf32>, %s: f32, %h: f16) -> (vector<2xf32>, f16) {
    // CHECK-NOT: math.exp2 %{{.*}} : vector<2xf32>
    // CHECK: vector.extract %{{.*}}[0] : f32 from vector<2xf32>
    // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
    // CHECK: vector.extract %{{.*}}[1] : f32 from vector<2xf32>
    // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
    %e = math.exp2 %x : vector<2xf32>
    // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
    %t = math.exp2 %s : f32
    // CHECK: math.exp2 %{{.*}} : f16
    %u = math.exp2 %h : f16
    %b = vector.broadcast %t : f32 to vector<2xf32>
    %r = arith.addf %e, %b : vector<2xf32>
    gpu.return %r, %u : vector<2xf32>, f16
  }
}
