// wave-insert-barriers: a barrier before each shared-memory access that may race with
// another thread's access since the last barrier, and nowhere else.
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-insert-barriers)))' | FileCheck %s

!shared = memref<64xf32, #gpu.address_space<workgroup>>
!stages = memref<3x64xf16, #gpu.address_space<workgroup>>

gpu.module @kernels {

// A read after a write, then a write after that read: a barrier before each.
// CHECK-LABEL: gpu.func @read_after_write
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
gpu.func @read_after_write(%s: !shared, %x: f32, %i: index, %j: index) kernel {
  memref.store %x, %s[%i] : !shared
  %y = memref.load %s[%j] : !shared
  memref.store %y, %s[%j] : !shared
  gpu.return
}

// Only reads, or only global memory: no barrier.
// CHECK-LABEL: gpu.func @reads_only
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.func @reads_only(%s: !shared, %g: memref<64xf32>, %i: index, %j: index) kernel {
  %a = memref.load %s[%i] : !shared
  %b = memref.load %s[%j] : !shared
  memref.store %a, %g[%i] : memref<64xf32>
  %c = memref.load %g[%j] : memref<64xf32>
  memref.store %c, %g[%j] : memref<64xf32>
  gpu.return
}

// Writes are not ordered with writes: the stores that fill a tile need no barrier
// between them, only before the read.
// CHECK-LABEL: gpu.func @fill_then_read
// CHECK: memref.store
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
gpu.func @fill_then_read(%s: !shared, %x: f32, %i: index, %j: index) kernel {
  memref.store %x, %s[%i] : !shared
  memref.store %x, %s[%j] : !shared
  %y = memref.load %s[%i] : !shared
  gpu.return
}

// A barrier already in place is kept and suffices.
// CHECK-LABEL: gpu.func @existing_barrier
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: gpu.barrier
gpu.func @existing_barrier(%s: !shared, %x: f32, %i: index) kernel {
  memref.store %x, %s[%i] : !shared
  gpu.barrier
  %y = memref.load %s[%i] : !shared
  gpu.return
}

// Accesses under scf.if (threads may diverge) count at the if: the barrier goes before
// it, never inside.
// CHECK-LABEL: gpu.func @divergent
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if
// CHECK-NOT: gpu.barrier
// CHECK: memref.load
// CHECK: gpu.return
gpu.func @divergent(%s: !shared, %x: f32, %i: index, %c: i1) kernel {
  memref.store %x, %s[%i] : !shared
  scf.if %c {
    %y = memref.load %s[%i] : !shared
  }
  gpu.return
}

// One buffer refilled each iteration: a barrier before it is read and one before it is
// overwritten (the back edge's write after read). The global load stays ahead of the
// barrier.
// CHECK-LABEL: gpu.func @one_buffer
// CHECK: scf.for
// CHECK-NEXT: memref.load %{{.*}} : memref<64xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
gpu.func @one_buffer(%s: !shared, %g: memref<64xf32>, %i: index, %n: index) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %g[%k] : memref<64xf32>
    memref.store %x, %s[%i] : !shared
    %y = memref.load %s[%k] : !shared
    %sum = arith.addf %acc, %y : f32
    scf.yield %sum : f32
  }
  gpu.return
}

// Reads in a loop, then a write after it: the write races with the loop's reads.
// CHECK-LABEL: gpu.func @write_after_loop
// CHECK: scf.for
// CHECK-NEXT: memref.load
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
gpu.func @write_after_loop(%s: !shared, %n: index, %x: f32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    %y = memref.load %s[%k] : !shared
  }
  memref.store %x, %s[%c0] : !shared
  gpu.return
}

// A three-stage cp.async pipeline: copies land at the wait, so the stage read after it
// needs its barrier only once, placed before the refill, whose write must also wait
// for the reads of the previous iteration.
// CHECK-LABEL: gpu.func @pipeline
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.device_async_wait
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: nvgpu.device_async_copy
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK-NEXT: vector.load
// CHECK-NEXT: }
gpu.func @pipeline(%s: !stages, %g: memref<4096xf16>, %n: index, %i: index) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %t0 = nvgpu.device_async_copy %g[%i], %s[%c0, %i], 8 : memref<4096xf16> to !stages
  %g0 = nvgpu.device_async_create_group %t0
  %t1 = nvgpu.device_async_copy %g[%i], %s[%c1, %i], 8 : memref<4096xf16> to !stages
  %g1 = nvgpu.device_async_create_group %t1
  scf.for %k = %c0 to %n step %c1 {
    %stage = arith.remui %k, %c3 : index
    %next = arith.addi %k, %c2 : index
    %refill = arith.remui %next, %c3 : index
    nvgpu.device_async_wait %g1 {numGroups = 1 : i32}
    %t = nvgpu.device_async_copy %g[%i], %s[%refill, %i], 8 : memref<4096xf16> to !stages
    %gk = nvgpu.device_async_create_group %t
    %v = vector.load %s[%stage, %i] : !stages, vector<8xf16>
  }
  gpu.return
}

