// wave-predicate-async-copies: a cp.async whose byte count is its whole size or zero (the
// NVGPU conversion's `select(c, elements, 0)` scaled to bytes, here behind a second select
// for a trip past the loop's end) is issued with ignore-src on the conditions' negated
// conjunction; a count that is always whole is dropped; any other count stays.
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(wave-predicate-async-copies))' | FileCheck %s

// CHECK-LABEL: llvm.func @masked
// CHECK-SAME: (%[[DST:.*]]: !llvm.ptr<3>, %[[SRC:.*]]: !llvm.ptr<1>, %[[INSIDE:.*]]: i1, %[[TRIP:.*]]: i1
// CHECK: %[[BOTH:.*]] = llvm.and %[[TRIP]], %[[INSIDE]] : i1
// CHECK: %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
// CHECK: %[[IGNORE:.*]] = llvm.xor %[[BOTH]], %[[TRUE]] : i1
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.cg.shared.global [$0], [$1], 16, $2;", "l,l,b" %[[DST]], %[[SRC]], %[[IGNORE]]
// CHECK-NOT: llvm.select
// CHECK-NOT: nvvm.cp.async.shared.global
gpu.module @wave_kernels {
llvm.func @masked(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %inside: i1, %trip: i1) {
  %zero = llvm.mlir.constant(0 : index) : i64
  %eight = llvm.mlir.constant(8 : index) : i64
  %bits = llvm.mlir.constant(16 : i32) : i32
  %three = llvm.mlir.constant(3 : i32) : i32
  %elements = llvm.select %inside, %eight, %zero : i1, i64
  %past = llvm.select %trip, %elements, %zero : i1, i64
  %narrow = llvm.trunc %past : i64 to i32
  %scaled = llvm.mul %narrow, %bits : i32
  %bytes = llvm.lshr %scaled, %three : i32
  nvvm.cp.async.shared.global %dst, %src, 16, cache = cg, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, i32
  llvm.return
}

// CHECK-LABEL: llvm.func @whole
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NOT: llvm.inline_asm
llvm.func @whole(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>) {
  %bytes = llvm.mlir.constant(8 : i32) : i32
  nvvm.cp.async.shared.global %dst, %src, 8, cache = ca, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, i32
  llvm.return
}

// A count of part of the copy (4 of 8 elements), or one not made of selects against zero,
// keeps the partial-copy form.
// CHECK-LABEL: llvm.func @partial
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NOT: llvm.inline_asm
llvm.func @partial(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %inside: i1, %room: i32) {
  %zero = llvm.mlir.constant(0 : i32) : i32
  %half = llvm.mlir.constant(8 : i32) : i32
  %some = llvm.select %inside, %half, %zero : i1, i32
  nvvm.cp.async.shared.global %dst, %src, 16, cache = cg, %some : !llvm.ptr<3>, !llvm.ptr<1>, i32
  %left = llvm.select %inside, %room, %zero : i1, i32
  nvvm.cp.async.shared.global %dst, %src, 16, cache = cg, %left : !llvm.ptr<3>, !llvm.ptr<1>, i32
  llvm.return
}
}
