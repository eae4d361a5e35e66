// wave-multicast-tensor-copies on warp-specialized functions reduced to their mbarriers,
// the producer's wait for a free stage and its copy: in clusters of two, the marked copy
// is split in halves along its box's outermost dim of several rows, each workgroup
// issuing its half (a tensor map of the half box, one parameter more) to both; the
// computing threads' release arrives on both workgroups' empty mbarrier, which counts
// twice the arrivals; the cluster syncs after the set-up and before the return.
// RUN: wave-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-multicast-tensor-copies)))' \
// RUN:   | FileCheck %s

!group = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!map = !nvgpu.tensormap.descriptor<tensor = memref<1x128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_128b, oob = zero, interleave = none>
!tile = memref<1x128x64xf16, #gpu.address_space<workgroup>>

// CHECK-LABEL: gpu.func @halves
// CHECK-SAME: (%[[TILE:.*]]: memref<1x128x64xf16, #gpu.address_space<workgroup>>, %[[WHOLE:.*]]: !llvm.ptr, %[[HALF:.*]]: !llvm.ptr)
// CHECK-SAME: wave.tensor_maps = [{argument = 0 : i64, box = array<i64: 1, 128, 64>, swizzle = 128 : i64}, {argument = 0 : i64, box = array<i64: 1, 64, 64>, swizzle = 128 : i64}]
// CHECK: %[[HALF_MAP:.*]] = builtin.unrealized_conversion_cast %[[HALF]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mbarrier.create
// CHECK-NEXT: %[[EMPTY:.*]] = nvgpu.mbarrier.create
// CHECK: %[[TWICE:.*]] = arith.muli %c1, %c2
// CHECK-NEXT: nvgpu.mbarrier.init %[[EMPTY]][%c0], %[[TWICE]]
// CHECK: gpu.barrier
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: scf.if
// CHECK: %[[AT:.*]] = nvgpu.mbarrier.get %[[EMPTY]][%c0] {{.*}} -> i32
// CHECK-NEXT: %[[LOCAL:.*]] = llvm.inttoptr %[[AT]] : i32 to !llvm.ptr<3>
// CHECK: %[[FIRST:.*]] = nvvm.mapa %[[LOCAL]], %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[FIRST]] : !llvm.ptr<7>
// CHECK: %[[SECOND:.*]] = nvvm.mapa %[[LOCAL]], %c1_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[SECOND]] : !llvm.ptr<7>
// CHECK-NOT: nvgpu.mbarrier.arrive
// CHECK: } else {
// CHECK-NEXT: %[[RANK32:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT: %[[RANK:.*]] = arith.index_castui %[[RANK32]]
// CHECK: %[[ROW:.*]] = arith.muli %[[RANK]], %c64
// CHECK-NEXT: %[[PART:.*]] = memref.subview %[[TILE]][0, %[[ROW]], 0] [1, 64, 64] [1, 1, 1]
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[Y0:.*]], %[[ROW]]
// CHECK-NEXT: %[[MASK:.*]] = arith.constant 3 : i16
// CHECK-NEXT: nvgpu.tma.async.load %[[HALF_MAP]][%{{.*}}, %[[Y]], %{{.*}}], %{{.*}}[%c0] to %[[PART]] multicast_mask = %[[MASK]] :
// CHECK-NOT: wave.multicast
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: gpu.return
gpu.module @m {
  gpu.func @halves(%tile: !tile, %raw: !llvm.ptr) kernel attributes {
      nvvm.cluster_dim = array<i32: 2, 1, 1>,
      wave.tensor_maps = [{argument = 0 : i64, box = array<i64: 1, 128, 64>, swizzle = 128 : i64}]} {
    %map = builtin.unrealized_conversion_cast %raw : !llvm.ptr to !map
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %full = nvgpu.mbarrier.create -> !group
    %empty = nvgpu.mbarrier.create -> !group
    nvgpu.mbarrier.init %empty[%c0], %c1 : !group
    gpu.barrier
    %tid = gpu.thread_id x
    %computes = arith.cmpi ult, %tid, %c128 : index
    scf.if %computes {
      %released = nvgpu.mbarrier.arrive %empty[%c0] : !group -> !nvgpu.mbarrier.token
    } else {
      %free = arith.constant true
      %ticks = arith.constant 1000 : index
      nvgpu.mbarrier.try_wait.parity %empty[%c0], %free, %ticks : !group
      %y = arith.constant 512 : index
      nvgpu.tma.async.load %map[%c0, %y, %c0], %full[%c0] to %tile {wave.multicast} : !map, !group -> !tile
    } {wave.consumer_threads = 128 : i64}
    gpu.return
  }
}

