// read and write: moving whole tensors between memory and registers.
//
//   auto a_reg = read(a);                     // Register with a's dims and dtype
//   auto x_reg = read(x, x_to_mk);            // through an index mapping: Register<dims<M, K>>
//   write(result, c);                         // result's dims must be c's, in any order
//   write(result, out, out_mapping);
//   atomic_add(partial, c);                   // c[i] += partial[i], each element atomically
//
// The compiler splits each access over threads and masks what falls outside the tensor.
#pragma once

#include <source_location>

#include "wave/index_mapping.hpp"
#include "wave/ops/emit.hpp"

namespace wave {

// Per-access hints.
struct AccessOptions {
  int elements_per_thread = 0;  // 0: chosen by the compiler
};

namespace detail {

inline void check_mapping(const Tracer& tracer, const char* op, const std::source_location& where,
                          const Mapping& m, const std::vector<std::string>& register_dims,
                          const std::vector<std::string>& memory_dims, bool is_read) {
  auto keys = [](const std::vector<DimExpr>& entries) {
    std::vector<std::string> out;
    for (const DimExpr& e : entries) out.push_back(e.dim);
    return out;
  };
  auto list = [](const std::vector<std::string>& names) {
    std::string s = "[";
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
    return s + "]";
  };
  auto same_set = [](std::vector<std::string> a, std::vector<std::string> b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
  };
  const auto& register_side = is_read ? m.outputs : m.inputs;
  const auto& memory_side = is_read ? m.inputs : m.outputs;
  const char* register_name = is_read ? "outputs" : "inputs";
  const char* memory_name = is_read ? "inputs" : "outputs";
  if (!same_set(keys(register_side), register_dims))
    tracer.fail(op, where,
                std::string("index mapping ") + register_name + ": " +
                    expected_found("the register dims " + list(register_dims),
                                   list(keys(register_side))));
  if (!same_set(keys(memory_side), memory_dims))
    tracer.fail(op, where,
                std::string("index mapping ") + memory_name + ": " +
                    expected_found("the memory dims " + list(memory_dims), list(keys(memory_side))));
  for (const auto* side : {&m.inputs, &m.outputs})
    for (const DimExpr& e : *side)
      if (e.expr.num_variables() > m.iterators)
        tracer.fail(op, where,
                    "index mapping entry '" + e.dim + ": " + e.expr.str() + "': " +
                        expected_found("iterators $0..$" + std::to_string(m.iterators - 1),
                                       "$" + std::to_string(e.expr.num_variables() - 1)));
}

}  // namespace detail

template <Dims D, DType T, auto S>
Register<D, T> read(const Memory<D, T, S>& mem, AccessOptions access = {},
                    std::source_location where = std::source_location::current()) {
  return detail::emit<Register<D, T>>(
      graph::OpKind::Read, where, {detail::ValueAccess::ref(mem)},
      [&](graph::Node& n, detail::Tracer&) { n.elements_per_thread = access.elements_per_thread; });
}

template <Dims RD, Dims D, DType T, auto S>
Register<RD, T> read(const Memory<D, T, S>& mem, const IndexMapping<RD>& mapping,
                     AccessOptions access = {},
                     std::source_location where = std::source_location::current()) {
  return detail::emit<Register<RD, T>>(
      graph::OpKind::Read, where, {detail::ValueAccess::ref(mem)},
      [&](graph::Node& n, detail::Tracer& tracer) {
        n.mapping = mapping.erase();
        n.elements_per_thread = access.elements_per_thread;
        detail::check_mapping(tracer, "read", where, *n.mapping, dim_names<RD>(), dim_names<D>(),
                              /*is_read=*/true);
      });
}

namespace detail {
inline void emit_write(graph::OpKind kind, ValueRef value, ValueRef mem, const std::optional<Mapping>& mapping,
                       const std::vector<std::string>& register_dims,
                       const std::vector<std::string>& memory_dims, AccessOptions access,
                       const std::source_location& where) {
  const char* op = graph::op_name(kind);
  Tracer& tracer = Tracer::active(op, where);
  graph::Node node = make_node(tracer, kind, where, {value, mem});
  node.mapping = mapping;
  node.elements_per_thread = access.elements_per_thread;
  if (mapping) check_mapping(tracer, op, where, *mapping, register_dims, memory_dims, false);
  tracer.append(std::move(node));
}
}  // namespace detail

template <Dims RD, DType RT, Dims MD, DType MT, auto S>
void write(const Register<RD, RT>& value, const Memory<MD, MT, S>& mem, AccessOptions access = {},
           std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<RT, MT>, "write: the value's dtype must be the memory's; cast<>() it first");
  static_assert(same_dim_set_v<RD, MD>,
                "write: the value must have the memory's dims (in any order); "
                "use an IndexMapping to write to other dims");
  detail::emit_write(graph::OpKind::Write, detail::ValueAccess::ref(value), detail::ValueAccess::ref(mem), std::nullopt, {}, {},
                     access, where);
}

template <Dims RD, DType RT, Dims MD, DType MT, auto S>
void write(const Register<RD, RT>& value, const Memory<MD, MT, S>& mem,
           const IndexMapping<RD>& mapping, AccessOptions access = {},
           std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<RT, MT>, "write: the value's dtype must be the memory's; cast<>() it first");
  detail::emit_write(graph::OpKind::Write, detail::ValueAccess::ref(value), detail::ValueAccess::ref(mem), mapping.erase(),
                     dim_names<RD>(), dim_names<MD>(), access, where);
}

// atomic_add(value, mem[, mapping]): adds each element of `value` to the tensor's element at
// its position, as write() places it, atomically: two adds to one element, from any
// threads or workgroups, both land, in some order (float sums may then round differently
// from run to run). Each element of `value` is added once, however many threads hold it.
// The adds are relaxed: they order nothing else, and a read of `mem` in the same launch
// may see any subset of them; the sums are complete when the kernel has finished.
// Returns nothing. Element types: f16, bf16, f32, f64, i32, i64 in global memory.
template <Dims RD, DType RT, Dims MD, DType MT, auto S>
void atomic_add(const Register<RD, RT>& value, const Memory<MD, MT, S>& mem, AccessOptions access = {},
                std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<RT, MT>, "atomic_add: the value's dtype must be the memory's; cast<>() it first");
  static_assert(has_atomic_add(RT::value), "atomic_add: the dtype must be f16, bf16, f32, f64, i32 or i64");
  static_assert(same_dim_set_v<RD, MD>,
                "atomic_add: the value must have the memory's dims (in any order); "
                "use an IndexMapping to add to other dims");
  detail::emit_write(graph::OpKind::AtomicAdd, detail::ValueAccess::ref(value), detail::ValueAccess::ref(mem),
                     std::nullopt, {}, {}, access, where);
}

template <Dims RD, DType RT, Dims MD, DType MT, auto S>
void atomic_add(const Register<RD, RT>& value, const Memory<MD, MT, S>& mem, const IndexMapping<RD>& mapping,
                AccessOptions access = {}, std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<RT, MT>, "atomic_add: the value's dtype must be the memory's; cast<>() it first");
  static_assert(has_atomic_add(RT::value), "atomic_add: the dtype must be f16, bf16, f32, f64, i32 or i64");
  detail::emit_write(graph::OpKind::AtomicAdd, detail::ValueAccess::ref(value), detail::ValueAccess::ref(mem),
                     mapping.erase(), dim_names<RD>(), dim_names<MD>(), access, where);
}

}  // namespace wave
