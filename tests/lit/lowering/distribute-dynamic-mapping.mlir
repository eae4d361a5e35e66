// The distribution of reads and writes through mappings with dynamic values (indices
// read at run time): each value reaches the access in its layout sliced to the value's
// dims, so every thread holds the index of each element it moves; the index enters the
// address, and runs along a dim the value lacks stay whole vector accesses.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu --canonicalize \
// RUN:   --mlir-print-local-scope | FileCheck %s

// An embedding lookup: rows of 64 halves gathered by a [T] index; each thread reads the
// index of each of its rows (the index's layout is the rows' sliced along E), and each run
// of 8 is one 16-byte load at that row (cast from i32), never masked along E.
// CHECK-LABEL: gpu.func @lookup
// CHECK: %[[ROW:.*]] = memref.load %arg1[%{{.*}}] : memref<32xi32>
// CHECK-COUNT-7: memref.load %arg1
// CHECK: %[[AT:.*]] = arith.index_cast %[[ROW]] : i32 to index
// CHECK: vector.load %arg0[%[[AT]], %{{.*}}] {alignment = 16 : i64} : memref<?x64xf16>, vector<8xf16>
// CHECK-NOT: vector.maskedload
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<32x64xf16>, vector<8xf16>
func.func @lookup(%table: !wave.memory<[V, E] of f16, global>, %rows: !wave.memory<[T] of i32, global>, %out: !wave.memory<[T, E] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "T", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {E = 64 : i64, T = 32 : i64}} {
  %idx = wave.read %rows : !wave.memory<[T] of i32, global> -> !wave.tensor<[T] of i32>
  %g = wave.read %table dynamic(%idx : !wave.tensor<[T] of i32>) {mapping = #wave.index_mapping<iterators = 2, inputs = {V = #wave.expr<"$2">, E = #wave.expr<"$1">}, outputs = {T = #wave.expr<"$0">, E = #wave.expr<"$1">}, dynamic = 1>} : !wave.memory<[V, E] of f16, global> -> !wave.tensor<[T, E] of f16>
  wave.write %g, %out : !wave.tensor<[T, E] of f16>, !wave.memory<[T, E] of f16, global>
  return
}

// -----

// An index that varies along the innermost dim (one per element): stored element by
// element, each at its own index.
// CHECK-LABEL: gpu.func @per_element
// CHECK: %[[I:.*]] = vector.extract %{{.*}}[0] : i32 from vector<4xi32>
// CHECK: arith.index_cast %[[I]] : i32 to index
// CHECK: memref.store %{{.*}} : memref<512xf16>
// CHECK-NOT: vector.store
func.func @per_element(%x: !wave.memory<[T, E] of f16, global>, %at: !wave.memory<[T, E] of i32, global>, %out: !wave.memory<[T, E] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "T", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {E = 16 : i64, T = 32 : i64}} {
  %v = wave.read %x : !wave.memory<[T, E] of f16, global> -> !wave.tensor<[T, E] of f16>
  %idx = wave.read %at : !wave.memory<[T, E] of i32, global> -> !wave.tensor<[T, E] of i32>
  wave.write %v, %out dynamic(%idx : !wave.tensor<[T, E] of i32>) {mapping = #wave.index_mapping<iterators = 2, inputs = {T = #wave.expr<"$0">, E = #wave.expr<"$1">}, outputs = {T = #wave.expr<"$0">, E = #wave.expr<"$2">}, dynamic = 1>} : !wave.tensor<[T, E] of f16>, !wave.memory<[T, E] of f16, global>
  return
}
