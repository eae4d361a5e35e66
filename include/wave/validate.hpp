// Checks of a traced kernel that C++ types cannot express: constraints against the kernel's
// dims, and symbol values (`subs`) against the constraints.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "wave/graph.hpp"
#include "wave/options.hpp"

namespace wave {
namespace detail {

inline std::string join(const std::set<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

inline void collect_block_symbols(const graph::Block& block, std::set<std::string>& out) {
  for (const graph::Node& n : block.nodes) {
    if (!n.dim.empty()) out.insert(n.dim);
    for (const auto& t : n.result_types) out.insert(t.dims.begin(), t.dims.end());
    if (n.expr) out.merge(n.expr->symbols());
    if (n.mapping)
      for (const auto* side : {&n.mapping->inputs, &n.mapping->outputs})
        for (const DimExpr& e : *side) {
          out.insert(e.dim);
          out.merge(e.expr.symbols());
        }
    for (const graph::Block& region : n.regions) collect_block_symbols(region, out);
  }
}

inline bool uses_iterate(const graph::Block& block, const std::string& dim) {
  return std::any_of(block.nodes.begin(), block.nodes.end(), [&](const graph::Node& n) {
    if (n.kind == graph::OpKind::Iterate && n.dim == dim) return true;
    return std::any_of(n.regions.begin(), n.regions.end(),
                       [&](const graph::Block& b) { return uses_iterate(b, dim); });
  });
}

}  // namespace detail

namespace detail {
inline void collect_value_dims(const graph::Block& block, std::set<std::string>& out) {
  for (const graph::Node& n : block.nodes) {
    for (const auto& t : n.result_types) out.insert(t.dims.begin(), t.dims.end());
    for (const graph::Block& region : n.regions) collect_value_dims(region, out);
  }
}
}  // namespace detail

// The dims the kernel's arguments and values have.
inline std::set<std::string> kernel_dims(const graph::KernelGraph& k) {
  std::set<std::string> out;
  for (const auto& a : k.args) out.insert(a.type.dims.begin(), a.type.dims.end());
  detail::collect_value_dims(k.body, out);
  return out;
}

// Every symbol the kernel mentions: dims, address spaces, tile sizes, mapping and
// assumption expressions.
inline std::set<std::string> kernel_symbols(const graph::KernelGraph& k) {
  std::set<std::string> out = kernel_dims(k);
  for (const auto& a : k.args)
    if (a.type.address_space != "global" && a.type.address_space != "shared")
      out.insert(a.type.address_space);
  detail::collect_block_symbols(k.body, out);
  for (const Constraint& c : k.constraints)
    std::visit(
        [&](const auto& v) {
          using C = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<C, Assumption>) {
            out.merge(v.predicate.symbols());
          } else if constexpr (std::is_same_v<C, HardwareConstraint>) {
            for (const VectorShape& s : v.vector_shapes) out.insert(s.dim.name);
          } else {
            if constexpr (std::is_same_v<C, DeviceConstraint>) out.insert(std::string(RANK.name));
            out.insert(v.dim);
            out.merge(v.tile.symbols());
          }
        },
        c);
  return out;
}

// Constraints against the traced kernel. Throws wave::Error at the offending constraint.
inline void validate_constraints(const graph::KernelGraph& k, const std::source_location& kernel_where) {
  const Constraints& cs = k.constraints;
  auto fail = [&](const char* op, const std::source_location& where, const std::string& msg) {
    throw Error(k.name, op, where, msg);
  };
  const auto hardware = cs.all<HardwareConstraint>();
  if (hardware.empty())
    fail("HardwareConstraint", kernel_where,
         expected_found("one HardwareConstraint among the constraints", "none"));
  if (hardware.size() > 1)
    fail("HardwareConstraint", hardware[1]->where,
         expected_found("one HardwareConstraint", std::to_string(hardware.size())));
  const HardwareConstraint& hw = *hardware.front();
  if (hw.threads_per_wave != 0 && hw.threads_per_wave != 32 && hw.threads_per_wave != 64)
    fail("HardwareConstraint", hw.where,
         "threads_per_wave: " + expected_found("32 (NVIDIA), 64 (AMD CDNA) or 0 (the target's)",
                                               std::to_string(hw.threads_per_wave)));
  if (hw.mma && hw.threads_per_wave != 0 && info(*hw.mma).threads != hw.threads_per_wave)
    fail("HardwareConstraint", hw.where,
         "threads_per_wave: " +
             expected_found(std::to_string(info(*hw.mma).threads) + " for MMA kind " +
                                std::string(info(*hw.mma).name),
                            std::to_string(hw.threads_per_wave)));

  const std::set<std::string> dims = kernel_dims(k);
  auto check_dim = [&](const char* op, const std::string& dim, const std::source_location& where) {
    if (!dims.count(dim))
      fail(op, where, expected_found("a dim of the kernel's tensors (" + detail::join(dims) + ")",
                                     "'" + dim + "'"));
  };
  for (const VectorShape& s : hw.vector_shapes) check_dim("HardwareConstraint", s.dim.name, hw.where);

  std::map<int, const WorkgroupConstraint*> by_axis;
  for (const WorkgroupConstraint* c : cs.all<WorkgroupConstraint>()) {
    check_dim("WorkgroupConstraint", c->dim, c->where);
    if (c->workgroup_dim < 0 || c->workgroup_dim > 2)
      fail("WorkgroupConstraint", c->where,
           "workgroup_dim: " + expected_found("0, 1 or 2", std::to_string(c->workgroup_dim)));
    if (cs.find<WorkgroupConstraint>(c->dim) != c)
      fail("WorkgroupConstraint", c->where,
           expected_found("one WorkgroupConstraint per dim", "a second one on " + c->dim));
    if (auto [it, fresh] = by_axis.emplace(c->workgroup_dim, c); !fresh)
      fail("WorkgroupConstraint", c->where,
           "workgroup_dim " + std::to_string(c->workgroup_dim) + ": " +
               expected_found("a grid axis of its own", "it is taken by " + it->second->dim));
  }
  for (const WaveConstraint* c : cs.all<WaveConstraint>()) {
    check_dim("WaveConstraint", c->dim, c->where);
    if (!cs.find<WorkgroupConstraint>(c->dim) && !cs.find<TilingConstraint>(c->dim))
      fail("WaveConstraint", c->where,
           expected_found("a WorkgroupConstraint or TilingConstraint on " + c->dim +
                              " (waves split a workgroup's tile, or each tile a loop walks)",
                          "none"));
  }
  for (const DeviceConstraint* c : cs.all<DeviceConstraint>()) {
    check_dim("DeviceConstraint", c->dim, c->where);
    if (cs.find<DeviceConstraint>(c->dim) != c)
      fail("DeviceConstraint", c->where, expected_found("one DeviceConstraint per dim", "a second one on " + c->dim));
    if (cs.find<TilingConstraint>(c->dim))
      fail("DeviceConstraint", c->where,
           expected_found("a dim no loop walks (each rank would walk only its slice)",
                          "a TilingConstraint on " + c->dim));
  }
  for (const TilingConstraint* c : cs.all<TilingConstraint>()) {
    check_dim("TilingConstraint", c->dim, c->where);
    if (!detail::uses_iterate(k.body, c->dim))
      fail("TilingConstraint", c->where,
           expected_found("an iterate<" + c->dim + "> in the kernel body", "none"));
  }
}

// Symbol values against the kernel and its constraints. Throws wave::Error; `where` is the
// call that passed the values.
inline void validate_subs(const graph::KernelGraph& k, const Subs& subs,
                          const std::source_location& where) {
  auto fail = [&](const char* op, const std::source_location& at, const std::string& msg) {
    throw Error(k.name, op, at, msg);
  };
  const std::set<std::string> known = kernel_symbols(k);
  std::map<std::string, std::int64_t> values;
  for (const Sub& s : subs) {
    if (!known.count(s.symbol))
      fail("subs", where,
           expected_found("a symbol of the kernel (" + detail::join(known) + ")",
                          "'" + s.symbol + "'"));
    if (!values.emplace(s.symbol, s.value).second)
      fail("subs", where, expected_found("one value per symbol", "two for " + s.symbol));
    if (s.symbol == RANK.name ? s.value < 0 : !s.is_address_space && s.value <= 0)
      fail("subs", where,
           s.symbol + ": " + expected_found(s.symbol == RANK.name ? "a rank, 0 or more" : "a positive size",
                                            std::to_string(s.value)));
  }
  auto positive_tile = [&](const char* op, const std::string& dim, const Expr& tile,
                           const std::source_location& at) -> std::optional<std::int64_t> {
    auto v = tile.evaluate(values);
    if (v && *v <= 0)
      fail(op, at, "tile of " + dim + " = " + tile.str() + ": " +
                       expected_found("a positive size", std::to_string(*v)));
    return v;
  };
  const Constraints& cs = k.constraints;
  for (const TilingConstraint* c : cs.all<TilingConstraint>())
    positive_tile("TilingConstraint", c->dim, c->tile, c->where);
  for (const WorkgroupConstraint* c : cs.all<WorkgroupConstraint>()) {
    auto tile = positive_tile("WorkgroupConstraint", c->dim, c->tile, c->where);
    // On a dim a loop walks, the workgroups split the loop (split-K): each walks whole tiles.
    const auto* loop = cs.find<TilingConstraint>(c->dim);
    auto step = loop ? loop->tile.evaluate(values) : std::nullopt;
    if (tile && step && *step > 0 && *tile % *step != 0)
      fail("WorkgroupConstraint", c->where,
           "tile of " + c->dim + " = " + c->tile.str() + ": " +
               expected_found("a multiple of the TilingConstraint's tile " + std::to_string(*step) +
                                  " (workgroups splitting a loop each walk whole tiles)",
                              std::to_string(*tile)));
  }
  for (const DeviceConstraint* c : cs.all<DeviceConstraint>()) {
    auto tile = positive_tile("DeviceConstraint", c->dim, c->tile, c->where);
    auto size = values.find(c->dim);
    if (size == values.end())
      fail("DeviceConstraint", c->where,
           expected_found("a value in subs for " + c->dim + " (a dim split over ranks has a compiled size)", "none"));
    if (tile && size->second % *tile != 0)
      fail("DeviceConstraint", c->where,
           "tile of " + c->dim + " = " + c->tile.str() + ": " +
               expected_found("a divisor of " + c->dim + " = " + std::to_string(size->second) +
                                  " (the rank count is their quotient)",
                              std::to_string(*tile)));
    auto rank = values.find(std::string(RANK.name));
    if (rank == values.end())
      fail("DeviceConstraint", c->where,
           expected_found("a value in subs for RANK (compile(kernel, options, ranks) of wave/distributed.hpp sets "
                          "it per rank)",
                          "none"));
    if (tile && rank->second >= size->second / *tile)
      fail("subs", where,
           "RANK: " + expected_found("a rank below " + std::to_string(size->second / *tile) + " (" + c->dim +
                                         " / its DeviceConstraint's tile)",
                                     std::to_string(rank->second)));
  }
  for (const WaveConstraint* c : cs.all<WaveConstraint>()) {
    auto wave_tile = positive_tile("WaveConstraint", c->dim, c->tile, c->where);
    // The tile the waves split: the workgroup's, or for a dim a loop walks, each step's.
    const auto* workgroup = cs.find<WorkgroupConstraint>(c->dim);
    const Expr& split = workgroup ? workgroup->tile : cs.find<TilingConstraint>(c->dim)->tile;
    auto block_tile = split.evaluate(values);
    if (wave_tile && block_tile && *block_tile % *wave_tile != 0)
      fail("WaveConstraint", c->where,
           "wave tile of " + c->dim + " = " + c->tile.str() + ": " +
               expected_found(std::string("a divisor of the ") + (workgroup ? "workgroup" : "tiling") + " tile " +
                                  std::to_string(*block_tile),
                              std::to_string(*wave_tile)));
  }
  for (const Assumption* a : cs.all<Assumption>())
    if (auto holds = a->predicate.evaluate(values); holds && !*holds)
      fail("Assumption", a->where,
           expected_found(a->predicate.str() + " to hold",
                          a->predicate.substitute([&] {
                                        std::map<std::string, Expr> m;
                                        for (auto& [n, v] : values) m.emplace(n, Expr(v));
                                        return m;
                                      }())
                                  .str() +
                              ", which is false"));
  std::set<std::string> spaces;
  for (const auto& arg : k.args)
    if (arg.type.address_space != "global" && arg.type.address_space != "shared")
      spaces.insert(arg.type.address_space);
  for (const Sub& s : subs) {
    if (spaces.count(s.symbol) && !s.is_address_space)
      fail("subs", where,
           s.symbol + ": " + expected_found("an address space (GLOBAL_ADDRESS_SPACE or SHARED_ADDRESS_SPACE)",
                                            std::to_string(s.value)));
    if (!spaces.count(s.symbol) && s.is_address_space)
      fail("subs", where, s.symbol + ": " + expected_found("a size (it is not a Memory's address space)",
                                                            "an address space"));
  }
}

}  // namespace wave
