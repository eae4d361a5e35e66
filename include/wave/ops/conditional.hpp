// conditional: ops that run only in the workgroups where a condition holds.
//
//   auto count = read(block_counts);                       // [E], a workgroup per expert
//   conditional(gt(count, 0), [&] {                        // experts with tokens only
//     write(iterate<K>(acc, gemm_body), out);
//   });
//   auto y = conditional(ok, [&] { return f(x); }, x);     // f(x) where ok holds, else x
//   auto [a, b] = conditional(ok, [&] { return std::tuple{f, g}; }, std::tuple{f0, g0});
//
// The condition is i1 with one element per workgroup: a value of no dims, or one over dims
// each a WorkgroupConstraint tile of 1 (checked when the kernel is distributed), so every
// thread of a workgroup takes the same branch and barriers inside stay whole. Where it
// fails, the body's ops do nothing (no read, no write) and the results are `otherwise`'s
// values, which have the body's result types. A conditional goes in the kernel body itself
// (not in an iterate body), and set_symbol not in a conditional; loops inside one run
// unpipelined by a warp-specialized producer, and not on a persistent grid.
#pragma once

#include <source_location>
#include <tuple>
#include <type_traits>
#include <utility>

#include "wave/ops/iterate.hpp"

namespace wave {
namespace detail {

template <class... Ts, class Body>
std::tuple<Ts...> trace_conditional(const ValueRef& cond, Body&& body, const std::tuple<Ts...>& otherwise,
                                    const std::source_location& where) {
  Tracer& tracer = Tracer::active("conditional", where);
  if (!tracer.at_top_level())
    tracer.fail("conditional", where,
                expected_found("a call in the kernel body itself", "a call inside an iterate or conditional body"));
  graph::Node node = std::apply(
      [&](const auto&... v) {
        return make_node(tracer, graph::OpKind::Conditional, where, {cond, ValueAccess::ref(v)...});
      },
      otherwise);
  node.result_types = {Ts::type()...};
  tracer.open_block({});
  graph::Node yield = make_node(tracer, graph::OpKind::Yield, where, {});
  if constexpr (sizeof...(Ts) == 0) {
    static_assert(std::is_void_v<decltype(body())>, "conditional(cond, body): without otherwise, the body returns nothing");
    body();
  } else {
    using Returned = std::decay_t<decltype(body())>;
    const std::tuple<Ts...> given = [&]() -> std::tuple<Ts...> {
      if constexpr (sizeof...(Ts) == 1 && !all_registers_v<Returned>) {
        static_assert(std::is_same_v<Returned, Ts...>,
                      "conditional(cond, body, otherwise): the body must return a value of otherwise's type");
        return std::tuple<Ts...>(body());
      } else {
        static_assert(std::is_same_v<Returned, std::tuple<Ts...>>,
                      "conditional(cond, body, otherwise): the body must return std::tuple{...} of otherwise's "
                      "types, in order");
        return body();
      }
    }();
    yield = std::apply([&](const auto&... v) { return make_node(tracer, graph::OpKind::Yield, where, {ValueAccess::ref(v)...}); },
                       given);
  }
  tracer.append(std::move(yield));
  node.regions.push_back(tracer.close_block());
  return registers_of<Ts...>(tracer.append(std::move(node)));
}

}  // namespace detail

// The body's ops run where `cond` holds; no results.
template <Dims DC, class Body>
void conditional(const Register<DC, i1>& cond, Body&& body,
                 std::source_location where = std::source_location::current()) {
  detail::trace_conditional(detail::ValueAccess::ref(cond), body, std::tuple<>{}, where);
}

// One result: the body's value where `cond` holds, `otherwise` where not.
template <Dims DC, Dims D, DType T, class Body>
Register<D, T> conditional(const Register<DC, i1>& cond, Body&& body, const Register<D, T>& otherwise,
                           std::source_location where = std::source_location::current()) {
  return std::get<0>(
      detail::trace_conditional(detail::ValueAccess::ref(cond), body, std::tuple<Register<D, T>>(otherwise), where));
}

// Several results, as a tuple.
template <Dims DC, class... Ts, class Body>
std::tuple<Ts...> conditional(const Register<DC, i1>& cond, Body&& body, const std::tuple<Ts...>& otherwise,
                              std::source_location where = std::source_location::current()) {
  static_assert((is_register_v<Ts> && ...), "conditional: otherwise's values must be Registers");
  return detail::trace_conditional(detail::ValueAccess::ref(cond), body, otherwise, where);
}

}  // namespace wave
