// wave-overlap-warpgroup-mma: the computing warps' loop of a warp-specialized flash
// attention (two wgmma batches: Q K^T from shared tiles, then P V with P from registers)
// runs each iteration's P V batch in the next iteration: issued right behind that
// iteration's Q K^T batch, the wait after Q K^T leaving it in flight (wait_group 1), the
// softmax between, then the wait for it (wait_group 0) and the release of the stage it
// read. The first iteration's stage 0 comes before the loop (its wait still 0), the last
// iteration's P V after it; the rescaling factors, P (as f16) and the induction variable
// are carried one iteration further. Software-pipelined instead (the copies in the
// loop), the loop is left alone.
// RUN: wave-opt %s --wave-hoist-invariant-reads=keep-mma-operands-shared=true --wave-promote-shared \
// RUN:   --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts --wave-lower-to-gpu \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies{warp-specialize=true},wave-insert-barriers,wave-overlap-warpgroup-mma,canonicalize,cse)))' \
// RUN:   | FileCheck %s
// RUN: wave-opt %s --wave-hoist-invariant-reads=keep-mma-operands-shared=true --wave-promote-shared \
// RUN:   --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts --wave-lower-to-gpu \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies,wave-insert-barriers,wave-overlap-warpgroup-mma,canonicalize,cse)))' \
// RUN:   | FileCheck %s --check-prefix=PIPELINED

// wave-alternate-warpgroup-mma on the result: the two computing warpgroups take turns at
// the iteration's two batches: warpgroup w waits on named barrier 2 + w before them and
// arrives on the other's after them; warpgroup 1 arrives on warpgroup 0's once at the
// start.
// RUN: wave-opt %s --wave-hoist-invariant-reads=keep-mma-operands-shared=true --wave-promote-shared \
// RUN:   --wave-select-warpgroup-mma --wave-select-tensor-copies --wave-assign-layouts --wave-lower-to-gpu \
// RUN:   | wave-opt --pass-pipeline='builtin.module(gpu.module(gpu.func(canonicalize,cse,wave-pipeline-shared-copies{warp-specialize=true},wave-insert-barriers,wave-overlap-warpgroup-mma,wave-alternate-warpgroup-mma,canonicalize,cse)))' \
// RUN:   | FileCheck %s --check-prefix=ALTERNATE

// CHECK-LABEL: gpu.func @attention
// CHECK: nvvm.setmaxregister increase
// The first iteration's Q K^T and softmax.
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL_K:.*]][%c0], %false, %{{.*}}num_barriers = 4
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity %[[FULL_V:.*]][%c0], %false, %{{.*}}num_barriers = 4
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: wgmma
// CHECK: %[[FACTOR:.*]] = math.exp2 %{{.*}} : vector<4xf32>
// CHECK-NOT: wgmma
// CHECK: %[[P:.*]] = arith.truncf %{{.*}} : vector<32xf32> to vector<32xf16>
// CHECK-NEXT: %{{.*}}:6 = scf.for %[[I:.*]] = %c1 to %c8 step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[O:.*]] = %cst{{.*}}, %[[OLD_FACTOR:.*]] = %[[FACTOR]], %[[OLD_I:.*]] = %c0, %[[OLD_P:.*]] = %[[P]])
// Iteration i: its Q K^T batch, then iteration i - 1's P V batch behind it.
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL_K]]
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity %[[FULL_V]]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: vector.shuffle %[[OLD_FACTOR]], %[[OLD_FACTOR]]
// CHECK-NEXT: arith.mulf %[[O]]
// CHECK-NEXT: %[[OLD_STAGE:.*]] = arith.remui %[[OLD_I]], %c4
// CHECK: vector.extract_strided_slice %[[OLD_P]]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// Iteration i's softmax while P V runs; then the wait for it and the release of the
// stage iteration i - 1 read.
// CHECK: %[[NEW_FACTOR:.*]] = math.exp2 %{{.*}} : vector<4xf32>
// CHECK: %[[NEW_P:.*]] = arith.truncf %{{.*}} : vector<32xf32> to vector<32xf16>
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvgpu.mbarrier.arrive %[[EMPTY:.*]][%[[OLD_STAGE]]]
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[NEW_FACTOR]], %[[I]], %[[NEW_P]]
// The last iteration's P V.
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvgpu.mbarrier.arrive %[[EMPTY]]
// CHECK: nvvm.setmaxregister decrease 24

