// wave-select-warpgroup-mma: an mma whose operands are plain reads of shared tiles runs on
// warpgroups (wgmma), its tiles swizzled by their row length (64 K elements of f16: 128
// bytes): a GEMM's main loop, a B tile whose rows run along N (read transposed), a product
// reduced in the loop along the columns; a product reduced along the rows that wgmma's
// warps split stays on mma.sync; with enabled=false nothing changes. Lowered, the fills
// store at swizzled offsets and the mma becomes wgmma between the proxy fence,
// wgmma.fence, commit and wait. f8 goes to wgmma k32 where its tiles hold K innermost,
// else stays on mma.sync.
// RUN: wave-opt %s --split-input-file --wave-select-warpgroup-mma | FileCheck %s
// RUN: wave-opt %s --split-input-file --wave-select-warpgroup-mma=enabled=false | FileCheck %s --check-prefix=OFF
// RUN: wave-opt %s --split-input-file --wave-select-warpgroup-mma --wave-assign-layouts --wave-lower-to-gpu \
// RUN:   | FileCheck %s --check-prefix=LOWERED
// Pipelined (three 32 KiB stages), each iteration's wgmma batch stays in flight through the
// next: the copies run one iteration ahead, each iteration fences its landed copies for
// the async proxy, and all batches are waited for after the loop.
// RUN: wave-opt %s --split-input-file --wave-select-warpgroup-mma --wave-assign-layouts --wave-lower-to-gpu \
// RUN:   | wave-opt --split-input-file \
// RUN:     --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies,wave-insert-barriers)))' \
// RUN:   | FileCheck %s --check-prefix=PIPELINED

#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

// CHECK-LABEL: func.func @gemm
// CHECK: wave.allocate {padding = 0 : i64, swizzle = 128 : i64
// CHECK: wave.allocate {padding = 0 : i64, swizzle = 128 : i64
// CHECK: wave.mma {{.*}} {warpgroup}
// OFF-LABEL: func.func @gemm
// OFF-NOT: swizzle
// OFF-NOT: warpgroup
// LOWERED-LABEL: gpu.func @gemm
// LOWERED: memref.view {{.*}} to memref<8192xf16, #gpu.address_space<workgroup>>
// LOWERED: scf.for
// LOWERED: arith.xori
// LOWERED: vector.store {{.*}} : memref<8192xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// LOWERED: memref.extract_aligned_pointer_as_index
// LOWERED: nvvm.fence.proxy
// LOWERED-NEXT: nvvm.wgmma.fence.aligned
// LOWERED-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// LOWERED-NEXT: nvvm.wgmma.commit.group.sync.aligned
// LOWERED-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// LOWERED-NOT: nvgpu.mma.sync
// PIPELINED-LABEL: gpu.func @gemm
// PIPELINED-SAME: wave.shared_memory_bytes = 98304
// PIPELINED: memref.view {{.*}} to memref<3x8192xf16
// PIPELINED: scf.for
// PIPELINED: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// PIPELINED-NEXT: nvvm.fence.proxy
// PIPELINED: gpu.barrier
// PIPELINED: nvgpu.device_async_copy
// PIPELINED: nvvm.wgmma.mma_async
// PIPELINED: nvvm.wgmma.wait.group.sync.aligned 1
// PIPELINED: scf.yield
// PIPELINED: nvvm.wgmma.wait.group.sync.aligned 0
func.func @gemm(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = #gemm_constraints,
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, K = 4096 : i64,
                            M = 4096 : i64, N = 4096 : i64}} {
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

// -----

// Two mmas multiply one A tile (a MoE's gate and up projections of a token tile): both go
// to wgmma, which reads the tile through descriptors (swizzled, no fragments in registers),
// and both batches then stay in flight: no wait between them, the one after the second
// leaving two groups (the previous iteration's are done before their stages refill).
// CHECK-LABEL: func.func @two_products_of_one_tile
// CHECK-COUNT-3: wave.allocate {padding = 0 : i64, swizzle = 128 : i64
// CHECK: wave.mma {{.*}} {warpgroup}
// CHECK: wave.mma {{.*}} {warpgroup}
// LOWERED-LABEL: gpu.func @two_products_of_one_tile
// LOWERED-NOT: wgmma.mma_async.sync
// LOWERED-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
// LOWERED: nvvm.wgmma.commit.group.sync.aligned
// LOWERED-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
// LOWERED: nvvm.wgmma.commit.group.sync.aligned
// PIPELINED-LABEL: gpu.func @two_products_of_one_tile
// PIPELINED: scf.for
// PIPELINED: nvvm.wgmma.commit.group.sync.aligned
// PIPELINED-NOT: nvvm.wgmma.wait.group
// PIPELINED: nvvm.wgmma.commit.group.sync.aligned
// PIPELINED-NEXT: nvvm.wgmma.wait.group.sync.aligned 2
// PIPELINED-NOT: nvvm.wgmma.wait.group
// PIPELINED: scf.yield
// PIPELINED-NEXT: }
// PIPELINED-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
func.func @two_products_of_one_tile(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                                    %b2: !wave.memory<[N, K] of f16, shared>, %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 4">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 64 : i64, BLOCK_N = 128 : i64, K = 4096 : i64,
                            M = 4096 : i64, N = 4096 : i64}} {
  %sb = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
  %sb2 = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
  %sa = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1:2 = wave.iterate "K" iter_args(%0, %0) : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) {
  ^bb0(%gate: !wave.tensor<[M, N] of f32>, %up: !wave.tensor<[M, N] of f32>):
    %gb = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    wave.write %gb, %sb : !wave.tensor<[N, K] of f16>, !wave.memory<[N, K] of f16, shared>
    %gb2 = wave.read %b2 : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    wave.write %gb2, %sb2 : !wave.tensor<[N, K] of f16>, !wave.memory<[N, K] of f16, shared>
    %ga = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    wave.write %ga, %sa : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, shared>
    %x = wave.read %sa : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %sb : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %y2 = wave.read %sb2 : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %gate : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    %d2 = wave.mma %x, %y2, %up : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d, %d2 : !wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>
  }
  %2 = wave.mul %1#0, %1#1 : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  wave.write %2, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// B's tile holds [K, N]: its rows run along N (MN-major), 256 bytes long; wgmma reads it
