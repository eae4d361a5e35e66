// The distribution of a GEMM on AMD's MFMA (wave64): the same layout pipeline as on NVIDIA,
// with the MMA layout table's wave64 entries. Each lane loads its operand fragments from
// the shared tiles as runs of 4 halves along K (no ldmatrix on AMD), and every instruction
// tile is one amdgpu.mfma on a vector<4xf16> of A, one of B and the lane's 4 (16 x 16) or
// 16 (32 x 32) accumulators.
// RUN: wave-opt %s --wave-promote-shared --wave-assign-layouts --wave-lower-to-gpu | FileCheck %s

// Two waves of 64 per workgroup (the N tile split in two).
// CHECK-LABEL: gpu.func @gemm_16x16x16
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK: vector.load %{{.*}} : memref<32x{{[0-9]+}}xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// A wave's 32 x 32 tile is 2 x 2 instruction tiles, two K steps of 16 per K tile of 32.
// CHECK-COUNT-8: amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: scf.yield {{.*}} : vector<16xf32>
func.func @gemm_16x16x16(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<f32_16x16x16_f16>>],
    wave.hyperparameters = {K = 96 : i64, M = 64 : i64, N = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// One 32 x 32 x 8 instruction tile per wave and K step: four per K tile of 32, each on
// the lane's 16 accumulators.
// CHECK-LABEL: gpu.func @gemm_32x32x8
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK-COUNT-4: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK-NOT: amdgpu.mfma
func.func @gemm_32x32x8(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<f32_32x32x8_f16>>],
    wave.hyperparameters = {K = 96 : i64, M = 64 : i64, N = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// bf16 operands on CDNA3's bf16 MFMA: the f16 kind's lanes and registers, each instruction
// on a vector<4xbf16> of A and one of B.
// CHECK-LABEL: gpu.func @gemm_16x16x16_bf16
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK: vector.load %{{.*}} : memref<32x{{[0-9]+}}xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// CHECK-COUNT-8: amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
func.func @gemm_16x16x16_bf16(%a: !wave.memory<[M, K] of bf16, shared>, %b: !wave.memory<[N, K] of bf16, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<f32_16x16x16_bf16>>],
    wave.hyperparameters = {K = 96 : i64, M = 64 : i64, N = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of bf16, shared> -> !wave.tensor<[M, K] of bf16>
    %y = wave.read %b : !wave.memory<[N, K] of bf16, shared> -> !wave.tensor<[N, K] of bf16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of bf16>, !wave.tensor<[N, K] of bf16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// The 32 x 32 x 8 bf16 form on the lane's 16 accumulators.
// CHECK-LABEL: gpu.func @gemm_32x32x8_bf16
// CHECK-COUNT-4: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// CHECK-NOT: amdgpu.mfma
func.func @gemm_32x32x8_bf16(%a: !wave.memory<[M, K] of bf16, shared>, %b: !wave.memory<[N, K] of bf16, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<f32_32x32x8_bf16>>],
    wave.hyperparameters = {K = 96 : i64, M = 64 : i64, N = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of bf16, shared> -> !wave.tensor<[M, K] of bf16>
    %y = wave.read %b : !wave.memory<[N, K] of bf16, shared> -> !wave.tensor<[N, K] of bf16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of bf16>, !wave.tensor<[N, K] of bf16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// i8 operands on CDNA3's i8 MFMA: eight bytes of K per lane (one vector<8xi8> of A and one
// of B per instruction), the accumulators i32 where the f32 forms' are.
// CHECK-LABEL: gpu.func @gemm_16x16x32_i8
// CHECK: scf.for {{.*}} -> (vector<16xi32>)
// CHECK: vector.load %{{.*}} : memref<32x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<8xi8>
// CHECK-COUNT-8: amdgpu.mfma 16x16x32 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<8xi8>, vector<8xi8>, vector<4xi32>
// CHECK-NOT: amdgpu.mfma
func.func @gemm_16x16x32_i8(%a: !wave.memory<[M, K] of i8, shared>, %b: !wave.memory<[N, K] of i8, shared>,
                %c: !wave.memory<[M, N] of i32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"64">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<i32_16x16x32_i8>>],
    wave.hyperparameters = {K = 128 : i64, M = 64 : i64, N = 128 : i64}} {
  %0 = wave.register 0 : !wave.tensor<[M, N] of i32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of i32>) -> !wave.tensor<[M, N] of i32> {
  ^bb0(%acc: !wave.tensor<[M, N] of i32>):
    %x = wave.read %a : !wave.memory<[M, K] of i8, shared> -> !wave.tensor<[M, K] of i8>
    %y = wave.read %b : !wave.memory<[N, K] of i8, shared> -> !wave.tensor<[N, K] of i8>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of i8>, !wave.tensor<[N, K] of i8>, !wave.tensor<[M, N] of i32>) -> !wave.tensor<[M, N] of i32>
    wave.yield %d : !wave.tensor<[M, N] of i32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of i32>, !wave.memory<[M, N] of i32, global>
  return
}

// The 32 x 32 x 16 i8 form on the lane's 16 accumulators.
// CHECK-LABEL: gpu.func @gemm_32x32x16_i8
// CHECK-COUNT-4: amdgpu.mfma 32x32x16 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<8xi8>, vector<8xi8>, vector<16xi32>
// CHECK-NOT: amdgpu.mfma
func.func @gemm_32x32x16_i8(%a: !wave.memory<[M, K] of i8, shared>, %b: !wave.memory<[N, K] of i8, shared>,
                %c: !wave.memory<[M, N] of i32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"64">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<i32_32x32x16_i8>>],
    wave.hyperparameters = {K = 128 : i64, M = 64 : i64, N = 128 : i64}} {
  %0 = wave.register 0 : !wave.tensor<[M, N] of i32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of i32>) -> !wave.tensor<[M, N] of i32> {
  ^bb0(%acc: !wave.tensor<[M, N] of i32>):
    %x = wave.read %a : !wave.memory<[M, K] of i8, shared> -> !wave.tensor<[M, K] of i8>
    %y = wave.read %b : !wave.memory<[N, K] of i8, shared> -> !wave.tensor<[N, K] of i8>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of i8>, !wave.tensor<[N, K] of i8>, !wave.tensor<[M, N] of i32>) -> !wave.tensor<[M, N] of i32>
    wave.yield %d : !wave.tensor<[M, N] of i32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of i32>, !wave.memory<[M, N] of i32, global>
  return
}

