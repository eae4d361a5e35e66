// wave-vector-slices-to-elements: a slice taken out of a wide vector becomes element
// extracts into the small result; slices put back stay as they are.
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(wave-vector-slices-to-elements))' | FileCheck %s

gpu.module @kernels {

// CHECK-LABEL: func.func @fragment
// CHECK-NOT: vector.extract_strided_slice
// CHECK-DAG: %[[E0:.*]] = vector.extract %[[V:.*]][4] : f32 from vector<16xf32>
// CHECK-DAG: %[[E1:.*]] = vector.extract %[[V]][5] : f32 from vector<16xf32>
// CHECK-DAG: vector.insert %[[E0]], %{{.*}} [0] : f32 into vector<2xf32>
// CHECK-DAG: vector.insert %[[E1]], %{{.*}} [1] : f32 into vector<2xf32>
// CHECK: vector.insert_strided_slice %{{.*}}, %{{.*}} {offsets = [8], strides = [1]} : vector<2xf32> into vector<16xf32>
func.func @fragment(%v: vector<16xf32>) -> vector<16xf32> {
  %piece = vector.extract_strided_slice %v {offsets = [4], sizes = [2], strides = [1]} : vector<16xf32> to vector<2xf32>
  %twice = arith.addf %piece, %piece : vector<2xf32>
  %back = vector.insert_strided_slice %twice, %v {offsets = [8], strides = [1]} : vector<2xf32> into vector<16xf32>
  return %back : vector<16xf32>
}

// A 2-D slice is taken row by row, each row element by element.
// CHECK-LABEL: func.func @pair
// CHECK-NOT: vector.extract_strided_slice
// CHECK: vector.extract %{{.*}}[2] : vector<2xf16> from vector<4x2xf16>
// CHECK: return
func.func @pair(%v: vector<4x2xf16>) -> vector<2x2xf16> {
  %lower = vector.extract_strided_slice %v {offsets = [2, 0], sizes = [2, 2], strides = [1, 1]} : vector<4x2xf16> to vector<2x2xf16>
  return %lower : vector<2x2xf16>
}

}
