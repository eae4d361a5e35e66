// wave-pipeline-shared-copies: a loop that fills shared tiles from global memory gets
// `stages` copies of each tile, cp.async fills stages - 1 iterations ahead, and one wait
// per iteration; loops it cannot pipeline are left as they were.
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-pipeline-shared-copies)))' | FileCheck %s
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-pipeline-shared-copies{stages=2})))' | FileCheck %s --check-prefix=TWO
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-pipeline-shared-copies{stages=1})))' | FileCheck %s --check-prefix=OFF
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-pipeline-shared-copies,wave-insert-barriers)))' | FileCheck %s --check-prefix=BARRIERS

!tile = memref<16x72xf16, #gpu.address_space<workgroup>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>

gpu.module @kernels {

// Two tiles filled and read in a loop of 8 iterations; a scratch view after them moves up.
// CHECK-LABEL: gpu.func @two_tiles
// CHECK-SAME: wave.shared_memory_bytes = 18688
// CHECK-DAG: %[[A:.*]] = memref.view %{{.*}}[%c0{{.*}}][] : {{.*}} to memref<4x16x72xf16
// CHECK-DAG: %[[B:.*]] = memref.view %{{.*}}[%c9216{{.*}}][] : {{.*}} to memref<4x16x72xf16
// CHECK-DAG: memref.view %{{.*}}[%c18432{{.*}}][] : {{.*}} to memref<64xf32
// The prologue: three iterations' copies, a group each.
// CHECK-COUNT-3: nvgpu.device_async_create_group
// CHECK: scf.for
// Each iteration waits for its own tiles, leaving two groups in flight, then fills ahead.
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// Past the end the copies read nothing (zero bytes from the source).
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %c8{{.*}}, %c0{{.*}} : index
// CHECK-NEXT: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 8, %[[N]] {bypassL1}
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 8, %{{.*}} {bypassL1}
// CHECK: nvgpu.device_async_create_group
// CHECK: memref.subview %[[A]]
// CHECK: vector.load
// CHECK: scf.yield
// Nothing in flight after the loop.
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// TWO-LABEL: gpu.func @two_tiles
// TWO-SAME: wave.shared_memory_bytes = 9472
// TWO: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// OFF-LABEL: gpu.func @two_tiles
// OFF-NOT: nvgpu.device_async_copy
// OFF: vector.store
// BARRIERS-LABEL: gpu.func @two_tiles
// BARRIERS: scf.for
// One barrier per iteration: after the wait, before the copies refill the copy the last
// iteration read.
// BARRIERS: nvgpu.device_async_wait
// BARRIERS: gpu.barrier
// BARRIERS-NEXT: nvgpu.device_async_copy
// BARRIERS-NOT: gpu.barrier
// BARRIERS: scf.yield
gpu.func @two_tiles(%a: memref<128x128xf16>, %b: memref<128x128xf16>, %out: memref<128xf16>)
    kernel attributes {wave.shared_memory_bytes = 4864 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c2304 = arith.constant 2304 : index
  %c4608 = arith.constant 4608 : index
  %smem = gpu.dynamic_shared_memory : !smem
  %ta = memref.view %smem[%c0][] : !smem to !tile
  %tb = memref.view %smem[%c2304][] : !smem to !tile
  %scratch = memref.view %smem[%c4608][] : !smem to memref<64xf32, #gpu.address_space<workgroup>>
  %tid = gpu.thread_id x
  %zero = arith.constant dense<0.0> : vector<8xf16>
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<8xf16>) {
    %col = arith.muli %k, %c16 : index
    %va = vector.load %a[%tid, %col] : memref<128x128xf16>, vector<8xf16>
    vector.store %va, %ta[%tid, %c0] : !tile, vector<8xf16>
    %vb = vector.load %b[%tid, %col] : memref<128x128xf16>, vector<8xf16>
    vector.store %vb, %tb[%tid, %c0] : !tile, vector<8xf16>
    %ra = vector.load %ta[%c0, %tid] : !tile, vector<8xf16>
    %rb = vector.load %tb[%c0, %tid] : !tile, vector<8xf16>
    %p = arith.mulf %ra, %rb : vector<8xf16>
    %next = arith.addf %acc, %p : vector<8xf16>
    scf.yield %next : vector<8xf16>
  }
  %x = memref.load %scratch[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
  vector.store %sum, %out[%c0] : memref<128xf16>, vector<8xf16>
  gpu.return
}

// A gather: each copy's row is an index loaded from global memory (a paged cache's block
// table). The load goes ahead with the copies, and past the end it is not made (its
// index may be anything there): a zero instead.
// CHECK-LABEL: gpu.func @gathered_rows
// CHECK: scf.for
// CHECK: %[[ROW:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK-NEXT: %[[AT:.*]] = memref.load %arg1
// CHECK-NEXT: scf.yield %[[AT]] : i32
// CHECK-NEXT: } else {
// CHECK: arith.index_cast %[[ROW]] : i32 to index
// CHECK: nvgpu.device_async_copy
// CHECK: scf.yield
// wgmma's register fences (empty asm statements with side effects) write no memory: the
// gather beside them goes ahead too.
// CHECK-LABEL: gpu.func @gathered_rows_fenced
// CHECK: scf.for
// CHECK: memref.load %arg1
// CHECK: nvgpu.device_async_copy
// CHECK: llvm.inline_asm has_side_effects
// CHECK: scf.yield
// A loop that also writes global memory keeps its loads where they are: not pipelined.
// CHECK-LABEL: gpu.func @gathered_rows_written
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: gpu.return
gpu.func @gathered_rows(%a: memref<1000x128xf16>, %rows: memref<64xi32>, %out: memref<128xf16>) kernel attributes {wave.shared_memory_bytes = 2304 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<8xf16>
  %smem = gpu.dynamic_shared_memory : !smem
  %ta = memref.view %smem[%c0][] : !smem to !tile
  %tid = gpu.thread_id x
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<8xf16>) {
    %r = memref.load %rows[%k] : memref<64xi32>
    %row = arith.index_cast %r : i32 to index
    %va = vector.load %a[%row, %tid] : memref<1000x128xf16>, vector<8xf16>
    vector.store %va, %ta[%tid, %c0] : !tile, vector<8xf16>
    %ra = vector.load %ta[%c0, %tid] : !tile, vector<8xf16>
    %next = arith.addf %acc, %ra : vector<8xf16>
    scf.yield %next : vector<8xf16>
  }
  vector.store %sum, %out[%c0] : memref<128xf16>, vector<8xf16>
  gpu.return
}
gpu.func @gathered_rows_fenced(%a: memref<1000x128xf16>, %rows: memref<64xi32>, %out: memref<128xf16>) kernel attributes {wave.shared_memory_bytes = 2304 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<8xf16>
  %smem = gpu.dynamic_shared_memory : !smem
  %ta = memref.view %smem[%c0][] : !smem to !tile
  %tid = gpu.thread_id x
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<8xf16>) {
    %r = memref.load %rows[%k] : memref<64xi32>
    %row = arith.index_cast %r : i32 to index
    %va = vector.load %a[%row, %tid] : memref<1000x128xf16>, vector<8xf16>
    vector.store %va, %ta[%tid, %c0] : !tile, vector<8xf16>
    %ra = vector.load %ta[%c0, %tid] : !tile, vector<8xf16>
    %fenced = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,0" %ra : (vector<8xf16>) -> vector<8xf16>
    %next = arith.addf %acc, %fenced : vector<8xf16>
    scf.yield %next : vector<8xf16>
  }
  vector.store %sum, %out[%c0] : memref<128xf16>, vector<8xf16>
  gpu.return
}
gpu.func @gathered_rows_written(%a: memref<1000x128xf16>, %rows: memref<64xi32>, %out: memref<128xf16>) kernel attributes {wave.shared_memory_bytes = 2304 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<8xf16>
  %smem = gpu.dynamic_shared_memory : !smem
  %ta = memref.view %smem[%c0][] : !smem to !tile
  %tid = gpu.thread_id x
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<8xf16>) {
    %r = memref.load %rows[%k] : memref<64xi32>
    %row = arith.index_cast %r : i32 to index
    %va = vector.load %a[%row, %tid] : memref<1000x128xf16>, vector<8xf16>
    vector.store %va, %ta[%tid, %c0] : !tile, vector<8xf16>
    %ra = vector.load %ta[%c0, %tid] : !tile, vector<8xf16>
    %next = arith.addf %acc, %ra : vector<8xf16>
    memref.store %r, %rows[%k] : memref<64xi32>
    scf.yield %next : vector<8xf16>
  }
  vector.store %sum, %out[%c0] : memref<128xf16>, vector<8xf16>
  gpu.return
}

