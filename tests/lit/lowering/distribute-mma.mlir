// The distribution of a GEMM with layouts (wave-lower-to-gpu after wave-assign-layouts):
// shared tiles as views of the dynamic shared memory, the K loop as an scf.for carrying
// each lane's accumulator registers as one vector, per K tile a workgroup-wide copy into
// the shared tiles, fragments by ldmatrix and one mma.sync per instruction tile of the wave, then the bias added
// in the accumulator's layout and pairs of halves written.
// RUN: wave-opt %s --wave-promote-shared --wave-assign-layouts --wave-lower-to-gpu | FileCheck %s
// RUN: wave-opt %s --pass-pipeline='builtin.module(func.func(wave-promote-shared,wave-assign-layouts),wave-lower-to-gpu,gpu.module(gpu.func(wave-insert-barriers)))' \
// RUN:   | FileCheck %s --check-prefix=BARRIERS

// Two barriers per K tile: before the fills (the last tile's fragments are read) and
// between both fills and the fragment loads (the tiles are views of disjoint ranges).
// BARRIERS: scf.for
// BARRIERS: gpu.barrier
// BARRIERS-NEXT: vector.store
// BARRIERS-NOT: gpu.barrier
// BARRIERS: vector.store
// BARRIERS: gpu.barrier
// BARRIERS-NEXT: nvgpu.ldmatrix
// BARRIERS-NOT: gpu.barrier
// BARRIERS: scf.yield {{.*}} : vector<32xf32>

// Two tiles of 64 x (32 + 8) halves: 10240 bytes.
// CHECK-LABEL: gpu.func @gemm_bias
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 3, 1>, wave.shared_memory_bytes = 10240 : i64
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory
// Workgroups take their tiles in groups of 8 along x (for L2): the grid's two along x are
// one group, so the order stays as it is.
// CHECK-NOT: gpu.grid_dim
// CHECK: gpu.block_id x
// CHECK-NEXT: gpu.block_id y
// CHECK: %[[TA:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x40xf16, #gpu.address_space<workgroup>>
// CHECK: %[[TB:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x40xf16, #gpu.address_space<workgroup>>
// K = 96 is three whole tiles of 32: the loop's reads are unmasked along K (M and N are not).
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args({{.*}}) -> (vector<32xf32>)
// CHECK: vector.store {{.*}}, %[[TA]]{{.*}} {alignment = 16 : i64} : memref<64x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.store {{.*}}, %[[TB]]{{.*}} {alignment = 16 : i64} : memref<64x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// Fragments by ldmatrix: A's 16 x 16 as four 8 x 8 matrices, two B fragments of the
// same K step (8 x 16 each, neighbouring N tiles) as one x4, lanes 16-31 addressing the
// second. Each K step loads its fragments just before its mmas: 2 x 4 instruction tiles,
// 2 K steps, 16 mma.sync per K tile.
// CHECK-COUNT-2: nvgpu.ldmatrix %[[TA]]{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-COUNT-2: nvgpu.ldmatrix %[[TB]]{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-COUNT-8: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-2: nvgpu.ldmatrix %[[TA]]
// CHECK-COUNT-2: nvgpu.ldmatrix %[[TB]]
// CHECK-COUNT-8: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
// CHECK: scf.yield {{.*}} : vector<32xf32>
// CHECK: arith.addf {{.*}} : vector<32xf32>
// CHECK: arith.maximumf {{.*}} : vector<32xf32>
// CHECK: arith.truncf {{.*}} : vector<32xf32> to vector<32xf16>
// CHECK: vector.store {{.*}} {alignment = 4 : i64} : memref<100x150xf16>, vector<2xf16>
func.func @gemm_bias(%a: !wave.memory<[M, K] of f16, shared>, %b: !wave.memory<[N, K] of f16, shared>,
                %bias: !wave.memory<[N] of f32, global>, %c: !wave.memory<[M, N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<f32_16x8x16_f16>>],
    wave.hyperparameters = {K = 96 : i64, M = 100 : i64, N = 150 : i64}} {
  %0 = wave.register 0.0 : !wave.tensor<[M, N] of f32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32> {
  ^bb0(%acc: !wave.tensor<[M, N] of f32>):
    %x = wave.read %a : !wave.memory<[M, K] of f16, shared> -> !wave.tensor<[M, K] of f16>
    %y = wave.read %b : !wave.memory<[N, K] of f16, shared> -> !wave.tensor<[N, K] of f16>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>
    wave.yield %d : !wave.tensor<[M, N] of f32>
  }
  %r = wave.read %bias : !wave.memory<[N] of f32, global> -> !wave.tensor<[N] of f32>
  %s = wave.add %1, %r : (!wave.tensor<[M, N] of f32>, !wave.tensor<[N] of f32>) -> !wave.tensor<[M, N] of f32>
  %z = wave.register 0.0 : !wave.tensor<[] of f32>
  %m = wave.maximum %s, %z : (!wave.tensor<[M, N] of f32>, !wave.tensor<[] of f32>) -> !wave.tensor<[M, N] of f32>
  %h = wave.cast %m : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of f16>
  wave.write %h, %c : !wave.tensor<[M, N] of f16>, !wave.memory<[M, N] of f16, global>
  return
}

// s8 operands (m16n8k32 .s8): byte tiles fragmented by ldmatrix as for f8, the i32
// accumulators carried where f32 ones are, products wrapping (not saturating) as the
// loop's integer sums do. 2 x 4 instruction tiles per wave, 2 K steps of 32 per K tile.
// CHECK-LABEL: gpu.func @gemm_s8
// CHECK: scf.for {{.*}} -> (vector<32xi32>)
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x80xi8, #gpu.address_space<workgroup>> -> vector<4x4xi8>
// CHECK-COUNT-16: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: nvvm.mma.sync
// CHECK: scf.yield {{.*}} : vector<32xi32>
func.func @gemm_s8(%a: !wave.memory<[M, K] of i8, shared>, %b: !wave.memory<[N, K] of i8, shared>,
                %c: !wave.memory<[M, N] of i32, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "M", tile = #wave.expr<"64">, workgroup_dim = 0>,
                        #wave.workgroup_constraint<dim = "N", tile = #wave.expr<"64">, workgroup_dim = 1>,
                        #wave.tiling_constraint<dim = "K", tile = #wave.expr<"64">>,
                        #wave.wave_constraint<dim = "M", tile = #wave.expr<"32">>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"32">>,
                        #wave.hardware_constraint<threads_per_wave = 32, mma = #wave.mma_kind<i32_16x8x32_i8>>],
    wave.hyperparameters = {K = 128 : i64, M = 128 : i64, N = 128 : i64}} {
  %0 = wave.register 0 : !wave.tensor<[M, N] of i32>
  %1 = wave.iterate "K" iter_args(%0) : (!wave.tensor<[M, N] of i32>) -> !wave.tensor<[M, N] of i32> {
  ^bb0(%acc: !wave.tensor<[M, N] of i32>):
    %x = wave.read %a : !wave.memory<[M, K] of i8, shared> -> !wave.tensor<[M, K] of i8>
    %y = wave.read %b : !wave.memory<[N, K] of i8, shared> -> !wave.tensor<[N, K] of i8>
    %d = wave.mma %x, %y, %acc : (!wave.tensor<[M, K] of i8>, !wave.tensor<[N, K] of i8>, !wave.tensor<[M, N] of i32>) -> !wave.tensor<[M, N] of i32>
    wave.yield %d : !wave.tensor<[M, N] of i32>
  }
  wave.write %1, %c : !wave.tensor<[M, N] of i32>, !wave.memory<[M, N] of i32, global>
  return
}
