// wave-factor-positive-scales: max and min of operands scaled by one positive constant
// take the scale out (max(a c, b c) = max(a, b) c), up a reduction's tree, and so do
// selects of such operands or of one and a 0 or infinite fill; negative, zero, infinite
// or differing scales are left alone.
// RUN: wave-opt %s --pass-pipeline='builtin.module(gpu.module(wave-factor-positive-scales))' | FileCheck %s

gpu.module @kernels {

// A row's max over the elements of a scaled vector, as the reduction lowering builds it:
// the max is over the unscaled elements and multiplied once.
// CHECK-LABEL: func.func @row_max
// (The products the rewrite leaves unused are for the canonicalizer to remove.)
// CHECK-DAG: %[[E0:.*]] = vector.extract %arg0[0] : f32 from vector<4xf32>
// CHECK-DAG: %[[E1:.*]] = vector.extract %arg0[1] : f32 from vector<4xf32>
// CHECK-DAG: %[[E2:.*]] = vector.extract %arg0[2] : f32 from vector<4xf32>
// CHECK-DAG: %[[E3:.*]] = vector.extract %arg0[3] : f32 from vector<4xf32>
// CHECK-DAG: %[[L:.*]] = arith.maximumf %[[E0]], %[[E1]] : f32
// CHECK-DAG: %[[R:.*]] = arith.maximumf %[[E2]], %[[E3]] : f32
// CHECK: %[[M:.*]] = arith.maximumf %[[L]], %[[R]] : f32
// CHECK: %[[C:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: %[[S:.*]] = arith.mulf %[[M]], %[[C]] fastmath<contract> : f32
// CHECK: arith.maximumf %[[S]], %arg1 : f32
// The scaled vector stays for its other user.
// CHECK: return %{{.*}}, %{{.*}} : f32, vector<4xf32>
func.func @row_max(%v: vector<4xf32>, %running: f32) -> (f32, vector<4xf32>) {
  %c = arith.constant dense<1.250000e-01> : vector<4xf32>
  %x = arith.mulf %v, %c fastmath<contract> : vector<4xf32>
  %x0 = vector.extract %x[0] : f32 from vector<4xf32>
  %x1 = vector.extract %x[1] : f32 from vector<4xf32>
  %x2 = vector.extract %x[2] : f32 from vector<4xf32>
  %x3 = vector.extract %x[3] : f32 from vector<4xf32>
  %l = arith.maximumf %x0, %x1 : f32
  %r = arith.maximumf %x2, %x3 : f32
  %m = arith.maximumf %l, %r : f32
  %with = arith.maximumf %m, %running : f32
  return %with, %x : f32, vector<4xf32>
}

// Scalars and whole vectors, min and the NaN-ignoring forms; the constant on either side.
// CHECK-LABEL: func.func @forms
// CHECK: %[[A:.*]] = arith.minimumf %arg0, %arg1 : f32
// CHECK: arith.mulf %[[A]], %{{.*}} : f32
// CHECK: %[[B:.*]] = arith.maxnumf %arg2, %arg3 : vector<2xf32>
// CHECK: arith.mulf %[[B]], %{{.*}} : vector<2xf32>
func.func @forms(%a: f32, %b: f32, %u: vector<2xf32>, %w: vector<2xf32>) -> (f32, vector<2xf32>) {
  %c = arith.constant 3.0 : f32
  %ac = arith.mulf %a, %c : f32
  %bc = arith.mulf %c, %b : f32
  %min = arith.minimumf %ac, %bc : f32
  %cv = arith.constant dense<3.0> : vector<2xf32>
  %uc = arith.mulf %u, %cv : vector<2xf32>
  %wc = arith.mulf %w, %cv : vector<2xf32>
  %max = arith.maxnumf %uc, %wc : vector<2xf32>
  return %min, %max : f32, vector<2xf32>
}

// Where the identity does not hold, nothing changes: a negative scale turns max into
// min, zero and infinity lose the order (0 * inf), and two scales differ.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.maximumf
func.func @left_alone(%a: f32, %b: f32) -> (f32, f32, f32, f32) {
  %neg = arith.constant -2.0 : f32
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %two = arith.constant 2.0 : f32
  %an = arith.mulf %a, %neg : f32
  %bn = arith.mulf %b, %neg : f32
  %m0 = arith.maximumf %an, %bn : f32
  %az = arith.mulf %a, %zero : f32
  %bz = arith.mulf %b, %zero : f32
  %m1 = arith.maximumf %az, %bz : f32
  %ai = arith.mulf %a, %inf : f32
  %bi = arith.mulf %b, %inf : f32
  %m2 = arith.maximumf %ai, %bi : f32
  %a2 = arith.mulf %a, %two : f32
  %m3 = arith.maximumf %a2, %an : f32
  return %m0, %m1, %m2, %m3 : f32, f32, f32, f32
}

// A row's max where the tile overruns the dim's end, as the reduction lowering builds it
// there: each element selected or the identity (-inf) first. The selects take the scale
// out too (-inf / c is -inf), so the max still multiplies once.
// CHECK-LABEL: func.func @masked_row_max
// CHECK-DAG: %[[E0:.*]] = vector.extract %arg0[0] : f32 from vector<2xf32>
// CHECK-DAG: %[[E1:.*]] = vector.extract %arg0[1] : f32 from vector<2xf32>
// CHECK-DAG: %[[S0:.*]] = arith.select %arg1, %[[E0]], %{{.*}} : f32
// CHECK-DAG: %[[S1:.*]] = arith.select %arg2, %[[E1]], %{{.*}} : f32
// CHECK: %[[M:.*]] = arith.maximumf %[[S0]], %[[S1]] : f32
// CHECK: arith.mulf %[[M]], %{{.*}} fastmath<contract> : f32
func.func @masked_row_max(%v: vector<2xf32>, %keep0: i1, %keep1: i1) -> f32 {
  %c = arith.constant dense<1.250000e-01> : vector<2xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %x = arith.mulf %v, %c fastmath<contract> : vector<2xf32>
  %x0 = vector.extract %x[0] : f32 from vector<2xf32>
  %x1 = vector.extract %x[1] : f32 from vector<2xf32>
  %s0 = arith.select %keep0, %x0, %ninf : f32
  %s1 = arith.select %keep1, %x1, %ninf : f32
  %m = arith.maximumf %s0, %s1 : f32
  return %m : f32
}

// Both sides scaled alike, and a zero fill; a finite fill (-1e6 / c times c need not be
// -1e6 again) and differing scales are left alone.
// CHECK-LABEL: func.func @selects
// CHECK: %[[B:.*]] = arith.select %arg0, %arg1, %arg2 : f32
// CHECK: arith.mulf %[[B]], %{{.*}} : f32
// CHECK: %[[Z:.*]] = arith.select %arg0, %arg1, %{{.*}} : f32
// CHECK: arith.mulf %[[Z]], %{{.*}} : f32
// CHECK: arith.select %arg0, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.select %arg0, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: return
func.func @selects(%p: i1, %a: f32, %b: f32) -> (f32, f32, f32, f32) {
  %c = arith.constant 3.0 : f32
  %d = arith.constant 5.0 : f32
  %zero = arith.constant 0.0 : f32
  %big = arith.constant -1.0e+06 : f32
  %ac = arith.mulf %a, %c : f32
  %bc = arith.mulf %b, %c : f32
  %bd = arith.mulf %b, %d : f32
  %both = arith.select %p, %ac, %bc : f32
  %filled = arith.select %p, %ac, %zero : f32
  %finite = arith.select %p, %ac, %big : f32
  %differ = arith.select %p, %ac, %bd : f32
  return %both, %filled, %finite, %differ : f32, f32, f32, f32
}

// A tile's row max under a branch (masked where the tile overruns the dim's end), the
// scaled row then subtracted from: once the max took the scale out, the product moves
// past the branch to the subtraction, into one block with it (an fma for LLVM).
// CHECK-LABEL: func.func @product_sinks_past_branch
// CHECK: %[[M:.*]] = scf.if %arg1 -> (f32)
// CHECK: } else {
// CHECK: }
// CHECK-NOT: scf.yield
// CHECK: %[[X:.*]] = arith.mulf %arg0, %{{.*}} fastmath<contract> : vector<2xf32>
// CHECK-NEXT: arith.subf %[[X]], %{{.*}} : vector<2xf32>
func.func @product_sinks_past_branch(%v: vector<2xf32>, %overruns: i1, %keep: i1) -> (f32, vector<2xf32>) {
  %c = arith.constant dense<1.250000e-01> : vector<2xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %x = arith.mulf %v, %c fastmath<contract> : vector<2xf32>
  %m = scf.if %overruns -> (f32) {
    %x0 = vector.extract %x[0] : f32 from vector<2xf32>
    %x1 = vector.extract %x[1] : f32 from vector<2xf32>
    %s1 = arith.select %keep, %x1, %ninf : f32
    %a = arith.maximumf %x0, %s1 : f32
    scf.yield %a : f32
  } else {
    %x0 = vector.extract %x[0] : f32 from vector<2xf32>
    %x1 = vector.extract %x[1] : f32 from vector<2xf32>
    %b = arith.maximumf %x0, %x1 : f32
    scf.yield %b : f32
  }
  %splat = vector.broadcast %m : f32 to vector<2xf32>
  %d = arith.subf %x, %splat : vector<2xf32>
  return %m, %d : f32, vector<2xf32>
}

}
