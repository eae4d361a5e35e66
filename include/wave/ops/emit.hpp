// How ops record themselves: one node in the innermost open block of the active trace.
#pragma once

#include <initializer_list>
#include <source_location>

#include "wave/values.hpp"

namespace wave::detail {

inline graph::Node make_node(Tracer& tracer, graph::OpKind kind, const std::source_location& where,
                             std::initializer_list<ValueRef> operands) {
  graph::Node node;
  node.kind = kind;
  node.loc = to_loc(where);
  for (const ValueRef& v : operands) {
    tracer.check_use(v, graph::op_name(kind), where);
    node.operands.push_back(v.id);
  }
  return node;
}

// Records an op with one result of type `Result`; `set` fills in its attributes.
template <class Result, class SetAttributes>
Result emit(graph::OpKind kind, const std::source_location& where,
            std::initializer_list<ValueRef> operands, SetAttributes&& set) {
  Tracer& tracer = Tracer::active(graph::op_name(kind), where);
  graph::Node node = make_node(tracer, kind, where, operands);
  node.result_types = {Result::type()};
  set(node, tracer);
  return ValueAccess::make<Result>(tracer.append(std::move(node)).front());
}

template <class Result>
Result emit(graph::OpKind kind, const std::source_location& where,
            std::initializer_list<ValueRef> operands) {
  return emit<Result>(kind, where, operands, [](graph::Node&, Tracer&) {});
}

}  // namespace wave::detail
