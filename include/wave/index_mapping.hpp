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
//
// Indices read at run time (a paged cache's block table, the rows a token routes to) enter
// as dynamic values: `dynamic_val(k)` in an expression stands for, at each point, the
// element of the k-th value given to `with_values` at that point's position. Each value is
// an integer register whose dims are some of the register side's (it is broadcast along
// the others):
//
//   IndexMapping<dims<N, D>> by_page{
//       .inputs = {{PAGE, dynamic_val(0)}, {SLOT, i % PAGE_SIZE}, {D, j}},
//       .outputs = {{N, i}, {D, j}}};
//   auto keys = read(k_cache, by_page.with_values(pages));   // pages: Register<dims<N>, i32>
//
// The values are trusted: an index outside its tensor reads or writes outside it (as an
// index past the end of a torch.gather's input would); check them before the launch, or
// let the mapping mask them (below).
//
// A memory index may leave its tensor on purpose: a padded convolution's taps at the
// image's border, a shifted window at a sequence's start. With `.out_of_bounds =
// OutOfBounds::zero` a read gives 0 at such a point and a write skips it:
//
//   IndexMapping<dims<M, K>> x_padded{
//       .inputs = {{H, oh + hf - 1}, ...}, .outputs = {{M, i}, {K, j}},
//       .out_of_bounds = OutOfBounds::zero};  // the taps outside the image read 0
//
// Without it such a point is the kernel's error: compile() (or the launch, for sizes
// given then) names the access and a point it found there.
#pragma once

#include <map>
#include <source_location>
#include <string>
#include <vector>

#include "wave/dims.hpp"
#include "wave/symbol.hpp"

namespace wave {

// The k-th iterator of an index mapping.
constexpr Variable iterator(int k) { return Variable(k); }

// Dynamic values are variables numbered from here until a mapping is given its values;
// then they follow its iterators ($rank, $rank + 1, ...).
inline constexpr int kFirstDynamicVal = 1 << 20;

// The k-th dynamic value of an index mapping (see above).
constexpr Variable dynamic_val(int k) { return Variable(kFirstDynamicVal + k); }

// What an access through a mapping does at a point whose memory index leaves the tensor.
enum class OutOfBounds {
  error,  // the kernel is wrong there: rejected where compile() or the launch finds such a point
  zero,   // a read gives 0 there (zero padding), a write leaves memory as it is
};

// One `dim: expression` entry of a mapping.
struct DimExpr {
  std::string dim;
  Expr expr;

  template <FixedString D, SymbolicOperand E>
  DimExpr(Symbol<D>, E e) : dim(Symbol<D>::name), expr(to_expr(e)) {}
  template <FixedString D>
  DimExpr(Symbol<D>, Expr e) : dim(Symbol<D>::name), expr(std::move(e)) {}
  DimExpr(std::string d, Expr e) : dim(std::move(d)), expr(std::move(e)) {}
};

// The untyped form the trace graph records: expressions over the iterators $0..$n-1 and
// then the dynamic values $n..$n+dynamic-1 (the access's operands after its memory).
struct Mapping {
  int iterators = 0;
  std::vector<DimExpr> inputs;
  std::vector<DimExpr> outputs;
  int dynamic = 0;
  OutOfBounds out_of_bounds = OutOfBounds::error;
};

// A mapping whose register side has the dims `RegisterDims` (one iterator per dim).
template <Dims RegisterDims>
struct IndexMapping {
  std::vector<DimExpr> inputs;
  std::vector<DimExpr> outputs;
  OutOfBounds out_of_bounds = OutOfBounds::error;
  std::source_location where = std::source_location::current();

  using register_dims = RegisterDims;
  // With `dynamic` values given, dynamic_val(k) becomes the variable after the iterators.
  Mapping erase(int dynamic = 0) const {
    const int rank = static_cast<int>(RegisterDims::rank);
    std::map<int, Expr> renumbered;
    for (int k = 0; k < dynamic; ++k) renumbered.emplace(kFirstDynamicVal + k, Expr::variable(rank + k));
    auto side = [&](const std::vector<DimExpr>& entries) {
      std::vector<DimExpr> out;
      for (const DimExpr& e : entries) out.emplace_back(e.dim, e.expr.substitute({}, renumbered));
      return out;
    };
    return Mapping{rank, side(inputs), side(outputs), dynamic, out_of_bounds};
  }

  // This mapping with its dynamic values, in order: integer registers whose dims are some
  // of RegisterDims (defined in ops/memory.hpp).
  template <class... Values>
  auto with_values(const Values&... values) const;
};

}  // namespace wave
