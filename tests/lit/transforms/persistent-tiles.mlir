// A persistent grid (wave-lower-to-gpu{persistent=true}): the kernel's body loops over the
// 32 x 32 workgroup tiles of a 4000 x 4000 output (wave.tile_loop) in rounds of one tile
// per workgroup, the workgroups' order forwards in even rounds and backwards in odd ones;
// a workgroup runs the partial last round's tile if its place in that round is among the
// tiles left. The tile's coordinates are the linear tile's (wave.scheduled_tile: the static schedule's, unless wave-schedule-tiles-dynamically hands tiles out), in groups of 8 along x. The K loop counts its trips over the workgroup's tiles
// (wave.trip_base: the tile loop's iteration argument), so that each TMA copy's mbarrier
// phase goes on from the last tile's: the wait's parity is that of the trips so far.
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu=persistent=true | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse)))' \
// RUN:   | FileCheck %s
// Software-pipelined (wave-pipeline-shared-copies): stages indexed by the trips so far; a
// barrier before the next tile's first copies (the last tile's wgmma read those stages).
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu=persistent=true \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies,wave-insert-barriers,canonicalize,cse)))' \
// RUN:   | FileCheck %s --check-prefix=PIPELINED
// Warp-specialized: the producer walks the tiles too, counting its own trips; the
// computing warps release the last trip's stage after the loop (its batch waited for),
// for the next tile's copies.
// RUN: wave-opt %s --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu=persistent=true \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies{warp-specialize=true},wave-insert-barriers,canonicalize,cse)))' \
// RUN:   | FileCheck %s --check-prefix=SPECIALIZED

// CHECK-LABEL: gpu.func @gemm
// CHECK-NOT: known_grid_size
// CHECK-SAME: wave.persistent
// CHECK: %[[WG:.*]] = gpu.block_id x
// CHECK: %[[WGS:.*]] = gpu.grid_dim x
// CHECK: %[[LAST_WG:.*]] = arith.subi %[[WGS]], %c1
// CHECK: %[[MIRRORED:.*]] = arith.subi %[[LAST_WG]], %[[WG]]
// CHECK: %[[ROUNDS:.*]] = arith.divui %c1024, %[[WGS]]
// CHECK: %[[LEFT:.*]] = arith.remui %c1024, %[[WGS]]
// CHECK: %[[PLACE:.*]] = arith.select %{{.*}}, %[[MIRRORED]], %[[WG]]
// CHECK: %[[ONE_MORE:.*]] = arith.cmpi ult, %[[PLACE]], %[[LEFT]]
// CHECK: %[[EXTRA:.*]] = arith.select %[[ONE_MORE]], %c1, %c0
// CHECK: %[[TRIPS:.*]] = arith.addi %[[ROUNDS]], %[[EXTRA]]
// CHECK: scf.for %[[ROUND:.*]] = %c0 to %[[TRIPS]] step %c1 iter_args(%[[EARLIER:.*]] = %c0) -> (index) {
// CHECK: %[[BEFORE:.*]] = arith.muli %[[ROUND]], %[[WGS]]
// CHECK: %[[IN_ROUND:.*]] = arith.select %{{.*}}, %[[MIRRORED]], %[[WG]]
// CHECK: %[[IN_ORDER:.*]] = arith.addi %[[BEFORE]], %[[IN_ROUND]]
// CHECK-NEXT: %[[TILE:.*]] = wave.scheduled_tile %[[IN_ORDER]] of %c1024
// CHECK: %[[ROW:.*]] = arith.divui %[[TILE]], %c32
// CHECK: %[[COL:.*]] = arith.remui %[[TILE]], %c32
// CHECK: %[[AFTER:.*]] = arith.addi %[[EARLIER]], %c63
// CHECK: scf.for %[[K:.*]] = %c0 to %c63
// CHECK: %[[TRIP:.*]] = arith.addi %[[EARLIER]], %[[K]]
// CHECK-NEXT: %[[TRIP64:.*]] = arith.index_castui %[[TRIP]] : index to i64
// CHECK-NEXT: %[[PARITY:.*]] = arith.trunci %[[TRIP64]] : i64 to i1
// CHECK: nvgpu.mbarrier.try_wait.parity %{{.*}}[%c0], %[[PARITY]]
// CHECK: } {wave.trip_base = 0 : i64}
// CHECK: scf.yield %[[AFTER]] : index
// CHECK-NEXT: } {wave.tile_loop}
// CHECK-NEXT: gpu.return

