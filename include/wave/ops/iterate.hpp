// iterate: a loop over a tiled dim with loop-carried values.
//
//   auto result = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
//   auto [m, s, o] = iterate<K2>(std::tuple{m0, s0, o0}, [&](auto m, auto s, auto o) {
//     ...
//     return std::tuple{m1, s1, o1};
//   });
//
// Inside the body, reads of tensors with the dim `K` see one tile of it (the
// TilingConstraint's size); the body returns the next values of what it carries. A loop
// whose work is its writes carries nothing:
//
//   iterate<K>(std::tuple{}, [&] { write(read(x) * 2.0, y); return std::tuple{}; });
#pragma once

#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "wave/ops/emit.hpp"

namespace wave {
namespace detail {

template <class T>
inline constexpr bool all_registers_v = false;
template <class... Ts>
inline constexpr bool all_registers_v<std::tuple<Ts...>> = (is_register_v<Ts> && ...);

// The traced values `ids` as Registers of types Ts..., in order.
template <class... Ts>
std::tuple<Ts...> registers_of(const std::vector<ValueRef>& ids) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::tuple<Ts...>(ValueAccess::make<Ts>(ids[I])...);
  }(std::index_sequence_for<Ts...>{});
}

template <SymbolType DimSym, class... Ts, class Body>
std::tuple<Ts...> trace_iterate(const std::tuple<Ts...>& init, Body&& body,
                                const std::source_location& where) {
  const std::string dim(DimSym::name);
  Tracer& tracer = Tracer::active("iterate", where);
  if (!tracer.constraints().template find<TilingConstraint>(dim))
    tracer.fail("iterate", where,
                expected_found("a TilingConstraint on " + dim + " (the loop walks its tiles)",
                               "no TilingConstraint on " + dim));

  graph::Node node = std::apply(
      [&](const auto&... v) {
        return make_node(tracer, graph::OpKind::Iterate, where, {ValueAccess::ref(v)...});
      },
      init);
  node.dim = dim;
  node.result_types = {Ts::type()...};

  const std::tuple<Ts...> carried = registers_of<Ts...>(tracer.open_block(node.result_types));

  using Returned = std::decay_t<decltype(std::apply(body, carried))>;
  const std::tuple<Ts...> next = [&]() -> std::tuple<Ts...> {
    if constexpr (sizeof...(Ts) == 1 && !all_registers_v<Returned>) {
      static_assert(std::is_same_v<Returned, Ts...>,
                    "iterate: the body must return a value of the loop-carried type");
      return std::tuple<Ts...>(std::apply(body, carried));
    } else {
      static_assert(std::is_same_v<Returned, std::tuple<Ts...>>,
                    "iterate: the body must return std::tuple{...} of the loop-carried types, "
                    "in order");
      return std::apply(body, carried);
    }
  }();

  graph::Node yield = std::apply(
      [&](const auto&... v) {
        return make_node(tracer, graph::OpKind::Yield, where, {ValueAccess::ref(v)...});
      },
      next);
  tracer.append(std::move(yield));
  node.regions.push_back(tracer.close_block());

  return registers_of<Ts...>(tracer.append(std::move(node)));
}

}  // namespace detail

// One loop-carried value.
template <auto Dim, Dims D, DType T, class Body>
Register<D, T> iterate(const Register<D, T>& init, Body&& body,
                       std::source_location where = std::source_location::current()) {
  using Sym = std::remove_cv_t<decltype(Dim)>;
  static_assert(is_symbol_v<Sym>, "iterate<Dim>: Dim must be a symbol, e.g. iterate<K>(...)");
  return std::get<0>(detail::trace_iterate<Sym>(std::tuple<Register<D, T>>(init), body, where));
}

// Several loop-carried values, passed and returned as a tuple.
template <auto Dim, class... Ts, class Body>
std::tuple<Ts...> iterate(const std::tuple<Ts...>& init, Body&& body,
                          std::source_location where = std::source_location::current()) {
  using Sym = std::remove_cv_t<decltype(Dim)>;
  static_assert(is_symbol_v<Sym>, "iterate<Dim>: Dim must be a symbol, e.g. iterate<K>(...)");
  static_assert((is_register_v<Ts> && ...), "iterate: loop-carried values must be Registers");
  return detail::trace_iterate<Sym>(init, body, where);
}

}  // namespace wave
