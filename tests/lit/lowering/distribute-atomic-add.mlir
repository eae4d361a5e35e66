// The distribution of a write that adds (atomic_add): one red.global.add per 16-byte run
// with vector atomics (sm_90), else one memref.atomic_rmw per element; an element held
// by several threads is added by the first only.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu=vector-atomics=true --canonicalize | FileCheck %s --check-prefix=VEC
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu --canonicalize | FileCheck %s --check-prefix=ELT

// Rows of 128 floats, 4 per lane, whole rows: one vector add per run; element by element
// without vector atomics, and no plain store either way.
// VEC-LABEL: gpu.func @rows
// VEC: memref.extract_aligned_pointer_as_index
// VEC: llvm.inline_asm has_side_effects asm_dialect = att "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f"
// VEC-NOT: memref.atomic_rmw
// VEC-NOT: vector.store
// ELT-LABEL: gpu.func @rows
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
func.func @replicated(%x: !wave.memory<[M, N] of i32, global>, %s: !wave.memory<[M] of i32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 128 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of i32, global> -> !wave.tensor<[M, N] of i32>
  %r = wave.reduce_sum %v along "N" : (!wave.tensor<[M, N] of i32>) -> !wave.tensor<[M] of i32>
  wave.write %r, %s {combine = #wave.combine<add>} : !wave.tensor<[M] of i32>, !wave.memory<[M] of i32, global>
  return
}
