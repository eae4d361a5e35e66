// wave-expand-strided-views: a pipeline stage's subview of a shared tile becomes the
// tile's base buffer reinterpreted at the stage's offset (upstream's patterns), while the
// ops that are not views stay as they were (no folding of the whole kernel).
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(wave-expand-strided-views))' | FileCheck %s

// CHECK-DAG: #[[OFFSET:.*]] = affine_map<()[s0] -> (s0 * 2560)>
// CHECK-LABEL: gpu.func @stages
// CHECK: %[[SUM:.*]] = arith.addi %c1, %c2 : index
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}:3, %{{.*}}:3 = memref.extract_strided_metadata %arg0
// CHECK: %[[AT:.*]] = affine.apply #[[OFFSET]]()[%arg2]
// CHECK: %[[TILE:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[AT]]], sizes: [64, 40], strides: [40, 1]
// CHECK-NOT: memref.subview
// CHECK: memref.load %[[TILE]][%arg3, %[[SUM]]]
gpu.module @wave_kernels {
  gpu.func @stages(%buf: memref<2x64x40xf16, #gpu.address_space<workgroup>>, %out: memref<64xf16>, %stage: index, %i: index) kernel {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %sum = arith.addi %c1, %c2 : index
    %tile = memref.subview %buf[%stage, 0, 0] [1, 64, 40] [1, 1, 1] : memref<2x64x40xf16, #gpu.address_space<workgroup>> to memref<64x40xf16, strided<[40, 1], offset: ?>, #gpu.address_space<workgroup>>
    %v = memref.load %tile[%i, %sum] : memref<64x40xf16, strided<[40, 1], offset: ?>, #gpu.address_space<workgroup>>
    memref.store %v, %out[%i] : memref<64xf16>
    gpu.return
  }
}
