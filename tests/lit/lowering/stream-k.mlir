// Stream-K (wave-lower-to-gpu{persistent=true stream-k=true}): on a persistent grid whose
// last round is at most half full, the rounds of whole tiles stop two short of the end,
// and the rest's K trips are shared out evenly (where there are fewer tiles than
// workgroups, in equal parts of each tile; at most one workgroup per 8 trips of a tile):
// one unit per whole tile, then one per tile a share meets, the K loop running that
// segment's trips. After the loop a segment short of its tile peeks at the tile's
// counter; unless the others are all counted, it adds its sums to the tile's slot of the
// workspace (a parameter after the tensors') and counts its trips; the one completing the
// count takes the slot's sums (adding its own where it kept them) and zeroes the slot; the
// epilogue runs only where the sums are whole.
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu="persistent=true stream-k=true" \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse)))' | FileCheck %s
// On AMDGPU the same atomics and fences at its device-wide scope, "agent":
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu="persistent=true stream-k=true device-scope=agent" \
// RUN:   | FileCheck %s --check-prefix=AGENT
// AGENT: llvm.load %{{.*}} atomic syncscope("agent") acquire
// AGENT: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("agent") monotonic
// AGENT: llvm.fence syncscope("agent") release
// AGENT: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("agent") acq_rel
// AGENT: llvm.fence syncscope("agent") acquire
// AGENT-NOT: syncscope("device")
// A loop whose carried value is no sum (a running maximum) keeps the plain persistent grid.
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu="persistent=true stream-k=true" \
// RUN:   | FileCheck %s --check-prefix=MAX

// CHECK: memref.global "private" @__wave_stream_k_last : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @gemm(
// CHECK-SAME: %[[WORKSPACE:[^:]*]]: !llvm.ptr<1>)
// CHECK-SAME: wave.persistent
// CHECK-SAME: wave.stream_k_slot_bytes = [[SLOT:[0-9]+]]
// CHECK: %[[WG:.*]] = gpu.block_id x
// CHECK: %[[WGS:.*]] = gpu.grid_dim x
// The 64 tiles' rounds, the plain grid's trips, and whether the last round splits.
// CHECK: %[[ROUNDS:.*]] = arith.divui %c64, %[[WGS]]
// CHECK: %[[LEFT:.*]] = arith.remui %c64, %[[WGS]]
// CHECK: %[[WHOLE:.*]] = arith.addi %[[ROUNDS]], %{{.*}} : index
// CHECK: %[[TWICE:.*]] = arith.muli %[[LEFT]], %c2
// CHECK: %[[HALF:.*]] = arith.cmpi ule, %[[TWICE]], %[[WGS]]
// CHECK: %[[SPLITS:.*]] = arith.andi %{{.*}}, %[[HALF]]
// CHECK: %[[FULL:.*]] = arith.select %[[SPLITS]], %{{.*}}, %[[ROUNDS]]
// The sharers: per tile the workgroups over the tiles, at most 4 (32 trips, 8 a part);
// at most the workgroups; the
// share's end: (the workgroup + 1, at most the sharers) x the split trips / the sharers.
// CHECK: %[[CAPPED:.*]] = arith.minui %[[WGS]], %{{.*}}
// CHECK: %[[SHARERS:.*]] = arith.maxui %[[CAPPED]], %c1
// CHECK: %[[SHARE_END:.*]] = arith.divui %{{.*}}, %[[SHARERS]]
// CHECK: %[[SEGMENT_UNITS:.*]] = arith.addi %[[FULL]], %{{[0-9]+}} : index
// CHECK-NEXT: %[[UNITS:.*]] = arith.select %[[SPLITS]], %[[SEGMENT_UNITS]], %[[WHOLE]]
// CHECK-NEXT: scf.for %[[UNIT:[0-9a-z_]+]] = %c0 to %[[UNITS]] step %c1
// CHECK: %[[LATER:.*]] = arith.cmpi uge, %[[UNIT]], %[[FULL]]
// CHECK: %[[SPLIT:.*]] = arith.andi %[[SPLITS]], %[[LATER]]
// CHECK: %[[SEGMENT:.*]] = arith.select %[[SPLIT]], %{{.*}}, %c0
// CHECK: %[[BEGIN:.*]] = arith.select %[[SPLIT]], %{{.*}}, %c0
// CHECK: %[[END:.*]] = arith.select %[[SPLIT]], %{{.*}}, %c32
// CHECK: %[[TRIPS:.*]] = arith.subi %[[END]], %[[BEGIN]]
// CHECK: scf.for
// CHECK: %[[SHORT:.*]] = arith.ori
// CHECK: %[[PARTS:.*]]:2 = scf.if %[[SHORT]] -> (vector<{{.*}}xf32>, i1) {
// The peek.
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: memref.store %{{.*}}, %{{.*}}[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[SEEN:.*]] = memref.load
// CHECK: %[[ALREADY:.*]] = arith.cmpi ne, %[[SEEN]], %c0_i32
// CHECK: scf.if %[[ALREADY]] {
// CHECK-NEXT: } else {
// (No vector red.global.add on sm_80: an atomic add per element.)
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK: llvm.fence syncscope("device") release
// CHECK: gpu.barrier
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") acq_rel
// CHECK: memref.store %{{.*}}, %{{.*}}[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
// The last resets the counter.
// CHECK: llvm.store %c0_i32, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK: gpu.barrier
// CHECK: scf.if %{{.*}} -> (vector<{{.*}}xf32>) {
// CHECK: llvm.fence syncscope("device") acquire
// CHECK: scf.if %[[ALREADY]] -> (vector<{{.*}}xf32>) {
// CHECK: llvm.load volatile %[[AT:.*]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: arith.addf
// CHECK: llvm.store %{{.*}}, %[[AT]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK: llvm.load volatile
// CHECK-NOT: arith.addf
// CHECK: llvm.store
// CHECK: } else {
// CHECK: scf.yield %{{.*}}, %true
// CHECK: scf.if %[[PARTS]]#1 {
// CHECK: vector.store
// CHECK: } {wave.tile_loop}

// MAX-LABEL: gpu.func @running_max
// MAX-NOT: !llvm.ptr<1>
// MAX-NOT: wave.stream_k_slot_bytes
// MAX-SAME: wave.persistent
// MAX-NOT: llvm.atomicrmw

#constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

func.func @gemm(%a: !wave.memory<[M, K] of f16, global>, %b: !wave.memory<[N, K] of f16, global>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = #constraints,
    wave.hyperparameters = {BLOCK_K = 32 : i64, BLOCK_M = 64 : i64, BLOCK_N = 64 : i64, K = 1000 : i64,
                            M = 500 : i64, N = 500 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %y = wave.read %b : !wave.memory<[N, K] of f16, global> -> !wave.tensor<[N, K] of f16>
    %x = wave.read %a : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

func.func @running_max(%a: !wave.memory<[M, K] of f32, global>, %c: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {BLOCK_K = 32 : i64, BLOCK_M = 64 : i64, K = 1000 : i64, M = 500 : i64}} {
  %0 = wave.register -1.0e30 : !wave.tensor<[M] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%m: !wave.tensor<[M] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f32, global> -> !wave.tensor<[M, K] of f32>
    %n = wave.reduce_max %x init(%m) along "K" : (!wave.tensor<[M, K] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %n : !wave.tensor<[M] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}
