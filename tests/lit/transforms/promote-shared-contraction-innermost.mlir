// wave-promote-shared{contraction-innermost} (gfx942: MFMA operands hold each lane's
// contraction elements side by side, and no LDS read transposes): B as [K, N] gets a tile
// ordered [N, K], filled from its [K, N] read and read back as [K, N] by name; A, whose
// contraction dim is already innermost, keeps its order. Without the option both keep it.
// RUN: wave-opt %s --wave-promote-shared=contraction-innermost=true | FileCheck %s
// RUN: wave-opt %s --wave-promote-shared | FileCheck %s --check-prefix=PLAIN

// CHECK-LABEL: func.func @gemm_b_k_major
// CHECK-NEXT: %[[SA:.*]] = wave.allocate {{.*}} : !wave.memory<[M, K] of f16, shared>
// CHECK-NEXT: %[[SB:.*]] = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
// CHECK: %[[GB:.*]] = wave.read %arg1 : !wave.memory<[K, N] of f16, shared> -> !wave.tensor<[K, N] of f16>
// CHECK-NEXT: wave.write %[[GB]], %[[SB]] : !wave.tensor<[K, N] of f16>, !wave.memory<[N, K] of f16, shared>
// CHECK: %[[B:.*]] = wave.read %[[SB]] : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[K, N] of f16>
// CHECK: wave.mma %{{.*}}, %[[B]]
// PLAIN-LABEL: func.func @gemm_b_k_major
// PLAIN: wave.allocate {{.*}} : !wave.memory<[M, K] of f16, shared>
// PLAIN-NEXT: wave.allocate {{.*}} : !wave.memory<[K, N] of f16, shared>
func.func @gemm_b_k_major(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[K, N] of f16, shared>,
                          %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<f32_16x16x16_f16>>]} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[K, N] of f16, shared> -> !wave.tensor<[K, N] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[K, N] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}
