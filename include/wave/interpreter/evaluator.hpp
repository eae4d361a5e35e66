// The interpreter's evaluator: runs a trace graph's ops in order on whole host tensors.
// One function per op; each states the op's meaning in the language, which the GPU
// lowering must match (tests compare the two).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "wave/error.hpp"
#include "wave/graph.hpp"
#include "wave/interpreter/elements.hpp"
#include "wave/interpreter/expr_program.hpp"
#include "wave/interpreter/host_value.hpp"
#include "wave/print_format.hpp"

namespace wave::interpreter {

// A kernel argument: the first element of a dense, row-major array in the argument's dtype.
struct HostArg {
  template <class T>
  HostArg(T* p) : data(const_cast<void*>(static_cast<const void*>(p))), writable(!std::is_const_v<T>) {}
  void* data = nullptr;
  bool writable = false;  // false for a pointer to const: the kernel must not write it
};

class Evaluator {
 public:
  Evaluator(const graph::KernelGraph& kernel, std::map<std::string, std::int64_t> symbols,
            const std::vector<HostArg>& args, const std::source_location& where, std::ostream& prints = std::cout)
      : kernel_(kernel), symbols_(std::move(symbols)), where_(where), prints_(prints) {
    if (args.size() != kernel.args.size())
      fail_at_call("interpret", expected_found(std::to_string(kernel.args.size()) + " arguments (one per Memory of the kernel)",
                                               std::to_string(args.size())));
    for (std::size_t i = 0; i < args.size(); ++i) {
      const graph::Argument& a = kernel.args[i];
      if (!args[i].data)
        fail_at_call("interpret", "argument " + std::to_string(i) + ": " + expected_found("a host pointer", "null"));
      Memory m{a.type, args[i].data, args[i].writable, {}, {}};
      for (const std::string& d : a.type.dims) m.sizes.push_back(size_of_dim(d, nullptr));
      m.strides = strides_of(m.sizes);
      memories_.emplace(a.id, std::move(m));
    }
  }

  void run() {
    std::set<std::string> dims;
    for (const auto& a : kernel_.args) dims.insert(a.type.dims.begin(), a.type.dims.end());
    collect_dims(kernel_.body, dims);
    for (const std::string& d : dims) scope_[d] = Box{0, size_of_dim(d, nullptr)};
    // A dim split over the GPUs: this rank's slice of it (RANK in subs picks the rank).
    for (const DeviceConstraint* c : kernel_.constraints.template all<DeviceConstraint>()) {
      auto rank = symbols_.find(std::string(RANK.name));
      auto tile = c->tile.evaluate(symbols_);
      if (rank == symbols_.end() || !tile)
        fail_at_call("interpret", "DeviceConstraint on " + c->dim + ": " +
                                      expected_found("values in subs for RANK and its tile", "none"));
      scope_[c->dim] = Box{rank->second * *tile, *tile};
    }
    // set_symbol's sizes and conditional's conditions are per workgroup: the body runs
    // once per point of their dims (each a workgroup tile of 1), as the workgroups along
    // them do.
    std::vector<std::string> per_point = per_workgroup_dims();
    std::vector<std::int64_t> extents;
    for (const std::string& d : per_point) extents.push_back(size_of_dim(d, nullptr));
    const std::map<std::string, Box> whole = scope_;
    walk(extents, {}, [&](const auto& at, const auto&) {
      scope_ = whole;
      for (std::size_t k = 0; k < per_point.size(); ++k) scope_[per_point[k]] = Box{at[k], 1};
      ends_.clear();
      values_.clear();
      run_block(kernel_.body);
    });
  }

 private:
  // The largest value interpreted (8 GiB of doubles): larger sizes are reported, not
  // allocated.
  static constexpr std::int64_t kMaxElements = std::int64_t(1) << 30;

  struct Memory {
    graph::MemoryType type;
    void* data;
    bool writable;
    std::vector<std::int64_t> sizes, strides;
  };

  [[noreturn]] void fail(const graph::Node& n, const std::string& message) const {
    throw Error(kernel_.name, graph::op_name(n.kind), n.loc.file, n.loc.line, "interpret: " + message);
  }
  [[noreturn]] void fail_at_call(const char* op, const std::string& message) const {
    throw Error(kernel_.name, op, where_, message);
  }

  std::int64_t size_of_dim(const std::string& dim, const graph::Node* n) const {
    auto it = symbols_.find(dim);
    const std::string message = "the size of " + dim + ": " +
                                expected_found("a value in subs (the interpreter needs every size)", "none");
    if (it == symbols_.end()) n ? fail(*n, message) : fail_at_call("interpret", message);
    if (it->second <= 0) {
      const std::string bad = "the size of " + dim + ": " + expected_found("a positive size", std::to_string(it->second));
      n ? fail(*n, bad) : fail_at_call("interpret", bad);
    }
    return it->second;
  }

  // The dims of the sizes the body's set_symbols take and of its conditionals'
  // conditions, in order of first appearance.
  std::vector<std::string> per_workgroup_dims() const {
    std::map<graph::ValueId, const graph::TensorType*> types;
    std::vector<std::string> out;
    for (const graph::Node& n : kernel_.body.nodes) {
      for (std::size_t i = 0; i < n.results.size() && i < n.result_types.size(); ++i) types[n.results[i]] = &n.result_types[i];
      const bool per_workgroup = n.kind == graph::OpKind::SetSymbol || n.kind == graph::OpKind::Conditional;
      if (!per_workgroup || n.operands.empty() || !types.count(n.operands[0])) continue;
      for (const std::string& d : types[n.operands[0]]->dims)
        if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    }
    return out;
  }

  // Where `dim` ends in the current workgroup: its size, or what set_symbol set.
  std::int64_t end_of(const std::string& dim, const graph::Node& n) const {
    auto it = ends_.find(dim);
    return it != ends_.end() ? it->second : size_of_dim(dim, &n);
  }

  static void collect_dims(const graph::Block& block, std::set<std::string>& out) {
    for (const graph::Node& n : block.nodes) {
      for (const auto& t : n.result_types) out.insert(t.dims.begin(), t.dims.end());
      if (!n.dim.empty()) out.insert(n.dim);
      for (const graph::Block& r : n.regions) collect_dims(r, out);
    }
  }

  // --- values ------------------------------------------------------------------------

  const HostValue& value(const graph::Node& n, graph::ValueId id) const {
    auto it = values_.find(id);
    if (it == values_.end()) fail(n, "operand %" + std::to_string(id) + " has no value (it is a Memory or undefined)");
    return it->second;
  }
  const Memory& memory(const graph::Node& n, graph::ValueId id) const {
    auto it = memories_.find(id);
    if (it == memories_.end()) fail(n, "operand %" + std::to_string(id) + ": " + expected_found("a Memory argument", "a register value"));
    return it->second;
  }

  // A result of `n` of type `type`, over the current scope's box of each dim.
  HostValue make_result(const graph::Node& n, const graph::TensorType& type) const {
    std::vector<Box> boxes;
    for (const std::string& d : type.dims) {
      auto it = scope_.find(d);
      if (it == scope_.end()) fail(n, "the size of " + d + ": " + expected_found("a value in subs", "none"));
      boxes.push_back(it->second);
    }
    std::int64_t elements = 1;
    for (const Box& b : boxes)
      if (b.extent < 0 || __builtin_mul_overflow(elements, b.extent, &elements) || elements > kMaxElements)
        fail(n, "a value of " + std::to_string(boxes.size()) + " dims: " +
                    expected_found("at most " + std::to_string(kMaxElements) + " elements to interpret", "more"));
    return HostValue::make(type, std::move(boxes));
  }