// Copies still in flight at a barrier land after it: the first wait lands only the
// first group (the barrier before the read of %s is for it); the second tile's copies
// land at the second wait, so its read needs a barrier of its own. (Found by
// compute-sanitizer's racecheck in flash attention whose key loop ran once.)
// CHECK-LABEL: gpu.func @copy_in_flight_across_barrier
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: vector.load %arg0
// CHECK-NEXT: nvgpu.device_async_wait %{{.*}} {numGroups = 0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: vector.load %arg1
gpu.func @copy_in_flight_across_barrier(%s: !shared, %t: !shared, %g: memref<4096xf32>, %i: index) kernel {
  %a = nvgpu.device_async_copy %g[%i], %s[%i], 4 : memref<4096xf32> to !shared
  %ga = nvgpu.device_async_create_group %a
  %b = nvgpu.device_async_copy %g[%i], %t[%i], 4 : memref<4096xf32> to !shared
  %gb = nvgpu.device_async_create_group %b
  nvgpu.device_async_wait %ga {numGroups = 1 : i32}
  %x = vector.load %s[%i] : !shared, vector<4xf32>
  nvgpu.device_async_wait %gb {numGroups = 0 : i32}
  %y = vector.load %t[%i] : !shared, vector<4xf32>
  gpu.return
}

// Distinct buffers never overlap: a read of one after a write of another needs no
// barrier. Views at constant offsets whose byte ranges are disjoint are distinct too
// ([0, 32) and [32, 64)); views that overlap ([0, 32) and [16, 48)) are not.
// CHECK-LABEL: gpu.func @buffers
// CHECK: memref.store %{{.*}}, %arg2
// CHECK-NEXT: memref.load %arg3
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[V0:.*]][
// CHECK-NEXT: memref.load %[[V1:.*]][
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[V2:.*]][
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %[[V3:.*]][
gpu.func @buffers(%x: f32, %i: index) workgroup(%a: memref<8xf32, #gpu.address_space<workgroup>>,
                                              %b: memref<8xf32, #gpu.address_space<workgroup>>) kernel {
  memref.store %x, %a[%i] : memref<8xf32, #gpu.address_space<workgroup>>
  %y = memref.load %b[%i] : memref<8xf32, #gpu.address_space<workgroup>>
  %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c80 = arith.constant 80 : index
  %v0 = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
  %v1 = memref.view %raw[%c32][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
  memref.store %y, %v0[%i] : memref<8xf32, #gpu.address_space<workgroup>>
  %z = memref.load %v1[%i] : memref<8xf32, #gpu.address_space<workgroup>>
  %v2 = memref.view %raw[%c64][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
  %v3 = memref.view %raw[%c80][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
  memref.store %z, %v2[%i] : memref<8xf32, #gpu.address_space<workgroup>>
  %w = memref.load %v3[%i] : memref<8xf32, #gpu.address_space<workgroup>>
  gpu.return
}


// Under a warp-specialized split, the computing threads' region gets barriers of those
// threads alone (named barrier 1), its existing ones kept; the producer's gets none.
// CHECK-LABEL: gpu.func @warp_specialized
// CHECK: scf.if
// CHECK: memref.store
// CHECK-NEXT: %[[ID:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[THREADS:.*]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %[[THREADS]]
// CHECK-NEXT: memref.load
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier id
// CHECK-NEXT: memref.store
// CHECK-NOT: barrier
// CHECK: } else {
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.load
// CHECK-NEXT: } {wave.consumer_threads = 256 : i64}
gpu.func @warp_specialized(%s: !shared, %x: f32, %i: index, %j: index, %computes: i1) kernel {
  scf.if %computes {
    memref.store %x, %s[%i] : !shared
    %y = memref.load %s[%j] : !shared
    %c1 = arith.constant 1 : i32
    %c256 = arith.constant 256 : i32
    nvvm.barrier id = %c1 number_of_threads = %c256
    memref.store %y, %s[%j] : !shared
  } else {
    memref.store %x, %s[%i] : !shared
    %z = memref.load %s[%j] : !shared
  } {wave.consumer_threads = 256 : i64}
  gpu.return
}

// A wave.conditional's branch, which every thread takes alike: barriers go inside it,
// and what it leaves pending reaches the code after it. An unmarked switch stays whole.
// CHECK-LABEL: gpu.func @uniform_branch
// CHECK: scf.index_switch
// CHECK: case 1 {
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK: default {
// CHECK: gpu.barrier
// CHECK-NEXT: memref.store
gpu.func @uniform_branch(%s: !shared, %x: f32, %i: index, %j: index, %c: index) kernel {
  %r = scf.index_switch %c {wave.uniform_branch} -> f32
  case 1 {
    memref.store %x, %s[%i] : !shared
    %y = memref.load %s[%j] : !shared
    scf.yield %y : f32
  }
  default {
    scf.yield %x : f32
  }
  memref.store %r, %s[%j] : !shared
  gpu.return
}
}
