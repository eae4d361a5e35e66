// wave-promote-shared: reads of SHARED_ADDRESS_SPACE memory inside an iterate go through a
// workgroup tile in shared memory, rows padded by 16 bytes.
// RUN: wave-opt %s --wave-promote-shared --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @gemm
// CHECK-NEXT: %[[SA:.*]] = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">]} : !wave.memory<[M, K] of f16, shared>
// CHECK-NEXT: %[[SB:.*]] = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_N">, #wave.expr<"BLOCK_K">]} : !wave.memory<[N, K] of f16, shared>
// The tiles are filled at the top of the loop body, both before either is read.
// CHECK: wave.iterate "K"
// CHECK: %[[GA:.*]] = wave.read %arg0
// CHECK-NEXT: wave.write %[[GA]], %[[SA]]
// CHECK-NEXT: %[[GB:.*]] = wave.read %arg1
// CHECK-NEXT: wave.write %[[GB]], %[[SB]]
// CHECK-NEXT: %[[A:.*]] = wave.read %[[SA]]
// CHECK-NEXT: %[[B:.*]] = wave.read %[[SB]]
// CHECK: wave.mma %[[A]], %[[B]]
// The output in global memory is not staged.
// CHECK: wave.write %{{.*}}, %arg2
func.func @gemm(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                %c: !wave.memory<[M, N] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>
  return
}

// -----

// f32 rows are padded by 4 elements (16 bytes); global memory and reads outside a loop
// stay as they are.
// CHECK-LABEL: func.func @mixed
// CHECK: wave.allocate {padding = 4 : i64, tile = [#wave.expr<"1">, #wave.expr<"64">]} : !wave.memory<[M, K] of f32, shared>
// CHECK-NOT: wave.allocate
// CHECK: wave.read %arg0 : !wave.memory<[M, K] of f32, shared> -> !wave.tensor<[M, K] of f32>
// CHECK-NOT: wave.write {{.*}} %arg0
// CHECK: wave.iterate
func.func @mixed(%x: !wave.memory<[M, K] of f32, shared>, %g: !wave.memory<[M, K] of f32, global>,
                 %y: !wave.memory<[M] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"1">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>]} {
  %outside = wave.read %x : !wave.memory<[M, K] of f32, shared> -> !wave.tensor<[M, K] of f32>
  %0 = wave.register 0.0 : !wave.tensor<[M] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32> {
  ^bb0(%acc: !wave.tensor<[M] of f32>):
    %v = wave.read %x : !wave.memory<[M, K] of f32, shared> -> !wave.tensor<[M, K] of f32>
    %w = wave.read %g : !wave.memory<[M, K] of f32, global> -> !wave.tensor<[M, K] of f32>
    wave.yield %acc : !wave.tensor<[M] of f32>
  }
  wave.write %1, %y : !wave.tensor<[M] of f32>, !wave.memory<[M] of f32, global>
  return
}

// -----

func.func @untiled_dim(%x: !wave.memory<[M, K] of f16, shared>, %y: !wave.memory<[M] of f16, global>) attributes {
    wave.constraints = [#wave.tiling_constraint<dim = "K", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>]} {
  %0 = wave.register 0.0 : !wave.tensor<[M] of f16>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M] of f16>) -> !wave.tensor<[M] of f16> {
  ^bb0(%acc: !wave.tensor<[M] of f16>):
    // expected-error @+1 {{'wave.read' op expected a value in subs for M (a dim without a workgroup constraint is one tile), but found none}}
    %v = wave.read %x : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    wave.yield %acc : !wave.tensor<[M] of f16>
  }
  wave.write %1, %y : !wave.tensor<[M] of f16>, !wave.memory<[M] of f16, global>
  return
}

// -----

// Reads that already only fill shared tiles are left alone: the pass is idempotent.
// CHECK-LABEL: func.func @staged
// CHECK-COUNT-1: wave.allocate
// CHECK-NOT: wave.allocate
func.func @staged(%a: !wave.memory<[M, K] of f16, shared>, %y: !wave.memory<[M] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"64">>,
                        #wave.hardware_constraint<threads_per_wave = 32>]} {
  %s = wave.allocate {tile = [#wave.expr<"64">, #wave.expr<"64">], padding = 8} : !wave.memory<[M, K] of f16, shared>
  %0 = wave.register 0.0 : !wave.tensor<[M] of f16>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M] of f16>) -> !wave.tensor<[M] of f16> {
  ^bb0(%acc: !wave.tensor<[M] of f16>):
    %g = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    wave.write %g, %s : !wave.tensor<[M, K] of f16>, !wave.memory<[M, K] of f16, shared>
    wave.yield %acc : !wave.tensor<[M] of f16>
  }
  wave.write %1, %y : !wave.tensor<[M] of f16>, !wave.memory<[M] of f16, global>
  return
}

