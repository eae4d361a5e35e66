// read and write: moving whole tensors between memory and registers.
//
//   auto a_reg = read(a);                     // Register with a's dims and dtype
//   auto x_reg = read(x, x_to_mk);            // through an index mapping: Register<dims<M, K>>
//   write(result, c);                         // result's dims must be c's, in any order
//   write(result, out, out_mapping);
//   auto k_reg = read(k_cache, by_page.with_values(pages));  // indices read at run time
//   atomic_add(partial, c);                   // c[i] += partial[i], each element atomically
//
// The compiler splits each access over threads and masks what falls outside the tensor.
#pragma once

#include <set>
#include <source_location>

#include "wave/index_mapping.hpp"
#include "wave/ops/emit.hpp"

namespace wave {

// Per-access hints.
struct AccessOptions {
  int elements_per_thread = 0;  // 0: chosen by the compiler
};

namespace detail {

// The variables an expression uses.
inline std::set<int> variables_of(const Expr& e) {
  if (e.op() == ExprOp::Variable) return {e.index()};
  if (e.op() == ExprOp::Constant || e.op() == ExprOp::Symbol) return {};
  std::set<int> out = variables_of(e.lhs());
  out.merge(variables_of(e.rhs()));
  return out;
}

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
  std::vector<bool> used(static_cast<std::size_t>(m.dynamic), false);
  for (const auto* side : {&m.inputs, &m.outputs})
    for (const DimExpr& e : *side) {
      const std::string entry = "index mapping entry '" + e.dim + ": " + e.expr.str() + "': ";
      for (int v : variables_of(e.expr)) {
        if (v >= kFirstDynamicVal)
          tracer.fail(op, where,
                      entry + expected_found("a value for dynamic_val(" + std::to_string(v - kFirstDynamicVal) +
                                                 ") given with mapping.with_values(...)",
                                             std::to_string(m.dynamic) + " values"));
        if (v >= m.iterators && side == &register_side)
          tracer.fail(op, where, entry + expected_found("iterators only on the register side", "a dynamic value"));
        if (v >= m.iterators && v < m.iterators + m.dynamic) used[static_cast<std::size_t>(v - m.iterators)] = true;
      }
      if (e.expr.num_variables() > m.iterators + m.dynamic && e.expr.num_variables() <= kFirstDynamicVal)
        tracer.fail(op, where,
                    entry + expected_found("iterators $0..$" + std::to_string(m.iterators - 1),
                                           "$" + std::to_string(e.expr.num_variables() - 1)));
    }
  for (std::size_t k = 0; k < used.size(); ++k)
    if (!used[k])
      tracer.fail(op, where,
                  "index mapping: " + expected_found("dynamic_val(" + std::to_string(k) + ") in an expression",
                                                     "a value given for it that no expression uses"));
}


}  // namespace detail

template <Dims D, DType T, auto S>
Register<D, T> read(const Memory<D, T, S>& mem, AccessOptions access = {},
                    std::source_location where = std::source_location::current()) {
  return detail::emit<Register<D, T>>(
      graph::OpKind::Read, where, {detail::ValueAccess::ref(mem)},
      [&](graph::Node& n, detail::Tracer&) { n.elements_per_thread = access.elements_per_thread; });
}

// An index mapping with its dynamic values (IndexMapping::with_values; none for a plain
// mapping).
template <Dims RegisterDims>
struct DynamicMapping {
  IndexMapping<RegisterDims> mapping;
  std::vector<detail::ValueRef> values;

  Mapping erase() const { return mapping.erase(static_cast<int>(values.size())); }
};

template <Dims RD>
template <class... Values>
auto IndexMapping<RD>::with_values(const Values&... values) const {
  static_assert(sizeof...(Values) > 0, "with_values: give the mapping at least one value");
  static_assert((is_register_v<Values> && ...), "with_values: each dynamic value must be a Register");
  static_assert(((is_integer(Values::dtype::value) && Values::dtype::value != DataType::i1) && ...),
                "with_values: each dynamic value must be an index: i8, i32 or i64");
  static_assert((dims_subset_v<typename Values::dims_type, RD> && ...),
                "with_values: each dynamic value's dims must be some of the mapping's register dims");
  return DynamicMapping<RD>{*this, {detail::ValueAccess::ref(values)...}};
}

namespace detail {
// The dynamic values become the access's operands after its memory.
inline void add_dynamic_values(graph::Node& n, Tracer& tracer, const char* op, const std::source_location& where,
                               const std::vector<ValueRef>& values) {
  for (const ValueRef& v : values) {
    tracer.check_use(v, op, where);
    n.operands.push_back(v.id);
  }
}

inline void emit_write(graph::OpKind kind, ValueRef value, ValueRef mem, const std::optional<Mapping>& mapping,
                       const std::vector<std::string>& register_dims,
                       const std::vector<std::string>& memory_dims, AccessOptions access,
                       const std::source_location& where, const std::vector<ValueRef>& dynamic_values = {}) {
  const char* op = graph::op_name(kind);
  Tracer& tracer = Tracer::active(op, where);
  graph::Node node = make_node(tracer, kind, where, {value, mem});
  node.mapping = mapping;
  node.elements_per_thread = access.elements_per_thread;
  if (mapping) check_mapping(tracer, op, where, *mapping, register_dims, memory_dims, false);
  add_dynamic_values(node, tracer, op, where, dynamic_values);
  tracer.append(std::move(node));
}
}  // namespace detail

