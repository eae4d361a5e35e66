// The distribution of signals: a wait (wave.read's wait_at_least) spins per flag on an
// acquire load at system scope (LLVM's atomic load, no syncscope: the system), trapping
// after a bounded number of cycles, then meets the workgroup at a barrier; a signal
// (wave.write's release) meets the workgroup at a barrier first, then stores each flag
// once, with release semantics.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu --canonicalize | FileCheck %s

// One flag per 128-wide workgroup, read by every lane (each spins on it, once per register
// of the flags' layout), then the barrier, then the data.
// CHECK-LABEL: gpu.func @wait
// CHECK: llvm.call_intrinsic "llvm.readcyclecounter"
// CHECK: scf.while
// CHECK: llvm.load %{{.*}} atomic acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: arith.cmpi slt
// CHECK: llvm.intr.trap
// CHECK: scf.condition
// CHECK: gpu.barrier
// CHECK: vector.load
func.func @wait(%flags: !wave.memory<[C] of i32, global>, %x: !wave.memory<[N] of f32, global>,
                %y: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {N = 256 : i64, C = 2 : i64}} {
  %seen = wave.read %flags {wait_at_least = #wave.expr<"1">,
      mapping = #wave.index_mapping<iterators = 1, inputs = {C = #wave.expr<"$0 floordiv 128">}, outputs = {N = #wave.expr<"$0">}>}
      : !wave.memory<[C] of i32, global> -> !wave.tensor<[N] of i32>
  %v = wave.read %x : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %v, %y : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}

// -----

// The data stored, the barrier, then a release store per register (4 per lane), each
// only where the element before it in the tile names another flag: the workgroup's 128
// elements all name one, so its first element's holder stores it once.
// CHECK-LABEL: gpu.func @signal
// CHECK: vector.store
// CHECK: gpu.barrier
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi eq
// CHECK: scf.if
// CHECK-COUNT-4: llvm.store %{{.*}} atomic release {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @signal(%x: !wave.memory<[N] of f32, global>, %y: !wave.memory<[N] of f32, global>,
                  %flags: !wave.memory<[C] of i64, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {N = 256 : i64, C = 2 : i64}} {
  %v = wave.read %x : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %v, %y : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  %one = wave.register 1 : !wave.tensor<[N] of i64>
  wave.write %one, %flags {release,
      mapping = #wave.index_mapping<iterators = 1, inputs = {N = #wave.expr<"$0">}, outputs = {C = #wave.expr<"$0 floordiv 128">}>}
      : !wave.tensor<[N] of i64>, !wave.memory<[C] of i64, global>
  return
}

// -----

// A wait for an expression of the symbols (RANKS - 1 = 2) that takes it back: the flag is
// spun on by the holder of the workgroup's first element only (the 128 elements name one
// flag), which then adds -2 to it; every thread meets at the barrier after.
// CHECK-LABEL: gpu.func @wait_and_take
// CHECK-DAG: %[[MINUS_TWO:.*]] = arith.constant -2 : i32
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: scf.if
// CHECK: scf.while
// CHECK: arith.cmpi slt, %{{.*}}, %[[TWO]] : i32
// CHECK: memref.atomic_rmw addi %[[MINUS_TWO]]
// CHECK: gpu.barrier
// CHECK-NOT: scf.while
// CHECK: gpu.return
func.func @wait_and_take(%flags: !wave.memory<[C] of i32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {N = 256 : i64, C = 2 : i64, RANKS = 3 : i64}} {
  %seen = wave.read %flags {wait_at_least = #wave.expr<"RANKS - 1">, take,
      mapping = #wave.index_mapping<iterators = 1, inputs = {C = #wave.expr<"$0 floordiv 128">}, outputs = {N = #wave.expr<"$0">}>}
      : !wave.memory<[C] of i32, global> -> !wave.tensor<[N] of i32>
  return
}
