// Clusters (wave-lower-to-gpu{cluster-size=2}): a GEMM over 128 x 256 tiles of a 4000 x 4000
// output (32 x 16 tiles). B's 256 x 64 tile is the larger operand tile, and neighbours along
// M (x) share it: clusters of two along x (nvvm.cluster_dim), the tile scheduler ordering
// clusters (16 x 16 of them, in groups of 4 along x: 8 tiles' worth), each member's tile
// along x its cluster's times 2 plus its rank; B's copy marked wave.multicast, A's not.
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu=cluster-size=2 | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse)))' \
// RUN:   | FileCheck %s
// On a persistent grid: its workgroups along x in clusters of two, a cluster one place in
// the rounds over the 256 clusters' tiles.
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu="persistent=true cluster-size=2" \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse)))' \
// RUN:   | FileCheck %s --check-prefix=PERSISTENT
// Clusters of four: 4 divides both tile counts, B's axis again.
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu=cluster-size=4 | FileCheck %s --check-prefix=FOUR

// CHECK-LABEL: gpu.func @gemm
// CHECK-SAME: known_grid_size = array<i32: 32, 16, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: %[[X:.*]] = gpu.block_id x
// CHECK-NEXT: %[[Y:.*]] = gpu.block_id y
// CHECK-NEXT: %[[RANK:.*]] = arith.remui %[[X]], %c2
// CHECK-NEXT: %[[CLUSTER_X:.*]] = arith.divui %[[X]], %c2
// CHECK-NEXT: %[[BEFORE:.*]] = arith.muli %[[Y]], %c16
// CHECK-NEXT: %[[LINEAR:.*]] = arith.addi %[[BEFORE]], %[[CLUSTER_X]]
// CHECK-NEXT: %[[GROUP:.*]] = arith.divui %[[LINEAR]], %c64
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[GROUP]], %c4
// CHECK: %[[ORDERED_X:.*]] = arith.addi %[[FIRST]], %{{.*}}
// CHECK: %[[MEMBERS:.*]] = arith.muli %[[ORDERED_X]], %c2
// CHECK-NEXT: %[[TILE_X:.*]] = arith.addi %[[MEMBERS]], %[[RANK]]
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[TILE_X]], %c128
// CHECK: nvgpu.tma.async.load {{.*}} {wave.multicast} : <tensor = memref<256x64xf16
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %[[M]]]
// CHECK-NOT: wave.multicast
// CHECK-SAME: <tensor = memref<128x64xf16

// PERSISTENT-LABEL: gpu.func @gemm
// PERSISTENT-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>, wave.persistent
// PERSISTENT: %[[WG:.*]] = gpu.block_id x
// PERSISTENT-NEXT: %[[WGS:.*]] = gpu.grid_dim x
// PERSISTENT-NEXT: %[[RANK:.*]] = arith.remui %[[WG]], %c2
// PERSISTENT-NEXT: %[[CLUSTER:.*]] = arith.divui %[[WG]], %c2
// PERSISTENT-NEXT: %[[CLUSTERS:.*]] = arith.divui %[[WGS]], %c2
// PERSISTENT: %[[ROUNDS:.*]] = arith.divui %c256, %[[CLUSTERS]]
// PERSISTENT: scf.for
// PERSISTENT: arith.muli %{{.*}}, %[[CLUSTERS]]
// PERSISTENT: %[[MEMBERS:.*]] = arith.muli %{{.*}}, %c2
// PERSISTENT-NEXT: arith.addi %[[MEMBERS]], %[[RANK]]

// FOUR-LABEL: gpu.func @gemm
// FOUR-SAME: nvvm.cluster_dim = array<i32: 4, 1, 1>

#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

func.func @gemm(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = #gemm_constraints,
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 256 : i64, K = 4000 : i64,
                            M = 4000 : i64, N = 4000 : i64}} {
  %sb = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
  %sa = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %gb = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    wave.write %gb, %sb : !wave.tensor<[N, K] of f16>, !wave.memory<[N, K] of f16, shared>
    %ga = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    wave.write %ga, %sa : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, shared>
    %y = wave.read %sb : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %x = wave.read %sa : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}