// -----

// Not in clusters (or not specialized): left as it is, the mark removed.
// CHECK-LABEL: gpu.func @alone
// CHECK-NOT: nvvm.cluster
// CHECK-NOT: nvvm.mapa
// CHECK: nvgpu.mbarrier.arrive %{{.*}}[%c0]
// CHECK: nvgpu.tma.async.load %{{.*}} to %{{.*}} : <tensor = memref<128x64xf16
// CHECK-NOT: wave.multicast
// CHECK: gpu.return
!group = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_128b, oob = zero, interleave = none>
!tile = memref<128x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @alone(%tile: !tile, %raw: !llvm.ptr) kernel attributes {
      wave.tensor_maps = [{argument = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}]} {
    %map = builtin.unrealized_conversion_cast %raw : !llvm.ptr to !map
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %full = nvgpu.mbarrier.create -> !group
    %empty = nvgpu.mbarrier.create -> !group
    nvgpu.mbarrier.init %empty[%c0], %c1 : !group
    gpu.barrier
    %tid = gpu.thread_id x
    %computes = arith.cmpi ult, %tid, %c128 : index
    scf.if %computes {
      %released = nvgpu.mbarrier.arrive %empty[%c0] : !group -> !nvgpu.mbarrier.token
    } else {
      %free = arith.constant true
      %ticks = arith.constant 1000 : index
      nvgpu.mbarrier.try_wait.parity %empty[%c0], %free, %ticks : !group
      nvgpu.tma.async.load %map[%c0, %c0], %full[%c0] to %tile {wave.multicast} : !map, !group -> !tile
    } {wave.consumer_threads = 128 : i64}
    gpu.return
  }
}

// -----

// A box of 8 rows of 32 bytes: its halves of 4 rows would not start on the swizzle's
// 8-row period, so it is left whole; with no copy split, the releases stay local.
// CHECK-LABEL: gpu.func @whole
// CHECK-NOT: nvvm.mapa
// CHECK: nvgpu.mbarrier.arrive %{{.*}}[%c0]
// CHECK: nvgpu.tma.async.load %{{.*}} to %{{.*}} : <tensor = memref<8x16xf16
// CHECK-NOT: multicast_mask
// CHECK: gpu.return
!group = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!map = !nvgpu.tensormap.descriptor<tensor = memref<8x16xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_32b, l2promo = l2promo_128b, oob = zero, interleave = none>
!tile = memref<8x16xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @whole(%tile: !tile, %raw: !llvm.ptr) kernel attributes {
      nvvm.cluster_dim = array<i32: 2, 1, 1>,
      wave.tensor_maps = [{argument = 0 : i64, box = array<i64: 8, 16>, swizzle = 32 : i64}]} {
    %map = builtin.unrealized_conversion_cast %raw : !llvm.ptr to !map
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %full = nvgpu.mbarrier.create -> !group
    %empty = nvgpu.mbarrier.create -> !group
    nvgpu.mbarrier.init %empty[%c0], %c1 : !group
    gpu.barrier
    %tid = gpu.thread_id x
    %computes = arith.cmpi ult, %tid, %c128 : index
    scf.if %computes {
      %released = nvgpu.mbarrier.arrive %empty[%c0] : !group -> !nvgpu.mbarrier.token
    } else {
      %free = arith.constant true
      %ticks = arith.constant 1000 : index
      nvgpu.mbarrier.try_wait.parity %empty[%c0], %free, %ticks : !group
      nvgpu.tma.async.load %map[%c0, %c0], %full[%c0] to %tile {wave.multicast} : !map, !group -> !tile
    } {wave.consumer_threads = 128 : i64}
    gpu.return
  }
}

