// On AMD no device library is linked: math ops without an AMDGPU instruction become ones
// with one (polynomials, or exp and log), and every math op left a call of its LLVM
// intrinsic, which the ROCDL conversion leaves alone.
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(wave-expand-math-for-amdgpu))' | FileCheck %s

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @approximated
  gpu.func @approximated(%x: vector<4xf32>, %y: vector<4xf32>, %h: vector<2xf16>) -> (vector<4xf32>, vector<2xf16>) {
    // CHECK-NOT: math.
    // CHECK: llvm.call_intrinsic "llvm.fma"
    // f16 goes through f32:
    // CHECK: arith.extf %{{.*}} : vector<2xf16> to vector<2xf32>
    // CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
    // CHECK-NOT: math.
    // CHECK: gpu.return
    %t = math.tanh %x : vector<4xf32>
    %a = math.atan2 %x, %y : vector<4xf32>
    %c = math.cbrt %y : vector<4xf32>
    %th = math.tanh %h : vector<2xf16>
    %s = arith.addf %t, %a : vector<4xf32>
    %r = arith.addf %s, %c : vector<4xf32>
    gpu.return %r, %th : vector<4xf32>, vector<2xf16>
  }

  // CHECK-LABEL: gpu.func @expanded
  gpu.func @expanded(%x: f32, %y: f32, %i: vector<2xi32>) -> (f32, vector<2xi32>) {
    // CHECK-NOT: math.
    // CHECK-DAG: llvm.call_intrinsic "llvm.exp"
    // CHECK-DAG: llvm.call_intrinsic "llvm.log"
    // rsqrt as 1 / sqrt, integer abs as a select:
    // CHECK-DAG: %[[ROOT:.*]] = llvm.call_intrinsic "llvm.sqrt"
    // CHECK-DAG: arith.divf %{{.*}}, %[[ROOT]] : f32
    // CHECK-DAG: arith.cmpi slt, %{{.*}} : vector<2xi32>
    // CHECK-NOT: math.
    // CHECK: gpu.return
    %s = math.sinh %x : f32
    %p = math.powf %x, %y : f32
    %q = math.rsqrt %y : f32
    %a = math.absi %i : vector<2xi32>
    %sp = arith.addf %s, %p : f32
    %r = arith.addf %sp, %q : f32
    gpu.return %r, %a : f32, vector<2xi32>
  }

  // The hardware's own (v_exp_f32, v_log_f32, v_sqrt_f32, v_sin_f32) become intrinsics as
  // they are, vectors and all.
  // CHECK-LABEL: gpu.func @kept
  gpu.func @kept(%x: vector<4xf32>) -> vector<4xf32> {
    // CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.exp2"(%{{.*}}) : (vector<4xf32>) -> vector<4xf32>
    // CHECK: %[[L:.*]] = llvm.call_intrinsic "llvm.log2"(%[[E]])
    // CHECK: %[[Q:.*]] = llvm.call_intrinsic "llvm.sqrt"(%[[L]])
    // CHECK: llvm.call_intrinsic "llvm.sin"(%[[Q]])
    %e = math.exp2 %x : vector<4xf32>
    %l = math.log2 %e : vector<4xf32>
    %q = math.sqrt %l : vector<4xf32>
    %s = math.sin %q : vector<4xf32>
    gpu.return %s : vector<4xf32>
  }
}