  // How `operand` is addressed over the points of (dims, boxes); every dim of the operand
  // must be among `dims` unless listed in `skip`.
  Access access(const graph::Node& n, const HostValue& operand, const std::vector<std::string>& dims,
                const std::vector<Box>& boxes, const std::string& skip = {}) const {
    const std::vector<std::int64_t> strides = strides_of(extents_of(operand.boxes));
    Access a{0, std::vector<std::int64_t>(dims.size(), 0)};
    for (std::size_t p = 0; p < operand.type.dims.size(); ++p) {
      const std::string& d = operand.type.dims[p];
      if (d == skip) continue;
      auto j = std::find(dims.begin(), dims.end(), d) - dims.begin();
      if (j == static_cast<std::ptrdiff_t>(dims.size()))
        fail(n, "an operand has the dim " + d + ", which the result lacks");
      if (!operand.boxes[p].contains(boxes[j]))
        fail(n, "an operand holds " + d + " over [" + std::to_string(operand.boxes[p].origin) + ", " +
                    std::to_string(operand.boxes[p].origin + operand.boxes[p].extent) + "), not the positions used here");
      a.strides[j] = strides[p];
      a.base += (boxes[j].origin - operand.boxes[p].origin) * strides[p];
    }
    return a;
  }

  // How memory is addressed over the points of (dims, boxes), dims matched by name.
  Access access(const graph::Node& n, const Memory& m, const std::vector<std::string>& dims,
                const std::vector<Box>& boxes) const {
    std::vector<std::string> sorted_value(dims), sorted_memory(m.type.dims);
    std::sort(sorted_value.begin(), sorted_value.end());
    std::sort(sorted_memory.begin(), sorted_memory.end());
    if (sorted_value != sorted_memory) fail(n, expected_found("the memory's dims (in any order)", "other dims"));
    Access a{0, std::vector<std::int64_t>(dims.size(), 0)};
    for (std::size_t j = 0; j < dims.size(); ++j) {
      auto p = std::find(m.type.dims.begin(), m.type.dims.end(), dims[j]) - m.type.dims.begin();
      a.strides[j] = m.strides[p];
      a.base += boxes[j].origin * m.strides[p];
    }
    return a;
  }

  ExprProgram program(const graph::Node& n, const Expr& e) const {
    std::string missing;
    auto p = ExprProgram::compile(e, symbols_, &missing);
    if (!p) fail(n, "the expression " + e.str() + " needs a value for " + missing + " in subs");
    return *p;
  }

  // --- blocks ------------------------------------------------------------------------

  // Runs `block`'s nodes; returns the operands of its yield, if it ends in one.
  std::vector<HostValue> run_block(const graph::Block& block) {
    for (const graph::Node& n : block.nodes) {
      if (n.kind == graph::OpKind::Yield) {
        std::vector<HostValue> out;
        for (graph::ValueId id : n.operands) out.push_back(value(n, id));
        return out;
      }
      std::vector<HostValue> results = evaluate(n);
      if (results.size() != n.results.size())
        fail(n, expected_found(std::to_string(n.results.size()) + " results", std::to_string(results.size())));
      for (std::size_t i = 0; i < results.size(); ++i) values_[n.results[i]] = std::move(results[i]);
    }
    return {};
  }

  std::vector<HostValue> evaluate(const graph::Node& n) {
    using K = graph::OpKind;
    switch (n.kind) {
      case K::Register: return {fill(n)};
      case K::Read: return {read(n)};
      case K::WaitAtLeast: return {wait_at_least(n)};
      case K::Write: case K::Signal: case K::AtomicAdd: case K::AtomicMin: case K::AtomicMax: write(n); return {};
      case K::Iterate: return iterate(n);
      case K::Conditional: return conditional(n);
      case K::Mma: return {mma(n)};
      case K::Add: case K::Sub: case K::Mul: case K::Div: case K::Maximum: case K::Minimum:
      case K::Atan2: case K::Powf:
        return {binary(n)};
      case K::Gt: case K::Ge: case K::Lt: case K::Le: case K::Eq: case K::Ne: return {compare(n)};
      case K::Neg: case K::Exp2: case K::Log2: case K::Reciprocal: case K::Abs: case K::Sqrt:
      case K::Rsqrt: case K::Tanh: case K::TanhApprox: case K::Sin: case K::Cos: case K::Sinh: case K::Cbrt: case K::RoundEven:
        return {unary(n)};
      case K::ReduceMax: case K::ReduceMin: case K::ReduceSum: return {reduce(n)};
      case K::Cumsum: return {cumsum(n)};
      case K::Extract: return {extract(n)};
      case K::Shuffle: return {shuffle(n)};
      case K::ExtractSlice: return {extract_slice(n)};
      case K::Reshape: return {reshape(n)};
      // Whole-tensor steps run one after another here: a barrier orders nothing more, and
      // a wave's priority changes no result.
      case K::WorkgroupBarrier: case K::SetWavePrio: return {};
      case K::Cast: return {cast(n)};
      case K::Bitcast: return {bitcast(n)};
      case K::Permute: case K::Broadcast: return {rearrange(n)};
      case K::Select: return {select(n)};
      case K::SelfIndex: return {self_index(n)};
      case K::ApplyExpr: return {apply_expr(n)};
      case K::Print: print(n); return {};
      case K::SetSymbol: set_symbol(n); return {};
      case K::Yield: break;
    }
    fail(n, "an op the interpreter does not know");
  }

  const graph::TensorType& result_type(const graph::Node& n) const {
    if (n.result_types.size() != 1) fail(n, expected_found("one result", std::to_string(n.result_types.size())));
    return n.result_types[0];
  }
  void same_dtype(const graph::Node& n, const HostValue& operand, DataType t) const {
    if (operand.type.dtype != t)
      fail(n, "an operand: " + expected_found("dtype " + std::string(name(t)), std::string(name(operand.type.dtype))));
  }
  // An operand that indexes (`what`: "the position") must hold integers.
  void need_integer(const graph::Node& n, const HostValue& v, const char* what) const {
    if (v.is_float() || v.type.dtype == DataType::i1)
      fail(n, std::string(what) + ": " + expected_found("an integer dtype", std::string(name(v.type.dtype))));
  }
  // Where n's dim (a reduction's, cumsum's, extract's, shuffle's) is among x's dims.
  std::ptrdiff_t dim_index(const graph::Node& n, const HostValue& x) const {
    const auto p = std::find(x.type.dims.begin(), x.type.dims.end(), n.dim) - x.type.dims.begin();
    if (p == static_cast<std::ptrdiff_t>(x.type.dims.size())) fail(n, "the operand has no dim " + n.dim);
    return p;
  }
  void need_operands(const graph::Node& n, std::size_t lo, std::size_t hi) const {
    if (n.operands.size() < lo || n.operands.size() > hi)
      fail(n, expected_found(std::to_string(lo) + (hi > lo ? "-" + std::to_string(hi) : "") + " operands",
                             std::to_string(n.operands.size())));
  }

  // --- ops ---------------------------------------------------------------------------

  // Register<D, T> r(fill): every element the fill, rounded to T.
  HostValue fill(const graph::Node& n) const {
    HostValue r = make_result(n, result_type(n));
    if (r.is_float()) std::fill(r.floats.begin(), r.floats.end(), elements::round_float(r.type.dtype, n.fill));
    else std::fill(r.integers.begin(), r.integers.end(), elements::float_to_integer(r.type.dtype, n.fill));
    return r;
  }

