// wave-assign-layouts: reads in coalesced runs, a transpose's write behind a conversion,
// a reduction's result in its input's slice, values of indices computed again where asked in another layout.
// RUN: wave-opt %s --wave-assign-layouts | FileCheck %s

// [M, N] f32 to [N, M]: the read runs along N (4 floats), the write wants runs along M, so
// a wave.convert_layout goes in front of the write.
// CHECK-LABEL: func.func @transpose
// CHECK: %[[R:.*]] = wave.read %{{.*}} -> !wave.tensor<[M, N] of f32, #wave.layout<registers = [{{[0-9]+}}, 4], lanes = [32]
// CHECK: %[[P:.*]] = wave.permute %[[R]]
// CHECK: %[[C:.*]] = wave.convert_layout %[[P]]
// CHECK: wave.write %[[C]]
func.func @transpose(%a: !wave.memory<[M, N] of f32, global>, %b: !wave.memory<[N, M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"32">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 64 : i64, N = 64 : i64}} {
  %r = wave.read %a : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %p = wave.permute %r : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, M] of f32>
  wave.write %p, %b : !wave.tensor<[N, M] of f32>, !wave.memory<[N, M] of f32, global>
  return
}

// A copy needs no conversion.
// CHECK-LABEL: func.func @copy
// CHECK-NOT: wave.convert_layout
// CHECK: return
func.func @copy(%a: !wave.memory<[M, N] of f16, global>, %b: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 1>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"1024">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"256">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 7 : i64, N = 1000 : i64}} {
  %r = wave.read %a : !wave.memory<[M, N] of f16, global> -> !wave.tensor<[M, N] of f16>
  wave.write %r, %b : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}

// A column sum: the result's layout is the input's with M sliced away (one register
// axis fewer), and the write of [N] takes it as it is.
// CHECK-LABEL: func.func @column_sum
// CHECK: wave.reduce_sum %{{.*}} along "M" : (!wave.tensor<[M, N] of f32, #wave.layout<registers = [2, 4]{{.*}}>>) -> !wave.tensor<[N] of f32, #wave.layout<registers = [4]
func.func @column_sum(%a: !wave.memory<[M, N] of f32, global>, %s: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 8 : i64, N = 64 : i64}} {
  %r = wave.read %a : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %t = wave.reduce_sum %r along "M" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[N] of f32>
  wave.write %t, %s : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}

// A column sum over M = 77, which no constraint tiles: 77 rows of 8 runs cannot fill whole
// steps of 32 lanes, so M's tile is padded to 128 (4 rows per step, 32 steps) and the
// rows past 77 are masked when distributed; without the padding, the runs would wrap and
// repeat rows across threads.
// CHECK-LABEL: func.func @column_sum_odd_rows
// CHECK: wave.reduce_sum %{{.*}} along "M" : (!wave.tensor<[M, N] of f32, #wave.layout<registers = [32, 4], lanes = [32], waves = [], map = (d0, d1, d2) -> ((d0 * 4 + d2 floordiv 8) mod 128,
func.func @column_sum_odd_rows(%a: !wave.memory<[M, N] of f32, global>, %s: !wave.memory<[N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"32">, workgroup_dim = 0>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 77 : i64, N = 64 : i64}} {
  %r = wave.read %a : !wave.memory<[M, N] of f32, global> -> !wave.tensor<[M, N] of f32>
  %t = wave.reduce_sum %r along "M" : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[N] of f32>
  wave.write %t, %s : !wave.tensor<[N] of f32>, !wave.memory<[N] of f32, global>
  return
}

// A value computed from indices, written in two layouts (rows, then transposed): computed
// again in the second layout rather than moved between threads.
// CHECK-LABEL: func.func @recomputed_indices
// CHECK-NOT: wave.convert_layout
// CHECK-COUNT-2: wave.add
// CHECK-NOT: wave.convert_layout
func.func @recomputed_indices(%b: !wave.memory<[M, N] of i32, global>, %c: !wave.memory<[N, M] of i32, global>) attributes {
    wave.constraints = [#wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {M = 64 : i64, N = 64 : i64}} {
  %m = wave.self_index "M" : !wave.tensor<[M] of i32>
  %n = wave.self_index "N" : !wave.tensor<[N] of i32>
  %bm = wave.broadcast %m : !wave.tensor<[M] of i32> to !wave.tensor<[M, N] of i32>
  %bn = wave.broadcast %n : !wave.tensor<[N] of i32> to !wave.tensor<[M, N] of i32>
  %sum = wave.add %bm, %bn : (!wave.tensor<[M, N] of i32>, !wave.tensor<[M, N] of i32>) -> !wave.tensor<[M, N] of i32>
  wave.write %sum, %b : !wave.tensor<[M, N] of i32>, !wave.memory<[M, N] of i32, global>
  wave.write %sum, %c : !wave.tensor<[M, N] of i32>, !wave.memory<[N, M] of i32, global>
  return
}
