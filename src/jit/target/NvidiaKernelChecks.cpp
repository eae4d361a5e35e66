#include "target/NvidiaKernelChecks.h"

#include "wave/error.hpp"

#include <array>
#include <map>
#include <optional>
#include <string>

namespace wave::jit {

namespace {

std::optional<std::int64_t> valueOf(const Expr& e, const std::map<std::string, std::int64_t>& subs) {
  return e.evaluate(subs);
}

// The waves the wave constraints make along each grid axis, where the tiles are known.
std::optional<std::array<std::int64_t, 3>> wavesPerAxis(const Constraints& cs,
                                                        const std::map<std::string, std::int64_t>& subs) {
  std::array<std::int64_t, 3> waves{1, 1, 1};
  for (const WaveConstraint* w : cs.all<WaveConstraint>()) {
    const WorkgroupConstraint* wg = cs.find<WorkgroupConstraint>(w->dim);
    if (!wg) return std::nullopt;  // waves over a loop's dim: on no grid axis
    std::optional<std::int64_t> block = valueOf(wg->tile, subs), tile = valueOf(w->tile, subs);
    if (!block || !tile || *tile <= 0 || *block % *tile != 0) return std::nullopt;  // diagnosed later
    waves[wg->workgroup_dim] *= *block / *tile;
  }
  return waves;
}

// f8 converts and multiplies on sm_89 and later: of the targets, sm_90 and sm_90a.
void checkDtype(const graph::KernelGraph& kernel, const CompileOptions& options, DataType dtype, const std::string& op,
                const graph::SourceLoc& loc) {
  if ((dtype != DataType::f8e4m3 && dtype != DataType::f8e5m2) || options.target != "sm_80") return;
  throw Error(kernel.name, op, loc.file, loc.line,
              expected_found("a dtype target " + options.target + " computes with (f16, bf16, f32, f64, i1, i8, i32, i64)",
                             std::string(name(dtype)) + " (f8 needs sm_89 or later: target sm_90a)"));
}

void checkDtypes(const graph::KernelGraph& kernel, const CompileOptions& options, const graph::Block& block) {
  for (const graph::Node& node : block.nodes) {
    for (const graph::TensorType& t : node.result_types)
      checkDtype(kernel, options, t.dtype, op_name(node.kind), node.loc);
    for (const graph::Block& region : node.regions) checkDtypes(kernel, options, region);
  }
}

}  // namespace

void checkKernelForNvidia(const graph::KernelGraph& kernel, const CompileOptions& options) {
  const HardwareConstraint* hw = kernel.constraints.hardware();
  if (hw) {
    auto fail = [&](const std::string& message) { throw Error(kernel.name, "HardwareConstraint", hw->where, message); };
    if (hw->threads_per_wave != 32)
      fail("threads_per_wave: " + expected_found("32 on the NVIDIA target (" + options.target +
                                                     ": a wave is a warp of 32 threads; 64 is AMD CDNA's)",
                                                 std::to_string(hw->threads_per_wave)));
    std::map<std::string, std::int64_t> subs;
    for (const Sub& s : options.subs)
      if (!s.is_address_space) subs[s.symbol] = s.value;
    const bool givesWaves = hw->waves_per_block != std::array<int, 3>{0, 0, 0};
    if (givesWaves) {
      if (auto made = wavesPerAxis(kernel.constraints, subs)) {
        for (int axis = 0; axis < 3; ++axis)
          if (std::max(hw->waves_per_block[axis], 1) != (*made)[axis])
            fail("waves_per_block: " +
                 expected_found("the waves the wave constraints make along each grid axis (" +
                                    std::to_string((*made)[0]) + ", " + std::to_string((*made)[1]) + ", " +
                                    std::to_string((*made)[2]) + "), or all 0 to derive them",
                                "(" + std::to_string(hw->waves_per_block[0]) + ", " +
                                    std::to_string(hw->waves_per_block[1]) + ", " +
                                    std::to_string(hw->waves_per_block[2]) + ")"));
      }
    }
    // The layouts give each dim's per-thread vectors; a vector shape can only say that a
    // dim is not distributed over threads (0), which holds for a dim of one-element tiles.
    for (const VectorShape& s : hw->vector_shapes) {
      const WorkgroupConstraint* wg = kernel.constraints.find<WorkgroupConstraint>(s.dim.name);
      std::optional<std::int64_t> tile = wg ? valueOf(wg->tile, subs) : std::nullopt;
      if (!wg && subs.count(s.dim.name)) tile = subs.at(s.dim.name);
      if (s.size == 0 && tile == 1) continue;
      fail("vector_shapes[" + s.dim.name + "]: " +
           expected_found("0 for a dim whose workgroup tile is 1 (the NVIDIA target derives every other "
                          "dim's per-thread vectors from the MMA kind and the wave constraints)",
                          std::to_string(s.size) + (tile ? " with a workgroup tile of " + std::to_string(*tile)
                                                         : std::string(" with no one-element tile"))));
    }
  }
  for (std::size_t i = 0; i < kernel.args.size(); ++i)
    checkDtype(kernel, options, kernel.args[i].type.dtype, "argument " + std::to_string(i), kernel.loc);
  checkDtypes(kernel, options, kernel.body);
}

}  // namespace wave::jit
