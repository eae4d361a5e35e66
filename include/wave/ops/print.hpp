// print: a value's elements, printed when the kernel runs (on the GPU through printf, in
// the interpreter to its print stream), one line per element in one format:
//
//   print(scores, "scores");                       // scores[M=0, K2=5] = 0.8125
//   print(acc, "acc", {.limit = 8});               // the first 8 elements, row-major
//   print(x, x_is_nan, "nan at");                  // only where the i1 mask holds
//
// Lines name each dim with the element's index in the whole tensor. `limit` keeps the
// elements whose row-major position (over the value's dims, in the whole tensor) is below
// it, so the GPU and the interpreter print the same set of lines; the GPU prints them in
// no particular order. Inside an `iterate` body each step prints its own lines.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>

#include "wave/ops/emit.hpp"
#include "wave/ops/shape.hpp"
#include "wave/print_format.hpp"

namespace wave {

struct PrintOptions {
  // Elements printed: those at row-major positions below this (at most that many lines).
  std::int64_t limit = 64;
};

namespace detail {
inline void emit_print(ValueRef value, const ValueRef* mask, std::string_view label, PrintOptions options,
                       const std::source_location& where) {
  Tracer& tracer = Tracer::active("print", where);
  if (std::string mistake = print_mistake(std::string(label), options.limit); !mistake.empty())
    tracer.fail("print", where, mistake);
  graph::Node node = mask ? make_node(tracer, graph::OpKind::Print, where, {value, *mask})
                          : make_node(tracer, graph::OpKind::Print, where, {value});
  node.label = std::string(label);
  node.limit = options.limit;
  tracer.append(std::move(node));
}
}  // namespace detail

template <Dims D, DType T>
void print(const Register<D, T>& value, std::string_view label, PrintOptions options = {},
           std::source_location where = std::source_location::current()) {
  detail::emit_print(detail::ValueAccess::ref(value), nullptr, label, options, where);
}

// Only the elements where `mask` holds; a mask of fewer dims repeats along the others.
template <Dims D, DType T, Dims MD, DType MT>
void print(const Register<D, T>& value, const Register<MD, MT>& mask, std::string_view label,
           PrintOptions options = {}, std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<MT, i1>, "print: the mask must have dtype i1; build it with apply_expr or cast<i1>()");
  static_assert(dims_subset_v<MD, D>, "print: the mask's dims must be a subset of the value's");
  if constexpr (std::is_same_v<MD, D>) {
    const detail::ValueRef m = detail::ValueAccess::ref(mask);
    detail::emit_print(detail::ValueAccess::ref(value), &m, label, options, where);
  } else {
    const detail::ValueRef m = detail::ValueAccess::ref(broadcast<D>(mask, where));
    detail::emit_print(detail::ValueAccess::ref(value), &m, label, options, where);
  }
}

}  // namespace wave
