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
// a store with release semantics at system scope. `value` may be a register, or a number
// or an expression of the kernel's symbols set in every flag (`signal(1, flags, to_peers)`).
// wait_at_least(flags, n[, mapping]) -> Register: reads each flag the result covers, with
// acquire semantics at system scope, until it is at least `n` (a number or an expression
// of the kernel's symbols, `RANKS - 1`), then waits at a workgroup barrier: every read of
// the workgroup after the call sees what was written before the flags were set (TMA
// copies included). Returns the values seen; no read moves across it.
//
// Where several elements of a workgroup's tile name one flag (a flag per block of rows:
// `i / CHUNK_ROWS`), the flag is stored or waited for once: by the holder of the first
// such element along the value's last dim, the others taking its place (for a wait, the
// value they return is read once after the workgroup's barrier).
//
// wait_and_take(flags, n[, mapping]): as wait_at_least, then each workgroup subtracts n
// from each flag it waited for, once and atomically: a flag counts the signals not yet
// waited for, and is back at 0 for the next launch with no reset from the host. Two
// kernels that meet every launch (each rank's blocks signalling their peers' and waiting
// for theirs, as examples/kernels/collectives.hpp does) need nothing else, provided a
// flag is set again only after the wait that takes it, which such a meeting ensures.
//
// Flags are i32 or i64 in global memory (a symmetric buffer's slot for another GPU's). A
// wait must only wait for work that makes progress without it: a copy or kernel on another
// stream or GPU, or workgroups that are already running; a workgroup waiting for one that
// cannot start until it finishes never returns (a copy within one GPU may be such work: the
// driver may run it as a kernel). Load the kernels that set a wait's flags before the
// waiting one runs (CompiledKernel::load; a distributed launch loads every rank's): the
// driver may load a module only after the running kernels have finished. Rather than
// hang, a wait that has not seen its value after some 10 seconds traps, and the launch
// fails.
#pragma once

#include <source_location>

#include "wave/ops/index.hpp"
#include "wave/ops/memory.hpp"
#include "wave/ops/shape.hpp"

namespace wave {

namespace detail {
inline constexpr bool is_flag(DataType t) { return t == DataType::i32 || t == DataType::i64; }

template <Dims RD, Dims D, DType T, auto S>
Register<RD, T> wait_for_flags(const char* op, const Memory<D, T, S>& flags, const Expr& at_least, bool take,
                               const IndexMapping<RD>* mapping, std::source_location where) {
  return detail::emit<Register<RD, T>>(graph::OpKind::WaitAtLeast, where, {detail::ValueAccess::ref(flags)},
                                       [&](graph::Node& n, detail::Tracer& tracer) {
                                         n.expr = at_least;
                                         n.take = take;
                                         if (!mapping) return;
                                         n.mapping = mapping->erase(0);
                                         detail::check_mapping(tracer, op, where, *n.mapping, dim_names<RD>(),
                                                               dim_names<D>(), /*is_read=*/true);
                                       });
}
}  // namespace detail

template <Dims RD, Dims D, DType T, auto S, SymbolicOperand N>
Register<RD, T> wait_at_least(const Memory<D, T, S>& flags, N at_least, const IndexMapping<RD>& mapping,
                              std::source_location where = std::source_location::current()) {
  static_assert(detail::is_flag(T::value), "wait_at_least: flags must be i32 or i64");
  return detail::wait_for_flags("wait_at_least", flags, to_expr(at_least), false, &mapping, where);
}

template <Dims D, DType T, auto S, SymbolicOperand N>
Register<D, T> wait_at_least(const Memory<D, T, S>& flags, N at_least,
                             std::source_location where = std::source_location::current()) {
  static_assert(detail::is_flag(T::value), "wait_at_least: flags must be i32 or i64");
  return detail::wait_for_flags<D>("wait_at_least", flags, to_expr(at_least), false, nullptr, where);
}

// wait_and_take(flags, n[, mapping]): wait_at_least, then each workgroup takes n from each
// flag it waited for (once, atomically), leaving it ready for the next launch's signals.
template <Dims RD, Dims D, DType T, auto S, SymbolicOperand N>
Register<RD, T> wait_and_take(const Memory<D, T, S>& flags, N n, const IndexMapping<RD>& mapping,
                              std::source_location where = std::source_location::current()) {
  static_assert(detail::is_flag(T::value), "wait_and_take: flags must be i32 or i64");
  return detail::wait_for_flags("wait_and_take", flags, to_expr(n), true, &mapping, where);
}

template <Dims D, DType T, auto S, SymbolicOperand N>
Register<D, T> wait_and_take(const Memory<D, T, S>& flags, N n,
                             std::source_location where = std::source_location::current()) {
  static_assert(detail::is_flag(T::value), "wait_and_take: flags must be i32 or i64");
  return detail::wait_for_flags<D>("wait_and_take", flags, to_expr(n), true, nullptr, where);
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

// signal(n, flags, mapping): every flag the mapping reaches set to n, a number or an
// expression of the kernel's symbols.
template <SymbolicOperand N, Dims RD, Dims MD, DType MT, auto S>
void signal(N value, const Memory<MD, MT, S>& flags, const IndexMapping<RD>& mapping,
            std::source_location where = std::source_location::current()) {
  signal(broadcast<RD>(scalar<MT>(value, where), where), flags, mapping, where);
}

}  // namespace wave