// PIPELINED-LABEL: gpu.func @gemm
// PIPELINED: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args(%[[EARLIER:.*]] = %c0) -> (index) {
// PIPELINED: %[[FIRST_STAGE:.*]] = arith.remui %[[EARLIER]], %c3
// PIPELINED: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%[[FIRST_STAGE]]]
// PIPELINED: gpu.barrier
// PIPELINED-NEXT: nvgpu.tma.async.load %{{.*}}, %{{.*}}[%[[FIRST_STAGE]]]
// PIPELINED: scf.for %[[K:.*]] = %c0 to %c63
// PIPELINED: %[[AHEAD:.*]] = arith.addi %[[K]], %c1
// PIPELINED: %[[AHEAD_TRIP:.*]] = arith.addi %[[EARLIER]], %[[AHEAD]]
// PIPELINED: %[[FILLED:.*]] = arith.remui %[[AHEAD_TRIP]], %c3
// PIPELINED: nvgpu.tma.async.load %{{.*}}, %{{.*}}[%[[FILLED]]]
// PIPELINED: %[[TRIP:.*]] = arith.addi %[[EARLIER]], %[[K]]
// PIPELINED-NEXT: %[[STAGE:.*]] = arith.remui %[[TRIP]], %c3
// PIPELINED: nvgpu.mbarrier.try_wait.parity %{{.*}}[%[[STAGE]]]
// PIPELINED: } {wave.tile_loop}

// SPECIALIZED-LABEL: gpu.func @gemm
// SPECIALIZED-COUNT-2: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// SPECIALIZED: %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// SPECIALIZED: scf.if
// SPECIALIZED: scf.for %[[ROUND:.*]] = %c0 to %[[TRIPS:.*]] step %c1 iter_args(%[[EARLIER:.*]] = %c0) -> (index) {
// SPECIALIZED: %[[RELEASES:.*]] = arith.cmpi eq, %{{.*}}, %c0
// SPECIALIZED: scf.for %[[K:.*]] = %c0 to %c63
// SPECIALIZED-NOT: nvgpu.tma.async.load
// SPECIALIZED: } {wave.trip_base = 0 : i64}
// SPECIALIZED-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// SPECIALIZED-NEXT: %[[LAST_TRIP:.*]] = arith.addi %[[EARLIER]], %c62
// SPECIALIZED-NEXT: %[[LAST:.*]] = arith.remui %[[LAST_TRIP]], %c3
// SPECIALIZED-NEXT: scf.if %[[RELEASES]] {
// SPECIALIZED-NEXT: nvgpu.mbarrier.arrive %[[EMPTY]][%[[LAST]]]
// SPECIALIZED: } {wave.tile_loop}
// SPECIALIZED: nvvm.setmaxregister decrease 40
// SPECIALIZED: scf.if
// SPECIALIZED-NEXT: scf.for %{{.*}} = %c0 to %[[TRIPS]] step %c1 iter_args(%[[OWN:.*]] = %c0) -> (index) {
// SPECIALIZED: scf.for %[[KP:.*]] = %c0 to %c63
// SPECIALIZED-NEXT: %[[TRIP:.*]] = arith.addi %[[OWN]], %[[KP]]
// SPECIALIZED-NEXT: %[[STAGE:.*]] = arith.remui %[[TRIP]], %c3
// SPECIALIZED: nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%[[STAGE]]]
// SPECIALIZED: nvgpu.tma.async.load
// SPECIALIZED: } {wave.trip_base = 0 : i64}
// SPECIALIZED-NEXT: %[[NEXT:.*]] = arith.addi %[[OWN]], %c63
// SPECIALIZED-NEXT: scf.yield %[[NEXT]] : index
// SPECIALIZED-NEXT: } {wave.tile_loop}
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
