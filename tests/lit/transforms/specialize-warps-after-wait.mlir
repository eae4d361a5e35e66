// wave-pipeline-shared-copies{warp-specialize=true} after a wait for a flag (wave.read's
// wait_at_least: acquire loads at system scope, as an all-gather's GEMM waits for its rows
// to land): the producer's TMA copies read the rows the flag guards, so they must not
// start before the wait. The computing threads arrive on a "ready" mbarrier (one arrival
// each) once past their wait, barrier and async-proxy fence; the producer's thread waits
// for that phase and fences the async proxy itself before its first copy. Once where the
// wait is before the split (a plain grid); before each tile's copies under a persistent
// grid, whose tiles each wait for their own rows, on the phase of the tiles so far.
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu | wave-opt \
// RUN:     --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies{warp-specialize=true},wave-insert-barriers,canonicalize,cse)))' \
// RUN:   | FileCheck %s --check-prefix=ONCE
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu=persistent=true | wave-opt \
// RUN:     --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies{warp-specialize=true},wave-insert-barriers,canonicalize,cse)))' \
// RUN:   | FileCheck %s --check-prefix=EACH

// ONCE-LABEL: gpu.func @gemm_after_wait
// ONCE: %[[READY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>>
// ONCE: nvgpu.mbarrier.init %[[READY]][%c0], %c128,
// ONCE-NEXT: gpu.barrier
// ONCE: nvvm.setmaxregister increase
// ONCE: scf.while
// ONCE: llvm.load %{{.*}} atomic acquire
// ONCE: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// ONCE-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// ONCE-NEXT: nvgpu.mbarrier.arrive %[[READY]][%c0]
// ONCE: scf.for
// ONCE: nvvm.setmaxregister decrease
// ONCE: scf.if
// ONCE-NEXT: nvgpu.mbarrier.try_wait.parity %[[READY]][%c0], %false,
// ONCE-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// ONCE-NEXT: scf.for
// ONCE-NOT: nvgpu.mbarrier.try_wait.parity %[[READY]]
// ONCE: nvgpu.tma.async.load
// ONCE: } {wave.consumer_threads = 128 : i64}

// EACH-LABEL: gpu.func @gemm_after_wait
// EACH: %[[READY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>>
// EACH: nvgpu.mbarrier.init %[[READY]][%c0], %c128,
// EACH: nvvm.setmaxregister increase
// EACH-NEXT: scf.for
// EACH: scf.while
// EACH: llvm.load %{{.*}} atomic acquire
// EACH: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// EACH-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// EACH: nvgpu.mbarrier.arrive %[[READY]][%c0]
// EACH: scf.for
// EACH: nvvm.setmaxregister decrease
// EACH: scf.if
// EACH-NEXT: scf.for %[[TILE:.*]] = %c0 to
// EACH: %[[COUNT:.*]] = arith.index_castui %[[TILE]]
// EACH-NEXT: %[[PARITY:.*]] = arith.trunci %[[COUNT]] : i64 to i1
// EACH: nvgpu.mbarrier.try_wait.parity %[[READY]][%c0], %[[PARITY]],
// EACH-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// EACH-NEXT: scf.for
// EACH: nvgpu.tma.async.load
// EACH: } {wave.consumer_threads = 128 : i64}
#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

func.func @gemm_after_wait(%ready: !wave.memory<[C] of i32, global>, %a: !wave.memory<[M, K] of f16, shared>,
                           %b: !wave.memory<[N, K] of f16, shared>, %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = #gemm_constraints,
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, K = 4096 : i64,
                            M = 4096 : i64, N = 4096 : i64, C = 4 : i64}} {
  %seen = wave.read %ready {wait_at_least = #wave.expr<"1">, take,
      mapping = #wave.index_mapping<iterators = 1, inputs = {C = #wave.expr<"$0 floordiv 1024">}, outputs = {M = #wave.expr<"$0">}>}
      : !wave.memory<[C] of i32, global> -> !wave.tensor<[M] of i32>
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
