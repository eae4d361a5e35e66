// Index mappings whose memory side points outside its tensor, found at compile().
//
// The GPU code trusts a mapping: wherever its iterators lie inside the register value, the
// memory index it gives is read or written as it is, with no check (docs/language.md,
// "Index mappings"), and the interpreter stops at the first element outside. A mapping
// that leaves its tensor (a convolution's padding written as `oh + hf - 1`, a shifted
// window past the end) would read its neighbours' memory and return wrong numbers, so
// compile() looks for such a point first, where every size it needs is known: the corners
// of the iterators' ranges, then a fixed set of points inside them. It reports the first
// it finds, as the interpreter would, at the access's line; finding none proves nothing
// more (the interpreter checks every element). Sizes given only at launch are checked
// there, once per set of sizes (MappingBoundsAtLaunch).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "wave/error.hpp"
#include "wave/graph.hpp"
#include "wave/interpreter/expr_program.hpp"
#include "wave/options.hpp"

namespace wave {

namespace detail {

class MappingBoundsCheck {
 public:
  MappingBoundsCheck(const graph::KernelGraph& k, const Subs& subs) : kernel_(k) {
    for (const Sub& s : subs)
      if (!s.is_address_space) sizes_[s.symbol] = s.value;
    for (const graph::Argument& a : k.args) memories_[a.id] = &a.type;
    // Dims whose positions are a part of their size only (set at run time, or a rank's
    // slice): a point at the size's end may never be visited, so accesses over them are
    // left to the interpreter.
    for (const DeviceConstraint* c : k.constraints.all<DeviceConstraint>()) partial_.insert(c->dim);
    collect(k.body);
  }

  // An access the check takes: through a mapping without run-time values that does not
  // mask what leaves the tensor.
  static bool checked(const graph::Node& n) {
    return n.mapping && n.mapping->dynamic == 0 && n.mapping->out_of_bounds == OutOfBounds::error;
  }

  void run(const graph::Block& block) const {
    for (const graph::Node& n : block.nodes) {
      for (const graph::Block& region : n.regions) run(region);
      if (checked(n)) check(n);
    }
  }

 private:
  void collect(const graph::Block& block) {
    for (std::size_t i = 0; i < block.args.size() && i < block.arg_types.size(); ++i)
      types_[block.args[i]] = block.arg_types[i];
    for (const graph::Node& n : block.nodes) {
      for (std::size_t i = 0; i < n.results.size() && i < n.result_types.size(); ++i)
        types_[n.results[i]] = n.result_types[i];
      if (n.kind == graph::OpKind::SetSymbol) partial_.insert(n.dim);
      for (const graph::Block& region : n.regions) collect(region);
    }
  }

  void check(const graph::Node& n) const {
    const bool is_read = n.kind == graph::OpKind::Read;
    // The memory operand and the register value it exchanges with.
    const std::size_t memory_at = is_read ? 0 : 1;
    if (n.operands.size() <= memory_at) return;
    auto memory = memories_.find(n.operands[memory_at]);
    if (memory == memories_.end()) return;  // a view, not an argument
    const graph::TensorType* value = nullptr;
    if (is_read && !n.result_types.empty()) value = &n.result_types[0];
    if (!is_read)
      if (auto t = types_.find(n.operands[0]); t != types_.end()) value = &t->second;
    if (!value) return;
    const Mapping& m = *n.mapping;
    const std::vector<DimExpr>& register_side = is_read ? m.outputs : m.inputs;
    const std::vector<DimExpr>& memory_side = is_read ? m.inputs : m.outputs;
    // Iterator k runs over the register dim whose entry is the bare $k.
    const std::size_t count = value->dims.size();
    if (m.iterators != static_cast<int>(count) || count == 0 || count > 8) return;
    std::vector<std::int64_t> extent(count, -1);
    std::vector<std::string> iterated(count);
    for (const std::string& d : value->dims) {
      auto e = std::find_if(register_side.begin(), register_side.end(), [&](const DimExpr& x) { return x.dim == d; });
      if (e == register_side.end() || e->expr.op() != ExprOp::Variable) return;
      const int k = e->expr.index();
      auto size = sizes_.find(d);
      if (k < 0 || k >= static_cast<int>(count) || extent[k] >= 0 || size == sizes_.end() || size->second <= 0 ||
          partial_.count(d))
        return;  // (a hand-built graph's bad sizes are the importer's to report)
      extent[k] = size->second;
      iterated[k] = d;
    }
    // The memory side as programs of the iterators, with the dims' sizes.
    const graph::MemoryType& type = *memory->second;
    std::vector<interpreter::ExprProgram> index;
    std::vector<std::int64_t> bound;
    for (const std::string& d : type.dims) {
      auto e = std::find_if(memory_side.begin(), memory_side.end(), [&](const DimExpr& x) { return x.dim == d; });
      auto size = sizes_.find(d);
      std::string missing;
      if (e == memory_side.end() || size == sizes_.end()) return;
      auto program = interpreter::ExprProgram::compile(e->expr, sizes_, &missing);
      if (!program) return;  // a symbol known only at launch
      index.push_back(std::move(*program));
      bound.push_back(size->second);
    }
    std::vector<std::int64_t> at(count);
    auto outside = [&]() -> bool {
      for (std::size_t d = 0; d < index.size(); ++d) {
        auto p = index[d](at);
        if (p && (*p < 0 || *p >= bound[d])) {
          fail(n, type, iterated, at, d, *p);
          return true;
        }
      }
      return false;
    };
    // Every corner of the iterators' box, then points spread inside it.
    for (std::uint32_t corner = 0; corner < (1u << count); ++corner) {
      for (std::size_t k = 0; k < count; ++k) at[k] = (corner >> k & 1) ? extent[k] - 1 : 0;
      if (outside()) return;
    }
    std::mt19937_64 rng(0x5eed);
    for (int sample = 0; sample < 256; ++sample) {
      for (std::size_t k = 0; k < count; ++k) at[k] = std::uniform_int_distribution<std::int64_t>(0, extent[k] - 1)(rng);
      if (outside()) return;
    }
  }

