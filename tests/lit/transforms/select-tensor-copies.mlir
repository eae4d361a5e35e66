// wave-select-tensor-copies: the fills of tiles wgmma reads (swizzled by 128 bytes) become
// TMA copies; lowered, thread 0 arms an mbarrier with the tile's bytes and issues one copy
// per 128-byte box through a tensor map the kernel takes as a parameter, and every thread
// waits for the iteration's phase. A tile of 64-byte rows, a mapped read, a dynamic
// innermost dim not known to be a multiple of 8 halves, and enabled=false keep the fill.
// RUN: wave-opt %s --split-input-file --wave-select-warpgroup-mma --wave-select-tensor-copies | FileCheck %s
// RUN: wave-opt %s --split-input-file --wave-select-warpgroup-mma --wave-select-tensor-copies=enabled=false \
// RUN:   | FileCheck %s --check-prefix=OFF
// RUN: wave-opt %s --split-input-file --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu | FileCheck %s --check-prefix=LOWERED
// Pipelined (three stages of 32 KiB, a wgmma batch in flight): an mbarrier per stage and
// tile, the copies one iteration ahead (a prologue fills the first), each refill after the
// one barrier of an iteration, each wait on its own stage's mbarrier, no barrier after it
// and no proxy fence before wgmma (TMA writes through the async proxy wgmma reads by).
// RUN: wave-opt %s --split-input-file --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts \
// RUN:   --wave-lower-to-gpu | wave-opt --split-input-file \
// RUN:     --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies,wave-insert-barriers)))' \
// RUN:   | FileCheck %s --check-prefix=PIPELINED

#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

// CHECK-LABEL: func.func @gemm
// CHECK: wave.iterate
// CHECK-NEXT: ^bb0
// CHECK-NEXT: wave.tma_copy %arg1, %{{.*}} : !wave.memory<[N, K] of f16, shared>, !wave.memory<[N, K] of f16, shared>
// CHECK-NEXT: wave.tma_copy %arg0, %{{.*}} : !wave.memory<[M, K] of f16, shared>, !wave.memory<[M, K] of f16, shared>
// CHECK-NEXT: wave.read
// OFF-LABEL: func.func @gemm
// OFF-NOT: wave.tma_copy
// LOWERED-LABEL: gpu.func @gemm
// LOWERED-SAME: %[[MAPB:arg[0-9]+]]: !llvm.ptr, %[[MAPA:arg[0-9]+]]: !llvm.ptr) kernel
// LOWERED-SAME: wave.tensor_maps = [{argument = 1 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}, {argument = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}]
// LOWERED-DAG: builtin.unrealized_conversion_cast %[[MAPA]] : !llvm.ptr
// LOWERED-DAG: builtin.unrealized_conversion_cast %[[MAPB]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// LOWERED-DAG: nvgpu.mbarrier.create
// LOWERED: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %{{.*}}, predicate = %[[LEADER:[^ ]*]]
// LOWERED: gpu.barrier
// LOWERED: scf.for %[[K:arg[0-9]+]] = 
// LOWERED: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %c16384{{.*}}, predicate = %[[LEADER]]
// LOWERED: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] to %{{.*}}, predicate = %[[LEADER]]
// LOWERED: %[[FROM_FIRST:.*]] = arith.subi %[[K]], %{{.*}} : index
// LOWERED: %[[NTH:.*]] = arith.divui %[[FROM_FIRST]], %{{.*}} : index
// LOWERED: %[[TRIP:.*]] = arith.index_castui %[[NTH]] : index to i64
// LOWERED: %[[PARITY:.*]] = arith.trunci %[[TRIP]] : i64 to i1
// LOWERED: nvgpu.mbarrier.try_wait.parity %{{.*}}[%{{.*}}], %[[PARITY]]
// LOWERED: nvvm.wgmma.mma_async
// LOWERED-NOT: vector.store {{.*}}#gpu.address_space<workgroup>
// LOWERED: gpu.return
// PIPELINED-LABEL: gpu.func @gemm
// PIPELINED-SAME: wave.shared_memory_bytes = 98304
// PIPELINED: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// PIPELINED-COUNT-3: nvgpu.mbarrier.init
// PIPELINED: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// PIPELINED-COUNT-3: nvgpu.mbarrier.init
// PIPELINED-NEXT: gpu.barrier
// PIPELINED-COUNT-2: nvgpu.tma.async.load
// PIPELINED: scf.for
// PIPELINED: nvgpu.mbarrier.arrive.expect_tx
// PIPELINED: gpu.barrier
// PIPELINED-NEXT: nvgpu.tma.async.load
// PIPELINED: nvgpu.mbarrier.arrive.expect_tx
// PIPELINED: nvgpu.tma.async.load
// PIPELINED: nvgpu.mbarrier.try_wait.parity
// PIPELINED: nvgpu.mbarrier.try_wait.parity
// PIPELINED-NOT: gpu.barrier
// PIPELINED-NOT: nvvm.fence.proxy
// PIPELINED: nvvm.wgmma.fence.aligned
// PIPELINED: nvvm.wgmma.mma_async
// PIPELINED-NOT: gpu.barrier
// PIPELINED: nvvm.wgmma.wait.group.sync.aligned 1
// PIPELINED: scf.yield
// PIPELINED: nvvm.wgmma.wait.group.sync.aligned 0
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

#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

// K tiles of 32 halves: rows of 64 bytes, swizzled by 64; the fills stay on the threads.
// CHECK-LABEL: func.func @narrow_rows
// CHECK-NOT: wave.tma_copy
// CHECK: wave.mma {{.*}} {warpgroup}
func.func @narrow_rows(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                      %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = #gemm_constraints,
    wave.hyperparameters = {BLOCK_K = 32 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, K = 4096 : i64,
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

#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

// K dynamic (left out of the hyperparameters): its rows' stride may be no multiple of 16
// bytes, which a tensor map cannot describe; the fills stay on the threads.
// CHECK-LABEL: func.func @dynamic_k
// CHECK-NOT: wave.tma_copy
// CHECK: wave.mma {{.*}} {warpgroup}
func.func @dynamic_k(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                     %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = #gemm_constraints,
    wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64,
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
