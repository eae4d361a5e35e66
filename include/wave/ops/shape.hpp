// Ops that change a register's dtype or dims without arithmetic.
//
//   cast<f16>(x)                       // convert every element
//   bitcast<i32>(x)                    // the same bits as another dtype of their width
//   permute<dims<B, M, K2>>(x)         // reorder dims (same set)
//   broadcast<dims<M, K2>>(mask)       // add dims: the value repeats along them
//   select(cond, a, b)                 // cond ? a : b, cond of dtype i1
//   shuffle<D>(x, 1)                   // along D, element k takes x's element k ^ 1
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <type_traits>

#include "wave/ops/emit.hpp"

namespace wave {

// A cast to the dtype x already has is x itself (no op is traced).
template <DType To, Dims D, DType T>
Register<D, To> cast(const Register<D, T>& x,
                     std::source_location where = std::source_location::current()) {
  if constexpr (std::is_same_v<To, T>) return x;
  else return detail::emit<Register<D, To>>(graph::OpKind::Cast, where, {detail::ValueAccess::ref(x)});
}

// The same bits read as another dtype of the same width (f32 <-> i32, f16 <-> bf16, ...);
// a bitcast to x's own dtype is x.
template <DType To, Dims D, DType T>
Register<D, To> bitcast(const Register<D, T>& x, std::source_location where = std::source_location::current()) {
  static_assert(bit_width(To::value) == bit_width(T::value), "bitcast<T>: T must have as many bits as x's dtype");
  static_assert(T::value != DataType::i1, "bitcast<T>: i1 elements have no other dtype of their width");
  if constexpr (std::is_same_v<To, T>) return x;
  else return detail::emit<Register<D, To>>(graph::OpKind::Bitcast, where, {detail::ValueAccess::ref(x)});
}

template <Dims To, Dims D, DType T>
Register<To, T> permute(const Register<D, T>& x,
                        std::source_location where = std::source_location::current()) {
  static_assert(same_dim_set_v<To, D>, "permute<dims<...>>: the target must reorder x's dims");
  return detail::emit<Register<To, T>>(graph::OpKind::Permute, where,
                                       {detail::ValueAccess::ref(x)});
}

template <Dims To, Dims D, DType T>
Register<To, T> broadcast(const Register<D, T>& x,
                          std::source_location where = std::source_location::current()) {
  static_assert(dims_subset_v<D, To>, "broadcast<dims<...>>: the target must hold all of x's dims");
  return detail::emit<Register<To, T>>(graph::OpKind::Broadcast, where,
                                       {detail::ValueAccess::ref(x)});
}

template <Dims DC, DType TC, Dims D, DType T, Dims DF>
Register<D, T> select(const Register<DC, TC>& cond, const Register<D, T>& if_true,
                      const Register<DF, T>& if_false,
                      std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<TC, i1>, "select: the condition must have dtype i1; cast<i1>() it");
  static_assert(same_dim_set_v<D, DF>, "select: both choices must have the same dims");
  static_assert(dims_subset_v<DC, D>, "select: the condition's dims must be a subset of the choices'");
  using detail::ValueAccess;
  return detail::emit<Register<D, T>>(
      graph::OpKind::Select, where,
      {ValueAccess::ref(cond), ValueAccess::ref(if_true), ValueAccess::ref(if_false)});
}

// shuffle<Dim>(x, mask): along Dim, element k takes x's element k xor mask (mask >= 1),
// so elements trade places in pairs: shuffle<D>(x, 1) swaps neighbours (rotary embeddings'
// interleaved pairs), shuffle<D>(x, HALF) with HALF a power of two swaps each group's two
// halves. Positions pair up within aligned groups of g elements, g the power of two above
// mask: a workgroup's tile of Dim (a loop's, where iterate<Dim> walks it) must be a
// multiple of g. An element whose partner lies at or past Dim's end is 0.
template <auto Dim, Dims D, DType T>
Register<D, T> shuffle(const Register<D, T>& x, std::int64_t mask,
                       std::source_location where = std::source_location::current()) {
  using Sym = std::remove_cv_t<decltype(Dim)>;
  static_assert(is_symbol_v<Sym>, "shuffle<Dim>: Dim must be a symbol, e.g. shuffle<D>(x, 1)");
  static_assert(has_dim_v<D, Sym>, "shuffle<Dim>: the value has no such dim to shuffle along");
  return detail::emit<Register<D, T>>(graph::OpKind::Shuffle, where, {detail::ValueAccess::ref(x)},
                                      [&](graph::Node& n, detail::Tracer& tracer) {
                                        if (mask < 1)
                                          tracer.fail("shuffle", where,
                                                      expected_found("an xor mask of at least 1",
                                                                     std::to_string(mask)));
                                        n.dim = std::string(Sym::name);
                                        n.limit = mask;
                                      });
}

}  // namespace wave
