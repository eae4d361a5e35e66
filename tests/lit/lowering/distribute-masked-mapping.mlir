// Reads and writes through an index mapping that masks its points outside the memory
// (`masked = true`, the DSL's OutOfBounds::zero): each memory dim whose index may leave
// the memory, by the iterators' ranges, is compared with 0 and its extent once per run
// (one unsigned compare where both may fail; in i32, with unsigned division, where the
// ranges fit: NarrowIndexExpr.h); outside, a read gives 0 and a write is skipped. Dims that provably stay inside get no
// compare, and runs stay whole vector accesses where they are all inside or all outside.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu --canonicalize \
// RUN:   --mlir-print-local-scope | FileCheck %s

// A window shifted one to the left: in[s - 1], so in[-1] reads 0. Element by element (a
// run of S - 1 would start unaligned), each load under the compare with 0 (s - 1 stays
// under S: no compare with the extent).
// CHECK-LABEL: gpu.func @shifted_window
// CHECK-NOT: arith.cmpi slt
// CHECK: %[[IN:.*]] = arith.cmpi sge, %{{.*}}, %c0
// CHECK-NEXT: scf.if %[[IN]] -> (f32)
// CHECK-NEXT: memref.load
// CHECK: } else {
// CHECK-NEXT: scf.yield %cst
func.func @shifted_window(%x: !wave.memory<[S] of f32, global>, %out: !wave.memory<[S] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "S", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "S", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {S = 64 : i64}} {
  %r = wave.read %x {mapping = #wave.index_mapping<iterators = 1, inputs = {S = #wave.expr<"$0 - 1">}, outputs = {S = #wave.expr<"$0">}, masked = true>} : !wave.memory<[S] of f32, global> -> !wave.tensor<[S] of f32>
  wave.write %r, %out : !wave.tensor<[S] of f32>, !wave.memory<[S] of f32, global>
  return
}

// -----

// An im2col-like read with a row of padding above: N = $0 - 1, C = $1 mod C. C stays
// inside (no compare), the row only with 0 (N - 1 stays under N), and the runs along K stay
// 16-byte loads: a run's elements share their row, so it is all inside or all outside.
// CHECK-LABEL: gpu.func @padded_rows
// CHECK-NOT: arith.cmpi slt
// CHECK: arith.cmpi sge
// CHECK: scf.if
// CHECK: vector.load {{.*}} : memref<64xf16>, vector<8xf16>
func.func @padded_rows(%x: !wave.memory<[N, C] of f16, global>, %out: !wave.memory<[M, K] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {C = 16 : i64, K = 64 : i64, M = 4 : i64, N = 4 : i64}} {
  %r = wave.read %x {mapping = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0 - 1">, C = #wave.expr<"$1 mod C">}, outputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}, masked = true>} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  wave.write %r, %out : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, global>
  return
}

// -----

// A masked mapping that stays inside (a reversal): no compare, plain loads.
// CHECK-LABEL: gpu.func @reversed_inside
// CHECK-NOT: arith.cmpi
// CHECK: gpu.return
func.func @reversed_inside(%x: !wave.memory<[S] of f32, global>, %out: !wave.memory<[S] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "S", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "S", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {S = 64 : i64}} {
  %r = wave.read %x {mapping = #wave.index_mapping<iterators = 1, inputs = {S = #wave.expr<"S - 1 - $0">}, outputs = {S = #wave.expr<"$0">}, masked = true>} : !wave.memory<[S] of f32, global> -> !wave.tensor<[S] of f32>
  wave.write %r, %out : !wave.tensor<[S] of f32>, !wave.memory<[S] of f32, global>
  return
}

// -----

// A write shifted one to the right, masked: the element that would land past the end is
// skipped (its store under the compare with the extent; s + 1 is never negative).
// CHECK-LABEL: gpu.func @shifted_write
// CHECK-NOT: arith.cmpi sge
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %c64
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: memref.store
func.func @shifted_write(%x: !wave.memory<[S] of f32, global>, %out: !wave.memory<[S] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "S", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "S", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {S = 64 : i64}} {
  %r = wave.read %x : !wave.memory<[S] of f32, global> -> !wave.tensor<[S] of f32>
  wave.write %r, %out {mapping = #wave.index_mapping<iterators = 1, inputs = {S = #wave.expr<"$0">}, outputs = {S = #wave.expr<"$0 + 1">}, masked = true>} : !wave.tensor<[S] of f32>, !wave.memory<[S] of f32, global>
  return
}

// -----

// A window that leaves the memory on both sides, each output element reading the input
// at t floordiv 2 - 1 (t < 132: -1 to 64 against 64 elements): the index built in i32 from
// the position, the floordiv of a non-negative position unsigned, both ends checked by
// one unsigned compare with the extent.
// CHECK-LABEL: gpu.func @window_both_sides
// CHECK-NOT: arith.cmpi sge
// CHECK: arith.index_cast %{{.*}} : index to i32
// CHECK: arith.divui %{{.*}}, %c2_i32 : i32
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %c-1_i32 : i32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %c64_i32 : i32
// CHECK: %[[BOTH:.*]] = arith.andi %[[IN]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[BOTH]] -> (f32)
// CHECK-NEXT: memref.load
func.func @window_both_sides(%x: !wave.memory<[S] of f32, global>, %out: !wave.memory<[T] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "T", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "T", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {S = 64 : i64, T = 132 : i64}} {
  %r = wave.read %x {mapping = #wave.index_mapping<iterators = 1, inputs = {S = #wave.expr<"$0 floordiv 2 - 1">}, outputs = {T = #wave.expr<"$0">}, masked = true>} : !wave.memory<[S] of f32, global> -> !wave.tensor<[T] of f32>
  wave.write %r, %out : !wave.tensor<[T] of f32>, !wave.memory<[T] of f32, global>
  return
}
