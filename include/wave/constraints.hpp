// Constraints: how a kernel's work is distributed over the GPU, stated apart from the kernel
// body. They relate tensor dims to tile sizes, both symbolic:
//
//   Constraints{WorkgroupConstraint(M, BLOCK_M, 0),   // M is split in BLOCK_M tiles over grid x
//               WaveConstraint(M, BLOCK_M / 2),       // each wave takes BLOCK_M / 2 rows of it
//               TilingConstraint(K, BLOCK_K),         // iterate<K> walks K in BLOCK_K steps
//               HardwareConstraint{.threads_per_wave = 32, .mma = MMA::F32_16x8x16_F16},
//               Assumption(K > BLOCK_K * 4)}          // a fact the compiler may rely on
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <source_location>
#include <string>
#include <variant>
#include <vector>

#include "wave/mma.hpp"
#include "wave/symbol.hpp"

namespace wave {

// Distributes `dim` over workgroups in tiles of `tile`; `workgroup_dim` is the grid axis
// (0 = x, 1 = y, 2 = z).
struct WorkgroupConstraint {
  std::string dim;
  Expr tile;
  int workgroup_dim;
  std::source_location where;

  template <FixedString D, SymbolicOperand T>
  WorkgroupConstraint(Symbol<D>, T tile_size, int grid_axis,
                      std::source_location loc = std::source_location::current())
      : dim(Symbol<D>::name), tile(to_expr(tile_size)), workgroup_dim(grid_axis), where(loc) {}
};

// The rank of the GPU a kernel spread over several (DeviceConstraint) runs on: 0 to the
// rank count - 1. compile() for a set of ranks (wave/distributed.hpp) binds it per rank;
// kernels use it in index expressions and mappings (a peer's slot: (RANK + 1) % RANKS).
inline constexpr Symbol<"RANK"> RANK{};

// A dim and a tile size: what wave and tiling constraints state.
struct DimTile {
  std::string dim;
  Expr tile;
  std::source_location where;

  template <FixedString D, SymbolicOperand T>
  DimTile(Symbol<D>, T tile_size, std::source_location loc = std::source_location::current())
      : dim(Symbol<D>::name), tile(to_expr(tile_size)), where(loc) {}
};

// Distributes a workgroup's tile of `dim` over waves, `tile` elements each.
struct WaveConstraint : DimTile {
  using DimTile::DimTile;
};

// `iterate<dim>` walks `dim` sequentially in steps of `tile`.
struct TilingConstraint : DimTile {
  using DimTile::DimTile;
};

// Distributes `dim` over the GPUs of a node (docs/distributed.md): rank r takes the slice
// [r * tile, (r + 1) * tile), which its workgroups then split as if it were the whole dim.
// `tile` must divide the dim's size; the quotient is the rank count.
struct DeviceConstraint : DimTile {
  using DimTile::DimTile;
};

// How many elements of `dim` one wave handles per expansion step (0: the dim is not
// distributed over threads, as for batch dims).
struct VectorShape {
  SymbolName dim;
  std::int64_t size;
};

// The machine the kernel is written for.
struct HardwareConstraint {
  // 32 on NVIDIA (a warp), 64 on AMD CDNA; 0: the MMA kind's if one is given, else the
  // compile target's (wave/target.hpp), so one kernel compiles for either vendor.
  int threads_per_wave = 0;
  std::array<int, 3> waves_per_block{0, 0, 0};  // 0: derived from the wave constraints
  std::optional<MMA> mma;                       // default MMA kind for every `mma`
  std::vector<VectorShape> vector_shapes;
  std::source_location where = std::source_location::current();
};

// A fact about symbols the compiler may assume, e.g. Assumption(K > BLOCK_K * 4).
struct Assumption {
  Expr predicate;
  std::source_location where;

  template <Symbolic P>
  Assumption(P p, std::source_location loc = std::source_location::current())
      : predicate(p.to_expr()), where(loc) {
    static_assert(is_comparison_v<P>,
                  "Assumption takes a comparison of symbolic expressions, e.g. K > BLOCK_K * 4");
  }
  // A predicate already in runtime form (what compile() keeps of one).
  Assumption(Expr p, std::source_location loc) : predicate(std::move(p)), where(loc) {}
};

using Constraint = std::variant<WorkgroupConstraint, WaveConstraint, TilingConstraint, DeviceConstraint,
                                HardwareConstraint, Assumption>;

class Constraints : public std::vector<Constraint> {
 public:
  Constraints() = default;
  Constraints(std::initializer_list<Constraint> list) : std::vector<Constraint>(list) {}

  Constraints& operator+=(Constraint c) {
    push_back(std::move(c));
    return *this;
  }

  template <class T>
  std::vector<const T*> all() const {
    std::vector<const T*> out;
    for (const Constraint& c : *this)
      if (auto* p = std::get_if<T>(&c)) out.push_back(p);
    return out;
  }

  template <class T>
  const T* find(const std::string& dim) const {
    for (const T* c : all<T>())
      if (c->dim == dim) return c;
    return nullptr;
  }

  const HardwareConstraint* hardware() const {
    auto hw = all<HardwareConstraint>();
    return hw.empty() ? nullptr : hw.front();
  }
};

}  // namespace wave
