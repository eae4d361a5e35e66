// The interpreter's values: whole tensors on the host.
//
// A value holds, for each of its dims, a box of positions [origin, origin + extent): the
// whole dim, or inside `iterate<K>` the current tile of K (clipped to K's size: positions
// past a dim's end do not exist, so reductions and mma never see them). Elements are
// dense, row-major in the value's dims; floats as double, integers as int64.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wave/graph.hpp"

namespace wave::interpreter {

struct Box {
  std::int64_t origin = 0;
  std::int64_t extent = 0;
  bool contains(const Box& inner) const {
    return inner.origin >= origin && inner.origin + inner.extent <= origin + extent;
  }
};

inline std::vector<std::int64_t> extents_of(const std::vector<Box>& boxes) {
  std::vector<std::int64_t> out;
  for (const Box& b : boxes) out.push_back(b.extent);
  return out;
}

inline std::int64_t count_of(const std::vector<std::int64_t>& extents) {
  std::int64_t n = 1;
  for (std::int64_t e : extents) n *= e;
  return n;
}

// Row-major strides of dense `extents`.
inline std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& extents) {
  std::vector<std::int64_t> s(extents.size(), 1);
  for (std::size_t d = extents.size(); d-- > 1;) s[d - 1] = s[d] * extents[d];
  return s;
}

struct HostValue {
  graph::TensorType type;
  std::vector<Box> boxes;  // one per dim of `type`
  std::vector<double> floats;         // float dtypes
  std::vector<std::int64_t> integers; // integer dtypes

  bool is_float() const { return wave::is_float(type.dtype); }

  static HostValue make(graph::TensorType type, std::vector<Box> boxes) {
    HostValue v{std::move(type), std::move(boxes), {}, {}};
    const std::int64_t n = count_of(extents_of(v.boxes));
    if (v.is_float()) v.floats.assign(n, 0.0);
    else v.integers.assign(n, 0);
    return v;
  }
};

// How an operand is addressed while walking the points of another box: its element offset
// at the walk's first point, and how far it moves along each walked dim (0 where the
// operand lacks the dim: it is broadcast).
struct Access {
  std::int64_t base = 0;
  std::vector<std::int64_t> strides;
};

// Calls `f(at, offsets)` for every point of a box with `extents`, in row-major order:
// `at` the point's position in the box, offsets[i] the element offset accesses[i] gives it.
template <class F>
void walk(const std::vector<std::int64_t>& extents, const std::vector<Access>& accesses, F&& f) {
  const std::size_t rank = extents.size(), n = accesses.size();
  for (std::int64_t e : extents)
    if (e <= 0) return;
  std::vector<std::int64_t> at(rank, 0), offsets(n);
  for (std::size_t i = 0; i < n; ++i) offsets[i] = accesses[i].base;
  while (true) {
    f(static_cast<const std::vector<std::int64_t>&>(at), static_cast<const std::vector<std::int64_t>&>(offsets));
    std::size_t d = rank;
    for (; d-- > 0;) {
      ++at[d];
      for (std::size_t i = 0; i < n; ++i) offsets[i] += accesses[i].strides[d];
      if (at[d] < extents[d]) break;
      for (std::size_t i = 0; i < n; ++i) offsets[i] -= accesses[i].strides[d] * extents[d];
      at[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

}  // namespace wave::interpreter