// A row past the tensor's edge reads zeros: the copy reads no bytes there.
// CHECK-LABEL: gpu.func @masked_rows
// CHECK: scf.for
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %c100
// CHECK: %[[ROW:.*]] = arith.select %[[IN]], %c8{{.*}}, %c0{{.*}} : index
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %[[ROW]], %c0{{.*}} : index
// CHECK-NEXT: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 8, %[[N]] {bypassL1}
// CHECK-NOT: scf.if
// CHECK: scf.yield
gpu.func @masked_rows(%a: memref<100x128xf16>, %out: memref<128xf16>) kernel attributes {wave.shared_memory_bytes = 2304 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant dense<0.0> : vector<8xf16>
  %smem = gpu.dynamic_shared_memory : !smem
  %ta = memref.view %smem[%c0][] : !smem to !tile
  %tid = gpu.thread_id x
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<8xf16>) {
    %col = arith.muli %k, %c16 : index
    %row = arith.addi %tid, %c16 : index
    %in = arith.cmpi slt, %row, %c100 : index
    %va = scf.if %in -> (vector<8xf16>) {
      %l = vector.load %a[%row, %col] : memref<100x128xf16>, vector<8xf16>
      scf.yield %l : vector<8xf16>
    } else {
      scf.yield %zero : vector<8xf16>
    }
    vector.store %va, %ta[%tid, %c0] : !tile, vector<8xf16>
    %ra = vector.load %ta[%c0, %tid] : !tile, vector<8xf16>
    %next = arith.addf %acc, %ra : vector<8xf16>
    scf.yield %next : vector<8xf16>
  }
  vector.store %sum, %out[%c0] : memref<128xf16>, vector<8xf16>
  gpu.return
}

