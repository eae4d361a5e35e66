// The distribution of reads through an index mapping: each memory index is the mapping's
// expression of the iterators (the value's positions); runs stay whole vector loads where
// the memory's innermost dim is its value dim's own iterator, or provably steps with it.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu --canonicalize | FileCheck %s

// Grouped heads: value head h reads memory head h floordiv 2; N stays the inner run
// (8 halves, one 16-byte load).
// CHECK-LABEL: gpu.func @grouped_heads
// CHECK: arith.floordivsi %{{.*}}, %c2
// CHECK: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<4x64xf16>, vector<8xf16>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<8x64xf16>, vector<8xf16>
func.func @grouped_heads(%kv: !wave.memory<[G, N] of f16, global>, %out: !wave.memory<[H, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "H", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {G = 4 : i64, H = 8 : i64, N = 64 : i64}} {
  %r = wave.read %kv {mapping = #wave.index_mapping<iterators = 2, inputs = {G = #wave.expr<"$0 floordiv 2">, N = #wave.expr<"$1">}, outputs = {H = #wave.expr<"$0">, N = #wave.expr<"$1">}>} : !wave.memory<[G, N] of f16, global> -> !wave.tensor<[H, N] of f16>
  wave.write %r, %out : !wave.tensor<[H, N] of f16>, !wave.memory<[H, N] of f16, global>
  return
}

// -----

// An innermost memory index that is not an iterator, C = $1 mod C: with C a multiple of
// the run, every aligned run of K stays inside one row of C, so reads are still 16 bytes.
// CHECK-LABEL: gpu.func @im2col_like
// CHECK: arith.remsi %{{.*}}, %c16
// CHECK: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<4x16xf16>, vector<8xf16>
func.func @im2col_like(%x: !wave.memory<[N, C] of f16, global>, %out: !wave.memory<[M, K] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {C = 16 : i64, K = 64 : i64, M = 4 : i64, N = 4 : i64}} {
  %r = wave.read %x {mapping = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1 mod C">}, outputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}>} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  wave.write %r, %out : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, global>
  return
}

// -----

// With C = 5 no run stays inside a row: element by element.
// CHECK-LABEL: gpu.func @im2col_odd
// CHECK-NOT: vector.load %arg0
// CHECK: memref.load %arg0
func.func @im2col_odd(%x: !wave.memory<[N, C] of f16, global>, %out: !wave.memory<[M, K] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {C = 5 : i64, K = 64 : i64, M = 4 : i64, N = 4 : i64}} {
  %r = wave.read %x {mapping = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1 mod C">}, outputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}>} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  wave.write %r, %out : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, global>
  return
}
