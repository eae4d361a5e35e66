// Index mappings: how a read or write walks memory when the register tile is not the
// memory tensor's plain view, e.g. the implicit im2col of a convolution.
//
//   constexpr auto i = iterator(0), j = iterator(1);
//   IndexMapping<dims<M, K>> x_to_mk{                  // the register side: [M, K]
//       .inputs = {{N, i / SZ_OUT}, {C, j % C}, ...},  // memory side: each memory dim as a
//       .outputs = {{M, i}, {K, j}}};                  //   function of the iterators
//
// Iterators run over the register dims, one per dim. As in Wave: for `read`, `inputs` maps
// the memory (source) dims and `outputs` the register (result) dims; for `write`, `inputs`
// maps the register (source) dims and `outputs` the memory (destination) dims.
#pragma once

#include <source_location>
#include <string>
#include <vector>

#include "wave/dims.hpp"
#include "wave/symbol.hpp"

namespace wave {

// The k-th iterator of an index mapping.
constexpr Variable iterator(int k) { return Variable(k); }

// One `dim: expression` entry of a mapping.
struct DimExpr {
  std::string dim;
  Expr expr;

  template <FixedString D, SymbolicOperand E>
  DimExpr(Symbol<D>, E e) : dim(Symbol<D>::name), expr(to_expr(e)) {}
  DimExpr(std::string d, Expr e) : dim(std::move(d)), expr(std::move(e)) {}
};

// The untyped form the trace graph records.
struct Mapping {
  int iterators = 0;
  std::vector<DimExpr> inputs;
  std::vector<DimExpr> outputs;
};

// A mapping whose register side has the dims `RegisterDims` (one iterator per dim).
template <Dims RegisterDims>
struct IndexMapping {
  std::vector<DimExpr> inputs;
  std::vector<DimExpr> outputs;
  std::source_location where = std::source_location::current();

  using register_dims = RegisterDims;
  Mapping erase() const { return Mapping{static_cast<int>(RegisterDims::rank), inputs, outputs}; }
};

}  // namespace wave
