// wave-infer-index: the thread layout the constraints give, and each op's index sequence.
// RUN: wave-opt %s --wave-infer-index --split-input-file --verify-diagnostics | FileCheck %s

// [M, N] f16, workgroups of 1 x 1024 (N over grid x, M over grid y), 4 waves of 256 along
// N: runs of 8 halves (16 bytes), 32 x 8 = 256 elements per step, so one step. Along N a
// thread starts at its wave's 256-element slice plus 8 per lane; along M at its workgroup.
// CHECK-LABEL: func.func @scale
// CHECK-SAME: wave.thread_layout = #wave.thread_layout<dims = ["M", "N"], block_tile = [1, 1024], wave_tile = [1, 256], grid_axis = [1, 0], threads_per_wave = 32, elements_per_thread = 8, steps = 1>
// CHECK: wave.read %{{.*}} {wave.index = {M = #wave.expr<"_WG1">, N = #wave.expr<"_T0 floordiv 32 mod 4 * 256 + _T0 mod 32 * 8 mod 256 + _WG0 * 1024">}}
// A scalar has no index; the product has the iteration's.
// CHECK: wave.register 2.0{{.*}} : !wave.tensor<[] of f16>
// CHECK-NOT: wave.index
// CHECK: wave.mul {{.*}} {wave.index = {M = #wave.expr<"_WG1">, N = #wave.expr<"_T0 floordiv 32 mod 4 * 256 + _T0 mod 32 * 8 mod 256 + _WG0 * 1024">}}
// CHECK: wave.write {{.*}} {wave.index = {M = #wave.expr<"_WG1">, N = #wave.expr<"_T0 floordiv 32 mod 4 * 256 + _T0 mod 32 * 8 mod 256 + _WG0 * 1024">}}
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

// f32 [N, M] with no constraint on M: one tile of 64 per workgroup, one wave, runs of 4
// floats, 32 x 4 = 128 per step: a 4 x 64 wave tile takes 2 steps, each covering two
// rows. A [N] bias gets only the N index.
// CHECK-LABEL: func.func @add_bias
// CHECK-SAME: #wave.thread_layout<dims = ["N", "M"], block_tile = [4, 64], wave_tile = [4, 64], grid_axis = [0, -1], threads_per_wave = 32, elements_per_thread = 4, steps = 2>
// CHECK: wave.read %arg0 {wave.index = {M = #wave.expr<"_T0 mod 32 * 4 mod 64">, N = #wave.expr<"(_STEP * 2 + _T0 mod 32 * 4 floordiv 64) mod 4 + _WG0 * 4">}}
// CHECK: wave.read %arg1 {wave.index = {N = #wave.expr<"(_STEP * 2 + _T0 mod 32 * 4 floordiv 64) mod 4 + _WG0 * 4">}}
func.func @add_bias(%x: !wave.memory<[N, M] of f32, global>, %b: !wave.memory<[N] of f32, global>,
                    %y: !wave.memory<[N, M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"4">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 64 : i64}} {
  %v = wave.read %x : !wave.memory<[N, M] of f32, global> -> !wave.tensor<[N, M] of f32>
  %bias = wave.read %b : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  %s = wave.add %v, %bias : (!wave.tensor<[N, M] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[N, M] of f32>
  wave.write %s, %y : !wave.tensor<[N, M] of f32>, !wave.memory<[N, M] of f32, global>
  return
}

// -----

// A wave tile of 3 floats: runs of 1, and 29 of 32 lanes idle.
// CHECK-LABEL: func.func @narrow
// CHECK-SAME: block_tile = [6], wave_tile = [3], grid_axis = [0], threads_per_wave = 32, elements_per_thread = 1, steps = 1
func.func @narrow(%x: !wave.memory<[N] of f32, global>, %y: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"6">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"3">>,
                        #wave.hardware_constraint<threads_per_wave = 32>]} {
  %v = wave.read %x : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %v, %y : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}

// -----

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

func.func @two_spaces(%x: !wave.memory<[N] of f32, global>, %y: !wave.memory<[N] of f32, global>,
                      %z: !wave.memory<[M] of f32, global>, %w: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.hardware_constraint<threads_per_wave = 32>]} {
  %v = wave.read %x : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  wave.write %v, %y : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  %u = wave.read %z : !wave.memory<[M] of f32, global> -> !wave.tensor<[M] of f32>
  // expected-error @+1 {{'wave.write' op is not yet supported: writes of different dims in one memory-bound kernel}}
  wave.write %u, %w : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}
