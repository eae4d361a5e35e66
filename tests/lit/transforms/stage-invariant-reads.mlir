// Reads a loop repeats that would hold too many registers: wave-hoist-invariant-reads
// leaves them in the loop, and wave-promote-shared fills their shared tiles once, before it.
// RUN: wave-opt %s --wave-hoist-invariant-reads | FileCheck %s
// RUN: wave-opt %s --wave-hoist-invariant-reads --wave-promote-shared | FileCheck %s --check-prefix=STAGED

// Queries of 64 x 128 halves per wave would hold 128 registers per thread for the whole
// loop, over the budget of 32: the read stays, and wave-promote-shared fills its shared
// tile once, before the loop; each iteration reads the tile (ldmatrix at the mma).
// CHECK-LABEL: func.func @queries_over_budget
// CHECK: wave.iterate "K2"
// CHECK: wave.read %arg0
// STAGED-LABEL: func.func @queries_over_budget
// STAGED: %[[TILE:.*]] = wave.allocate
// STAGED: %[[Q:.*]] = wave.read %arg0
// STAGED-NEXT: wave.write %[[Q]], %[[TILE]]
// STAGED-NEXT: wave.iterate "K2"
// STAGED-NOT: wave.read %arg0
// STAGED: wave.read %[[TILE]]
// STAGED: wave.mma
func.func @queries_over_budget(%q: !wave.memory<[M, K1] of f16, shared>, %k: !wave.memory<[K2, K1] of f16, shared>,
                               %o: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K2", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K1 = 128 : i64}} {
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