// ALTERNATE-LABEL: gpu.func @attention
// ALTERNATE: scf.if %{{.*}} {
// ALTERNATE-NEXT: nvvm.setmaxregister increase
// ALTERNATE-NEXT: %[[GROUP:.*]] = arith.divui %{{.*}}, %c128
// ALTERNATE-NEXT: %[[MINE_INDEX:.*]] = arith.addi %[[GROUP]], %c2
// ALTERNATE-NEXT: %[[MINE:.*]] = arith.index_castui %[[MINE_INDEX]] : index to i32
// ALTERNATE-NEXT: %[[NEXT_GROUP_UNWRAPPED:.*]] = arith.addi %[[GROUP]], %c1
// ALTERNATE-NEXT: %[[NEXT_GROUP:.*]] = arith.remui %[[NEXT_GROUP_UNWRAPPED]], %c2
// ALTERNATE-NEXT: %[[NEXT_INDEX:.*]] = arith.addi %[[NEXT_GROUP]], %c2
// ALTERNATE-NEXT: %[[NEXT:.*]] = arith.index_castui %[[NEXT_INDEX]] : index to i32
// ALTERNATE-NEXT: %[[LAST:.*]] = arith.cmpi eq, %[[GROUP]], %c1
// ALTERNATE-NEXT: scf.if %[[LAST]] {
// ALTERNATE-NEXT: nvvm.barrier.arrive id = %[[NEXT]] number_of_threads = %c256_i32
// ALTERNATE-NEXT: }
// ALTERNATE: scf.for
// ALTERNATE: nvvm.barrier id = %[[MINE]] number_of_threads = %c256_i32
// ALTERNATE-NEXT: nvvm.wgmma.fence.aligned
// ALTERNATE: nvvm.wgmma.commit.group.sync.aligned
// ALTERNATE-NOT: nvvm.barrier
// ALTERNATE: nvvm.wgmma.commit.group.sync.aligned
// ALTERNATE-NEXT: nvvm.barrier.arrive id = %[[NEXT]] number_of_threads = %c256_i32
// ALTERNATE-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// ALTERNATE-NOT: nvvm.barrier
// ALTERNATE: scf.yield

