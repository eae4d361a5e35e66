// Index mappings, constraints and MMA kinds print in the form they parse from.
// RUN: wave-opt %s | FileCheck %s
// RUN: wave-opt %s | wave-opt | FileCheck %s
// RUN: wave-opt %s > %t.once && wave-opt %t.once > %t.twice && diff %t.once %t.twice

// Dictionary entries print sorted by name.
// CHECK-LABEL: func.func private @index_mapping
// CHECK-SAME: m = #wave.index_mapping<iterators = 2, inputs = {C = #wave.expr<"$1 mod C">, N = #wave.expr<"$0 floordiv SZ_OUT">}, outputs = {K = #wave.expr<"$1">, M = #wave.expr<"$0">}>
// CHECK-SAME: scalar = #wave.index_mapping<iterators = 0, inputs = {}, outputs = {}>
func.func private @index_mapping() attributes {
  m = #wave.index_mapping<iterators = 2, inputs = {N = #wave.expr<"$0 floordiv SZ_OUT">, C = #wave.expr<"$1 mod C">},
                          outputs = {M = #wave.expr<"$0">, K = #wave.expr<"$1">}>,
  scalar = #wave.index_mapping<iterators = 0, inputs = {}, outputs = {}>}

// CHECK-LABEL: func.func private @mma_kinds
// CHECK-SAME: a = #wave.mma_kind<f32_16x8x16_f16>
// CHECK-SAME: b = #wave.mma_kind<f32_16x8x16_bf16>
// CHECK-SAME: c = #wave.mma_kind<f16_16x8x16_f16>
// CHECK-SAME: d = #wave.mma_kind<f32_16x16x16_f16>
// CHECK-SAME: e = #wave.mma_kind<f32_32x32x8_f16>
// CHECK-SAME: f = #wave.mma_kind<f32_16x16x16_bf16>
// CHECK-SAME: g = #wave.mma_kind<f32_32x32x8_bf16>
// CHECK-SAME: h = #wave.mma_kind<i32_16x8x32_i8>
// CHECK-SAME: i = #wave.mma_kind<i32_16x16x32_i8>
// CHECK-SAME: j = #wave.mma_kind<i32_32x32x16_i8>
func.func private @mma_kinds() attributes {
  a = #wave.mma_kind<f32_16x8x16_f16>, b = #wave.mma_kind<f32_16x8x16_bf16>,
  c = #wave.mma_kind<f16_16x8x16_f16>, d = #wave.mma_kind<f32_16x16x16_f16>,
  e = #wave.mma_kind<f32_32x32x8_f16>, f = #wave.mma_kind<f32_16x16x16_bf16>,
  g = #wave.mma_kind<f32_32x32x8_bf16>, h = #wave.mma_kind<i32_16x8x32_i8>,
  i = #wave.mma_kind<i32_16x16x32_i8>, j = #wave.mma_kind<i32_32x32x16_i8>}

// The constraints of a kernel, and its hyperparameters.
// CHECK-LABEL: func.func private @gemm_constraints
// CHECK-SAME: wave.constraints = [
// CHECK-SAME: #wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
// CHECK-SAME: #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
// CHECK-SAME: #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
// CHECK-SAME: #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
// CHECK-SAME: #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
// CHECK-SAME: #wave.hardware_constraint<threads_per_wave = 32, waves_per_block = [2, 2, 1], mma = #wave.mma_kind<f32_16x8x16_f16>, vector_shapes = {B = 0 : i64}>,
// CHECK-SAME: #wave.assumption<#wave.expr<"K > BLOCK_K * 4">>]
// CHECK-SAME: wave.hyperparameters = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 128 : i64}
func.func private @gemm_constraints() attributes {
  wave.constraints = [
    #wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
    #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
    #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
    #wave.wave_constraint<dim = "M", tile = #wave.expr<"BLOCK_M floordiv 2">>,
    #wave.wave_constraint<dim = "N", tile = #wave.expr<"BLOCK_N floordiv 2">>,
    #wave.hardware_constraint<threads_per_wave = 32, waves_per_block = [2, 2, 1],
                              mma = #wave.mma_kind<f32_16x8x16_f16>, vector_shapes = {B = 0 : i64}>,
    #wave.assumption<#wave.expr<"K > BLOCK_K * 4">>],
  wave.hyperparameters = {BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, BLOCK_K = 64 : i64}}

// A kernel over several GPUs: its device constraint, and rank 0 among its hyperparameters.
// CHECK-LABEL: func.func private @rank_zero
// CHECK-SAME: wave.constraints = [#wave.device_constraint<dim = "N", tile = #wave.expr<"N_RANK">>]
// CHECK-SAME: wave.hyperparameters = {N_RANK = 1024 : i64, RANK = 0 : i64}
func.func private @rank_zero() attributes {
  wave.constraints = [#wave.device_constraint<dim = "N", tile = #wave.expr<"N_RANK">>],
  wave.hyperparameters = {RANK = 0 : i64, N_RANK = 1024 : i64}}

// The hardware constraint's optional parameters are left out when absent, and any of
// them may be given alone.
// CHECK-LABEL: func.func private @hardware_defaults
// CHECK-SAME: a = #wave.hardware_constraint<threads_per_wave = 64>
// CHECK-SAME: b = #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<f32_32x32x8_f16>>
// CHECK-SAME: c = #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = 16 : i64, N = 16 : i64}>
// CHECK-SAME: d = #wave.hardware_constraint<threads_per_wave = 32, waves_per_block = [4, 1, 1]>
func.func private @hardware_defaults() attributes {
  a = #wave.hardware_constraint<threads_per_wave = 64>,
  b = #wave.hardware_constraint<threads_per_wave = 64, mma = #wave.mma_kind<f32_32x32x8_f16>>,
  c = #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {N = 16 : i64, M = 16 : i64}>,
  d = #wave.hardware_constraint<threads_per_wave = 32, waves_per_block = [4, 1, 1]>}

// Every comparison makes an assumption.
// CHECK-LABEL: func.func private @assumptions
// CHECK-SAME: #wave.assumption<#wave.expr<"M < 4096">>
// CHECK-SAME: #wave.assumption<#wave.expr<"M <= N">>
// CHECK-SAME: #wave.assumption<#wave.expr<"M >= 16">>
// CHECK-SAME: #wave.assumption<#wave.expr<"M mod 16 == 0">>
// CHECK-SAME: #wave.assumption<#wave.expr<"K != BLOCK_K">>
func.func private @assumptions() attributes {
  wave.constraints = [#wave.assumption<#wave.expr<"M < 4096">>, #wave.assumption<#wave.expr<"M <= N">>,
                      #wave.assumption<#wave.expr<"M >= 16">>, #wave.assumption<#wave.expr<"M mod 16 == 0">>,
                      #wave.assumption<#wave.expr<"K != BLOCK_K">>]}

// The launch shape the distribution records on a kernel.
// CHECK-LABEL: func.func private @thread_layout
// CHECK-SAME: layout = #wave.thread_layout<dims = ["M", "N"], block_tile = [1, 1024], wave_tile = [1, 256], grid_axis = [1, 0], threads_per_wave = 32, elements_per_thread = 8, steps = 1>
func.func private @thread_layout() attributes {
  layout = #wave.thread_layout<dims = ["M", "N"], block_tile = [1, 1024], wave_tile = [1, 256], grid_axis = [1, 0],
                               threads_per_wave = 32, elements_per_thread = 8, steps = 1>}
