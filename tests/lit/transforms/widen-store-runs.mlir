// wave-widen-store-runs on a GEMM's stores: each thread's runs along the row grow to 16
// bytes, the lanes' column steps traded for the column tiles' register steps. The
// accumulator's pairs cast to f16 (4 bytes) take two exchanges, rows of 100 halves only
// one (runs of 4: the longest that keeps them aligned), f32 pairs (8 bytes) one. Lowered,
// the conversion is xor shuffles within the wave (f16 pairs packed in one word), and the
// stores are vectors of 16 and 8 bytes.
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-widen-store-runs | FileCheck %s
// RUN: wave-opt %s --split-input-file --wave-assign-layouts --wave-widen-store-runs --wave-lower-to-gpu | FileCheck %s --check-prefix=LOWERED

#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

// CHECK-LABEL: func.func @store_f16
// CHECK: %[[H:.*]] = wave.cast {{.*}} : !wave.tensor<[M, N] of f32, #wave.layout<registers = [2, 4, 4]
// The run's 8 columns are registers 0-7 (d0 < 8), row 8 is register bit 3; lanes step
// 8 columns (twice), then a row.
// CHECK: %[[W:.*]] = wave.convert_layout %[[H]] {{.*}} to !wave.tensor<[M, N] of f16, #wave.layout<registers = [32], lanes = [32], waves = [2, 2], map = (d0, d1, d2, d3) -> (d2 * 32 + (d0 floordiv 8) * 8 + d1 floordiv 4, d0 + d1 * 8 + d3 * 32 - (d0 floordiv 8) * 8 - (d1 floordiv 4) * 32)>>
// CHECK: wave.write %[[W]]
// LOWERED-LABEL: gpu.func @store_f16
// Two exchanges of 8 packed pairs each: one shuffle per pair of words.
// LOWERED-COUNT-16: gpu.shuffle  xor {{.*}} : i32
// LOWERED-NOT: gpu.shuffle
// LOWERED-NOT: memref.store {{.*}}workgroup
// LOWERED: vector.store {{.*}} : memref<?x128xf16>, vector<8xf16>
// LOWERED-NOT: vector<2xf16>
// LOWERED: gpu.return
func.func @store_f16(%a: !wave.memory<[M, K] of f16, global>, %b: !wave.memory<[N, K] of f16, global>,
                     %c: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = #gemm_constraints, wave.hyperparameters = {K = 64 : i64, N = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, global> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  %h = wave.cast %1 : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of f16>
  wave.write %h, %c : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}

// -----

#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

// CHECK-LABEL: func.func @rows_of_100
// CHECK: wave.convert_layout {{.*}} to !wave.tensor<[M, N] of f16, #wave.layout<registers = [32], lanes = [32], waves = [2, 2], map = (d0, d1, d2, d3) -> ({{.*}}, d0 + d1 * 8 + d3 * 32 - (d0 floordiv 4) * 4 {{.*}}>>
// LOWERED-LABEL: gpu.func @rows_of_100
// LOWERED-COUNT-8: gpu.shuffle  xor {{.*}} : i32
// LOWERED-NOT: gpu.shuffle
// LOWERED: vector<4xf16>
// LOWERED: gpu.return
func.func @rows_of_100(%a: !wave.memory<[M, K] of f16, global>, %b: !wave.memory<[N, K] of f16, global>,
                       %c: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = #gemm_constraints, wave.hyperparameters = {K = 64 : i64, N = 100 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, global> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  %h = wave.cast %1 : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of f16>
  wave.write %h, %c : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}

// -----

#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

// CHECK-LABEL: func.func @store_f32
// CHECK: %[[W:.*]] = wave.convert_layout {{.*}} to !wave.tensor<[M, N] of f32, #wave.layout<registers = [32], lanes = [32], waves = [2, 2]
// CHECK: wave.write %[[W]]
// LOWERED-LABEL: gpu.func @store_f32
// One exchange of 16 register pairs.
// LOWERED-COUNT-16: gpu.shuffle  xor {{.*}} : i32
// LOWERED-NOT: gpu.shuffle
// LOWERED: vector.store {{.*}} : memref<?x128xf32>, vector<4xf32>
// LOWERED: gpu.return
func.func @store_f32(%a: !wave.memory<[M, K] of f16, global>, %b: !wave.memory<[N, K] of f16, global>,
                     %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = #gemm_constraints, wave.hyperparameters = {K = 64 : i64, N = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, global> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// Through index mappings: rows split into [B, R] with N innermost (its own iterator, as
// conv2d writes its output channels) widen along N; a transposing mapping, whose memory
// rows follow M, along M (runs of 4 halves, where each element was a store of its own).
#gemm_constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                     #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                     #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                     #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                     #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                     #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]

// CHECK-LABEL: func.func @mapped
// CHECK: %[[W:.*]] = wave.convert_layout {{.*}} to !wave.tensor<[M, N] of f16, #wave.layout<registers = [32]
// CHECK: wave.write %[[W]], %arg2 {mapping
// CHECK: %[[T:.*]] = wave.convert_layout {{.*}} to !wave.tensor<[M, N] of f16, #wave.layout<registers = [32]
// CHECK: wave.write %[[T]], %arg3 {mapping
// LOWERED-LABEL: gpu.func @mapped
// LOWERED-COUNT-16: gpu.shuffle  xor {{.*}} : i32
// LOWERED-COUNT-4: vector.store {{.*}} vector<8xf16>
// LOWERED-COUNT-16: gpu.shuffle  xor {{.*}} : i32
// LOWERED-NOT: gpu.shuffle
// LOWERED-COUNT-8: vector.store {{.*}} vector<4xf16>
// LOWERED-NOT: memref.store
// LOWERED: gpu.return
func.func @mapped(%a: !wave.memory<[M, K] of f16, global>, %b: !wave.memory<[N, K] of f16, global>,
                  %c: !wave.memory<[B, R, N] of f16, global>, %t: !wave.memory<[N2, M2] of f16, global>) attributes {
    wave.constraints = #gemm_constraints,
    wave.hyperparameters = {M = 128 : i64, K = 64 : i64, N = 128 : i64, B = 8 : i64, R = 16 : i64, M2 = 128 : i64, N2 = 128 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, global> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  %h = wave.cast %1 : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of f16>
  wave.write %h, %c {mapping = #wave.index_mapping<iterators = 2, inputs = {M = #wave.expr<"$0">, N = #wave.expr<"$1">}, outputs = {B = #wave.expr<"$0 floordiv 16">, R = #wave.expr<"$0 mod 16">, N = #wave.expr<"$1">}>} : !wave.tensor<[M, N] of f16>, !wave.memory<[B, R, N] of f16, global>
  wave.write %h, %t {mapping = #wave.index_mapping<iterators = 2, inputs = {M = #wave.expr<"$0">, N = #wave.expr<"$1">}, outputs = {N2 = #wave.expr<"$1">, M2 = #wave.expr<"$0">}>} : !wave.tensor<[M, N] of f16>, !wave.memory<[N2, M2] of f16, global>
  return
}
