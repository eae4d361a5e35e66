// wave-assign-layouts: constraints whose grid cannot be built are diagnosed at the kernel.
// RUN: wave-opt %s --wave-assign-layouts --split-input-file --verify-diagnostics

// expected-error @+1 {{expected a value in subs for BLOCK_N (the wave tile of N: tiles are fixed at compile time), but found none}}
func.func @unknown_wave_tile(%x: !wave.memory<[N] of f32, global>, %y: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"256">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">>,
                        #wave.hardware_constraint<threads_per_wave = 32>]} {
  %v = wave.read %x : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %v, %y : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}

// -----

// expected-error @+1 {{expected at most 1024 threads per workgroup, but the constraints make 2048}}
func.func @too_many_waves(%x: !wave.memory<[N] of f32, global>, %y: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"1">>,
                        #wave.hardware_constraint<threads_per_wave = 32>]} {
  %v = wave.read %x : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %v, %y : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}

// -----

// One wave holding all of a [64, 128, 8] tile would need 2048 elements per thread.
func.func @too_many_elements_per_thread(%x: !wave.memory<[M, K, N] of f32, global>, %y: !wave.memory<[M, K, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 64 : i64, K = 128 : i64, N = 8 : i64}} {
  // expected-error @+1 {{expected each thread to hold at most 512 elements of its result, but the tiles of [M: 64, K: 128, N: 8] over 32 threads give each 2048}}
  %v = wave.read %x : !wave.memory<[M, K, N] of f32, global> -> !wave.tensor<[M, K, N] of f32>
  wave.write %v, %y : !wave.tensor<[M, K, N] of f32>, !wave.memory<[M, K, N] of f32, global>
  return
}

// -----

// A loop over a dim no tensor has (hand-edited IR; found by wave-fuzz-modules): an error at
// the loop, not a lookup past the grid's dims.
func.func @loop_over_unknown_dim(%a: !wave.memory<[M, K] of f32, global>, %c: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {K = 96 : i64, M = 64 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  // expected-error @+1 {{'wave.iterate' op walks KK, but no tensor of the kernel has that dim}}
  %1 = wave.iterate "KK" iter_args(%0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%acc: !wave.tensor<[M] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f32, global> -> !wave.tensor<[M, K] of f32>
    %s = wave.reduce_sum %x init(%acc) along "K" : (!wave.tensor<[M, K] of f32>, !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>
    wave.yield %s : !wave.tensor<[M] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

// A warpgroup mma (stated in the IR) on two waves: not whole warpgroups.
func.func @warpgroup_mma_on_two_waves(%a: !wave.memory<[M, K] of f16, global>, %b: !wave.memory<[N, K] of f16, global>,
                                      %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, global> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, global> -> !wave.tensor<[N, K] of f16>
    // expected-error @+1 {{is a warpgroup mma: expected whole warpgroups (a multiple of 4 waves), but the kernel has 2}}
    %d = wave.mma %x, %y, %acc {warpgroup} : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}
