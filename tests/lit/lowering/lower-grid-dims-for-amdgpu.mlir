// On AMD no device library is linked: the grid's size (a kernel with dynamic dims asks for
// it) and a block's of unknown size are loads of the dispatch's implicit kernel arguments
// (code object v5: block counts, u32 from byte 0; group sizes, u16 from byte 12), which
// the ROCDL conversion would otherwise read through __ockl_get_num_groups/_local_size.
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(wave-lower-grid-dims-for-amdgpu))' | FileCheck %s

// CHECK-LABEL: gpu.func @grid
// CHECK: %[[X:.*]] = llvm.call_intrinsic "llvm.amdgcn.implicitarg.ptr"() : () -> !llvm.ptr<4>
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[X]][0] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// CHECK: %[[N:.*]] = llvm.load %[[AT]] invariant {alignment = 4 : i64} : !llvm.ptr<4> -> i32
// CHECK: arith.index_castui %[[N]] : i32 to index
// CHECK: llvm.getelementptr %{{.*}}[8] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<4> -> i32
// A block of unknown size: its u16 count along y at byte 14.
// CHECK: llvm.getelementptr %{{.*}}[14] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// CHECK: llvm.load %{{.*}} invariant {alignment = 2 : i64} : !llvm.ptr<4> -> i16
// CHECK-NOT: gpu.grid_dim
// CHECK-NOT: gpu.block_dim
// A known block size stays for the conversion to fold.
// CHECK-LABEL: gpu.func @known_block
// CHECK: gpu.block_dim x
gpu.module @kernels {
  gpu.func @grid(%out: memref<4xindex>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %x = gpu.grid_dim x
    %z = gpu.grid_dim z
    %b = gpu.block_dim y
    memref.store %x, %out[%c0] : memref<4xindex>
    memref.store %z, %out[%c1] : memref<4xindex>
    memref.store %b, %out[%c2] : memref<4xindex>
    gpu.return
  }
  gpu.func @known_block(%out: memref<4xindex>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %b = gpu.block_dim x
    memref.store %b, %out[%c0] : memref<4xindex>
    gpu.return
  }
}
