// Ops that compute with the iteration indices themselves.
//
//   auto k2 = self_index<K2, i64>();                        // [K2]: element k holds k
//   auto in_bounds = apply_expr(k2, [](auto k) { return k < K2; });   // symbolic map, elementwise
//   auto last = scalar<i32>(N - 1);                         // a value of no dims: x + last
#pragma once

#include <source_location>
#include <type_traits>

#include "wave/ops/emit.hpp"
#include "wave/ops/shape.hpp"

namespace wave {

template <auto Dim, DType T>
auto self_index(std::source_location where = std::source_location::current()) {
  using Sym = std::remove_cv_t<decltype(Dim)>;
  static_assert(is_symbol_v<Sym>, "self_index<Dim, dtype>: Dim must be a symbol");
  static_assert(is_integer(T::value) && !std::is_same_v<T, i1>,
                "self_index: expected an integer dtype (i8, i32 or i64)");
  using Result = Register<dims<Sym{}>, T>;
  return detail::emit<Result>(graph::OpKind::SelfIndex, where, {},
                              [](graph::Node& n, detail::Tracer&) { n.dim = std::string(Sym::name); });
}

// Applies a symbolic function of one integer to every element: `fn` receives the element as
// a symbolic variable and returns an expression over it and the kernel's symbols.
template <Dims D, DType T, class Fn>
Register<D, T> apply_expr(const Register<D, T>& x, Fn&& fn,
                          std::source_location where = std::source_location::current()) {
  static_assert(is_integer(T::value), "apply_expr: expected an integer dtype");
  using E = decltype(fn(Variable(0)));
  static_assert(Symbolic<E>, "apply_expr: the function must return a symbolic expression");
  const Expr e = fn(Variable(0)).to_expr();
  return detail::emit<Register<D, T>>(graph::OpKind::ApplyExpr, where,
                                      {detail::ValueAccess::ref(x)},
                                      [&](graph::Node& n, detail::Tracer&) { n.expr = e; });
}

// A value of no dims, which broadcasts against any tensor (Wave's `scalar`): a number, or
// a symbolic expression of the kernel's symbols (its value at the sizes the kernel is
// compiled or launched with; integers, then cast to T).
//   x + scalar<f32>(0.5);  minimum(rows, scalar<i32>(BLOCK_M));  select(ok, slot, broadcast<dims<P>>(scalar<i32>(S - 1)))
template <DType T, class X>
  requires(std::is_arithmetic_v<X> || Symbolic<X>)
Register<dims<>, T> scalar(X value, std::source_location where = std::source_location::current()) {
  static_assert(!std::is_same_v<T, i1>, "scalar<T>: build an i1 with a comparison (lt(x, scalar<i32>(N)))");
  if constexpr (std::is_arithmetic_v<X>) {
    return Register<dims<>, T>(static_cast<double>(value), where);
  } else {
    auto of_symbols = apply_expr(Register<dims<>, i64>(0.0, where), [&](auto) { return value; }, where);
    return cast<T>(of_symbols, where);
  }
}

}  // namespace wave