  // read(mem): the tensor's elements at the scope's positions. Through a mapping, iterator
  // k walks the k-th register dim; the register side places each point, the memory side
  // says which element it holds (inside the tensor, or 0 where the mapping masks the rest).
  HostValue read(const graph::Node& n) const {
    need_operands(n, 1 + dynamic_count(n), 1 + dynamic_count(n));
    const Memory& m = memory(n, n.operands[0]);
    HostValue r = make_result(n, result_type(n));
    if (r.type.dtype != m.type.dtype) fail(n, expected_found("the memory's dtype", std::string(name(r.type.dtype))));
    if (!n.mapping) {
      std::int64_t i = 0;
      walk(extents_of(r.boxes), {access(n, m, r.type.dims, r.boxes)}, [&](const auto&, const auto& off) {
        if (r.is_float()) r.floats[i++] = elements::load_float(m.type.dtype, m.data, off[0]);
        else r.integers[i++] = elements::load_integer(m.type.dtype, m.data, off[0]);
      });
      return r;
    }
    map_points(n, *n.mapping, r, m, /*is_read=*/true, 1, [&](std::int64_t at, std::int64_t o) {
      if (r.is_float()) r.floats[at] = elements::load_float(m.type.dtype, m.data, o);
      else r.integers[at] = elements::load_integer(m.type.dtype, m.data, o);
    });
    return r;
  }

  // wait_at_least(flags, n): the flags read; the interpreter runs nothing beside the kernel
  // that could raise one, so a flag below n is an error (it would wait forever).
  // wait_and_take: then n taken from each flag once per workgroup that waited for it.
  HostValue wait_at_least(const graph::Node& n) const {
    HostValue r = read(n);
    const std::int64_t least = n.expr ? eval(n, program(n, *n.expr), {}) : 1;
    for (std::size_t i = 0; i < r.integers.size(); ++i)
      if (r.integers[i] < least)
        fail(n, expected_found("flags at least " + std::to_string(least) +
                                   " (nothing runs beside the interpreter to set them)",
                               "a flag of " + std::to_string(r.integers[i])));
    if (n.take) take_flags(n, r, least);
    return r;
  }

  void take_flags(const graph::Node& n, const HostValue& r, std::int64_t least) const {
    const Memory& m = memory(n, n.operands[0]);
    if (!m.writable) fail(n, "takes from flags passed as a pointer to const");
    // Each element's workgroup: its position over each dim's workgroup tile.
    std::vector<std::int64_t> tiles;
    for (const std::string& d : r.type.dims) {
      const WorkgroupConstraint* c = kernel_.constraints.find<WorkgroupConstraint>(d);
      tiles.push_back(c ? eval(n, program(n, c->tile), {}) : 0);
    }
    const std::vector<std::int64_t> extents = extents_of(r.boxes), strides = strides_of(extents);
    std::set<std::pair<std::vector<std::int64_t>, std::int64_t>> taken;
    auto take = [&](std::int64_t at, std::int64_t offset) {
      std::vector<std::int64_t> workgroup;
      for (std::size_t d = 0; d < tiles.size(); ++d)
        workgroup.push_back(tiles[d] > 0 ? (r.boxes[d].origin + at / strides[d] % extents[d]) / tiles[d] : 0);
      if (taken.emplace(std::move(workgroup), offset).second)
        elements::store_integer(m.type.dtype, m.data, offset,
                                elements::load_integer(m.type.dtype, m.data, offset) - least);
    };
    if (n.mapping) {
      map_points(n, *n.mapping, r, m, /*is_read=*/true, 1, take);
      return;
    }
    std::int64_t i = 0;
    walk(extents, {access(n, m, r.type.dims, r.boxes)}, [&](const auto&, const auto& off) { take(i++, off[0]); });
  }

  // write(value, mem): the value's elements to the tensor, at its positions; atomic_add:
  // each added to the element there, rounded to its dtype (integers wrap); atomic_min and
  // atomic_max: the smaller or larger of the two kept (a NaN kept).
  void write(const graph::Node& n) const {
    need_operands(n, 2 + dynamic_count(n), 2 + dynamic_count(n));
    const HostValue& v = value(n, n.operands[0]);
    const Memory& m = memory(n, n.operands[1]);
    if (!m.writable) fail(n, "writes an argument passed as a pointer to const");
    if (v.type.dtype != m.type.dtype) fail(n, expected_found("the memory's dtype", std::string(name(v.type.dtype))));
    const graph::OpKind kind = n.kind;
    if (kind == graph::OpKind::AtomicAdd && !has_atomic_add(m.type.dtype))
      fail(n, expected_found("f16, bf16, f32, f64, i32 or i64", std::string(name(m.type.dtype))));
    if ((kind == graph::OpKind::AtomicMin || kind == graph::OpKind::AtomicMax) && !has_atomic_min_max(m.type.dtype))
      fail(n, expected_found("f32, f64, i32 or i64", std::string(name(m.type.dtype))));
    auto store = [&](std::int64_t at, std::int64_t o) {
      const DataType t = m.type.dtype;
      if (v.is_float()) {
        const double x = v.floats[at];
        double stored = x;
        if (kind != graph::OpKind::Write && kind != graph::OpKind::Signal) {
          const double old = elements::load_float(t, m.data, o);
          stored = kind == graph::OpKind::AtomicAdd   ? elements::round_float(t, old + x)
                   : kind == graph::OpKind::AtomicMin ? minimum(old, x)
                                                      : maximum(old, x);
        }
        elements::store_float(t, m.data, o, stored);
      } else {
        const std::int64_t x = v.integers[at];
        std::int64_t stored = x;
        if (kind != graph::OpKind::Write && kind != graph::OpKind::Signal) {
          const std::int64_t old = elements::load_integer(t, m.data, o);
          stored = kind == graph::OpKind::AtomicAdd
                       ? static_cast<std::int64_t>(static_cast<std::uint64_t>(old) + static_cast<std::uint64_t>(x))
                   : kind == graph::OpKind::AtomicMin ? std::min(old, x)
                                                      : std::max(old, x);
        }
        elements::store_integer(t, m.data, o, stored);
      }
    };
    if (!n.mapping) {
      std::int64_t i = 0;
      walk(extents_of(v.boxes), {access(n, m, v.type.dims, v.boxes)}, [&](const auto&, const auto& off) {
        store(i++, off[0]);
      });
      return;
    }
    map_points(n, *n.mapping, v, m, /*is_read=*/false, 2, store);
  }

  static std::size_t dynamic_count(const graph::Node& n) {
    return n.mapping ? static_cast<std::size_t>(std::max(n.mapping->dynamic, 0)) : 0;
  }

