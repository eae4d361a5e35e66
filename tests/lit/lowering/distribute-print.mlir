// The distribution of wave.print: one gpu.printf per register in the thread that holds
// its element first, guarded by the tensor's end, the limit and the mask.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu --canonicalize | FileCheck %s

// Every element held once (rows of 128 floats, 4 per lane): no thread test, the row's end
// (N = 100 ends inside the tile) and the limit (position below 50) guard each printf.
// CHECK-LABEL: gpu.func @row
// CHECK-NOT: arith.andi %{{.*}}, %c
// CHECK: arith.cmpi ult, %{{.*}}, %c100
// CHECK: arith.cmpi ult, %{{.*}}, %c50
// CHECK: scf.if
// CHECK-NEXT: arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT: arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT: vector.extract %{{.*}}[0] : f32 from vector<4xf32>
// CHECK-NEXT: arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT: gpu.printf "x[M=%lld, N=%lld] = %.6g\0A"
// CHECK-COUNT-3: gpu.printf "x[M=%lld, N=%lld] = %.6g\0A"
// CHECK-NOT: gpu.printf
func.func @row(%x: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"128">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 100 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  wave.print %v "x" {limit = 50 : i64} : !wave.tensor<[M, N] of f32>
  return
}

// -----

// A row sum is held by every lane of its row: only the first lane prints it (the thread
// test), and a '%' in the label is escaped. The mask's bit is part of the guard.
// CHECK-LABEL: gpu.func @replicated
// CHECK: %[[BITS:.*]] = arith.andi %{{.*}}, %c31
// CHECK: arith.cmpi eq, %[[BITS]], %c0
// CHECK: vector.extract %{{.*}}[0] : i1 from vector<1xi1>
// CHECK: gpu.printf "100%% sum[M=%lld] = %.6g\0A"
func.func @replicated(%x: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 3 : i64, N = 128 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %s = wave.reduce_sum %v along "N" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M] of f32>
  %i = wave.self_index "M" : !wave.tensor<[M] of i64>
  %odd = wave.apply_expr %i {expr = #wave.expr<"$0 mod 2 == 1">} : !wave.tensor<[M] of i64> -> !wave.tensor<[M] of i1>
  wave.print %s where %odd "100% sum" {limit = 64 : i64} : !wave.tensor<[M] of f32>, !wave.tensor<[M] of i1>
  return
}

// -----

// Integers print as 64-bit, i1 as 0 or 1. Runs of 4 over 8 lanes cover the 32 elements,
// so lanes 8-31 hold what lanes 0-7 hold: only threads with bits 3 and 4 clear print.
// CHECK-LABEL: gpu.func @integers
// CHECK: %[[BITS:.*]] = arith.andi %{{.*}}, %c24
// CHECK: arith.cmpi eq, %[[BITS]], %c0
// CHECK: arith.extui %{{.*}} : i1 to i64
// CHECK: gpu.printf "flag[N=%lld] = %lld\0A"
func.func @integers(%x: !wave.memory<[N] of i1, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {N = 32 : i64}} {
  %v = wave.read %x : !wave.memory<[N] of i1, global> -> !wave.tensor<[N] of i1>
  wave.print %v "flag" {limit = 8 : i64} : !wave.tensor<[N] of i1>
  return
}