// PIPELINED-LABEL: gpu.func @attention
// PIPELINED: scf.for
// PIPELINED-COUNT-2: nvvm.wgmma.wait.group.sync.aligned 0
// PIPELINED-NOT: nvvm.wgmma.wait.group.sync.aligned 1
// PIPELINED: scf.yield
module {
  func.func @attention(%arg0: !wave.memory<[B, H, M, K1] of f16, shared>, %arg1: !wave.memory<[B, H, K2, K1] of f16, shared>, %arg2: !wave.memory<[B, H, K2, N] of f16, shared>, %arg3: !wave.memory<[B, H, M, N] of f32, global>) attributes {wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>, #wave.workgroup_constraint<dim = "H", tile = #wave.expr<"1">, workgroup_dim = 1>, #wave.workgroup_constraint<dim = "B", tile = #wave.expr<"1">, workgroup_dim = 2>, #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"BLOCK_K2">>, #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 8">>, #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>, vector_shapes = {B = 0 : i64, H = 0 : i64}>], wave.hyperparameters = {B = 1 : i64, BLOCK_K2 = 64 : i64, BLOCK_M = 128 : i64, H = 2 : i64, K1 = 64 : i64, K2 = 512 : i64, M = 256 : i64, N = 64 : i64}} {
    %0 = wave.register 0.000000e+00 : !wave.tensor<[B, H, N, M] of f32>
    %1 = wave.register 0.000000e+00 : !wave.tensor<[B, H, M] of f32>
    %2 = wave.register -1.000000e+06 : !wave.tensor<[B, H, M] of f32>
    %3:3 = wave.iterate "K2" iter_args(%2, %1, %0) : (!wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, N, M] of f32>) -> (!wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, N, M] of f32>) {
    ^bb0(%arg4: !wave.tensor<[B, H, M] of f32>, %arg5: !wave.tensor<[B, H, M] of f32>, %arg6: !wave.tensor<[B, H, N, M] of f32>):
      %6 = wave.register 0.000000e+00 : !wave.tensor<[B, H, K2, M] of f32>
      %7 = wave.read %arg0 : !wave.memory<[B, H, M, K1] of f16, shared> -> !wave.tensor<[B, H, M, K1] of f16>
      %8 = wave.read %arg1 : !wave.memory<[B, H, K2, K1] of f16, shared> -> !wave.tensor<[B, H, K2, K1] of f16>
      %9 = wave.mma %8, %7, %6 : (!wave.tensor<[B, H, K2, K1] of f16>, !wave.tensor<[B, H, M, K1] of f16>, !wave.tensor<[B, H, K2, M] of f32>) -> !wave.tensor<[B, H, K2, M] of f32>
      %10 = wave.permute %9 : !wave.tensor<[B, H, K2, M] of f32> to !wave.tensor<[B, H, M, K2] of f32>
      %11 = wave.register 0.127517432 : !wave.tensor<[] of f32>
      %12 = wave.mul %10, %11 : (!wave.tensor<[B, H, M, K2] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[B, H, M, K2] of f32>
      %13 = wave.self_index "K2" : !wave.tensor<[K2] of i64>
      %14 = wave.apply_expr %13 {expr = #wave.expr<"$0 < K2">} : !wave.tensor<[K2] of i64> -> !wave.tensor<[K2] of i64>
      %15 = wave.broadcast %14 : !wave.tensor<[K2] of i64> to !wave.tensor<[M, K2] of i64>
      %16 = wave.cast %15 : !wave.tensor<[M, K2] of i64> to !wave.tensor<[M, K2] of i1>
      %17 = wave.register 0.000000e+00 : !wave.tensor<[M, K2] of f32>
      %18 = wave.register -1.000000e+06 : !wave.tensor<[M, K2] of f32>
      %19 = wave.select %16, %17, %18 : (!wave.tensor<[M, K2] of i1>, !wave.tensor<[M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[M, K2] of f32>
      %20 = wave.add %12, %19 : (!wave.tensor<[B, H, M, K2] of f32>, !wave.tensor<[M, K2] of f32>) -> !wave.tensor<[B, H, M, K2] of f32>
      %21 = wave.reduce_max %20 init(%arg4) along "K2" : (!wave.tensor<[B, H, M, K2] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, M] of f32>
      %22 = wave.sub %arg4, %21 : (!wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, M] of f32>
      %23 = wave.exp2 %22 : !wave.tensor<[B, H, M] of f32>
      %24 = wave.sub %20, %21 : (!wave.tensor<[B, H, M, K2] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, M, K2] of f32>
      %25 = wave.exp2 %24 : !wave.tensor<[B, H, M, K2] of f32>
      %26 = wave.mul %arg5, %23 : (!wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, M] of f32>
      %27 = wave.reduce_sum %25 init(%26) along "K2" : (!wave.tensor<[B, H, M, K2] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, M] of f32>
      %28 = wave.cast %25 : !wave.tensor<[B, H, M, K2] of f32> to !wave.tensor<[B, H, M, K2] of f16>
      %29 = wave.mul %arg6, %23 : (!wave.tensor<[B, H, N, M] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, N, M] of f32>
      %30 = wave.read %arg2 : !wave.memory<[B, H, K2, N] of f16, shared> -> !wave.tensor<[B, H, K2, N] of f16>
      %31 = wave.mma %30, %28, %29 : (!wave.tensor<[B, H, K2, N] of f16>, !wave.tensor<[B, H, M, K2] of f16>, !wave.tensor<[B, H, N, M] of f32>) -> !wave.tensor<[B, H, N, M] of f32>
      wave.yield %21, %27, %31 : !wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, M] of f32>, !wave.tensor<[B, H, N, M] of f32>
    }
    %4 = wave.reciprocal %3#1 : !wave.tensor<[B, H, M] of f32>
    %5 = wave.mul %3#2, %4 : (!wave.tensor<[B, H, N, M] of f32>, !wave.tensor<[B, H, M] of f32>) -> !wave.tensor<[B, H, N, M] of f32>
    wave.write %5, %arg3 : !wave.tensor<[B, H, N, M] of f32>, !wave.memory<[B, H, M, N] of f32, global>
    return
  }
}
