// set_symbol: a dim's size read at run time, per workgroup.
//
//   auto length = read(seq_lens, sequence);   // [B], one sequence per workgroup
//   set_symbol<N>(length);                    // from here on, N ends at length
//   auto out = iterate<N>(init, body);        // walks ceil(length / BLOCK_N) tiles
//
// From the call on, in each workgroup, `Dim` ends at the value (at most its size in subs
// or at launch; a negative value ends it at 0): reads, writes, reductions and prints
// leave out positions at or past it, as they do past a size's end, and `iterate<Dim>`
// stops after the tile holding its last position. The grid keeps the size given at
// launch (a workgroup whose tile starts past the new end writes nothing along `Dim` and
// skips the loops whose carried values all lie along it); the symbol `Dim` in
// expressions keeps that size too.
//
// The value is one integer per workgroup: each of its dims must be one a workgroup holds
// a single position of (a WorkgroupConstraint of tile 1). set_symbol goes in the kernel
// body itself (not in an iterate body), once per dim, before any op over `Dim`.
#pragma once

#include <source_location>
#include <string>
#include <type_traits>

#include "wave/ops/emit.hpp"

namespace wave {

template <auto Dim, Dims D, DType T>
void set_symbol(const Register<D, T>& size, std::source_location where = std::source_location::current()) {
  using Sym = std::remove_cv_t<decltype(Dim)>;
  static_assert(is_symbol_v<Sym>, "set_symbol<Dim>: Dim must be a symbol, e.g. set_symbol<N>(length)");
  static_assert(is_integer(T::value) && !std::is_same_v<T, i1>,
                "set_symbol: the size must have an integer dtype (i8, i32 or i64)");
  static_assert(!has_dim_v<D, Sym>, "set_symbol<Dim>: the size cannot vary along Dim itself");
  detail::Tracer& tracer = detail::Tracer::active("set_symbol", where);
  if (!tracer.at_top_level())
    tracer.fail("set_symbol", where,
                expected_found("a call in the kernel body itself (a size is set once per workgroup)",
                               "a call inside an iterate or conditional body"));
  graph::Node node = detail::make_node(tracer, graph::OpKind::SetSymbol, where, {detail::ValueAccess::ref(size)});
  node.dim = std::string(Sym::name);
  tracer.append(std::move(node));
}

}  // namespace wave