  // The points of an index mapping: iterators over the register value's boxes, then the
  // dynamic values (operands from `first_dynamic` on) at each point; `move(at, o)` moves
  // the element between the value's offset `at` and the memory's offset `o`.
  template <class Move>
  void map_points(const graph::Node& n, const Mapping& mapping, const HostValue& reg, const Memory& m, bool is_read,
                  std::size_t first_dynamic, Move&& move) const {
    const auto& register_side = is_read ? mapping.outputs : mapping.inputs;
    const auto& memory_side = is_read ? mapping.inputs : mapping.outputs;
    if (mapping.iterators != static_cast<int>(reg.type.dims.size()))
      fail(n, "index mapping: " + expected_found(std::to_string(reg.type.dims.size()) + " iterators",
                                                 std::to_string(mapping.iterators)));
    auto programs = [&](const std::vector<DimExpr>& side, const std::vector<std::string>& dims) {
      std::vector<ExprProgram> out;
      for (const std::string& d : dims) {
        auto e = std::find_if(side.begin(), side.end(), [&](const DimExpr& x) { return x.dim == d; });
        if (e == side.end()) fail(n, "index mapping: no entry for the dim " + d);
        out.push_back(program(n, e->expr));
      }
      return out;
    };
    const std::vector<ExprProgram> to_register = programs(register_side, reg.type.dims);
    const std::vector<ExprProgram> to_memory = programs(memory_side, m.type.dims);
    const std::vector<std::int64_t> reg_strides = strides_of(extents_of(reg.boxes));
    std::vector<const HostValue*> dynamic;
    std::vector<Access> dynamic_at;
    for (std::size_t k = 0; k < dynamic_count(n); ++k) {
      const HostValue& v = value(n, n.operands[first_dynamic + k]);
      if (v.is_float() || v.type.dtype == DataType::i1)
        fail(n, "dynamic value " + std::to_string(k) + ": " + expected_found("an index (i8, i32, i64)", std::string(name(v.type.dtype))));
      dynamic.push_back(&v);
      dynamic_at.push_back(access(n, v, reg.type.dims, reg.boxes));
    }
    // The iterator each register dim's position sets: the one its register-side entry
    // names (`{RANKS, iterator(2)}` runs iterator 2 over RANKS, whatever the numbering),
    // else the dim's own index.
    std::vector<std::size_t> iterator_of(reg.type.dims.size());
    std::vector<bool> named(reg.type.dims.size(), false);
    bool permutation = true;
    for (std::size_t d = 0; d < reg.type.dims.size(); ++d) {
      auto e = std::find_if(register_side.begin(), register_side.end(),
                            [&](const DimExpr& x) { return x.dim == reg.type.dims[d]; });
      const bool bare = e->expr.op() == ExprOp::Variable && e->expr.index() >= 0 &&
                        static_cast<std::size_t>(e->expr.index()) < reg.type.dims.size();
      iterator_of[d] = bare ? static_cast<std::size_t>(e->expr.index()) : d;
      permutation = permutation && !named[iterator_of[d]];
      named[iterator_of[d]] = true;
    }
    if (!permutation)
      for (std::size_t d = 0; d < iterator_of.size(); ++d) iterator_of[d] = d;
    std::vector<std::int64_t> iterators(reg.type.dims.size() + dynamic.size());
    walk(extents_of(reg.boxes), {}, [&](const auto& at, const auto&) {
      for (std::size_t k = 0; k < at.size(); ++k) iterators[iterator_of[k]] = reg.boxes[k].origin + at[k];
      for (std::size_t k = 0; k < dynamic.size(); ++k) {
        std::int64_t o = dynamic_at[k].base;
        for (std::size_t j = 0; j < at.size(); ++j) o += at[j] * dynamic_at[k].strides[j];
        iterators[at.size() + k] = dynamic[k]->integers[static_cast<std::size_t>(o)];
      }
      std::int64_t r = 0, o = 0;
      for (std::size_t d = 0; d < to_register.size(); ++d) {
        const std::int64_t p = eval(n, to_register[d], iterators) - reg.boxes[d].origin;
        if (p < 0 || p >= reg.boxes[d].extent) return;  // outside the value: no element here
        r += p * reg_strides[d];
      }
      for (std::size_t d = 0; d < to_memory.size(); ++d) {
        const std::int64_t p = eval(n, to_memory[d], iterators);
        if (p < 0 || p >= m.sizes[d]) {
          if (mapping.out_of_bounds == OutOfBounds::zero) return;  // a read's element stays 0
          fail(n, outside_message(m, to_memory, iterators, reg, d, p));
        }
        o += p * m.strides[d];
      }
      move(r, o);
    });
  }

  std::int64_t eval(const graph::Node& n, const ExprProgram& p, const std::vector<std::int64_t>& vars) const {
    auto v = p(vars);
    if (!v) fail(n, "an expression divides by zero or overflows 64 bits");
    return *v;
  }

  std::string outside_message(const Memory& m, const std::vector<ExprProgram>& to_memory,
                              const std::vector<std::int64_t>& iterators, const HostValue& reg,
                              std::size_t bad, std::int64_t at) const {
    std::string point, sizes;
    for (std::size_t k = 0; k < iterators.size(); ++k)
      point += (k ? ", " : "") +
               (k < reg.type.dims.size() ? reg.type.dims[k] : "dynamic_val(" + std::to_string(k - reg.type.dims.size()) + ")") +
               "=" + std::to_string(iterators[k]);
    for (std::size_t d = 0; d < to_memory.size(); ++d)
      sizes += (d ? ", " : "") + m.type.dims[d] + "=" + std::to_string(m.sizes[d]);
    return "index mapping at [" + point + "]: " +
           expected_found("an element inside the tensor [" + sizes + "]",
                          m.type.dims[bad] + " = " + std::to_string(at));
  }

  // set_symbol<K>(size): K ends at the size (its one element, clamped to [0, K's size]) in
  // what follows; values over K hold the positions before it.
  void set_symbol(const graph::Node& n) {
    need_operands(n, 1, 1);
    const HostValue& v = value(n, n.operands[0]);
    if (v.is_float() || v.type.dtype == DataType::i1)
      fail(n, "the size: " + expected_found("an integer (i8, i32, i64)", std::string(name(v.type.dtype))));
    if (v.integers.size() != 1)
      fail(n, "the size: " + expected_found("one element per workgroup", std::to_string(v.integers.size()) + " elements"));
    if (ends_.count(n.dim)) fail(n, expected_found("one set_symbol per dim", "a second one for " + n.dim));
    for (const std::string& d : v.type.dims) {
      const WorkgroupConstraint* c = kernel_.constraints.find<WorkgroupConstraint>(d);
      const std::int64_t tile = c ? eval(n, program(n, c->tile), {}) : size_of_dim(d, &n);
      if (tile != 1)
        fail(n, "the size: " + expected_found("one element per workgroup (a workgroup tile of 1 along " + d + ")",
                                              "a tile of " + std::to_string(tile)));
    }
    const std::int64_t end = std::clamp<std::int64_t>(v.integers[0], 0, size_of_dim(n.dim, &n));
    ends_[n.dim] = end;
    scope_[n.dim] = Box{0, end};
  }

  // iterate<K>(init, body): the body once per tile of K, in order, K's box the tile.
  std::vector<HostValue> iterate(const graph::Node& n) {
    if (n.regions.size() != 1) fail(n, expected_found("one body", std::to_string(n.regions.size())));
    const graph::Block& body = n.regions[0];
    const TilingConstraint* tiling = kernel_.constraints.find<TilingConstraint>(n.dim);
    if (!tiling) fail(n, expected_found("a TilingConstraint on " + n.dim, "none"));
    const std::int64_t tile = eval(n, program(n, tiling->tile), {});
    if (tile <= 0) fail(n, "tile of " + n.dim + ": " + expected_found("a positive size", std::to_string(tile)));
    const std::int64_t size = end_of(n.dim, n);
    std::vector<HostValue> carried;
    for (graph::ValueId id : n.operands) carried.push_back(value(n, id));
    if (body.args.size() != carried.size()) fail(n, expected_found(std::to_string(carried.size()) + " block arguments", std::to_string(body.args.size())));
    for (const HostValue& c : carried)
      if (std::find(c.type.dims.begin(), c.type.dims.end(), n.dim) != c.type.dims.end())
        fail(n, "a loop-carried value has the loop's dim " + n.dim + ": " + expected_found("values without it", "one with it"));
    const Box outer = scope_.at(n.dim);
    for (std::int64_t start = 0; start < size; start += tile) {
      scope_[n.dim] = Box{start, std::min(tile, size - start)};
      for (std::size_t i = 0; i < carried.size(); ++i) values_[body.args[i]] = std::move(carried[i]);
      carried = run_block(body);
      if (carried.size() != body.args.size()) fail(n, expected_found("a yield of every carried value", std::to_string(carried.size()) + " values"));
    }
    scope_[n.dim] = outer;
    return carried;
  }

