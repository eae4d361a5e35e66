// wave-pipeline-shared-copies{warp-specialize=true}: a loop whose tiles TMA fills is split
// between the function's threads, which compute, and a producer warpgroup added to the
// workgroup, whose first thread alone arms each stage's full mbarriers and issues its
// copies once the computing threads released the stage (an empty mbarrier per stage, one
// arrival per computing thread). The computing threads' loop keeps its waits on the full
// mbarriers and has no barrier; with a wgmma batch left in flight, an iteration releases
// the previous iteration's stage. wgmma alone reads the tiles, so the first thread of each
// warpgroup releases for it (one arrival per warpgroup). setmaxnreg moves the producer's
// registers to the computing threads: one warpgroup holding 128 accumulators fits twice
// on the SM (216 registers each, 128 at entry: nvvm.minctasm = 2). Where the computing warps are two warpgroups,
// setmaxnreg moves registers to them (the function capped at entry by nvvm.minctasm).
// RUN: wave-opt %s --split-input-file --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu | wave-opt --split-input-file \
// RUN:     --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies{warp-specialize=true},wave-insert-barriers,canonicalize,cse)))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: gpu.func @gemm
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: nvvm.minctasm = 2 : i32
// CHECK-SAME: wave.shared_memory_bytes = 98304
// CHECK: %[[FULL_B:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK-COUNT-3: nvgpu.mbarrier.init %[[FULL_B]][%{{.*}}], %c1
// CHECK: %[[FULL_A:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK-COUNT-3: nvgpu.mbarrier.init %[[FULL_A]][%{{.*}}], %c1
// CHECK: %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK-COUNT-3: nvgpu.mbarrier.init %[[EMPTY]][%{{.*}}], %c1,
// CHECK-NEXT: gpu.barrier
// CHECK: %[[COMPUTES:.*]] = arith.cmpi ult, %[[TID:.*]], %c128
// CHECK-NEXT: scf.if %[[COMPUTES]] {
// CHECK-NEXT: nvvm.setmaxregister increase 216
// CHECK-NEXT: %[[IN_GROUP:.*]] = arith.remui %[[TID]], %c128
// CHECK-NEXT: %[[RELEASES:.*]] = arith.cmpi eq, %[[IN_GROUP]], %c0
// CHECK: scf.for %[[K:.*]] = %c0 to %c63
// CHECK-NOT: nvgpu.tma.async.load
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL_B]]
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL_A]]
// CHECK-NOT: {{gpu.barrier|nvvm.barrier}}
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: %[[LATER:.*]] = arith.cmpi ugt, %[[K]], %c0
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[RELEASES]], %[[LATER]]
// CHECK-NEXT: %[[BEFORE:.*]] = arith.subi %[[K]], %c1
// CHECK-NEXT: %[[STAGE:.*]] = arith.remui %[[BEFORE]], %c3
// CHECK-NEXT: scf.if %[[BOTH]] {
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[EMPTY]][%[[STAGE]]]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: vector.maskedstore
// CHECK: nvvm.setmaxregister decrease 40
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c128
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: scf.for %[[KP:.*]] = %c0 to %c63
// CHECK-NEXT: %[[S:.*]] = arith.remui %[[KP]], %c3
// CHECK: %[[ROUND:.*]] = arith.divui
// CHECK: %[[ODD:.*]] = arith.trunci
// CHECK: %[[PREVIOUS:.*]] = arith.xori %[[ODD]], %true
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%[[S]]], %[[PREVIOUS]]
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL_B]][%[[S]]], %c16384 :
// CHECK: nvgpu.tma.async.load %{{.*}}, %[[FULL_B]][%[[S]]] to %{{.*}} :
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL_A]][%[[S]]], %c16384 :
// CHECK: nvgpu.tma.async.load %{{.*}}, %[[FULL_A]][%[[S]]] to %{{.*}} :
// CHECK-NOT: {{gpu.barrier|nvvm.barrier}}
// CHECK: } {wave.consumer_threads = 128 : i64}
// CHECK-NEXT: gpu.return
#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

func.func @gemm(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = #gemm_constraints,
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, K = 4000 : i64,
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


// -----

// Eight computing waves holding 128 accumulators each: one workgroup per SM, 240 registers
// each (setmaxnreg) where 384 threads start with 168, the producer keeping 24.
// CHECK-LABEL: gpu.func @gemm_eight_waves
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister increase 240
// CHECK: nvvm.setmaxregister decrease 24
// CHECK-NEXT: arith.cmpi eq, %{{.*}}, %c256
// CHECK: } {wave.consumer_threads = 256 : i64}
#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 4">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

func.func @gemm_eight_waves(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
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

