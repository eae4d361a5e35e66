// The distribution of attention's transposed mmas: K's tile is read by ldmatrix as the
// instruction's B registers (two fragments per x4), V's transposed (.trans: V is stored along its rows, the
// head dim), and the scores go from the first mma to the second inside the threads: no
// shared-memory round trip (which would add a workgroup buffer to the gpu.func).
// RUN: wave-opt %s --pass-pipeline='builtin.module(func.func(wave-hoist-invariant-reads,wave-promote-shared,wave-assign-layouts),wave-lower-to-gpu)' \
// RUN:   | FileCheck %s

// CHECK-LABEL: gpu.func @attention
// CHECK-NOT: workgroup(
// CHECK: scf.for
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x72xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true} : memref<32x72xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
func.func @attention(%q: !wave.memory<[M, K1] of f16, shared>, %k: !wave.memory<[K2, K1] of f16, shared>,
                     %v: !wave.memory<[K2, N] of f16, shared>, %o: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"16">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K1 = 64 : i64, N = 64 : i64, M = 128 : i64, K2 = 128 : i64}} {
  %acc0 = wave.register 0.0 : !wave.tensor<[N, M] of f32>
  %max0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %sum0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %q0 = wave.read %q : !wave.memory<[M, K1] of f16, shared> -> !wave.tensor<[M, K1] of f16>
  %r:3 = wave.iterate "K2" iter_args(%max0, %sum0, %acc0) : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) -> (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>) {
  ^bb0(%max: !wave.tensor<[M] of f32>, %sum: !wave.tensor<[M] of f32>, %acc: !wave.tensor<[N, M] of f32>):
    %z = wave.register 0.0 : !wave.tensor<[K2, M] of f32>
    %k0 = wave.read %k : !wave.memory<[K2, K1] of f16, shared> -> !wave.tensor<[K2, K1] of f16>
    %s = wave.mma %k0, %q0, %z : (!wave.tensor<[K2, K1] of f16>, !wave.tensor<[M, K1] of f16>, !wave.tensor<[K2, M] of f32>) -> !wave.tensor<[K2, M] of f32>
    %x = wave.permute %s : !wave.tensor<[K2, M] of f32> to !wave.tensor<[M, K2] of f32>
    %m = wave.reduce_max %x init(%max) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %d = wave.sub %max, %m : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %scale = wave.exp2 %d : !wave.tensor<[M] of f32>
    %xm = wave.sub %x, %m : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M, K2] of f32>
    %e = wave.exp2 %xm : !wave.tensor<[M, K2] of f32>
    %sum1 = wave.mul %sum, %scale : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %sum2 = wave.reduce_sum %e init(%sum1) along "K2" : (!wave.tensor<[M, K2] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    %p = wave.cast %e : !wave.tensor<[M, K2] of f32> to !wave.tensor<[M, K2] of f16>
    %acc1 = wave.mul %acc, %scale : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
    %v0 = wave.read %v : !wave.memory<[K2, N] of f16, shared> -> !wave.tensor<[K2, N] of f16>
    %acc2 = wave.mma %v0, %p, %acc1 : (!wave.tensor<[K2, N] of f16>, !wave.tensor<[M, K2] of f16>, !wave.tensor<[N, M] of f32>) -> !wave.tensor<[N, M] of f32>
    wave.yield %m, %sum2, %acc2 : !wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>, !wave.tensor<[N, M] of f32>
  }
  %inv = wave.reciprocal %r#1 : !wave.tensor<[M] of f32>
  %out = wave.mul %r#2, %inv : (!wave.tensor<[N, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[N, M] of f32>
  wave.write %out, %o : !wave.tensor<[N, M] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