  // mma(a, b, acc): acc + sum over the contraction dim of a * b, the products exact and the
  // sum rounded once to acc's dtype (the hardware's f32 accumulation); on integers (i8 into
  // i32) exact, wrapped to acc's dtype.
  HostValue mma(const graph::Node& n) const {
    need_operands(n, 3, 3);
    const HostValue& a = value(n, n.operands[0]);
    const HostValue& b = value(n, n.operands[1]);
    const HostValue& acc = value(n, n.operands[2]);
    HostValue r = make_result(n, result_type(n));
    std::string k;
    for (const std::string& d : a.type.dims)
      if (std::count(b.type.dims.begin(), b.type.dims.end(), d) && !std::count(r.type.dims.begin(), r.type.dims.end(), d)) k = d;
    const bool integer = !a.is_float();
    if (k.empty() || a.is_float() != b.is_float() || r.is_float() == integer)
      fail(n, "expected float (or integer) operands and accumulator alike, sharing a contraction dim");
    same_dtype(n, b, a.type.dtype);
    same_dtype(n, acc, r.type.dtype);
    auto k_of = [&](const HostValue& v) {
      const auto p = std::find(v.type.dims.begin(), v.type.dims.end(), k) - v.type.dims.begin();
      return std::pair{v.boxes[p], strides_of(extents_of(v.boxes))[p]};
    };
    const auto [a_box, a_step] = k_of(a);
    const auto [b_box, b_step] = k_of(b);
    if (!b_box.contains(a_box)) fail(n, "A and B hold different positions of " + k);
    Access a_access = access(n, a, r.type.dims, r.boxes, k), b_access = access(n, b, r.type.dims, r.boxes, k);
    b_access.base += (a_box.origin - b_box.origin) * b_step;
    std::int64_t i = 0;
    walk(extents_of(r.boxes), {access(n, acc, r.type.dims, r.boxes), a_access, b_access},
         [&](const auto&, const auto& off) {
           if (integer) {
             std::int64_t sum = acc.integers[off[0]];
             for (std::int64_t t = 0; t < a_box.extent; ++t)
               sum += a.integers[off[1] + t * a_step] * b.integers[off[2] + t * b_step];
             r.integers[i++] = elements::wrap_integer(r.type.dtype, sum);
             return;
           }
           double sum = 0;
           for (std::int64_t t = 0; t < a_box.extent; ++t) sum += a.floats[off[1] + t * a_step] * b.floats[off[2] + t * b_step];
           r.floats[i++] = elements::round_float(r.type.dtype, acc.floats[off[0]] + sum);
         });
    return r;
  }