// transposed (B's layout `row`).
// CHECK-LABEL: func.func @b_along_n
// CHECK: wave.allocate {padding = 0 : i64, swizzle = 128 : i64
// CHECK: wave.allocate {padding = 0 : i64, swizzle = 128 : i64
// CHECK: wave.mma {{.*}} {warpgroup}
// LOWERED-LABEL: gpu.func @b_along_n
// LOWERED-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
func.func @b_along_n(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[K, N] of f16, shared>,
                     %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, K = 4096 : i64,
                            M = 4096 : i64, N = 4096 : i64}} {
  %sb = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_K">, #wave.expr<"BLOCK_N">]} : !wave.memory<[K, N] of f16, shared>
  %sa = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %gb = wave.read %b : !wave.memory<[K, N] of f16, shared> -> !wave.tensor<[K, N] of f16>
    wave.write %gb, %sb : !wave.tensor<[K, N] of f16>, !wave.memory<[K, N] of f16, shared>
    %ga = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    wave.write %ga, %sa : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, shared>
    %y = wave.read %sb : !wave.memory<[K, N] of f16, shared> -> !wave.tensor<[K, N] of f16>
    %x = wave.read %sa : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[K, N] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// The product, from zeros, is reduced in the loop along its columns (a row max, as
// attention's scores), which each warp holds whole: wgmma, the zeros never read (scale-d
// 0 at the first k step).
// CHECK-LABEL: func.func @product_used_in_loop
// CHECK: swizzle = 128
// CHECK: wave.mma {{.*}} {warpgroup}
// LOWERED-LABEL: gpu.func @product_used_in_loop
// LOWERED-COUNT-2: nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// LOWERED-COUNT-6: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// LOWERED: nvvm.wgmma.wait.group.sync.aligned 0
func.func @product_used_in_loop(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                                %c: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 4">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, K = 4096 : i64, M = 4096 : i64, N = 64 : i64}} {
  %sb = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
  %sa = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %m0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %1 = wave.iterate "K" iter_args(%m0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%m: !wave.tensor<[M] of f32>):
    %gb = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    wave.write %gb, %sb : !wave.tensor<[N, K] of f16>, !wave.memory<[N, K] of f16, shared>
    %ga = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    wave.write %ga, %sa : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, shared>
    %y = wave.read %sb : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %x = wave.read %sa : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %d = wave.mma %x, %y, %0 : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    %r = wave.reduce_max %d init(%m) along "N" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %r : !wave.tensor<[M] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// Reduced along both dims (a column max and a row max): in either orientation one is
// along the rows, which wgmma's warps split (16 of each 64-row strip). mma.sync.
// CHECK-LABEL: func.func @product_reduced_along_rows
// CHECK-NOT: swizzle
// CHECK-NOT: warpgroup
// CHECK: return
func.func @product_reduced_along_rows(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                                      %c: !wave.memory<[N] of f32, global>, %e: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 4">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_N = 128 : i64, K = 4096 : i64, M = 64 : i64, N = 128 : i64}} {
  %sb = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
  %sa = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %n0 = wave.register 0.0 : !wave.tensor<[N] of f32>
  %m0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %1:2 = wave.iterate "K" iter_args(%n0, %m0) : (!wave.tensor<[N] of f32>, !wave.tensor<[M] of f32>) -> (!wave.tensor<[N] of f32>, !wave.tensor<[M] of f32>) {
  ^bb0(%n: !wave.tensor<[N] of f32>, %m: !wave.tensor<[M] of f32>):
    %gb = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    wave.write %gb, %sb : !wave.tensor<[N, K] of f16>, !wave.memory<[N, K] of f16, shared>
    %ga = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    wave.write %ga, %sa : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, shared>
    %y = wave.read %sb : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %x = wave.read %sa : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %d = wave.mma %x, %y, %0 : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    %r = wave.reduce_max %d init(%n) along "M" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[N] of f32>
    %s = wave.reduce_max %d init(%m) along "N" : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %r, %s : !wave.tensor<[N] of f32>, !wave.tensor<[M] of f32>
  }
  wave.write %1#0, %c : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  wave.write %1#1, %e : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// A from registers made outside the loop (a constant here, as a hoisted read would be):
// wgmma takes registers only for an A its own block computes, and B is no tile in the
// other orientation. mma.sync, the tile left as it was.
// CHECK-LABEL: func.func @a_from_outside_the_loop
// CHECK: wave.allocate {padding = 8 : i64, tile
// CHECK-NOT: swizzle
// CHECK-NOT: warpgroup
// CHECK: return
func.func @a_from_outside_the_loop(%b: !wave.memory<[N, K] of f16, shared>, %c: !wave.memory<[M, N] of f32, global>)
    attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, K = 4096 : i64,
                            M = 4096 : i64, N = 4096 : i64}} {
  %sb = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %x = wave.register 1.0 : !wave.tensor<[M, K] of f16>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %gb = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    wave.write %gb, %sb : !wave.tensor<[N, K] of f16>, !wave.memory<[N, K] of f16, shared>
    %y = wave.read %sb : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// The loop reads its accumulator before the next batch (rescales it, as attention's
// output): each batch is waited for in its own iteration, none stays in flight.
// CHECK-LABEL: func.func @rescaled_accumulator
// CHECK: wave.mma {{.*}} {warpgroup}
// PIPELINED-LABEL: gpu.func @rescaled_accumulator
// PIPELINED: scf.for
// PIPELINED-NOT: nvvm.wgmma.wait.group.sync.aligned 1
// PIPELINED: nvvm.wgmma.wait.group.sync.aligned 0
// PIPELINED-NOT: nvvm.wgmma.wait.group.sync.aligned 1
// PIPELINED: scf.yield
func.func @rescaled_accumulator(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, K = 4096 : i64,
                            M = 4096 : i64, N = 4096 : i64}} {
  %sb = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
  %sa = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %half = wave.register 0.5 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %gb = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    wave.write %gb, %sb : !wave.tensor<[N, K] of f16>, !wave.memory<[N, K] of f16, shared>
    %ga = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    wave.write %ga, %sa : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, shared>
    %y = wave.read %sb : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %x = wave.read %sa : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %s = wave.mul %acc, %half : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    %d = wave.mma %x, %y, %s : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// f8: K-major tiles of 128 bytes (128 elements) go to wgmma m64nNk32 (one warpgroup,
// 64 x 128); the loop's accumulator is not fed to it: each K tile's sums start from zero
// (scale-d zero first) and are added to it in f32 after the wait.
// CHECK-LABEL: func.func @f8_k_major
// CHECK: wave.allocate {padding = 0 : i64, swizzle = 128 : i64
// CHECK: wave.mma {{.*}} {warpgroup}
// LOWERED-LABEL: gpu.func @f8_k_major
// LOWERED: nvvm.wgmma.fence.aligned
// LOWERED: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// LOWERED-COUNT-3: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// LOWERED-NEXT: nvvm.wgmma.commit.group.sync.aligned
// LOWERED-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// LOWERED: arith.addf {{.*}} : f32
func.func @f8_k_major(%a: !wave.memory<[M, K] of f8E4M3FN, shared>, %b: !wave.memory<[N, K] of f8E4M3FN, shared>,
                      %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x32_f8e4m3>>],
    wave.hyperparameters = {BLOCK_K = 128 : i64, BLOCK_M = 64 : i64, BLOCK_N = 128 : i64, K = 4096 : i64,
                            M = 4096 : i64, N = 4096 : i64}} {
  %sb = wave.allocate {padding = 16 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f8E4M3FN, shared>
  %sa = wave.allocate {padding = 16 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f8E4M3FN, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %gb = wave.read %b : !wave.memory<[N, K] of f8E4M3FN, shared> -> !wave.tensor<[N, K] of f8E4M3FN>
    wave.write %gb, %sb : !wave.tensor<[N, K] of f8E4M3FN>, !wave.memory<[N, K] of f8E4M3FN, shared>
    %ga = wave.read %a : !wave.memory<[M, K] of f8E4M3FN, shared> -> !wave.tensor<[M, K] of f8E4M3FN>
    wave.write %ga, %sa : !wave.tensor<[M, K] of f8E4M3FN>, !wave.memory<[M, K] of f8E4M3FN, shared>
    %y = wave.read %sb : !wave.memory<[N, K] of f8E4M3FN, shared> -> !wave.tensor<[N, K] of f8E4M3FN>
    %x = wave.read %sa : !wave.memory<[M, K] of f8E4M3FN, shared> -> !wave.tensor<[M, K] of f8E4M3FN>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f8E4M3FN>, !wave.tensor<[N, K] of f8E4M3FN>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// f8 with B's tile holding N innermost: wgmma reads 8-bit operands only K-major, so the
// mma stays on mma.sync (m16n8k32) and its tiles keep their padding.
// CHECK-LABEL: func.func @f8_b_along_n
// CHECK-NOT: swizzle
// CHECK-NOT: warpgroup
// LOWERED-LABEL: gpu.func @f8_b_along_n
// LOWERED-NOT: nvvm.wgmma.mma_async
// LOWERED: llvm.inline_asm {{.*}}"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
func.func @f8_b_along_n(%a: !wave.memory<[M, K] of f8E4M3FN, shared>, %b: !wave.memory<[K, N] of f8E4M3FN, shared>,
                        %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x32_f8e4m3>>],
    wave.hyperparameters = {BLOCK_K = 128 : i64, BLOCK_M = 64 : i64, BLOCK_N = 128 : i64, K = 4096 : i64,
                            M = 4096 : i64, N = 4096 : i64}} {
  %sb = wave.allocate {padding = 16 : i64, tile = [#wave.expr<"BLOCK_K">, #wave.expr<"BLOCK_N">]} : !wave.memory<[K, N] of f8E4M3FN, shared>
  %sa = wave.allocate {padding = 16 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f8E4M3FN, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %gb = wave.read %b : !wave.memory<[K, N] of f8E4M3FN, shared> -> !wave.tensor<[K, N] of f8E4M3FN>
    wave.write %gb, %sb : !wave.tensor<[K, N] of f8E4M3FN>, !wave.memory<[K, N] of f8E4M3FN, shared>
    %ga = wave.read %a : !wave.memory<[M, K] of f8E4M3FN, shared> -> !wave.tensor<[M, K] of f8E4M3FN>
    wave.write %ga, %sa : !wave.tensor<[M, K] of f8E4M3FN>, !wave.memory<[M, K] of f8E4M3FN, shared>
    %y = wave.read %sb : !wave.memory<[K, N] of f8E4M3FN, shared> -> !wave.tensor<[K, N] of f8E4M3FN>
    %x = wave.read %sa : !wave.memory<[M, K] of f8E4M3FN, shared> -> !wave.tensor<[M, K] of f8E4M3FN>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f8E4M3FN>, !wave.tensor<[K, N] of f8E4M3FN>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}
