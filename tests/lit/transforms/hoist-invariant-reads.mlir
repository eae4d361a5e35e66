// wave-hoist-invariant-reads: a read every iteration of a loop repeats (its memory and
// value lack the loop's dim) moves to before the loop; reads of the loop's tile, reads of
// memory the loop writes, and kernels a shape lowering takes stay as they are.
// RUN: wave-opt %s --wave-hoist-invariant-reads --split-input-file | FileCheck %s
// With warpgroup mmas (keep-mma-operands-shared), the queries only an mma reads stay in
// the loop: wgmma reads them from their shared tile; the loop's other reads are as before.
// RUN: wave-opt %s --wave-hoist-invariant-reads=keep-mma-operands-shared --split-input-file \
// RUN:   | FileCheck %s --check-prefix=WGMMA

// Attention's queries: read once, before the key loop; the keys stay in it.
// CHECK-LABEL: func.func @queries
// CHECK: %[[Q:.*]] = wave.read %arg0 : !wave.memory<[M, K1] of f16, shared>
// CHECK-NEXT: wave.iterate "K2"
// CHECK: %[[K:.*]] = wave.read %arg1
// CHECK: wave.mma %[[K]], %[[Q]]
// WGMMA-LABEL: func.func @queries
// WGMMA: wave.iterate "K2"
// WGMMA: %[[Q:.*]] = wave.read %arg0
// WGMMA: %[[K:.*]] = wave.read %arg1
// WGMMA: wave.mma %[[K]], %[[Q]]
// WGMMA-LABEL: func.func @nested
// WGMMA: %[[X:.*]] = wave.read %arg0
// WGMMA-NEXT: wave.iterate "I"
func.func @queries(%q: !wave.memory<[M, K1] of f16, shared>, %k: !wave.memory<[K2, K1] of f16, shared>,
                   %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]} {
  %0 = wave.register -1.0e6 : !wave.tensor<[M] of f32>
  %1 = wave.iterate "K2" iter_args(%0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%max: !wave.tensor<[M] of f32>):
    %z = wave.register 0.0 : !wave.tensor<[K2, M] of f32>
    %x = wave.read %q : !wave.memory<[M, K1] of f16, shared> -> !wave.tensor<[M, K1] of f16>
    %y = wave.read %k : !wave.memory<[K2, K1] of f16, shared> -> !wave.tensor<[K2, K1] of f16>
    %s = wave.mma %y, %x, %z : (!wave.tensor<[K2, K1] of f16>, !wave.tensor<[M, K1] of f16>, !wave.tensor<[K2, M] of f32>) -> !wave.tensor<[K2, M] of f32>
    %m = wave.reduce_max %s init(%max) along "K2" : (!wave.tensor<[K2, M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %m : !wave.tensor<[M] of f32>
  }
  wave.write %1, %o : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// Out of two nested loops at once; a read of memory the loop also writes stays.
// CHECK-LABEL: func.func @nested
// CHECK: %[[X:.*]] = wave.read %arg0
// CHECK-NEXT: wave.iterate "I"
// CHECK: wave.iterate "J"
// CHECK: wave.read %arg1
// CHECK: wave.write
func.func @nested(%x: !wave.memory<[M] of f32, global>, %z: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "I", tile = #wave.expr<"1">>,
                        #wave.tiling_constraint<dim = "J", tile = #wave.expr<"1">>,
                        #wave.hardware_constraint<threads_per_wave = 32>]} {
  %0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %1 = wave.iterate "I" iter_args(%0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%a: !wave.tensor<[M] of f32>):
    %2 = wave.iterate "J" iter_args(%a) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
    ^bb1(%b: !wave.tensor<[M] of f32>):
      %v = wave.read %x : !wave.memory<[M] of f32, global> -> !wave.tensor<[M] of f32>
      %w = wave.read %z : !wave.memory<[M] of f32, global> -> !wave.tensor<[M] of f32>
      %s = wave.add %b, %v : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
      %t = wave.add %s, %w : (!wave.tensor<[M] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
      wave.write %t, %z : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
      wave.yield %t : !wave.tensor<[M] of f32>
    }
    wave.yield %2 : !wave.tensor<[M] of f32>
  }
  return
}

