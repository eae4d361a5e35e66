// A device_constraint splits N over the ranks: rank RANK = 1 of 3 takes elements
// [1000, 2000). Its grid covers the slice (ceil(1000 / 256) = 4 workgroups), its tiles
// start at the slice (1000 + 256 * block), and since 256 does not divide 1000 the slice's
// end, not N's, masks the last tile. 1000 is a multiple of 8, so runs of 8 halves stay
// aligned: one vector access each.
// RUN: wave-opt %s --wave-assign-layouts --wave-lower-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @copy_slice
// CHECK-SAME: known_grid_size = array<i32: 4, 1, 1>
// CHECK-SAME: wave.rank_slices = {N = 1000 : i64}
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[START:.*]] = arith.muli %[[BLOCK]], %c256
// CHECK: arith.addi %[[START]], %c1000
// CHECK: arith.subi %c2000
// CHECK: vector.load %{{.*}} : memref<3000xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}} : memref<3000xf16>, vector<8xf16>
func.func @copy_slice(%x: !wave.memory<[N] of f16, global>, %y: !wave.memory<[N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"256">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"64">>,
                        #wave.device_constraint<dim = "N", tile = #wave.expr<"1000">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {N = 3000 : i64, RANK = 1 : i64}} {
  %v = wave.read %x : !wave.memory<[N] of f16, global> -> !wave.tensor<[N] of f16>
  wave.write %v, %y : !wave.tensor<[N] of f16>, !wave.memory<[N] of f16, global>
  return
}

// Rank 1's slice of 1001 starts at an odd element: runs of one, each masked at 2002.
// CHECK-LABEL: gpu.func @copy_odd_slice
// CHECK-NOT: vector.load
// CHECK: arith.cmpi ult, %{{.*}}, %c2002
// CHECK: memref.load
func.func @copy_odd_slice(%x: !wave.memory<[N] of f16, global>, %y: !wave.memory<[N] of f16, global>) attributes {
    wave.constraints = [#wave.workgroup_constraint<dim = "N", tile = #wave.expr<"256">, workgroup_dim = 0>,
                        #wave.wave_constraint<dim = "N", tile = #wave.expr<"64">>,
                        #wave.device_constraint<dim = "N", tile = #wave.expr<"1001">>,
                        #wave.hardware_constraint<threads_per_wave = 32>],
    wave.hyperparameters = {N = 2002 : i64, RANK = 1 : i64}} {
  %v = wave.read %x : !wave.memory<[N] of f16, global> -> !wave.tensor<[N] of f16>
  wave.write %v, %y : !wave.tensor<[N] of f16>, !wave.memory<[N] of f16, global>
  return
}
