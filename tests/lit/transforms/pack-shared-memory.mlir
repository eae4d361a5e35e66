// wave-pack-shared-memory: views of the dynamic shared memory never live at once share
// bytes; with wave-pipeline-shared-copies, each of two loops in a row sizes its stages by
// the bytes live during it alone.
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-pack-shared-memory)))' | FileCheck %s
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-pack-shared-memory{max-bytes=65536 two-workgroups-bytes=32768})))' | FileCheck %s --check-prefix=LDS
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-pipeline-shared-copies,wave-pack-shared-memory)))' | FileCheck %s --check-prefix=PIPE
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-pipeline-shared-copies,wave-pack-shared-memory,wave-insert-barriers)))' | FileCheck %s --check-prefix=BARRIERS

!smem = memref<?xi8, #gpu.address_space<workgroup>>
!tile = memref<256x72xf16, #gpu.address_space<workgroup>>
!small = memref<12288xf32, #gpu.address_space<workgroup>>

gpu.module @kernels {

// A staged operand and a scratch buffer used after it, never live at once, share offset 0
// (the buffer read beside the staged one keeps its own): 96 KiB instead of 144 fit two
// workgroups per SM.
// CHECK-LABEL: gpu.func @staged_then_scratch
// CHECK-SAME: wave.shared_memory_bytes = 98304
// CHECK: memref.view %{{.*}}[%c0{{.*}}][] : {{.*}} to memref<12288xf32
// CHECK: memref.view %{{.*}}[%c49152{{.*}}][] : {{.*}} to memref<12288xf32
// CHECK: memref.view %{{.*}}[%c0{{.*}}][] : {{.*}} to memref<12288xf32
// Where the layout fits two workgroups anyway, it is left alone (sharing would cost a
// barrier).
// CHECK-LABEL: gpu.func @room_anyway
// CHECK-SAME: wave.shared_memory_bytes = 1536
// CHECK: memref.view %{{.*}}[%c1024{{.*}}][] : {{.*}} to memref<128xf32
gpu.func @staged_then_scratch(%in: memref<128xf32>, %out: memref<128xf32>) kernel attributes {wave.shared_memory_bytes = 147456 : i64} {
  %c0 = arith.constant 0 : index
  %c49152 = arith.constant 49152 : index
  %c98304 = arith.constant 98304 : index
  %smem = gpu.dynamic_shared_memory : !smem
  %staged = memref.view %smem[%c0][] : !smem to !small
  %beside = memref.view %smem[%c49152][] : !smem to !small
  %scratch = memref.view %smem[%c98304][] : !smem to !small
  %tid = gpu.thread_id x
  %x = memref.load %in[%tid] : memref<128xf32>
  memref.store %x, %staged[%tid] : !small
  memref.store %x, %beside[%tid] : !small
  %y = memref.load %staged[%c0] : !small
  %z = memref.load %beside[%c0] : !small
  %w = arith.addf %y, %z : f32
  memref.store %w, %scratch[%tid] : !small
  %v = memref.load %scratch[%c0] : !small
  memref.store %v, %out[%tid] : memref<128xf32>
  gpu.return
}

gpu.func @room_anyway(%in: memref<128xf32>, %out: memref<128xf32>) kernel attributes {wave.shared_memory_bytes = 1536 : i64} {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %smem = gpu.dynamic_shared_memory : !smem
  %staged = memref.view %smem[%c0][] : !smem to memref<128xf32, #gpu.address_space<workgroup>>
  %scratch = memref.view %smem[%c1024][] : !smem to memref<128xf32, #gpu.address_space<workgroup>>
  %tid = gpu.thread_id x
  %x = memref.load %in[%tid] : memref<128xf32>
  memref.store %x, %staged[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
  %y = memref.load %staged[%c0] : memref<128xf32, #gpu.address_space<workgroup>>
  memref.store %y, %scratch[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
  %v = memref.load %scratch[%c0] : memref<128xf32, #gpu.address_space<workgroup>>
  memref.store %v, %out[%tid] : memref<128xf32>
  gpu.return
}

// 72 KiB: room on Hopper (two workgroups per SM), more than CDNA3's 64 KiB of LDS, where
// the scratch buffer takes the staged operand's bytes.
// CHECK-LABEL: gpu.func @lds_sized
// CHECK-SAME: wave.shared_memory_bytes = 73728
// LDS-LABEL: gpu.func @lds_sized
// LDS-SAME: wave.shared_memory_bytes = 49152
// LDS: memref.view %{{.*}}[%c0{{.*}}][] : {{.*}} to memref<6144xf32
// LDS: memref.view %{{.*}}[%c24576{{.*}}][] : {{.*}} to memref<6144xf32
// LDS: memref.view %{{.*}}[%c0{{.*}}][] : {{.*}} to memref<6144xf32
gpu.func @lds_sized(%in: memref<128xf32>, %out: memref<128xf32>) kernel attributes {wave.shared_memory_bytes = 73728 : i64} {
  %c0 = arith.constant 0 : index
  %c24576 = arith.constant 24576 : index
  %c49152 = arith.constant 49152 : index
  %smem = gpu.dynamic_shared_memory : !smem
  %staged = memref.view %smem[%c0][] : !smem to memref<6144xf32, #gpu.address_space<workgroup>>
  %beside = memref.view %smem[%c24576][] : !smem to memref<6144xf32, #gpu.address_space<workgroup>>
  %scratch = memref.view %smem[%c49152][] : !smem to memref<6144xf32, #gpu.address_space<workgroup>>
  %tid = gpu.thread_id x
  %x = memref.load %in[%tid] : memref<128xf32>
  memref.store %x, %staged[%tid] : memref<6144xf32, #gpu.address_space<workgroup>>
  memref.store %x, %beside[%tid] : memref<6144xf32, #gpu.address_space<workgroup>>
  %y = memref.load %staged[%c0] : memref<6144xf32, #gpu.address_space<workgroup>>
  %z = memref.load %beside[%c0] : memref<6144xf32, #gpu.address_space<workgroup>>
  %w = arith.addf %y, %z : f32
  memref.store %w, %scratch[%tid] : memref<6144xf32, #gpu.address_space<workgroup>>
  %v = memref.load %scratch[%c0] : memref<6144xf32, #gpu.address_space<workgroup>>
  memref.store %v, %out[%tid] : memref<128xf32>
  gpu.return
}

// Two loops in a row, each filling a 36 KiB tile of its own; 256 threads carrying 128
// f32 registers take the SM's registers (one workgroup): each loop gets 4 stages
// (147456 bytes), not the 2 that would fit beside the other's, and the second loop's
// stages take the first's bytes.
// PIPE-LABEL: gpu.func @two_loops
// PIPE-SAME: wave.shared_memory_bytes = 147456
// PIPE: memref.view %{{.*}}[%c0{{.*}}][] : {{.*}} to memref<4x256x72xf16
// PIPE: memref.view %{{.*}}[%c0{{.*}}][] : {{.*}} to memref<4x256x72xf16
// PIPE-COUNT-3: nvgpu.device_async_create_group
// PIPE: scf.for
// PIPE-COUNT-3: nvgpu.device_async_create_group
// PIPE: scf.for
// The first loop's last reads and the second loop's first copies into the same bytes
// are ordered by a barrier between them.
// BARRIERS-LABEL: gpu.func @two_loops
// BARRIERS: scf.for
// BARRIERS: gpu.barrier
// BARRIERS: nvgpu.device_async_copy
// BARRIERS: scf.for
gpu.func @two_loops(%a: memref<256x1024xf16>, %b: memref<256x1024xf16>, %out: memref<128xf32>)
    kernel attributes {known_block_size = array<i32: 256, 1, 1>, wave.shared_memory_bytes = 73728 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c36864 = arith.constant 36864 : index
  %smem = gpu.dynamic_shared_memory : !smem
  %ta = memref.view %smem[%c0][] : !smem to !tile
  %tb = memref.view %smem[%c36864][] : !smem to !tile
  %tid = gpu.thread_id x
  %zero = arith.constant dense<0.0> : vector<128xf32>
  %first = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (vector<128xf32>) {
    %col = arith.muli %k, %c64 : index
    %v = vector.load %a[%tid, %col] : memref<256x1024xf16>, vector<8xf16>
    vector.store %v, %ta[%tid, %c0] : !tile, vector<8xf16>
    %r = vector.load %ta[%tid, %c8] : !tile, vector<8xf16>
    %e = arith.extf %r : vector<8xf16> to vector<8xf32>
    %next = vector.insert_strided_slice %e, %acc {offsets = [0], strides = [1]} : vector<8xf32> into vector<128xf32>
    scf.yield %next : vector<128xf32>
  }
  %second = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %first) -> (vector<128xf32>) {
    %col = arith.muli %k, %c64 : index
    %v = vector.load %b[%tid, %col] : memref<256x1024xf16>, vector<8xf16>
    vector.store %v, %tb[%tid, %c0] : !tile, vector<8xf16>
    %r = vector.load %tb[%tid, %c8] : !tile, vector<8xf16>
    %e = arith.extf %r : vector<8xf16> to vector<8xf32>
    %next = vector.insert_strided_slice %e, %acc {offsets = [8], strides = [1]} : vector<8xf32> into vector<128xf32>
    scf.yield %next : vector<128xf32>
  }
  vector.store %second, %out[%c0] : memref<128xf32>, vector<128xf32>
  gpu.return
}

}