// A store under a condition is not a copy of a tile: the loop stays as it is.
// CHECK-LABEL: gpu.func @conditional_fill
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: gpu.return
gpu.func @conditional_fill(%a: memref<128x128xf16>, %in: i1) kernel attributes {wave.shared_memory_bytes = 2304 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %smem = gpu.dynamic_shared_memory : !smem
  %ta = memref.view %smem[%c0][] : !smem to !tile
  %tid = gpu.thread_id x
  scf.for %k = %c0 to %c8 step %c1 {
    %va = vector.load %a[%tid, %k] : memref<128x128xf16>, vector<8xf16>
    scf.if %in {
      vector.store %va, %ta[%tid, %c0] : !tile, vector<8xf16>
    }
    %ra = vector.load %ta[%c0, %tid] : !tile, vector<8xf16>
    vector.store %ra, %a[%tid, %k] : memref<128x128xf16>, vector<8xf16>
  }
  gpu.return
}

// One iteration: nothing to overlap.
// CHECK-LABEL: gpu.func @one_iteration
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: gpu.return
gpu.func @one_iteration(%a: memref<128x128xf16>) kernel attributes {wave.shared_memory_bytes = 2304 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %smem = gpu.dynamic_shared_memory : !smem
  %ta = memref.view %smem[%c0][] : !smem to !tile
  %tid = gpu.thread_id x
  scf.for %k = %c0 to %c1 step %c1 {
    %va = vector.load %a[%tid, %k] : memref<128x128xf16>, vector<8xf16>
    vector.store %va, %ta[%tid, %c0] : !tile, vector<8xf16>
    %ra = vector.load %ta[%c0, %tid] : !tile, vector<8xf16>
    vector.store %ra, %a[%tid, %k] : memref<128x128xf16>, vector<8xf16>
  }
  gpu.return
}

