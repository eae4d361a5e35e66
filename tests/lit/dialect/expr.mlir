// #wave.expr: parsed into affine maps over named symbols, printed canonically.
// RUN: wave-opt %s | FileCheck %s
// RUN: wave-opt %s | wave-opt | FileCheck %s
// RUN: wave-opt %s > %t.once && wave-opt %t.once > %t.twice && diff %t.once %t.twice

// CHECK-LABEL: func.func @exprs
func.func @exprs() attributes {
  // Symbols are kept sorted by name, so the same expression is the same attribute.
  // CHECK-SAME: a = #wave.expr<"M + N">
  a = #wave.expr<"N + M">,
  // Subtraction prints as written, though affine maps store it as a + b * -1.
  // CHECK-SAME: b = #wave.expr<"M - N">
  b = #wave.expr<"M - N">,
  // CHECK-SAME: c = #wave.expr<"M - 3">
  c = #wave.expr<"M + -3">,
  // Precedence: only the parentheses needed.
  // CHECK-SAME: d = #wave.expr<"(M + 1) * 4">
  d = #wave.expr<"((M + 1)) * 4">,
  // CHECK-SAME: e = #wave.expr<"$0 floordiv W mod K">
  e = #wave.expr<"($0 floordiv W) mod K">,
  // CHECK-SAME: f = #wave.expr<"$0 mod (W floordiv 2)">
  f = #wave.expr<"$0 mod (W floordiv 2)">,
  // Affine simplification applies: constants fold, multiples divide out.
  // CHECK-SAME: g = #wave.expr<"12">
  g = #wave.expr<"3 * 4">,
  // CHECK-SAME: h = #wave.expr<"$0">
  h = #wave.expr<"($0 * 16) floordiv 16">,
  // CHECK-SAME: i = #wave.expr<"0">
  i = #wave.expr<"($0 * 16) mod 8">,
  // CHECK-SAME: j = #wave.expr<"max(M, 16, N)">
  j = #wave.expr<"max(M, 16, N)">,
  // CHECK-SAME: k = #wave.expr<"K >= BLOCK_K * 4">
  k = #wave.expr<"K >= BLOCK_K * 4">,
  // CHECK-SAME: l = #wave.expr<"M ceildiv BLOCK_M">
  l = #wave.expr<"M ceildiv BLOCK_M">,
  // CHECK-SAME: m = #wave.expr<"M * (-2)">
  m = #wave.expr<"-(M * 2)">,
  // CHECK-SAME: n = #wave.expr<"$1 != 0">
  n = #wave.expr<"$1 != 0">,
  // Negations and scaled subtractions read as written; constants go last.
  // CHECK-SAME: o = #wave.expr<"-M">
  o = #wave.expr<"-M">,
  // CHECK-SAME: p = #wave.expr<"$0 - M * 2">
  p = #wave.expr<"$0 - 2 * M">,
  // CHECK-SAME: q = #wave.expr<"-M + 4">
  q = #wave.expr<"4 - M">,
  // CHECK-SAME: r = #wave.expr<"M - (K + N)">
  r = #wave.expr<"M-(N+K)">,
  // CHECK-SAME: s = #wave.expr<"-(M floordiv 2)">
  s = #wave.expr<"-(M floordiv 2)">,
  // CHECK-SAME: t = #wave.expr<"(-M) floordiv 2">
  t = #wave.expr<"-M floordiv 2">,
  // CHECK-SAME: u = #wave.expr<"min(M, N - 1)">
  u = #wave.expr<"min(M, N - 1)">,
  // CHECK-SAME: v = #wave.expr<"M ceildiv 4 < N">
  v = #wave.expr<"M ceildiv 4 < N">,
  // CHECK-SAME: w = #wave.expr<"M <= N">
  w = #wave.expr<"M <= N">,
  // CHECK-SAME: x = #wave.expr<"M == N * 2">
  x = #wave.expr<"M == N * 2">,
  // CHECK-SAME: y = #wave.expr<"$0 floordiv 4 * 4 + $0 mod 4">
  y = #wave.expr<"$0 floordiv 4 * 4 + $0 mod 4">
} {
  return
}