// -----

// A dim no constraint splits (attention's head dim) is held whole in the tile, at its
// size in subs.
// CHECK-LABEL: func.func @whole_head_dim
// CHECK: wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_K2">, #wave.expr<"64">]} : !wave.memory<[K2, K1] of f16, shared>
func.func @whole_head_dim(%k: !wave.memory<[K2, K1] of f16, shared>, %y: !wave.memory<[K1] of f16, global>) attributes {
    wave.constraints = [#wave.tiling_constraint<dim = "K2", tile = #wave.expr<"BLOCK_K2">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {K1 = 64 : i64, BLOCK_K2 = 32 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[K1] of f16>
  %1 = wave.iterate "K2" iter_args(%0) : (!wave.tensor<[K1] of f16>) -> !wave.tensor<[K1] of f16> {
  ^bb0(%acc: !wave.tensor<[K1] of f16>):
    %v = wave.read %k : !wave.memory<[K2, K1] of f16, shared> -> !wave.tensor<[K2, K1] of f16>
    %s = wave.reduce_sum %v init(%acc) along "K2" : (!wave.tensor<[K2, K1] of f16>, !wave.tensor<[K1] of f16>) -> !wave.tensor<[K1] of f16>
    wave.yield %s : !wave.tensor<[K1] of f16>
  }
  wave.write %1, %y : !wave.tensor<[K1] of f16>, !wave.memory<[K1] of f16, global>
  return
}

// -----

// conv2d's weights, read as [NF, K] from HWCF memory whose innermost index is NF's own
// iterator: the tile is [K, NF], so the fill copies runs along NF (16-byte pieces) and
// the mma's read of it is transposed.
// CHECK-LABEL: func.func @filters_innermost
// CHECK: %[[T:.*]] = wave.allocate {padding = 8 : i64, tile = [#wave.expr<"BLOCK_K">, #wave.expr<"BLOCK_N">]} : !wave.memory<[K, NF] of f16, shared>
// CHECK: wave.iterate "K"
// CHECK: %[[G:.*]] = wave.read %arg1 {mapping = {{.*}}} : !wave.memory<[C, NF] of f16, shared> -> !wave.tensor<[NF, K] of f16>
// CHECK-NEXT: wave.write %[[G]], %[[T]] : !wave.tensor<[NF, K] of f16>, !wave.memory<[K, NF] of f16, shared>
// CHECK: wave.read %[[T]] : !wave.memory<[K, NF] of f16, shared> -> !wave.tensor<[NF, K] of f16>
func.func @filters_innermost(%x: !wave.memory<[M, K] of f16, shared>, %w: !wave.memory<[C, NF] of f16, shared>,
                             %o: !wave.memory<[M, NF] of f32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"BLOCK_M">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "NF", tile = #wave.expr<"BLOCK_N">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"BLOCK_K">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>]} {
  %acc0 = wave.register 0.0 : !wave.tensor<[M, NF] of f32>
  %r = wave.iterate "K" iter_args(%acc0) : (!wave.tensor<[M, NF] of f32>) -> !wave.tensor<[M, NF] of f32> {
  ^bb0(%acc: !wave.tensor<[M, NF] of f32>):
    %a = wave.read %x : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %b = wave.read %w {mapping = #wave.index_mapping<iterators = 2, inputs = {C = #wave.expr<"$1">, NF = #wave.expr<"$0">}, outputs = {NF = #wave.expr<"$0">, K = #wave.expr<"$1">}>} : !wave.memory<[C, NF] of f16, shared> -> !wave.tensor<[NF, K] of f16>
    %c = wave.mma %a, %b, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[NF, K] of f16>, !wave.tensor<[M, NF] of f32>) -> !wave.tensor<[M, NF] of f32>
    wave.yield %c : !wave.tensor<[M, NF] of f32>
  }
  wave.write %r, %o : !wave.tensor<[M, NF] of f32>, !wave.memory<[M, NF] of f32, global>
  return
}
