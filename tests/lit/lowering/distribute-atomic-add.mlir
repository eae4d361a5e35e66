// The distribution of a write that adds (atomic_add): one red.global.add per 16-byte run
// with vector atomics (sm_90), else one memref.atomic_rmw per element; an element held
// by several threads is added by the first only. With system atomics (NVIDIA, so that
// the node's other GPUs' adds to a peer's memory land too) every add and integer min/max
// is a PTX red at system scope, LLVM's atomicrmw dropping the scope.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu=vector-atomics=true --canonicalize | FileCheck %s --check-prefix=VEC
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu --canonicalize | FileCheck %s --check-prefix=ELT
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu="vector-atomics=true system-atomics=true" --canonicalize | FileCheck %s --check-prefix=SYS

// Rows of 128 floats, 4 per lane, whole rows: one vector add per run; element by element
// without vector atomics, and no plain store either way.
// VEC-LABEL: gpu.func @rows
// VEC: memref.extract_aligned_pointer_as_index
// VEC: llvm.inline_asm has_side_effects asm_dialect = att "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f"
// VEC-NOT: memref.atomic_rmw
// VEC-NOT: vector.store
// ELT-LABEL: gpu.func @rows
// SYS-LABEL: gpu.func @rows
// SYS: "red.relaxed.sys.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f"
// ELT-COUNT-4: memref.atomic_rmw addf
// ELT-NOT: memref.atomic_rmw
// ELT-NOT: vector.store
func.func @rows(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 256 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  wave.write %v, %y {combine = #wave.combine<add>} : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// Rows of 100 halves: runs of 4 (two f16x2 words) where whole; the last run of a row,
// past its end, adds element by element under the count of those inside.
// VEC-LABEL: gpu.func @halves
// VEC: "red.global.add.noftz.v2.f16x2 [$0], {$1, $2};", "l,r,r"
// VEC: memref.atomic_rmw addf
// ELT-LABEL: gpu.func @halves
// SYS-LABEL: gpu.func @halves
// SYS: "red.relaxed.sys.global.add.noftz.v2.f16x2 [$0], {$1, $2};", "l,r,r"
// SYS: arith.bitcast %{{.*}} : f16 to i16
// SYS: "red.relaxed.sys.global.add.noftz.f16 [$0], $1;", "l,h"
// SYS-NOT: memref.atomic_rmw
func.func @halves(%x: !wave.memory<[M, N] of f16, global>, %y: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 100 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f16, global> -> !wave.tensor<[M, N] of f16>
  wave.write %v, %y {combine = #wave.combine<add>} : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}

// -----

// A row sum is held by every lane of its row: only lane 0 adds it.
// ELT-LABEL: gpu.func @replicated
// ELT: %[[BITS:.*]] = arith.andi %{{.*}}, %c31
// ELT: arith.cmpi eq, %[[BITS]], %c0
// ELT: scf.if
// ELT-NEXT: memref.atomic_rmw addi
// ELT-NOT: memref.atomic_rmw
// SYS-LABEL: gpu.func @replicated
// SYS: scf.if
// SYS: "red.relaxed.sys.global.add.u32 [$0], $1;", "l,r"
func.func @replicated(%x: !wave.memory<[M, N] of i32, global>, %s: !wave.memory<[M] of i32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 128 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of i32, global> -> !wave.tensor<[M, N] of i32>
  %r = wave.reduce_sum %v along "N" : (!wave.tensor<[M, N] of i32>) -> !wave.tensor<[M] of i32>
  wave.write %r, %s {combine = #wave.combine<add>} : !wave.tensor<[M] of i32>, !wave.memory<[M] of i32, global>
  return
}

// -----

// Integer min and max are PTX reds at system scope too; a float max stays
// memref.atomic_rmw (LLVM's compare-and-swap loop, already at system scope).
// ELT-LABEL: gpu.func @extremes
// SYS-LABEL: gpu.func @extremes
// SYS: "red.relaxed.sys.global.min.s64 [$0], $1;", "l,l"
// SYS: memref.atomic_rmw maximumf
func.func @extremes(%x: !wave.memory<[N] of i64, global>, %lo: !wave.memory<[N] of i64, global>,
                    %f: !wave.memory<[N] of f32, global>, %hi: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {N = 64 : i64}} {
  %v = wave.read %x : !wave.memory<[N] of i64, global> -> !wave.tensor<[N] of i64>
  wave.write %v, %lo {combine = #wave.combine<min>} : !wave.tensor<[N] of i64>, !wave.memory<[N] of i64, global>
  %w = wave.read %f : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %w, %hi {combine = #wave.combine<max>} : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}

// -----

// Into row-major slots [RANKS, SLOT] (a symmetric buffer): row m goes to slot m / 4 at
// (m mod 4) * 128. The slot's index has the row's term beside the column's, a multiple
// of the run: runs of 4 stay whole, one 16-byte add each.
// ELT-LABEL: gpu.func @slots
// SYS-LABEL: gpu.func @slots
// SYS-COUNT-1: "red.relaxed.sys.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f"
// SYS-NOT: red.relaxed
func.func @slots(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[RANKS, SLOT] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 8 : i64, N = 128 : i64, RANKS = 2 : i64, SLOT = 1024 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  wave.write %v, %y {combine = #wave.combine<add>,
                     mapping = #wave.index_mapping<iterators = 2, inputs = {M = #wave.expr<"$0">, N = #wave.expr<"$1">},
                                                   outputs = {RANKS = #wave.expr<"$0 floordiv 4">, SLOT = #wave.expr<"($0 mod 4) * 128 + $1">}>}
      : !wave.tensor<[M, N] of f32>, !wave.memory<[RANKS, SLOT] of f32, global>
  return
}
