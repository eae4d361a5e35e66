// Each attribute verifier rule, and each rule on a kernel's wave.constraints and
// wave.hyperparameters, broken once.
// RUN: wave-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// #wave.index_mapping
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected "N" to map to a #wave.expr value, but found 1 : i64}}
func.func private @mapping_value() attributes {m = #wave.index_mapping<iterators = 1, inputs = {N = 1}, outputs = {}>}

// -----

// expected-error @+1 {{expected "N" to map to a #wave.expr value, but found #wave.expr<"$0 < 4">}}
func.func private @mapping_kind() attributes {m = #wave.index_mapping<iterators = 1, inputs = {N = #wave.expr<"$0 < 4">}, outputs = {}>}

// -----

// expected-error @+1 {{expected "M" to use iterators $0..$0, but found $1}}
func.func private @mapping_iterators() attributes {m = #wave.index_mapping<iterators = 1, inputs = {}, outputs = {M = #wave.expr<"$1">}>}

// -----

// expected-error @+1 {{expected "M" to use no iterators, but found $0}}
func.func private @mapping_no_iterators() attributes {m = #wave.index_mapping<iterators = 0, inputs = {}, outputs = {M = #wave.expr<"$0">}>}

//===----------------------------------------------------------------------===//
// Constraints
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{expected workgroup_dim 0, 1 or 2, but found 3}}
func.func private @workgroup_dim() attributes {c = #wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 3>}

// -----

// expected-error @+1 {{expected a tile size over symbols, but found #wave.expr<"$0">}}
func.func private @tile_variable() attributes {c = #wave.wave_constraint<dim = "M", tile = #wave.expr<"$0">>}

// -----

// expected-error @+1 {{expected a tile size over symbols, but found #wave.expr<"max(BLOCK_K, 16)">}}
func.func private @tile_kind() attributes {c = #wave.tiling_constraint<dim = "K", tile = #wave.expr<"max(BLOCK_K, 16)">>}

// -----

// expected-error @+1 {{expected threads_per_wave 32 or 64, but found 48}}
func.func private @threads_per_wave() attributes {c = #wave.hardware_constraint<threads_per_wave = 48>}

// -----

// expected-error @+1 {{expected 3 waves_per_block entries, but found 2}}
func.func private @waves_per_block() attributes {c = #wave.hardware_constraint<threads_per_wave = 32, waves_per_block = [2, 2]>}

// -----

// expected-error @+1 {{expected an integer vector shape for "M"}}
func.func private @vector_shapes() attributes {c = #wave.hardware_constraint<threads_per_wave = 32, vector_shapes = {M = "16"}>}

// -----

// expected-error @+1 {{expected a comparison, but found #wave.expr<"K">}}
func.func private @assumption() attributes {c = #wave.assumption<#wave.expr<"K">>}

//===----------------------------------------------------------------------===//
// wave.constraints and wave.hyperparameters on a kernel
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{expected wave.constraints to be an array of constraints}}
func.func private @constraints_array() attributes {wave.constraints = #wave.hardware_constraint<threads_per_wave = 32>}

// -----

// expected-error @+1 {{expected a wave constraint attribute, but found #wave.expr<"M">}}
func.func private @constraints_element() attributes {wave.constraints = [#wave.expr<"M">]}

// -----

// expected-error @+1 {{expected at most one hardware_constraint, but found 2}}
func.func private @two_hardware() attributes {wave.constraints = [#wave.hardware_constraint<threads_per_wave = 32>, #wave.hardware_constraint<threads_per_wave = 64>]}

// -----

// expected-error @+1 {{expected one workgroup_constraint per grid axis, but found two on axis 0}}
func.func private @axes() attributes {wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BM">, workgroup_dim = 0>, #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BN">, workgroup_dim = 0>]}

// -----

// expected-error @+1 {{expected a workgroup_constraint or tiling_constraint on "N" for its wave_constraint, but found none}}
func.func private @wave_without_workgroup() attributes {wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BM">, workgroup_dim = 0>, #wave.wave_constraint<dim = "N", tile = #wave.expr<"BN">>]}

// -----

// expected-error @+1 {{expected one device_constraint per dim, but found two on "N"}}
func.func private @two_device() attributes {wave.constraints = [#wave.device_constraint<dim = "N", tile = #wave.expr<"NR">>, #wave.device_constraint<dim = "N", tile = #wave.expr<"NR">>]}

// -----

// expected-error @+1 {{expected hyperparameter "RANK" to be a rank, 0 or more, but found -1 : i64}}
func.func private @rank_negative() attributes {wave.hyperparameters = {RANK = -1 : i64}}

// -----

// expected-error @+1 {{expected wave.rank_slices to map dims to positive slice sizes, but found {N = 0 : i64}}}
func.func private @rank_slices() attributes {wave.rank_slices = {N = 0 : i64}}

// -----

// expected-error @+1 {{expected wave.hyperparameters to be a dictionary}}
func.func private @hyperparameters_dict() attributes {wave.hyperparameters = [1, 2]}

// -----

// expected-error @+1 {{expected hyperparameter "BLOCK_M" to be a positive integer, but found 0 : i64}}
func.func private @hyperparameter_positive() attributes {wave.hyperparameters = {BLOCK_M = 0 : i64}}

// -----

// expected-error @+1 {{expected hyperparameter "BLOCK_M" to be a positive integer, but found 1.280000e+02 : f64}}
func.func private @hyperparameter_integer() attributes {wave.hyperparameters = {BLOCK_M = 128.0}}

// -----

// expected-error @+1 {{unknown wave dialect attribute "wave.constraint"}}
func.func private @unknown() attributes {wave.constraint = []}

//===----------------------------------------------------------------------===//
// #wave.thread_layout, wave.thread_layout and wave.index
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{expected block_tile, wave_tile and grid_axis to have one entry per dim (2)}}
func.func private @layout_rank() attributes {l = #wave.thread_layout<dims = ["M", "N"], block_tile = [1], wave_tile = [1, 256], grid_axis = [1, 0], threads_per_wave = 32, elements_per_thread = 8, steps = 1>}

// -----

// expected-error @+1 {{expected the wave tile of "N" (96) to be positive and divide its workgroup tile (256)}}
func.func private @layout_nest() attributes {l = #wave.thread_layout<dims = ["N"], block_tile = [256], wave_tile = [96], grid_axis = [0], threads_per_wave = 32, elements_per_thread = 8, steps = 1>}

// -----

// expected-error @+1 {{expected grid_axis -1, 0, 1 or 2, but found 3}}
func.func private @layout_axis() attributes {l = #wave.thread_layout<dims = ["N"], block_tile = [256], wave_tile = [256], grid_axis = [3], threads_per_wave = 32, elements_per_thread = 8, steps = 1>}

// -----

// expected-error @+1 {{expected wave.thread_layout to be a #wave.thread_layout, but found 1 : i64}}
func.func private @layout_kind() attributes {wave.thread_layout = 1}