  [[noreturn]] void fail(const graph::Node& n, const graph::MemoryType& type, const std::vector<std::string>& iterated,
                         const std::vector<std::int64_t>& at, std::size_t bad, std::int64_t found) const {
    std::string point, shape;
    for (std::size_t k = 0; k < at.size(); ++k) point += (k ? ", " : "") + iterated[k] + "=" + std::to_string(at[k]);
    for (std::size_t d = 0; d < type.dims.size(); ++d)
      shape += (d ? ", " : "") + type.dims[d] + "=" + std::to_string(sizes_.at(type.dims[d]));
    throw Error(kernel_.name, graph::op_name(n.kind), n.loc.file, n.loc.line,
                "index mapping at [" + point + "]: " +
                    expected_found("an element inside the tensor [" + shape + "]",
                                   type.dims[bad] + " = " + std::to_string(found)) +
                    " (an index outside its tensor would " + (n.kind == graph::OpKind::Read ? "read" : "write") +
                    " other memory; where the mapping leaves it on purpose, give it .out_of_bounds = "
                    "OutOfBounds::zero: " + (n.kind == graph::OpKind::Read ? "such a read gives 0" : "such a write is skipped") + ")");
  }

  const graph::KernelGraph& kernel_;
  std::map<std::string, std::int64_t> sizes_;
  std::map<graph::ValueId, const graph::MemoryType*> memories_;
  std::map<graph::ValueId, graph::TensorType> types_;
  std::set<std::string> partial_;
};

}  // namespace detail

// Throws a wave::Error at the access's line when an index mapping of `k` (one without
// run-time values) points outside its tensor at a point `subs` decides.
inline void check_mapping_bounds(const graph::KernelGraph& k, const Subs& subs) {
  const detail::MappingBoundsCheck check(k, subs);
  check.run(k.body);
}

// Whether `k` has an index mapping the check can take (one without run-time values that
// does not mask its points outside the tensor).
inline bool has_static_mappings(const graph::Block& block) {
  for (const graph::Node& n : block.nodes) {
    if (detail::MappingBoundsCheck::checked(n)) return true;
    for (const graph::Block& region : n.regions)
      if (has_static_mappings(region)) return true;
  }
  return false;
}

// The check again at launch, for a kernel compiled with some sizes left to it: each new
// set of sizes once (a launch at sizes already seen costs a lookup).
class MappingBoundsAtLaunch {
 public:
  MappingBoundsAtLaunch(graph::KernelGraph k, const Subs& compiled) : kernel_(std::move(k)) {
    for (const Sub& s : compiled)
      if (!s.is_address_space) compiled_[s.symbol] = s.value;
  }

  void operator()(const std::map<std::string, std::int64_t>& sizes) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (checked_.count(sizes)) return;
    std::map<std::string, std::int64_t> all = compiled_;
    for (const auto& [dim, size] : sizes) all[dim] = size;
    Subs subs;
    for (const auto& [symbol, value] : all) subs.push_back(Sub(symbol, value));
    check_mapping_bounds(kernel_, subs);
    if (checked_.size() >= 64) checked_.clear();  // many shapes (varlen batches): bounded
    checked_.insert(sizes);
  }

 private:
  graph::KernelGraph kernel_;
  std::map<std::string, std::int64_t> compiled_;
  mutable std::mutex mutex_;
  mutable std::set<std::map<std::string, std::int64_t>> checked_;
};

}  // namespace wave