// -----

// Two groups of empty mbarriers, the producer waiting on each (a stage's tiles released
// apart): both groups' releases arrive on every workgroup's, both count the cluster's.
// CHECK-LABEL: gpu.func @two_tiles
// CHECK: nvgpu.mbarrier.create
// CHECK-NEXT: nvgpu.mbarrier.create
// CHECK-NEXT: %[[EMPTY_K:.*]] = nvgpu.mbarrier.create
// CHECK-NEXT: %[[EMPTY_V:.*]] = nvgpu.mbarrier.create
// CHECK: nvgpu.mbarrier.init %[[EMPTY_K]][%c0], %[[TWICE_K:.*]] :
// CHECK: nvgpu.mbarrier.init %[[EMPTY_V]][%c0], %[[TWICE_V:.*]] :
// CHECK: nvgpu.mbarrier.get %[[EMPTY_K]][%c0]
// CHECK-COUNT-2: nvvm.mbarrier.arrive
// CHECK: nvgpu.mbarrier.get %[[EMPTY_V]][%c0]
// CHECK-COUNT-2: nvvm.mbarrier.arrive
// CHECK-NOT: nvgpu.mbarrier.arrive %
// CHECK: } else {
!group = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!map = !nvgpu.tensormap.descriptor<tensor = memref<1x128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_128b, oob = zero, interleave = none>
!tile = memref<1x128x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @two_tiles(%k: !tile, %v: !tile, %raw: !llvm.ptr) kernel attributes {
      nvvm.cluster_dim = array<i32: 2, 1, 1>,
      wave.tensor_maps = [{argument = 0 : i64, box = array<i64: 1, 128, 64>, swizzle = 128 : i64}]} {
    %map = builtin.unrealized_conversion_cast %raw : !llvm.ptr to !map
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %full_k = nvgpu.mbarrier.create -> !group
    %full_v = nvgpu.mbarrier.create -> !group
    %empty_k = nvgpu.mbarrier.create -> !group
    %empty_v = nvgpu.mbarrier.create -> !group
    nvgpu.mbarrier.init %empty_k[%c0], %c1 : !group
    nvgpu.mbarrier.init %empty_v[%c0], %c1 : !group
    gpu.barrier
    %tid = gpu.thread_id x
    %computes = arith.cmpi ult, %tid, %c128 : index
    scf.if %computes {
      %k_released = nvgpu.mbarrier.arrive %empty_k[%c0] : !group -> !nvgpu.mbarrier.token
      %v_released = nvgpu.mbarrier.arrive %empty_v[%c0] : !group -> !nvgpu.mbarrier.token
    } else {
      %free = arith.constant true
      %ticks = arith.constant 1000 : index
      %y = arith.constant 512 : index
      nvgpu.mbarrier.try_wait.parity %empty_k[%c0], %free, %ticks : !group
      nvgpu.tma.async.load %map[%c0, %y, %c0], %full_k[%c0] to %k {wave.multicast} : !map, !group -> !tile
      nvgpu.mbarrier.try_wait.parity %empty_v[%c0], %free, %ticks : !group
      nvgpu.tma.async.load %map[%c0, %y, %c0], %full_v[%c0] to %v {wave.multicast} : !map, !group -> !tile
    } {wave.consumer_threads = 128 : i64}
    gpu.return
  }
}
