// wave-schedule-tiles-dynamically: a persistent grid's tiles of differing lengths (here a
// GEMM whose K loop ends by the tile's position along M, as causal attention's key loop
// ends by its query tile's) are handed out at run time by the producer warpgroup.
// wave-lower-to-gpu's tile-counter gives the function a counter parameter and names the
// tile loop's linear tile by wave.scheduled_tile on it.
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu="persistent=true tile-counter=true" | FileCheck %s --check-prefix=TAGGED
// Warp-specialized: the producer's first thread fetches each next tile (atom.inc on the
// counter, plus the workgroups) and passes it through two slots of shared memory, each
// with a full and an empty mbarrier; both tile loops become scf.while loops that stop at
// the first tile past the last.
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu="persistent=true tile-counter=true" \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies{warp-specialize=true},wave-insert-barriers,wave-schedule-tiles-dynamically,canonicalize,cse)))' \
// RUN:   | FileCheck %s --check-prefix=DYNAMIC
// Software-pipelined (no producer to fetch them): the static rounds.
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu="persistent=true tile-counter=true" \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies,wave-insert-barriers,wave-schedule-tiles-dynamically,canonicalize,cse)))' \
// RUN:   | FileCheck %s --check-prefix=STATIC

#constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

func.func @lower_triangle(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                          %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = #constraints,
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, K = 4096 : i64,
                            M = 4096 : i64, N = 4096 : i64}} {
  %sb = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
  %sa = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) {end = #wave.expr<"$0 + 128">, end_dims = ["M"]} : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
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

// TAGGED-LABEL: gpu.func @lower_triangle(
// TAGGED-SAME: %[[COUNTER:[^:]*]]: !llvm.ptr<1>
// TAGGED-SAME: wave.tile_counter
// TAGGED: scf.for %[[ROUND:.*]] = %{{.*}} to %{{.*}} iter_args
// TAGGED: %[[IN_ORDER:.*]] = arith.addi
// TAGGED-NEXT: %[[TILE:.*]] = wave.scheduled_tile %[[IN_ORDER]] of %{{.*}} counter %[[COUNTER]] : !llvm.ptr<1>
// TAGGED-NEXT: arith.divui %[[TILE]]

// DYNAMIC: memref.global "private" @wave_tile_slots : memref<2xi32, #gpu.address_space<workgroup>>
// DYNAMIC-LABEL: gpu.func @lower_triangle(
// DYNAMIC-SAME: %[[COUNTER:[^:]*]]: !llvm.ptr<1>
// DYNAMIC: %[[SLOTS:.*]] = memref.get_global @wave_tile_slots
// DYNAMIC-NEXT: %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// DYNAMIC-NEXT: %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// DYNAMIC-NEXT: nvgpu.mbarrier.init %[[FULL]][%c0], %c1
// DYNAMIC-NEXT: nvgpu.mbarrier.init %[[EMPTY]][%c0], %c128
// DYNAMIC-NEXT: nvgpu.mbarrier.init %[[FULL]][%c1], %c1
// DYNAMIC-NEXT: nvgpu.mbarrier.init %[[EMPTY]][%c1], %c128
// DYNAMIC-NEXT: gpu.barrier
// The computing threads: each trip waits for its slot's tile, reads it and empties the slot.
// DYNAMIC: scf.if
// DYNAMIC: scf.while (%[[C_COUNT:.*]] = %c0, %{{.*}} = %c0)
// DYNAMIC-NEXT: %[[C_SLOT:.*]] = arith.remui %[[C_COUNT]], %c2
// DYNAMIC-NEXT: %[[C_ROUND:.*]] = arith.divui %[[C_COUNT]], %c2
// DYNAMIC-NEXT: %[[C_ROUND64:.*]] = arith.index_castui %[[C_ROUND]] : index to i64
// DYNAMIC-NEXT: %[[C_PARITY:.*]] = arith.trunci %[[C_ROUND64]] : i64 to i1
// DYNAMIC-NEXT: nvgpu.mbarrier.try_wait.parity %[[FULL]][%[[C_SLOT]]], %[[C_PARITY]]
// DYNAMIC-NEXT: %[[LOADED:.*]] = memref.load %[[SLOTS]][%[[C_SLOT]]]
// DYNAMIC-NEXT: nvgpu.mbarrier.arrive %[[EMPTY]][%[[C_SLOT]]]
// DYNAMIC-NEXT: %[[C_TILE:.*]] = arith.index_castui %[[LOADED]] : i32 to index
// DYNAMIC-NEXT: %[[C_RUNS:.*]] = arith.cmpi ult, %[[C_TILE]], %c1024
// DYNAMIC-NEXT: scf.condition(%[[C_RUNS]]) %[[C_TILE]], %[[C_COUNT]]
// DYNAMIC: } do {
// DYNAMIC-NEXT: ^bb0(%[[C_AT:[^:]*]]: index, %[[C_AT_COUNT:[^:]*]]: index, %{{.*}}: index):
// DYNAMIC-NEXT: arith.divui %[[C_AT]], %c32
// DYNAMIC: %[[C_NEXT:.*]] = arith.addi %[[C_AT_COUNT]], %c1
// DYNAMIC-NEXT: scf.yield %[[C_NEXT]], %{{.*}} : index, index
// DYNAMIC-NOT: wave.tile_loop
// The producer's first thread: from the workgroup's own tile, it publishes each in the
// next emptied slot and fetches the one after it.
// DYNAMIC: } else {
// DYNAMIC: %[[WG:.*]] = gpu.block_id x
// DYNAMIC-NEXT: %[[WGS:.*]] = gpu.grid_dim x
// DYNAMIC-NEXT: scf.while (%[[P_TILE:.*]] = %[[WG]], %[[P_COUNT:.*]] = %c0, %{{.*}} = %c0)
// DYNAMIC-NEXT: %[[P_SLOT:.*]] = arith.remui %[[P_COUNT]], %c2
// DYNAMIC: %[[EMPTIED:.*]] = arith.xori %{{.*}}, %true
// DYNAMIC-NEXT: nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%[[P_SLOT]]], %[[EMPTIED]]
// DYNAMIC-NEXT: %[[P_TILE32:.*]] = arith.index_castui %[[P_TILE]] : index to i32
// DYNAMIC-NEXT: memref.store %[[P_TILE32]], %[[SLOTS]][%[[P_SLOT]]]
// DYNAMIC-NEXT: nvgpu.mbarrier.arrive %[[FULL]][%[[P_SLOT]]]
// DYNAMIC-NEXT: %[[P_RUNS:.*]] = arith.cmpi ult, %[[P_TILE]], %c1024
// DYNAMIC-NEXT: scf.condition(%[[P_RUNS]])
// DYNAMIC: } do {
// DYNAMIC-NEXT: ^bb0(%[[P_AT:[^:]*]]: index, %[[P_AT_COUNT:[^:]*]]: index, %{{.*}}: index):
// DYNAMIC-NEXT: %[[FETCHED:.*]] = llvm.atomicrmw uinc_wrap %[[COUNTER]], %c1023_i32 monotonic : !llvm.ptr<1>, i32
// DYNAMIC-NEXT: %[[TAKEN:.*]] = arith.index_castui %[[FETCHED]] : i32 to index
// DYNAMIC-NEXT: %[[AFTER:.*]] = arith.addi %[[TAKEN]], %[[WGS]]
// DYNAMIC-NEXT: arith.divui %[[P_AT]], %c32
// DYNAMIC: nvgpu.tma.async.load
// DYNAMIC: scf.yield %[[AFTER]], %{{.*}}, %{{.*}} : index, index, index
// DYNAMIC-NOT: wave.scheduled_tile

// STATIC-LABEL: gpu.func @lower_triangle(
// STATIC-NOT: wave.scheduled_tile
// STATIC-NOT: scf.while
// STATIC: } {wave.tile_loop}