// The stage count by what else limits the SM: a 36 KiB tile leaves two workgroups room
// for 3 stages (110592 bytes of 113 KiB); carrying 128 f32 registers per thread over 256
// threads, one workgroup already takes the SM's registers, so 4 stages (147456 bytes).
// With 128 threads two workgroups fit the registers: 3 stages.
// CHECK-LABEL: gpu.func @registers_fill_the_sm
// CHECK-SAME: wave.shared_memory_bytes = 147456
// CHECK: memref.view %{{.*}}[%c0{{.*}}][] : {{.*}} to memref<4x256x72xf16
// CHECK-COUNT-3: nvgpu.device_async_create_group
// CHECK: scf.for
// CHECK-LABEL: gpu.func @two_workgroups_fit
// CHECK-SAME: wave.shared_memory_bytes = 110592
// CHECK: memref.view %{{.*}}[%c0{{.*}}][] : {{.*}} to memref<3x256x72xf16
gpu.func @registers_fill_the_sm(%a: memref<256x1024xf16>, %out: memref<128xf32>)
    kernel attributes {known_block_size = array<i32: 256, 1, 1>, wave.shared_memory_bytes = 36864 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %smem = gpu.dynamic_shared_memory : !smem
  %t = memref.view %smem[%c0][] : !smem to memref<256x72xf16, #gpu.address_space<workgroup>>
  %tid = gpu.thread_id x
  %zero = arith.constant dense<0.0> : vector<128xf32>
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<128xf32>) {
    %col = arith.muli %k, %c64 : index
    %v = vector.load %a[%tid, %col] : memref<256x1024xf16>, vector<8xf16>
    vector.store %v, %t[%tid, %c0] : memref<256x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    %r = vector.load %t[%tid, %c8] : memref<256x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    %e = arith.extf %r : vector<8xf16> to vector<8xf32>
    %next = vector.insert_strided_slice %e, %acc {offsets = [0], strides = [1]} : vector<8xf32> into vector<128xf32>
    scf.yield %next : vector<128xf32>
  }
  vector.store %sum, %out[%c0] : memref<128xf32>, vector<128xf32>
  gpu.return
}

gpu.func @two_workgroups_fit(%a: memref<256x1024xf16>, %out: memref<128xf32>)
    kernel attributes {known_block_size = array<i32: 128, 1, 1>, wave.shared_memory_bytes = 36864 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %smem = gpu.dynamic_shared_memory : !smem
  %t = memref.view %smem[%c0][] : !smem to memref<256x72xf16, #gpu.address_space<workgroup>>
  %tid = gpu.thread_id x
  %zero = arith.constant dense<0.0> : vector<128xf32>
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<128xf32>) {
    %col = arith.muli %k, %c64 : index
    %v = vector.load %a[%tid, %col] : memref<256x1024xf16>, vector<8xf16>
    vector.store %v, %t[%tid, %c0] : memref<256x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    %r = vector.load %t[%tid, %c8] : memref<256x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    %e = arith.extf %r : vector<8xf16> to vector<8xf32>
    %next = vector.insert_strided_slice %e, %acc {offsets = [0], strides = [1]} : vector<8xf32> into vector<128xf32>
    scf.yield %next : vector<128xf32>
  }
  vector.store %sum, %out[%c0] : memref<128xf32>, vector<128xf32>
  gpu.return
}

// A wgmma batch taking A from registers (inline PTX) is waited for in its own iteration:
// the next iteration loads the fragments again before its wait, while a batch kept in
// flight could still be reading them.
// CHECK-LABEL: gpu.func @batch_a_from_registers
// CHECK: scf.for
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.yield
gpu.func @batch_a_from_registers(%a: memref<128x128xf16>, %out: memref<128xf32>) kernel attributes {wave.shared_memory_bytes = 2304 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %desc = arith.constant 0 : i64
  %zero = arith.constant dense<0.0> : vector<2xf32>
  %smem = gpu.dynamic_shared_memory : !smem
  %ta = memref.view %smem[%c0][] : !smem to !tile
  %tid = gpu.thread_id x
  %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<2xf32>) {
    %col = arith.muli %k, %c16 : index
    %va = vector.load %a[%tid, %col] : memref<128x128xf16>, vector<8xf16>
    vector.store %va, %ta[%tid, %c0] : !tile, vector<8xf16>
    %ra = vector.load %ta[%c0, %tid] : !tile, vector<2xf16>
    %fragment = vector.bitcast %ra : vector<2xf16> to vector<1xi32>
    %r = vector.extract %fragment[0] : i32 from vector<1xi32>
    %d0 = vector.extract %acc[0] : f32 from vector<2xf32>
    %d1 = vector.extract %acc[1] : f32 from vector<2xf32>
    nvvm.wgmma.fence.aligned
    %batch = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1}, {$4}, $5, 1, 1, 1, 1;", "=f,=f,0,1,r,l" %d0, %d1, %r, %desc : (f32, f32, i32, i64) -> !llvm.struct<(f32, f32)>
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 0
    %e0 = llvm.extractvalue %batch[0] : !llvm.struct<(f32, f32)>
    %e1 = llvm.extractvalue %batch[1] : !llvm.struct<(f32, f32)>
    %next = vector.from_elements %e0, %e1 : vector<2xf32>
    scf.yield %next : vector<2xf32>
  }
  vector.store %sum, %out[%c0] : memref<128xf32>, vector<2xf32>
  gpu.return
}

}