// read(mem, mapping.with_values(v...)): through a mapping whose memory side uses values
// read at run time, e.g. a paged cache addressed through its block table.
template <Dims RD, Dims D, DType T, auto S>
Register<RD, T> read(const Memory<D, T, S>& mem, const DynamicMapping<RD>& mapping, AccessOptions access = {},
                     std::source_location where = std::source_location::current()) {
  return detail::emit<Register<RD, T>>(
      graph::OpKind::Read, where, {detail::ValueAccess::ref(mem)}, [&](graph::Node& n, detail::Tracer& tracer) {
        n.mapping = mapping.erase();
        n.elements_per_thread = access.elements_per_thread;
        detail::check_mapping(tracer, "read", where, *n.mapping, dim_names<RD>(), dim_names<D>(), /*is_read=*/true);
        detail::add_dynamic_values(n, tracer, "read", where, mapping.values);
      });
}

template <Dims RD, Dims D, DType T, auto S>
Register<RD, T> read(const Memory<D, T, S>& mem, const IndexMapping<RD>& mapping, AccessOptions access = {},
                     std::source_location where = std::source_location::current()) {
  return read(mem, DynamicMapping<RD>{mapping, {}}, access, where);
}

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

// write(value, mem, mapping[.with_values(v...)]): scattered through the mapping, with
// indices read at run time where given. Two elements sent to one position leave one of
// them there, which one is unspecified (atomic_add adds both).
template <Dims RD, DType RT, Dims MD, DType MT, auto S>
void write(const Register<RD, RT>& value, const Memory<MD, MT, S>& mem, const DynamicMapping<RD>& mapping,
           AccessOptions access = {}, std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<RT, MT>, "write: the value's dtype must be the memory's; cast<>() it first");
  detail::emit_write(graph::OpKind::Write, detail::ValueAccess::ref(value), detail::ValueAccess::ref(mem),
                     mapping.erase(), dim_names<RD>(), dim_names<MD>(), access, where, mapping.values);
}

template <Dims RD, DType RT, Dims MD, DType MT, auto S>
void write(const Register<RD, RT>& value, const Memory<MD, MT, S>& mem, const IndexMapping<RD>& mapping,
           AccessOptions access = {}, std::source_location where = std::source_location::current()) {
  write(value, mem, DynamicMapping<RD>{mapping, {}}, access, where);
}

// atomic_add(value, mem[, mapping]): adds each element of `value` to the tensor's element at
// its position, as write() places it, atomically: two adds to one element, from any
// threads or workgroups, both land, in some order (float sums may then round differently
// from run to run). Each element of `value` is added once, however many threads hold it.
// The adds are relaxed: they order nothing else, and a read of `mem` in the same launch
// may see any subset of them; the sums are complete when the kernel has finished.
// Returns nothing. Element types: f16, bf16, f32, f64, i32, i64 in global memory.
//
// atomic_min(value, mem[, mapping]), atomic_max(...): the same, each element of memory
// left the smaller (larger) of itself and each value sent to it; the result does not
// depend on the order. Integers compare signed; floats as `minimum`/`maximum` do (a NaN
// on either side wins). Element types: f32, f64, i32, i64 in global memory.
#define WAVE_ATOMIC(fn, kind, allowed, dtypes)                                                        \
  template <Dims RD, DType RT, Dims MD, DType MT, auto S>                                             \
  void fn(const Register<RD, RT>& value, const Memory<MD, MT, S>& mem, AccessOptions access = {},     \
          std::source_location where = std::source_location::current()) {                            \
    static_assert(std::is_same_v<RT, MT>, #fn ": the value's dtype must be the memory's; cast<>() it first"); \
    static_assert(allowed(RT::value), #fn ": the dtype must be " dtypes);                             \
    static_assert(same_dim_set_v<RD, MD>, #fn ": the value must have the memory's dims (in any order); " \
                                          "use an IndexMapping to reach other dims");                 \
    detail::emit_write(graph::OpKind::kind, detail::ValueAccess::ref(value), detail::ValueAccess::ref(mem), \
                       std::nullopt, {}, {}, access, where);                                          \
  }                                                                                                   \
  template <Dims RD, DType RT, Dims MD, DType MT, auto S>                                             \
  void fn(const Register<RD, RT>& value, const Memory<MD, MT, S>& mem, const DynamicMapping<RD>& mapping, \
          AccessOptions access = {}, std::source_location where = std::source_location::current()) {  \
    static_assert(std::is_same_v<RT, MT>, #fn ": the value's dtype must be the memory's; cast<>() it first"); \
    static_assert(allowed(RT::value), #fn ": the dtype must be " dtypes);                             \
    detail::emit_write(graph::OpKind::kind, detail::ValueAccess::ref(value), detail::ValueAccess::ref(mem), \
                       mapping.erase(), dim_names<RD>(), dim_names<MD>(), access, where, mapping.values); \
  }                                                                                                   \
  template <Dims RD, DType RT, Dims MD, DType MT, auto S>                                             \
  void fn(const Register<RD, RT>& value, const Memory<MD, MT, S>& mem, const IndexMapping<RD>& mapping, \
          AccessOptions access = {}, std::source_location where = std::source_location::current()) {  \
    fn(value, mem, DynamicMapping<RD>{mapping, {}}, access, where);                                   \
  }
WAVE_ATOMIC(atomic_add, AtomicAdd, has_atomic_add, "f16, bf16, f32, f64, i32 or i64")
WAVE_ATOMIC(atomic_min, AtomicMin, has_atomic_min_max, "f32, f64, i32 or i64")
WAVE_ATOMIC(atomic_max, AtomicMax, has_atomic_min_max, "f32, f64, i32 or i64")
#undef WAVE_ATOMIC

}  // namespace wave
