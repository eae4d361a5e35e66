// wave-lower-to-gpu{buffer-accesses=true} (gfx942's): global reads and writes through
// AMDGPU buffers, whose range check reads zero and drops writes past the buffer's end.
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu=buffer-accesses=true --canonicalize --split-input-file | FileCheck %s

// M = 100 ends inside the last 16-row tile; N is whole. The rows past the end are past
// the buffer's end too: no compare, no branch, no select.
// CHECK-LABEL: gpu.func @rows
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.select
// CHECK-NOT: scf.if
// CHECK: amdgpu.raw_buffer_load %arg0[%{{.*}}, %{{.*}}] : memref<100x64xf16>, i32, i32 -> vector<8xf16>
// CHECK: amdgpu.raw_buffer_load %arg0
// CHECK-NOT: arith.cmpi
// CHECK: amdgpu.raw_buffer_store %{{.*}} -> %arg1[%{{.*}}, %{{.*}}] : vector<8xf16> -> memref<100x64xf16>, i32, i32
// CHECK: amdgpu.raw_buffer_store
// CHECK-NOT: vector.maskedload
// CHECK: gpu.return
func.func @rows(%x: !wave.memory<[M, N] of f16, global>, %y: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"16">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 64>],
    wave.hyperparameters = {M = 100 : i64, N = 64 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f16, global> -> !wave.tensor<[M, N] of f16>
  %two = wave.register 2.0 : !wave.tensor<[] of f16>
  %s = wave.mul %v, %two : (!wave.tensor<[M, N] of f16>, !wave.tensor<[] of f16>) -> !wave.tensor<[M, N] of f16>
  wave.write %s, %y : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}

// -----

// N = 1000 ends inside the 1024-column tile, a multiple of the 8-half runs: a run is
// inside or past the end, and one past it is moved at row 7, past the buffer's end.
// CHECK-LABEL: gpu.func @columns
// CHECK: %[[COL:.*]] = affine.apply
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[COL]], %c1000
// CHECK-NEXT: %[[ROW:.*]] = arith.select %[[IN]], %block_id_y, %c7
// CHECK-NEXT: %[[R:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK-NEXT: %[[C:.*]] = arith.index_cast %[[COL]] : index to i32
// CHECK-NEXT: amdgpu.raw_buffer_load %arg0[%[[R]], %[[C]]] : memref<7x1000xf16>, i32, i32 -> vector<8xf16>
// CHECK: arith.select
// CHECK: amdgpu.raw_buffer_store %{{.*}} -> %arg1
// CHECK-NOT: scf.if
// CHECK: gpu.return
func.func @columns(%x: !wave.memory<[M, N] of f16, global>, %y: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"1024">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"512">>,
                        #wave.hardware_constraint<threads_per_wave = 64>],
    wave.hyperparameters = {M = 7 : i64, N = 1000 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f16, global> -> !wave.tensor<[M, N] of f16>
  %two = wave.register 2.0 : !wave.tensor<[] of f16>
  %s = wave.mul %v, %two : (!wave.tensor<[M, N] of f16>, !wave.tensor<[] of f16>) -> !wave.tensor<[M, N] of f16>
  wave.write %s, %y : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}

// -----

// N is given at launch: its runs may end partway and the memref has no static size, so
// the branch and the masked load and store stay.
// CHECK-LABEL: gpu.func @dynamic
// CHECK-NOT: amdgpu.raw_buffer
// CHECK: scf.if
// CHECK: vector.maskedload %arg0
// CHECK: vector.maskedstore %arg1
// CHECK: gpu.return
func.func @dynamic(%x: !wave.memory<[M, N] of f16, global>, %y: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"1024">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"512">>,
                        #wave.hardware_constraint<threads_per_wave = 64>],
    wave.hyperparameters = {M = 7 : i64}} {
  %v = wave.read %x : !wave.memory<[M, N] of f16, global> -> !wave.tensor<[M, N] of f16>
  wave.write %v, %y : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}

// -----

// Through an index mapping (value head h reads memory head h floordiv 2), the argument is
// addressed flattened: a head past H = 7 reads from offset 256, past the 4 x 64 buffer.
// The write's mask is its outermost dim's end: none.
// CHECK-LABEL: gpu.func @mapped
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg0
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c7
// CHECK: %[[AT:.*]] = arith.select %[[IN]], %{{.*}}, %c256
// CHECK: %[[OFFSET:.*]] = arith.index_cast %[[AT]] : index to i32
// CHECK: amdgpu.raw_buffer_load %[[FLAT]][%[[OFFSET]]] : memref<256xf16>, i32 -> vector<8xf16>
// CHECK-NOT: arith.cmpi
// CHECK: amdgpu.raw_buffer_store %{{.*}} -> %arg1[%{{.*}}, %{{.*}}] : vector<8xf16> -> memref<7x64xf16>, i32, i32
func.func @mapped(%kv: !wave.memory<[G, N] of f16, global>, %out: !wave.memory<[H, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "H", tile = #wave.expr<"2">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 64>],
    wave.hyperparameters = {G = 4 : i64, H = 7 : i64, N = 64 : i64}} {
  %r = wave.read %kv {mapping = #wave.index_mapping<iterators = 2, inputs = {G = #wave.expr<"$0 floordiv 2">, N = #wave.expr<"$1">}, outputs = {H = #wave.expr<"$0">, N = #wave.expr<"$1">}>} : !wave.memory<[G, N] of f16, global> -> !wave.tensor<[H, N] of f16>
  wave.write %r, %out : !wave.tensor<[H, N] of f16>, !wave.memory<[H, N] of f16, global>
  return
}
