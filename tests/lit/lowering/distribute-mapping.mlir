// The distribution of reads through an index mapping: the memory's indices are the
// mapping's expressions of the iterators (the value's positions); into a tensor of static
// shape they become one offset into the flattened tensor, simplified as a whole and
// computed per set of iterators. Runs stay whole vector loads where the memory's
// innermost dim is its value dim's own iterator, or provably steps with it.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-lower-to-gpu --canonicalize \
// RUN:   --mlir-print-local-scope | FileCheck %s

// Grouped heads: value head h reads memory head h floordiv 2; N stays the inner run
// (8 halves, one 16-byte load). The head's offset, a division, in 32 bits (unsigned: the
// head is never negative) and widened.
// CHECK-LABEL: gpu.func @grouped_heads
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<4x64xf16> into memref<256xf16>
// CHECK: %[[HEAD:.*]] = arith.index_cast %block_id_x : index to i32
// CHECK: %[[GROUP:.*]] = arith.divui %[[HEAD]], %c2_i32 : i32
// CHECK: %[[ROW:.*]] = arith.muli %[[GROUP]], %c64_i32 : i32
// CHECK: arith.index_cast %[[ROW]] : i32 to index
// CHECK: vector.load %[[FLAT]][{{.*}}] {alignment = 16 : i64} : memref<256xf16>, vector<8xf16>
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
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg0
// CHECK: arith.remui %{{.*}}, %c16_i32 : i32
// CHECK: vector.load %[[FLAT]][{{.*}}] {alignment = 16 : i64} : memref<64xf16>, vector<8xf16>
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
// CHECK-NOT: vector.load
// CHECK: memref.load %collapse_shape[{{.*}}] : memref<20xf16>
func.func @im2col_odd(%x: !wave.memory<[N, C] of f16, global>, %out: !wave.memory<[M, K] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {C = 5 : i64, K = 64 : i64, M = 4 : i64, N = 4 : i64}} {
  %r = wave.read %x {mapping = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0">, C = #wave.expr<"$1 mod C">}, outputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}>} : !wave.memory<[N, C] of f16, global> -> !wave.tensor<[M, K] of f16>
  wave.write %r, %out : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, global>
  return
}

// -----

// conv2d's weights [HF, WF, C, F] read as [F, K] with k = (hf * WF + wf) * C + c: hf, wf
// and c taken apart from k are put back together by the strides, so the offset is
// k * F + f and no division is left.
// CHECK-LABEL: gpu.func @filter_taps
// CHECK-NOT: floordiv 8
// CHECK-NOT: floordiv 3
// CHECK: affine.apply affine_map<()[s0] -> (s0 * 16)>
// CHECK-NOT: floordiv 8
// CHECK-NOT: floordiv 3
// CHECK: gpu.return
func.func @filter_taps(%w: !wave.memory<[HF, WF, C, F] of f16, global>, %out: !wave.memory<[F, K] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "K", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {C = 8 : i64, F = 16 : i64, HF = 3 : i64, K = 72 : i64, WF = 3 : i64}} {
  %r = wave.read %w {mapping = #wave.index_mapping<iterators = 2, inputs = {HF = #wave.expr<"$1 floordiv C floordiv WF">, WF = #wave.expr<"$1 floordiv C mod WF">, C = #wave.expr<"$1 mod C">, F = #wave.expr<"$0">}, outputs = {F = #wave.expr<"$0">, K = #wave.expr<"$1">}>} : !wave.memory<[HF, WF, C, F] of f16, global> -> !wave.tensor<[F, K] of f16>
  wave.write %r, %out : !wave.tensor<[F, K] of f16>, !wave.memory<[F, K] of f16, global>
  return
}
