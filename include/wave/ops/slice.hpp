// Ops that move a register's elements to other positions, under new dims.
//
//   auto window = extract_slice<K, W>(x, 16);      // [M, K] -> [M, W]: element w is x's 16 + w
//   auto evens = extract_slice<K, W>(x, 0, 2);     // [M, K] -> [M, W]: element w is x's 2 w
//   auto heads = reshape<dims<T, H, D>>(rows);     // [T, HD] -> [T, H, D], row-major: hd = h D + d
//
// Both gather within a workgroup: the dims of x along which positions are computed
// (extract_slice's Dim, reshape's regrouped dims) must each lie whole in one workgroup's
// tile (no WorkgroupConstraint splitting them over several workgroups, no iterate walking
// them); the compiler says so at the op's line otherwise. The result's dims may be split.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <type_traits>

#include "wave/ops/emit.hpp"
#include "wave/ops/index.hpp"
#include "wave/ops/shape.hpp"

namespace wave {

// extract_slice<Dim, Slice>(x, offset[, step]): x with Dim replaced by Slice, in its place;
// element s along Slice is x's element offset + s * step along Dim, and 0 where that lies
// outside Dim (negative, at or past its end). Slice's size is its own symbol's (set in
// subs, tiled by the constraints as any dim); Slice may be Dim itself (a shift). `offset`
// is a number, an expression of the kernel's symbols, or an integer Register of some of
// the result's dims (a window per row); `step` is at least 1.
template <auto Dim, auto Slice, Dims D, DType T, Dims DO, DType TO>
auto extract_slice(const Register<D, T>& x, const Register<DO, TO>& offset, std::int64_t step = 1,
                   std::source_location where = std::source_location::current()) {
  using Sym = std::remove_cv_t<decltype(Dim)>;
  using SliceSym = std::remove_cv_t<decltype(Slice)>;
  static_assert(is_symbol_v<Sym> && is_symbol_v<SliceSym>,
                "extract_slice<Dim, Slice>: both must be symbols, e.g. extract_slice<K, W>(x, 16)");
  static_assert(has_dim_v<D, Sym>, "extract_slice<Dim, Slice>: the value has no such dim to slice");
  static_assert(std::is_same_v<Sym, SliceSym> || !has_dim_v<D, SliceSym>,
                "extract_slice<Dim, Slice>: Slice must be a dim the value lacks (or Dim itself)");
  using Result = replace_dim_t<D, Sym, SliceSym>;
  static_assert(is_integer(TO::value) && !std::is_same_v<TO, i1>,
                "extract_slice<Dim, Slice>(x, offset): the offset must have an integer dtype (i8, i32 or i64)");
  static_assert(dims_subset_v<DO, Result>,
                "extract_slice<Dim, Slice>(x, offset): the offset's dims must be among the result's");
  auto offsets = [&] {
    if constexpr (std::is_same_v<DO, Result>) return offset;
    else return broadcast<Result>(offset, where);
  }();
  return detail::emit<Register<Result, T>>(
      graph::OpKind::ExtractSlice, where, {detail::ValueAccess::ref(x), detail::ValueAccess::ref(offsets)},
      [&](graph::Node& n, detail::Tracer& tracer) {
        if (step < 1)
          tracer.fail("extract_slice", where, expected_found("a step of at least 1", std::to_string(step)));
        n.dim = std::string(Sym::name);
        n.limit = step;
      });
}

template <auto Dim, auto Slice, Dims D, DType T, class X>
  requires(std::is_integral_v<X> || Symbolic<X>)
auto extract_slice(const Register<D, T>& x, X offset, std::int64_t step = 1,
                   std::source_location where = std::source_location::current()) {
  return extract_slice<Dim, Slice>(x, scalar<i32>(offset, where), step, where);
}

// reshape<dims<...>>(x): the same elements in row-major order under other dims: the
// sizes' products must be equal (checked where the kernel compiles), and element i of x,
// counting over its dims in the order written, is element i of the result. Dims at the
// start and end that both sides share (same symbol, same place) keep their positions;
// the dims between are regrouped: [T, HD] -> [T, H, D] takes hd = h * D + d.
template <Dims To, Dims D, DType T>
Register<To, T> reshape(const Register<D, T>& x, std::source_location where = std::source_location::current()) {
  return detail::emit<Register<To, T>>(graph::OpKind::Reshape, where, {detail::ValueAccess::ref(x)});
}

}  // namespace wave
