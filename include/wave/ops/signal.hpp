// Signals: flags in global memory that one side sets and another waits for, so that a
// kernel can start on data while a copy, another kernel or another GPU produces the rest.
//
//   // row i's flag: ready[i / CHUNK_ROWS]
//   const IndexMapping<dims<M>> set_chunk{.inputs = {{M, i}}, .outputs = {{CHUNKS, i / CHUNK_ROWS}}};
//   const IndexMapping<dims<M>> chunk_of{.inputs = {{CHUNKS, i / CHUNK_ROWS}}, .outputs = {{M, i}}};
//   signal(Register<dims<M>, i32>(1), ready, set_chunk);  // after this workgroup's writes so far
//   auto seen = wait_at_least(ready, 1, chunk_of);        // before this workgroup's later reads
//
// signal(value, flags[, mapping]): sets each flag to value's element (placed as write()
// places it, each element once however many threads hold it) once every write this
// workgroup made before it is visible to every GPU of the node: a workgroup barrier, then
// a store with release semantics at system scope.
// wait_at_least(flags, n[, mapping]) -> Register: reads each flag the result covers, with
// acquire semantics at system scope, until it is at least `n`, then waits at a workgroup
// barrier: every read of the workgroup after the call sees what was written before the
// flags were set (TMA copies included). Returns the values seen; no read moves across it.
//
// Flags are i32 or i64 in global memory (a symmetric buffer's slot for another GPU's). A
// wait must only wait for work that makes progress without it: a copy or kernel on another
// stream or GPU, or workgroups that are already running; a workgroup waiting for one that
// cannot start until it finishes never returns (a copy within one GPU may be such work: the
// driver may run it as a kernel). Launch the kernels that set a wait's flags once before
// the waiting one is running: the driver may load a module only after the running kernels
// have finished. Rather than hang, a wait that has not seen its value after some 10
// seconds traps, and the launch fails.
#pragma once

#include <source_location>

#include "wave/ops/memory.hpp"

namespace wave {

namespace detail {
inline constexpr bool is_flag(DataType t) { return t == DataType::i32 || t == DataType::i64; }
}  // namespace detail

template <Dims RD, Dims D, DType T, auto S>
Register<RD, T> wait_at_least(const Memory<D, T, S>& flags, std::int64_t at_least, const IndexMapping<RD>& mapping,
                              std::source_location where = std::source_location::current()) {
  static_assert(detail::is_flag(T::value), "wait_at_least: flags must be i32 or i64");
  return detail::emit<Register<RD, T>>(
      graph::OpKind::WaitAtLeast, where, {detail::ValueAccess::ref(flags)},
      [&](graph::Node& n, detail::Tracer& tracer) {
        n.mapping = mapping.erase(0);
        n.limit = at_least;
        detail::check_mapping(tracer, "wait_at_least", where, *n.mapping, dim_names<RD>(), dim_names<D>(),
                              /*is_read=*/true);
      });
}

template <Dims D, DType T, auto S>
Register<D, T> wait_at_least(const Memory<D, T, S>& flags, std::int64_t at_least,
                             std::source_location where = std::source_location::current()) {
  static_assert(detail::is_flag(T::value), "wait_at_least: flags must be i32 or i64");
  return detail::emit<Register<D, T>>(graph::OpKind::WaitAtLeast, where, {detail::ValueAccess::ref(flags)},
                                      [&](graph::Node& n, detail::Tracer&) { n.limit = at_least; });
}

template <Dims RD, DType RT, Dims MD, DType MT, auto S>
void signal(const Register<RD, RT>& value, const Memory<MD, MT, S>& flags, const IndexMapping<RD>& mapping,
            std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<RT, MT>, "signal: the value's dtype must be the flags'; cast<>() it first");
  static_assert(detail::is_flag(MT::value), "signal: flags must be i32 or i64");
  detail::emit_write(graph::OpKind::Signal, detail::ValueAccess::ref(value), detail::ValueAccess::ref(flags),
                     mapping.erase(0), dim_names<RD>(), dim_names<MD>(), {}, where);
}

template <Dims RD, DType RT, Dims MD, DType MT, auto S>
void signal(const Register<RD, RT>& value, const Memory<MD, MT, S>& flags,
            std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<RT, MT>, "signal: the value's dtype must be the flags'; cast<>() it first");
  static_assert(detail::is_flag(MT::value), "signal: flags must be i32 or i64");
  static_assert(same_dim_set_v<RD, MD>,
                "signal: the value must have the flags' dims (in any order); use an IndexMapping to reach others");
  detail::emit_write(graph::OpKind::Signal, detail::ValueAccess::ref(value), detail::ValueAccess::ref(flags),
                     std::nullopt, {}, {}, {}, where);
}

}  // namespace wave
