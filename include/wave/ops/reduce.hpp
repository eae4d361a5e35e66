// Reductions and prefix sums over one dim.
//
//   auto row_max = max<N>(x);                  // [M, N] -> [M]
//   auto row_min = min<N>(x);
//   auto m_j = max<K2>(x_j, partial_max);      // with an initial value of the result's shape
//   auto d_j = sum<K2>(e_delta, e_init);
//   auto offsets = cumsum<E>(counts);          // [T, E] -> [T, E], running sums along E
//   auto total = extract<E>(offsets, E - 1);   // [T, E] -> [T], the element at E - 1
//   auto picked = extract<N>(x, index);        // [M, N] -> [M], row m's element at index[m]
#pragma once

#include <source_location>

#include "wave/ops/emit.hpp"
#include "wave/ops/index.hpp"
#include "wave/ops/shape.hpp"

namespace wave {
namespace detail {

template <graph::OpKind Kind, auto Dim, Dims D, DType T>
auto reduce(const Register<D, T>& x, const ValueRef* init, const std::source_location& where) {
  using Sym = std::remove_cv_t<decltype(Dim)>;
  static_assert(is_symbol_v<Sym>, "reduction over <Dim>: Dim must be a symbol, e.g. max<K>(x)");
  static_assert(has_dim_v<D, Sym>, "reduction: the value has no such dim to reduce over");
  using Result = Register<remove_dim_t<D, Sym>, T>;
  auto set_dim = [](graph::Node& n, Tracer&) { n.dim = std::string(Sym::name); };
  if (init) return emit<Result>(Kind, where, {ValueAccess::ref(x), *init}, set_dim);
  return emit<Result>(Kind, where, {ValueAccess::ref(x)}, set_dim);
}

template <Dims D, auto Dim>
using reduced_dims_t = remove_dim_t<D, std::remove_cv_t<decltype(Dim)>>;

}  // namespace detail

// max<Dim>(x), max<Dim>(x, init); min<Dim>(x), min<Dim>(x, init); sum<Dim>(x), sum<Dim>(x, init).
#define WAVE_REDUCTION(fn, kind)                                                            \
  template <auto Dim, Dims D, DType T>                                                      \
  auto fn(const Register<D, T>& x,                                                          \
          std::source_location where = std::source_location::current()) {                   \
    return detail::reduce<graph::OpKind::kind, Dim>(x, nullptr, where);                     \
  }                                                                                         \
  template <auto Dim, Dims D, DType T, Dims DI>                                             \
  auto fn(const Register<D, T>& x, const Register<DI, T>& init,                             \
          std::source_location where = std::source_location::current()) {                   \
    static_assert(std::is_same_v<DI, detail::reduced_dims_t<D, Dim>>,                       \
                  #fn "<Dim>(x, init): init must have x's dims without Dim, in order");     \
    const detail::ValueRef ref = detail::ValueAccess::ref(init);                            \
    return detail::reduce<graph::OpKind::kind, Dim>(x, &ref, where);                        \
  }
WAVE_REDUCTION(max, ReduceMax)
WAVE_REDUCTION(min, ReduceMin)
WAVE_REDUCTION(sum, ReduceSum)
#undef WAVE_REDUCTION

// cumsum<Dim>(x): inclusive prefix sums along Dim, x's shape: element i along Dim is the
// sum of x's elements 0 to i there (integers wrap; f16 and bf16 sum in f32). One workgroup
// must hold the whole of Dim, as for a reduction.
template <auto Dim, Dims D, DType T>
Register<D, T> cumsum(const Register<D, T>& x, std::source_location where = std::source_location::current()) {
  using Sym = std::remove_cv_t<decltype(Dim)>;
  static_assert(is_symbol_v<Sym>, "cumsum<Dim>: Dim must be a symbol, e.g. cumsum<E>(counts)");
  static_assert(has_dim_v<D, Sym>, "cumsum: the value has no such dim to sum along");
  static_assert(T::value != DataType::i1, "cumsum: i1 elements are not numbers to sum; cast<i32>() them first");
  auto set_dim = [](graph::Node& n, detail::Tracer&) { n.dim = std::string(Sym::name); };
  return detail::emit<Register<D, T>>(graph::OpKind::Cumsum, where, {detail::ValueAccess::ref(x)}, set_dim);
}

// extract<Dim>(x, at): x's element at position `at` along Dim, Dim dropped (a gather along
// one dim, torch.gather's for one index per row). `at` is a number, a symbolic expression
// of the kernel's symbols (E - 1), or an integer Register of some of the result's dims (a
// position per row, broadcast along the others). Where `at` lies outside Dim (negative, at
// or past its end), the element is 0. Dim is combined as a reduction's is: one workgroup
// holds the whole of it, or, inside iterate<Dim>, the element is taken from the loop's
// tile and is 0 where `at` lies in another tile (adding the tiles' results gives it).
template <auto Dim, Dims D, DType T, Dims DI, DType TI>
auto extract(const Register<D, T>& x, const Register<DI, TI>& at,
             std::source_location where = std::source_location::current()) {
  using Sym = std::remove_cv_t<decltype(Dim)>;
  using Result = detail::reduced_dims_t<D, Dim>;
  static_assert(is_symbol_v<Sym>, "extract<Dim>: Dim must be a symbol, e.g. extract<N>(x, N - 1)");
  static_assert(has_dim_v<D, Sym>, "extract<Dim>: the value has no such dim to take an element along");
  static_assert(is_integer(TI::value) && !std::is_same_v<TI, i1>,
                "extract<Dim>(x, at): the position must have an integer dtype (i8, i32 or i64)");
  static_assert(dims_subset_v<DI, Result>,
                "extract<Dim>(x, at): the position's dims must be among the result's (x's without Dim)");
  auto positions = [&] {
    if constexpr (std::is_same_v<DI, Result>) return at;
    else return broadcast<Result>(at, where);
  }();
  auto set_dim = [](graph::Node& n, detail::Tracer&) { n.dim = std::string(Sym::name); };
  return detail::emit<Register<Result, T>>(graph::OpKind::Extract, where,
                                           {detail::ValueAccess::ref(x), detail::ValueAccess::ref(positions)}, set_dim);
}

template <auto Dim, Dims D, DType T, class X>
  requires(std::is_integral_v<X> || Symbolic<X>)
auto extract(const Register<D, T>& x, X at, std::source_location where = std::source_location::current()) {
  return extract<Dim>(x, scalar<i32>(at, where), where);
}

}  // namespace wave
