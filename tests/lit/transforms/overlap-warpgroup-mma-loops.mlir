// wave-overlap-warpgroup-mma on loops reduced to their batches' fences, commits and waits
// (the pass reads only those and the values between them): which loops it rotates, and
// how, for a loop bound known only at run time.
// RUN: wave-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(gpu.func(wave-overlap-warpgroup-mma)))' \
// RUN:   | FileCheck %s

// Two batches, the second's value carried: guarded by lb < ub, stage 0 of the first trip,
// a loop from lb + step running stage 0 of trip i beside stage 1 of trip i - 1 (the
// earlier wait now leaving one batch in flight), stage 1 of the last trip. The narrowing
// cast stays in stage 0 and its value is carried to the next trip's stage 1.
// CHECK-LABEL: gpu.func @rotated
// CHECK-SAME: (%[[N:.*]]: index,
// CHECK: %[[ANY:.*]] = arith.cmpi slt, %c0, %[[N]]
// CHECK-NEXT: %[[R:.*]] = scf.if %[[ANY]] -> (f32) {
// CHECK-NEXT: %[[X0:.*]] = arith.truncf %[[SEED:.*]] : f64 to f32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: %[[SECOND:.*]] = arith.addi %c0, %c1
// CHECK-NEXT: %[[L:.*]]:2 = scf.for %[[I:.*]] = %[[SECOND]] to %[[N]] step %c1 iter_args(%[[ACC:.*]] = %[[ZERO:.*]], %[[X:.*]] = %[[X0]])
// CHECK-NEXT: %[[XN:.*]] = arith.truncf %[[SEED]] : f64 to f32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[X]]
// CHECK-NEXT: scf.yield %[[NEXT]], %[[XN]]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: %[[LAST:.*]] = arith.addf %[[L]]#0, %[[L]]#1
// CHECK-NEXT: scf.yield %[[LAST]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[ZERO]]
gpu.module @m {
  gpu.func @rotated(%n: index, %seed: f64) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = arith.truncf %seed : f64 to f32
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      %next = arith.addf %acc, %x : f32
      scf.yield %next : f32
    }
    gpu.return
  }
}

// -----

// A store after the last batch would move past the next trip's work: left alone.
// CHECK-LABEL: gpu.func @store_after_batches
// CHECK-NOT: wait.group.sync.aligned 1
// CHECK: gpu.return
gpu.module @m {
  gpu.func @store_after_batches(%n: index, %out: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      %next = arith.addf %acc, %acc : f32
      memref.store %next, %out[%i] : memref<?xf32>
      scf.yield %next : f32
    }
    gpu.return
  }
}

// -----

// Stage 0 reads what stage 1 yields: left alone.
// CHECK-LABEL: gpu.func @early_reads_late
// CHECK-NOT: wait.group.sync.aligned 1
// CHECK: gpu.return
gpu.module @m {
  gpu.func @early_reads_late(%n: index, %out: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      memref.store %acc, %out[%i] : memref<?xf32>
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      %next = arith.addf %acc, %acc : f32
      scf.yield %next : f32
    }
    gpu.return
  }
}

// -----

// Beside a second workgroup on the SM (nvvm.minctasm = 2): left alone.
// CHECK-LABEL: gpu.func @two_per_sm
// CHECK-NOT: wait.group.sync.aligned 1
// CHECK: gpu.return
gpu.module @m {
  gpu.func @two_per_sm(%n: index) kernel attributes {nvvm.minctasm = 2 : i32} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      %next = arith.addf %acc, %acc : f32
      scf.yield %next : f32
    }
    gpu.return
  }
}

// -----

// Values held longer than the registers allow (a 256-register accumulator): left alone.
// CHECK-LABEL: gpu.func @too_many_registers
// CHECK-NOT: wait.group.sync.aligned 1
// CHECK: gpu.return
gpu.module @m {
  gpu.func @too_many_registers(%n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<256xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<256xf32>) {
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      %next = arith.addf %acc, %acc : vector<256xf32>
      scf.yield %next : vector<256xf32>
    }
    gpu.return
  }
}

// -----

// The computing threads' registers are their setmaxnreg's: 144 carried and 16 for the
// rest fit 160 (three computing warpgroups' share: attention's 192-query tiles), rotated...
// CHECK-LABEL: gpu.func @fits_consumer_registers
// CHECK: wait.group.sync.aligned 1
gpu.module @m {
  gpu.func @fits_consumer_registers(%n: index, %consumer: i1) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<144xf32>
    scf.if %consumer {
      nvvm.setmaxregister increase 160
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<144xf32>) {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        %next = arith.addf %acc, %acc : vector<144xf32>
        scf.yield %next : vector<144xf32>
      }
    } else {
      nvvm.setmaxregister decrease 32
    } {wave.consumer_threads = 384 : i64}
    gpu.return
  }
}

// -----

// ...and 152 carried do not: left alone.
// CHECK-LABEL: gpu.func @exceeds_consumer_registers
// CHECK-NOT: wait.group.sync.aligned 1
// CHECK: gpu.return
gpu.module @m {
  gpu.func @exceeds_consumer_registers(%n: index, %consumer: i1) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant dense<0.0> : vector<152xf32>
    scf.if %consumer {
      nvvm.setmaxregister increase 160
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<152xf32>) {
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        nvvm.wgmma.fence.aligned
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        %next = arith.addf %acc, %acc : vector<152xf32>
        scf.yield %next : vector<152xf32>
      }
    } else {
      nvvm.setmaxregister decrease 32
    } {wave.consumer_threads = 384 : i64}
    gpu.return
  }
}
