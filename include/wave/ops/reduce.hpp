// Reductions and prefix sums over one dim.
//
//   auto row_max = max<N>(x);                  // [M, N] -> [M]
//   auto row_min = min<N>(x);
//   auto m_j = max<K2>(x_j, partial_max);      // with an initial value of the result's shape
//   auto d_j = sum<K2>(e_delta, e_init);
//   auto offsets = cumsum<E>(counts);          // [T, E] -> [T, E], running sums along E
#pragma once

#include <source_location>

#include "wave/ops/emit.hpp"

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

}  // namespace wave
