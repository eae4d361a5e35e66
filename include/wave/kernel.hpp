// kernel(): a kernel body and its distribution strategy, traced on demand.
//
//   auto copy = kernel("copy", Constraints{...},
//                      [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) {
//                        write(read(a), b);
//                      });
//   graph::KernelGraph g = copy.trace();        // the recorded ops, checked
//   std::string ir = copy.ir({.subs = {...}});  // the `wave` dialect IR (needs wave::jit)
//   std::string dot = copy.graph_dot();         // the graph, for Graphviz
#pragma once

#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "wave/graph_dot.hpp"
#include "wave/jit.hpp"
#include "wave/validate.hpp"
#include "wave/values.hpp"

namespace wave {
namespace detail {

template <class T>
struct callable_params;
template <class C, class R, class... A>
struct callable_params<R (C::*)(A...) const> {
  using type = std::tuple<std::remove_cvref_t<A>...>;
};
template <class C, class R, class... A>
struct callable_params<R (C::*)(A...)> {
  using type = std::tuple<std::remove_cvref_t<A>...>;
};

template <class Fn>
concept KernelBody = requires { &Fn::operator(); };

}  // namespace detail

template <class Fn>
class Kernel {
  static_assert(detail::KernelBody<Fn>,
                "kernel(): the body must be a lambda whose parameters are spelled out as "
                "Memory<dims<...>, dtype[, address space]> (not auto)");
  using Params = typename detail::callable_params<decltype(&Fn::operator())>::type;

 public:
  Kernel(std::string name, Constraints constraints, Fn body, std::source_location where)
      : name_(std::move(name)), constraints_(std::move(constraints)), body_(std::move(body)),
        where_(where) {}

  const std::string& name() const { return name_; }
  const Constraints& constraints() const { return constraints_; }

  // Runs the body with a tracer installed and returns the checked graph.
  graph::KernelGraph trace() const {
    detail::Tracer tracer(name_, constraints_, where_);
    std::apply(body_, make_arguments(tracer, std::make_index_sequence<std::tuple_size_v<Params>>{}));
    graph::KernelGraph g = std::move(tracer).finish();
    validate_constraints(g, where_);
    return g;
  }

  // Traces, then checks the symbol values in `options` against the kernel.
  graph::KernelGraph trace(const CompileOptions& options,
                           std::source_location where = std::source_location::current()) const {
    graph::KernelGraph g = trace();
    validate_subs(g, options.subs, where);
    return g;
  }

  // The traced graph in Graphviz's dot language (ops, dims, source lines; graph_dot.hpp).
  std::string graph_dot() const { return graph::to_dot(trace()); }

  // The kernel as verified `wave` dialect IR, with `options.subs` checked and recorded.
  std::string ir(const CompileOptions& options = {},
                 std::source_location where = std::source_location::current()) const {
    return jit::import_to_mlir(trace(options, where), options);
  }

  // Each value's layout drawn as SVG, after the compiler assigns them (needs wave::jit).
  std::vector<jit::LayoutPicture> layout_pictures(const CompileOptions& options = {},
                                                  std::source_location where = std::source_location::current()) const {
    return jit::layout_pictures(trace(options, where), options);
  }

 private:
  template <std::size_t... I>
  static Params make_arguments(detail::Tracer& tracer, std::index_sequence<I...>) {
    // Braces: arguments are made (and numbered) left to right.
    return Params{make_argument<std::tuple_element_t<I, Params>>(tracer)...};
  }

  template <class M>
  static M make_argument(detail::Tracer& tracer) {
    static_assert(is_memory_v<M>,
                  "kernel(): every parameter of the body must be a Memory<dims<...>, dtype>");
    return detail::ValueAccess::make<M>(tracer.add_argument(M::type()));
  }

  std::string name_;
  Constraints constraints_;
  Fn body_;
  std::source_location where_;
};

template <class Fn>
Kernel<Fn> kernel(std::string name, Constraints constraints, Fn body,
                  std::source_location where = std::source_location::current()) {
  return Kernel<Fn>(std::move(name), std::move(constraints), std::move(body), where);
}

}  // namespace wave