  // Elementwise with broadcasting: an operand lacking some of the result's dims repeats
  // along them. Floats compute exactly, then round to the dtype; integers wrap.
  HostValue binary(const graph::Node& n) const {
    need_operands(n, 2, 2);
    const HostValue& x = value(n, n.operands[0]);
    const HostValue& y = value(n, n.operands[1]);
    HostValue r = make_result(n, result_type(n));
    const DataType t = r.type.dtype;
    same_dtype(n, x, t);
    same_dtype(n, y, t);
    std::int64_t i = 0;
    const auto kind = n.kind;
    walk(extents_of(r.boxes), {access(n, x, r.type.dims, r.boxes), access(n, y, r.type.dims, r.boxes)},
         [&](const auto&, const auto& off) {
           if (r.is_float()) {
             const double a = x.floats[off[0]], b = y.floats[off[1]];
             double v = 0;
             switch (kind) {
               case graph::OpKind::Add: v = a + b; break;
               case graph::OpKind::Sub: v = a - b; break;
               case graph::OpKind::Mul: v = a * b; break;
               case graph::OpKind::Div: v = a / b; break;
               // NaN-propagating, as arith.maximumf / minimumf.
               case graph::OpKind::Maximum: v = maximum(a, b); break;
               case graph::OpKind::Atan2: v = std::atan2(a, b); break;
               case graph::OpKind::Powf: v = std::pow(a, b); break;
               default: v = std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); break;
             }
             r.floats[i++] = elements::round_float(t, v);
           } else {
             const std::int64_t a = x.integers[off[0]], b = y.integers[off[1]];
             std::int64_t v = 0;
             if (kind == graph::OpKind::Atan2 || kind == graph::OpKind::Powf)
               fail(n, expected_found("float operands", std::string(name(t))));
             switch (kind) {
               case graph::OpKind::Add: v = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b)); break;
               case graph::OpKind::Sub: v = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)); break;
               case graph::OpKind::Mul: v = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b)); break;
               case graph::OpKind::Div:
                 if (b == 0) fail(n, "integer division by zero");
                 v = (a == INT64_MIN && b == -1) ? a : a / b;  // toward zero, as divsi
                 break;
               case graph::OpKind::Maximum: v = std::max(a, b); break;
               default: v = std::min(a, b); break;
             }
             r.integers[i++] = elements::wrap_integer(t, v);
           }
         });
    return r;
  }

  // gt, ge, lt, le, eq, ne: i1 elements, broadcasting as binary ops do; floats ordered
  // (NaN compares false) but for ne (true); integers signed.
  HostValue compare(const graph::Node& n) const {
    need_operands(n, 2, 2);
    const HostValue& x = value(n, n.operands[0]);
    const HostValue& y = value(n, n.operands[1]);
    HostValue r = make_result(n, result_type(n));
    if (r.type.dtype != DataType::i1) fail(n, expected_found("an i1 result", std::string(name(r.type.dtype))));
    same_dtype(n, y, x.type.dtype);
    std::int64_t i = 0;
    const auto kind = n.kind;
    walk(extents_of(r.boxes), {access(n, x, r.type.dims, r.boxes), access(n, y, r.type.dims, r.boxes)},
         [&](const auto&, const auto& off) {
           auto holds = [&](auto a, auto b) {
             switch (kind) {
               case graph::OpKind::Gt: return a > b;
               case graph::OpKind::Ge: return a >= b;
               case graph::OpKind::Lt: return a < b;
               case graph::OpKind::Le: return a <= b;
               case graph::OpKind::Eq: return a == b;
               default: return !(a == b);  // ne: true for NaN
             }
           };
           r.integers[i++] = x.is_float() ? holds(x.floats[off[0]], y.floats[off[1]])
                                          : holds(x.integers[off[0]], y.integers[off[1]]);
         });
    return r;
  }

  HostValue unary(const graph::Node& n) const {
    need_operands(n, 1, 1);
    const HostValue& x = value(n, n.operands[0]);
    HostValue r = make_result(n, result_type(n));
    const DataType t = r.type.dtype;
    same_dtype(n, x, t);
    std::int64_t i = 0;
    walk(extents_of(r.boxes), {access(n, x, r.type.dims, r.boxes)}, [&](const auto&, const auto& off) {
      if (!r.is_float()) {
        const std::int64_t a = x.integers[off[0]];
        if (n.kind != graph::OpKind::Neg && n.kind != graph::OpKind::Abs)
          fail(n, expected_found("a float operand", std::string(name(t))));
        const std::int64_t v = (n.kind == graph::OpKind::Abs && a >= 0) ? a
                               : static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a));
        r.integers[i++] = elements::wrap_integer(t, v);
        return;
      }
      const double a = x.floats[off[0]];
      double v = 0;
      switch (n.kind) {
        case graph::OpKind::Neg: v = -a; break;
        case graph::OpKind::Exp2: v = std::exp2(a); break;
        case graph::OpKind::Log2: v = std::log2(a); break;
        case graph::OpKind::Reciprocal: v = 1.0 / a; break;
        case graph::OpKind::Abs: v = std::fabs(a); break;
        case graph::OpKind::Sqrt: v = std::sqrt(a); break;
        case graph::OpKind::Rsqrt: v = 1.0 / std::sqrt(a); break;
        case graph::OpKind::Sin: v = std::sin(a); break;
        case graph::OpKind::Cos: v = std::cos(a); break;
        case graph::OpKind::Sinh: v = std::sinh(a); break;
        case graph::OpKind::Cbrt: v = std::cbrt(a); break;
        case graph::OpKind::RoundEven: v = std::nearbyint(a); break;  // the default mode: ties to even
        default: v = std::tanh(a); break;
      }
      r.floats[i++] = elements::round_float(t, v);
    });
    return r;
  }

  // NaN-propagating, as arith.maximumf and minimumf (the `maximum` and `minimum` ops, max
  // and min reductions). -0 and +0 compare equal here.
  static double maximum(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
  static double minimum(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }

  // max<K>(x[, init]), min<K>(x[, init]), sum<K>(x[, init]): over K's positions (floats
  // accumulate in f32, or f64 for f64), then combined with init.
  HostValue reduce(const graph::Node& n) const {
    need_operands(n, 1, 2);
    const HostValue& x = value(n, n.operands[0]);
    HostValue r = make_result(n, result_type(n));
    same_dtype(n, x, r.type.dtype);
    if (n.operands.size() == 2) same_dtype(n, value(n, n.operands[1]), r.type.dtype);
    const std::ptrdiff_t p = dim_index(n, x);
    const std::int64_t extent = x.boxes[p].extent, step = strides_of(extents_of(x.boxes))[p];
    const graph::OpKind kind = n.kind;
    const DataType work = r.type.dtype == DataType::f64 ? DataType::f64 : DataType::f32;
    std::vector<Access> accesses{access(n, x, r.type.dims, r.boxes, n.dim)};
    const HostValue* init = n.operands.size() == 2 ? &value(n, n.operands[1]) : nullptr;
    if (init) accesses.push_back(access(n, *init, r.type.dims, r.boxes));
    std::int64_t i = 0;
    walk(extents_of(r.boxes), accesses, [&](const auto&, const auto& off) {
      if (r.is_float()) {
        auto fold = [&](double acc, double v) {
          return kind == graph::OpKind::ReduceMax   ? maximum(acc, v)
                 : kind == graph::OpKind::ReduceMin ? minimum(acc, v)
                                                    : elements::round_float(work, acc + v);
        };
        double acc = kind == graph::OpKind::ReduceMax ? -INFINITY : kind == graph::OpKind::ReduceMin ? INFINITY : 0.0;
        for (std::int64_t t = 0; t < extent; ++t) acc = fold(acc, x.floats[off[0] + t * step]);
        if (init) acc = fold(acc, init->floats[off[1]]);
        r.floats[i++] = elements::round_float(r.type.dtype, acc);
      } else {
        auto fold = [&](std::int64_t acc, std::int64_t v) {
          return kind == graph::OpKind::ReduceMax   ? std::max(acc, v)
                 : kind == graph::OpKind::ReduceMin ? std::min(acc, v)
                                                    : elements::wrap_integer(r.type.dtype, acc + v);
        };
        std::int64_t acc = kind == graph::OpKind::ReduceMax ? INT64_MIN : kind == graph::OpKind::ReduceMin ? INT64_MAX : 0;
        for (std::int64_t t = 0; t < extent; ++t) acc = fold(acc, x.integers[off[0] + t * step]);
        if (init) acc = fold(acc, init->integers[off[1]]);
        r.integers[i++] = elements::wrap_integer(r.type.dtype, acc);
      }
    });
    return r;
  }

  // conditional(cond, body[, otherwise]): the body's results where the condition (one
  // element here: the body runs per point of its dims) holds, else `otherwise`'s values.
  std::vector<HostValue> conditional(const graph::Node& n) {
    need_operands(n, 1, 1 + n.result_types.size());
    if (n.operands.size() != 1 + n.result_types.size())
      fail(n, expected_found(std::to_string(n.result_types.size()) + " otherwise values (one per result)",
                             std::to_string(n.operands.size() - 1)));
    if (n.regions.size() != 1) fail(n, expected_found("one body", std::to_string(n.regions.size())));
    const HostValue& c = value(n, n.operands[0]);
    same_dtype(n, c, DataType::i1);
    if (c.integers.size() != 1)
      fail(n, "the condition: " + expected_found("one element per workgroup (each of its dims a workgroup tile of 1)",
                                                 std::to_string(c.integers.size()) + " elements"));
    if (c.integers[0] != 0) return run_block(n.regions[0]);
    std::vector<HostValue> otherwise;
    for (std::size_t i = 1; i < n.operands.size(); ++i) otherwise.push_back(value(n, n.operands[i]));
    return otherwise;
  }

  // extract<K>(x, at): x's element at `at`'s value along K; 0 where that lies outside the
  // positions of K this scope holds (or at or past K's end).
  HostValue extract(const graph::Node& n) const {
    need_operands(n, 2, 2);
    const HostValue& x = value(n, n.operands[0]);
    const HostValue& at = value(n, n.operands[1]);
    HostValue r = make_result(n, result_type(n));
    same_dtype(n, x, r.type.dtype);
    need_integer(n, at, "the position");
    const std::ptrdiff_t p = dim_index(n, x);
    const Box along = x.boxes[p];
    const std::int64_t step = strides_of(extents_of(x.boxes))[p], end = end_of(n.dim, n);
    std::int64_t i = 0;
    walk(extents_of(r.boxes), {access(n, x, r.type.dims, r.boxes, n.dim), access(n, at, r.type.dims, r.boxes)},
         [&](const auto&, const auto& off) {
           const std::int64_t k = at.integers[off[1]];
           const bool held = k >= along.origin && k < along.origin + along.extent && k < end;
           const std::int64_t from = off[0] + (k - along.origin) * step;
           if (r.is_float()) r.floats[i++] = held ? x.floats[from] : 0.0;
           else r.integers[i++] = held ? x.integers[from] : 0;
         });
    return r;
  }

  // shuffle<K>(x, mask): along K, element k takes x's element k ^ mask; 0 where that lies
  // at or past K's end. The partner must be among the positions this scope holds.
  HostValue shuffle(const graph::Node& n) const {
    need_operands(n, 1, 1);
    const HostValue& x = value(n, n.operands[0]);
    HostValue r = make_result(n, result_type(n));
    same_dtype(n, x, r.type.dtype);
    if (n.limit < 1) fail(n, expected_found("an xor mask of at least 1", std::to_string(n.limit)));
    const std::ptrdiff_t p = dim_index(n, x);
    const Box along = x.boxes[p];
    const std::int64_t step = strides_of(extents_of(x.boxes))[p], end = end_of(n.dim, n);
    std::int64_t i = 0;
    walk(extents_of(r.boxes), {access(n, x, r.type.dims, r.boxes)}, [&](const auto& point, const auto& off) {
      const std::int64_t k = r.boxes[p].origin + point[p], partner = k ^ n.limit;
      if (partner >= end) {
        if (r.is_float()) r.floats[i++] = 0.0;
        else r.integers[i++] = 0;
        return;
      }
      if (partner < along.origin || partner >= along.origin + along.extent)
        fail(n, "the partner of " + n.dim + " = " + std::to_string(k) + ": " +
                    expected_found("a position of the tile (" + std::to_string(along.origin) + " to " +
                                       std::to_string(along.origin + along.extent - 1) + ")",
                                   std::to_string(partner)));
      const std::int64_t from = off[0] + (partner - k) * step;
      if (r.is_float()) r.floats[i++] = x.floats[from];
      else r.integers[i++] = x.integers[from];
    });
    return r;
  }

  // The element of x at `at` (a position per dim of x, in the tensor); an error where a
  // position lies inside the dim but outside what this scope holds of it.
  double element_at(const graph::Node& n, const HostValue& x, const std::vector<std::int64_t>& at,
                    std::int64_t* integer) const {
    const std::vector<std::int64_t> strides = strides_of(extents_of(x.boxes));
    std::int64_t from = 0;
    for (std::size_t d = 0; d < at.size(); ++d) {
      const Box& held = x.boxes[d];
      if (at[d] < held.origin || at[d] >= held.origin + held.extent)
        fail(n, x.type.dims[d] + " = " + std::to_string(at[d]) + ": " +
                    expected_found("a position this scope holds (" + std::to_string(held.origin) + " to " +
                                       std::to_string(held.origin + held.extent - 1) + "; the dim whole)",
                                   "one outside"));
      from += (at[d] - held.origin) * strides[d];
    }
    if (x.is_float()) return x.floats[from];
    *integer = x.integers[from];
    return 0.0;
  }

  // Stores x's element at `at` (none: 0) as r's element i.
  void take_element(const graph::Node& n, const HostValue& x, const std::vector<std::int64_t>* at, HostValue& r,
                    std::int64_t i) const {
    std::int64_t integer = 0;
    const double value = at ? element_at(n, x, *at, &integer) : 0.0;
    if (r.is_float()) r.floats[i] = value;
    else r.integers[i] = integer;
  }

  // extract_slice<K, S>(x, offset, step): S in K's place; element s along it is x's
  // element offset + s * step along K, 0 outside [0, K's end).
  HostValue extract_slice(const graph::Node& n) const {
    need_operands(n, 2, 2);
    const HostValue& x = value(n, n.operands[0]);
    const HostValue& offset = value(n, n.operands[1]);
    HostValue r = make_result(n, result_type(n));
    same_dtype(n, x, r.type.dtype);
    need_integer(n, offset, "the offset");
    if (n.limit < 1) fail(n, expected_found("a step of at least 1", std::to_string(n.limit)));
    const std::ptrdiff_t p = dim_index(n, x);
    if (r.type.dims.size() != x.type.dims.size())
      fail(n, expected_found("a result of the operand's rank", std::to_string(r.type.dims.size()) + " dims"));
    const std::int64_t end = end_of(n.dim, n);
    std::int64_t i = 0;
    walk(extents_of(r.boxes), {access(n, offset, r.type.dims, r.boxes)}, [&](const auto& point, const auto& off) {
      std::vector<std::int64_t> at(point.size());
      for (std::size_t d = 0; d < at.size(); ++d) at[d] = r.boxes[d].origin + point[d];
      at[p] = offset.integers[off[0]] + at[p] * n.limit;
      const bool inside = at[p] >= 0 && at[p] < end;
      take_element(n, x, inside ? &at : nullptr, r, i++);
    });
    return r;
  }

  // reshape<dims<...>>(x): the dims both share at the start and at the end keep their
  // positions; those between are regrouped in row-major order (their sizes' products
  // must match).
  HostValue reshape(const graph::Node& n) const {
    need_operands(n, 1, 1);
    const HostValue& x = value(n, n.operands[0]);
    HostValue r = make_result(n, result_type(n));
    same_dtype(n, x, r.type.dtype);
    const std::vector<std::string>&from = x.type.dims, &to = r.type.dims;
    std::size_t lead = 0, tail = 0;
    while (lead < from.size() && lead < to.size() && from[lead] == to[lead]) ++lead;
    while (tail < from.size() - lead && tail < to.size() - lead && from[from.size() - 1 - tail] == to[to.size() - 1 - tail])
      ++tail;
    auto product = [&](const std::vector<std::string>& dims) {
      std::int64_t total = 1;
      for (std::size_t d = lead; d + tail < dims.size(); ++d) total *= size_of_dim(dims[d], &n);
      return total;
    };
    if (product(from) != product(to))
      fail(n, "the regrouped dims' sizes: " + expected_found("a product of " + std::to_string(product(from)) +
                                                                 " (the operand's)",
                                                             std::to_string(product(to))));
    std::int64_t i = 0;
    walk(extents_of(r.boxes), {}, [&](const auto& point, const auto&) {
      std::vector<std::int64_t> at(from.size());
      std::int64_t linear = 0;
      for (std::size_t d = 0; d < to.size(); ++d) {
        const std::int64_t position = r.boxes[d].origin + point[d];
        if (d < lead) at[d] = position;
        else if (d + tail >= to.size()) at[from.size() - (to.size() - d)] = position;
        else linear = linear * size_of_dim(to[d], &n) + position;
      }
      for (std::size_t d = from.size() - tail; d-- > lead;) {
        const std::int64_t size = size_of_dim(from[d], &n);
        at[d] = linear % size;
        linear /= size;
      }
      take_element(n, x, &at, r, i++);
    });
    return r;
  }

  // bitcast<T>(x): each element's bits, as stored in x's dtype, read as T's.
  HostValue bitcast(const graph::Node& n) const {
    need_operands(n, 1, 1);
    const HostValue& x = value(n, n.operands[0]);
    HostValue r = make_result(n, result_type(n));
    const DataType from = x.type.dtype, to = r.type.dtype;
    if (bit_width(from) != bit_width(to) || from == DataType::i1)
      fail(n, expected_found("a dtype of " + std::string(name(from)) + "'s width", std::string(name(to))));
    std::int64_t i = 0;
    walk(extents_of(r.boxes), {access(n, x, r.type.dims, r.boxes)}, [&](const auto&, const auto& off) {
      unsigned char bits[8] = {};
      if (x.is_float()) elements::store_float(from, bits, 0, x.floats[off[0]]);
      else elements::store_integer(from, bits, 0, x.integers[off[0]]);
      if (r.is_float()) r.floats[i++] = elements::load_float(to, bits, 0);
      else r.integers[i++] = elements::load_integer(to, bits, 0);
    });
    return r;
  }

  // cumsum<K>(x): along K, element i is the sum of elements 0..i (of the positions this
  // scope holds); floats accumulate in f32 (f64 for f64), integers wrap.
  HostValue cumsum(const graph::Node& n) const {
    need_operands(n, 1, 1);
    const HostValue& x = value(n, n.operands[0]);
    HostValue r = make_result(n, result_type(n));
    same_dtype(n, x, r.type.dtype);
    if (x.type.dims != r.type.dims) fail(n, expected_found("a result of the operand's dims", "other dims"));
    const std::ptrdiff_t p = dim_index(n, x);
    for (std::size_t d = 0; d < x.boxes.size(); ++d)
      if (x.boxes[d].origin != r.boxes[d].origin || x.boxes[d].extent != r.boxes[d].extent)
        fail(n, "the operand holds " + x.type.dims[d] + " over other positions than the result");
    const std::int64_t extent = x.boxes[p].extent, step = strides_of(extents_of(x.boxes))[p];
    const std::int64_t total = static_cast<std::int64_t>(x.is_float() ? x.floats.size() : x.integers.size());
    const DataType work = r.type.dtype == DataType::f64 ? DataType::f64 : DataType::f32;
    for (std::int64_t i = 0; i < total; ++i) {
      if ((i / step) % extent != 0) continue;  // not a row's first element
      double facc = 0.0;
      std::int64_t iacc = 0;
      for (std::int64_t t = 0; t < extent; ++t) {
        const std::int64_t at = i + t * step;
        if (r.is_float()) {
          facc = elements::round_float(work, facc + x.floats[at]);
          r.floats[at] = elements::round_float(r.type.dtype, facc);
        } else {
          iacc = elements::wrap_integer(r.type.dtype, static_cast<std::int64_t>(static_cast<std::uint64_t>(iacc) +
                                                                                static_cast<std::uint64_t>(x.integers[at])));
          r.integers[at] = iacc;
        }
      }
    }
    return r;
  }

  // cast<T>(x): floats round to nearest even; float to integer truncates toward zero
  // (saturating); to i1, nonzero is true; i1 converts as 0 or 1.
  HostValue cast(const graph::Node& n) const {
    need_operands(n, 1, 1);
    const HostValue& x = value(n, n.operands[0]);
    HostValue r = make_result(n, result_type(n));
    const DataType to = r.type.dtype;
    std::int64_t i = 0;
    walk(extents_of(r.boxes), {access(n, x, r.type.dims, r.boxes)}, [&](const auto&, const auto& off) {
      if (x.is_float() && r.is_float()) r.floats[i++] = elements::round_float(to, x.floats[off[0]]);
      else if (x.is_float()) r.integers[i++] = elements::float_to_integer(to, x.floats[off[0]]);
      else if (r.is_float()) r.floats[i++] = elements::round_float(to, static_cast<double>(x.integers[off[0]]));
      else r.integers[i++] = to == DataType::i1 ? x.integers[off[0]] != 0 : elements::wrap_integer(to, x.integers[off[0]]);
    });
    return r;
  }

  // permute and broadcast: the same elements, found by dim name.
  HostValue rearrange(const graph::Node& n) const {
    need_operands(n, 1, 1);
    const HostValue& x = value(n, n.operands[0]);
    HostValue r = make_result(n, result_type(n));
    same_dtype(n, x, r.type.dtype);
    std::int64_t i = 0;
    walk(extents_of(r.boxes), {access(n, x, r.type.dims, r.boxes)}, [&](const auto&, const auto& off) {
      if (r.is_float()) r.floats[i++] = x.floats[off[0]];
      else r.integers[i++] = x.integers[off[0]];
    });
    return r;
  }

  HostValue select(const graph::Node& n) const {
    need_operands(n, 3, 3);
    const HostValue& c = value(n, n.operands[0]);
    const HostValue& a = value(n, n.operands[1]);
    const HostValue& b = value(n, n.operands[2]);
    HostValue r = make_result(n, result_type(n));
    same_dtype(n, c, DataType::i1);
    same_dtype(n, a, r.type.dtype);
    same_dtype(n, b, r.type.dtype);
    std::int64_t i = 0;
    walk(extents_of(r.boxes),
         {access(n, c, r.type.dims, r.boxes), access(n, a, r.type.dims, r.boxes), access(n, b, r.type.dims, r.boxes)},
         [&](const auto&, const auto& off) {
           const bool pick = c.integers[off[0]] != 0;
           if (r.is_float()) r.floats[i++] = pick ? a.floats[off[1]] : b.floats[off[2]];
           else r.integers[i++] = pick ? a.integers[off[1]] : b.integers[off[2]];
         });
    return r;
  }

  // print(value[, mask], label): a line per element, row-major, those at a row-major
  // position (in the whole tensor) below the limit and where the mask holds.
  void print(const graph::Node& n) {
    need_operands(n, 1, 2);
    const HostValue& v = value(n, n.operands[0]);
    const HostValue* mask = n.operands.size() == 2 ? &value(n, n.operands[1]) : nullptr;
    if (mask) same_dtype(n, *mask, DataType::i1);
    if (std::string mistake = wave::print_mistake(n.label, n.limit); !mistake.empty()) fail(n, mistake);
    const std::size_t rank = v.type.dims.size();
    std::vector<std::int64_t> sizes;
    for (const std::string& d : v.type.dims) sizes.push_back(size_of_dim(d, &n));
    const std::vector<std::int64_t> strides = strides_of(sizes);
    std::vector<Access> accesses{Access{0, strides_of(extents_of(v.boxes))}};
    if (mask) accesses.push_back(access(n, *mask, v.type.dims, v.boxes));
    // The GPU's printf takes the same format; built here from its pieces (snprintf with a
    // format not known at compile time), so that both print the same text.
    const std::string format = wave::print_format(n.label, v.type.dims, v.is_float());
    const std::vector<std::string> pieces = wave::split_format(format);
    walk(extents_of(v.boxes), accesses, [&](const auto& at, const auto& off) {
      std::int64_t position = 0;
      for (std::size_t k = 0; k < rank; ++k) position += (v.boxes[k].origin + at[k]) * strides[k];
      if (position >= n.limit || (mask && mask->integers[off[1]] == 0)) return;
      std::string line = pieces[0];
      char buffer[64];
      for (std::size_t k = 0; k < rank; ++k) {
        std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v.boxes[k].origin + at[k]));
        line += buffer + pieces[k + 1];
      }
      if (v.is_float())
        std::snprintf(buffer, sizeof buffer, "%.6g", v.floats[off[0]]);
      else
        std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v.integers[off[0]]));
      prints_ << line << buffer << pieces[rank + 1];
    });
  }

  // self_index<K, T>(): element k holds its position k along K.
  HostValue self_index(const graph::Node& n) const {
    HostValue r = make_result(n, result_type(n));
    if (r.is_float()) fail(n, expected_found("an integer dtype", std::string(name(r.type.dtype))));
    if (r.type.dims.size() != 1) fail(n, expected_found("a result of one dim", std::to_string(r.type.dims.size())));
    for (std::int64_t k = 0; k < r.boxes[0].extent; ++k)
      r.integers[k] = elements::wrap_integer(r.type.dtype, r.boxes[0].origin + k);
    return r;
  }

  // apply_expr(x, f): f($0 = element) with the kernel's symbols.
  HostValue apply_expr(const graph::Node& n) const {
    need_operands(n, 1, 1);
    if (!n.expr) fail(n, "no expression");
    const HostValue& x = value(n, n.operands[0]);
    HostValue r = make_result(n, result_type(n));
    same_dtype(n, x, r.type.dtype);
    if (r.is_float()) fail(n, expected_found("an integer dtype", std::string(name(r.type.dtype))));
    const ExprProgram p = program(n, *n.expr);
    std::int64_t i = 0;
    std::vector<std::int64_t> var(1);
    walk(extents_of(r.boxes), {access(n, x, r.type.dims, r.boxes)}, [&](const auto&, const auto& off) {
      var[0] = x.integers[off[0]];
      r.integers[i++] = elements::wrap_integer(r.type.dtype, eval(n, p, var));
    });
    return r;
  }

  const graph::KernelGraph& kernel_;
  std::map<std::string, std::int64_t> symbols_;
  std::source_location where_;
  std::ostream& prints_;  // where print's lines go
  std::map<graph::ValueId, Memory> memories_;
  std::map<graph::ValueId, HostValue> values_;
  std::map<std::string, Box> scope_;
  std::map<std::string, std::int64_t> ends_;  // the dims set_symbol ended, in this workgroup
};

}  // namespace wave::interpreter