// CDNA3's f8 (FNUZ) MFMA: A and B as the i8 forms hold them, eight bytes of K per lane
// (loaded as f8), f32 accumulators as the f16 forms'.
// CHECK-LABEL: gpu.func @gemm_16x16x32_fp8
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK: vector.load %{{.*}} : memref<32x{{[0-9]+}}xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<8xf8E4M3FNUZ>
// CHECK-COUNT-8: amdgpu.mfma 16x16x32 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
func.func @gemm_16x16x32_fp8(%a: !wave.memory<[M, K] of f8E4M3FNUZ, shared>, %b: !wave.memory<[N, K] of f8E4M3FNUZ, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"64">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<f32_16x16x32_f8e4m3fnuz>>],
    wave.hyperparameters = {K = 128 : i64, M = 64 : i64, N = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f8E4M3FNUZ, shared> -> !wave.tensor<[M, K] of f8E4M3FNUZ>
    %y = wave.read %b : !wave.memory<[N, K] of f8E4M3FNUZ, shared> -> !wave.tensor<[N, K] of f8E4M3FNUZ>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f8E4M3FNUZ>, !wave.tensor<[N, K] of f8E4M3FNUZ>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// CDNA4's f8 MFMA on OCP E5M2 (the bf8 form, gfx950): CDNA3's layouts, the element type OCP's.
// CHECK-LABEL: gpu.func @gemm_32x32x16_bf8_ocp
// CHECK: vector.load %{{.*}} : memref<64x{{[0-9]+}}xf8E5M2, #gpu.address_space<workgroup>>, vector<8xf8E5M2>
// CHECK-COUNT-2: amdgpu.mfma 32x32x16 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<8xf8E5M2>, vector<8xf8E5M2>, vector<16xf32>
// CHECK-NOT: amdgpu.mfma
func.func @gemm_32x32x16_bf8_ocp(%a: !wave.memory<[M, K] of f8E5M2, shared>, %b: !wave.memory<[N, K] of f8E5M2, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<f32_32x32x16_f8e5m2>>],
    wave.hyperparameters = {K = 128 : i64, M = 128 : i64, N = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f8E5M2, shared> -> !wave.tensor<[M, K] of f8E5M2>
    %y = wave.read %b : !wave.memory<[N, K] of f8E5M2, shared> -> !wave.tensor<[N, K] of f8E5M2>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f8E5M2>, !wave.tensor<[N, K] of f8E5M2>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}
