// wave-lower-to-gpu: a memory-bound kernel, its values given layouts by
// wave-assign-layouts, becomes a gpu.func of per-thread vector code.
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu --split-input-file --verify-diagnostics | FileCheck %s

// [M, N] f16 in 1 x 1024 workgroup tiles, 4 waves of 256: 8 halves (16 bytes) per thread
// and step, one step. 1000 = 125 x 8 keeps rows aligned to 16 bytes; N = 1000 does not
// divide 1024, so edge runs are masked.
// CHECK-LABEL: gpu.module @wave_kernels
// CHECK: gpu.func @scale(%[[X:.*]]: memref<7x1000xf16>, %[[Y:.*]]: memref<7x1000xf16>) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 7, 1>
// One workgroup along x: its tile is 0, not gpu.block_id x.
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK-NOT: gpu.block_id x
// CHECK: %[[BY:.*]] = gpu.block_id y
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (vector<8xf16>) {
// CHECK-NEXT: vector.load %[[X]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<7x1000xf16>, vector<8xf16>
// CHECK: } else {
// CHECK: vector.create_mask %{{.*}} : vector<8xi1>
// CHECK: vector.maskedload %[[X]]
// CHECK: arith.constant dense<2.000000e+00> : vector<1xf16>
// CHECK: arith.mulf
// CHECK: vector.store %{{.*}}, %[[Y]][%{{.*}}, %{{.*}}] {alignment = 16 : i64}
// CHECK: vector.maskedstore %[[Y]]
// CHECK: gpu.return
func.func @scale(%x: !wave.memory<[M, N] of f16, global>, %y: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 4">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 7 : i64, N = 1000 : i64, BLOCK_N = 1024 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f16, global> -> !wave.tensor<[M, N] of f16>
  %two = wave.register 2.0 : !wave.tensor<[] of f16>
  %s = wave.mul %v, %two : (!wave.tensor<[M, N] of f16>, !wave.tensor<[] of f16>) -> !wave.tensor<[M, N] of f16>
  wave.write %s, %y : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}

// -----

// A row vector read for every row: one scalar per run, gathered over its registers.
// CHECK-LABEL: gpu.func @add_bias
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<64xf32>
// CHECK: vector.shuffle %{{.*}} [0, 0, 0, 0] : vector<1xf32>, vector<1xf32>
// CHECK: arith.addf
func.func @add_bias(%x: !wave.memory<[N, M] of f32, global>, %b: !wave.memory<[N] of f32, global>,
                    %y: !wave.memory<[N, M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 128 : i64, N = 64 : i64}} {
  %v = wave.read %x : !wave.memory<[N, M] of f32, global> -> !wave.tensor<[N, M] of f32>
  %bias = wave.read %b : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  %s = wave.add %v, %bias : (!wave.tensor<[N, M] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[N, M] of f32>
  wave.write %s, %y : !wave.tensor<[N, M] of f32>, !wave.memory<[N, M] of f32, global>
  return
}

// -----

// A loop over K with a carried sum: an scf.for over the tiles, the sum its iter_arg.
// CHECK-LABEL: gpu.func @loop
// CHECK: scf.for {{.*}} iter_args
// CHECK: gpu.shuffle  xor
// CHECK: scf.yield
func.func @loop(%x: !wave.memory<[M, K] of f32, global>, %y: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.tiling_constraint<dim = "K", tile = #wave.expr<"16">>, #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 64 : i64, K = 64 : i64}} {
  %zero = wave.register 0.0 : !wave.tensor<[M] of f32>
  %r = wave.iterate "K" iter_args(%zero) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%acc: !wave.tensor<[M] of f32>):
    %v = wave.read %x : !wave.memory<[M, K] of f32, global> -> !wave.tensor<[M, K] of f32>
    %s = wave.reduce_sum %v init(%acc) along "K" : (!wave.tensor<[M, K] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %s : !wave.tensor<[M] of f32>
  }
  wave.write %r, %y : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// expected-error @+1 {{expected a value in subs for N (a dim without a workgroup constraint is one tile), but found none}}
func.func @unknown_size(%x: !wave.memory<[N] of f32, global>, %y: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.hardware_constraint<threads_per_wave = 32>]} {
  %v = wave.read %x : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %v, %y : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}

// -----

// N left out of the hyperparameters: dynamic memrefs, N read from the first argument's
// descriptor, no static grid, and whole vectors only where rows are a multiple of a run.
// CHECK-LABEL: gpu.func @dynamic_rows
// CHECK-SAME: (%[[X:.*]]: memref<4x?xf32>, %{{.*}}: memref<4x?xf32>)
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-NOT: known_grid_size
// CHECK: %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<4x?xf32>
// CHECK: %[[REM:.*]] = arith.remui %[[N]], %{{.*}} : index
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]]
// CHECK: %[[WHOLE:.*]] = arith.andi %{{.*}}, %[[ALIGNED]] : i1
// CHECK: scf.if %[[WHOLE]] -> (vector<4xf32>)
// CHECK: vector.load %[[X]]{{.*}} {alignment = 16 : i64}
// CHECK: vector.maskedload %[[X]]
func.func @dynamic_rows(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 4 : i64, BLOCK_N = 256 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  wave.write %v, %y : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// The same with N assumed a multiple of BLOCK_N: every run is whole and in bounds, so
// there are no masks and no alignment check, only the row bound M.
// CHECK-LABEL: gpu.func @dynamic_rows_assumed
// CHECK-NOT: arith.remui %{{.*}}, %c4
// CHECK-NOT: vector.maskedload
// CHECK: vector.load %{{.*}} {alignment = 16 : i64}
// CHECK-NOT: vector.maskedstore
// CHECK: vector.store %{{.*}} {alignment = 16 : i64}
func.func @dynamic_rows_assumed(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
                        #wave.hardware_constraint<threads_per_wave = 32>,
                        #wave.assumption<#wave.expr<"N mod BLOCK_N == 0">>],
    wave.hyperparameters = {M = 4 : i64, BLOCK_N = 256 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  wave.write %v, %y : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// Tiles are compile-time constants.
// expected-error @+1 {{expected a value in subs for BLOCK_N (the workgroup tile of N: tiles are fixed at compile time), but found none}}
func.func @dynamic_tile(%x: !wave.memory<[N] of f32, global>, %y: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>]} {
  %v = wave.read %x : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %v, %y : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}

// -----

// self_index: the run's first index plus 0..3 along the innermost dim, a splat along the
// others; apply_expr: vector integer arithmetic (mod as a remainder moved into [0, r)), a
// comparison extended to 0/1; select on the i1 cast.
// CHECK-LABEL: gpu.func @index_masks
// CHECK-COUNT-4: arith.index_cast %{{.*}} : index to i32
// CHECK: %[[REM:.*]] = arith.remsi %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[REM]]
// CHECK: %[[MOD:.*]] = arith.select %[[NEG]]
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[MOD]]
// CHECK: arith.extui %[[EQ]] : vector<4xi1> to vector<4xi32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf32>
func.func @index_masks(%x: !wave.memory<[M, N] of f32, global>, %y: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 128 : i64}} {
  %j = wave.self_index "N" : !wave.tensor<[N] of i32>
  %third = wave.apply_expr %j {expr = #wave.expr<"$0 mod 3 == 0">} : !wave.tensor<[N] of i32> -> !wave.tensor<[N] of i32>
  %c = wave.cast %third : !wave.tensor<[N] of i32> to !wave.tensor<[N] of i1>
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %n = wave.neg %v : !wave.tensor<[M, N] of f32>
  %s = wave.select %c, %v, %n : (!wave.tensor<[N] of i1>, !wave.tensor<[M, N] of f32>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
  wave.write %s, %y : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// Masks the ranges decide: 16 x 128 halves over four waves of 16 x 32, two runs of 8 per
// thread, the first in rows 0-7 and the second in rows 8-15 (the row is lane / 4 + 8 r).
// With M = 9 the first run is always inside (no comparison), the second is compared.
// CHECK-LABEL: gpu.func @rows_by_range
// CHECK-NOT: arith.cmpi
// CHECK: vector.load %{{.*}} : memref<9x128xf16>, vector<8xf16>
// CHECK: arith.cmpi ult, %{{.*}}, %c9 : index
// CHECK: scf.if
// CHECK: vector.load %{{.*}} : memref<9x128xf16>, vector<8xf16>
func.func @rows_by_range(%x: !wave.memory<[M, N] of f16, global>, %y: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"16">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 9 : i64, N = 128 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f16, global> -> !wave.tensor<[M, N] of f16>
  wave.write %v, %y : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}
