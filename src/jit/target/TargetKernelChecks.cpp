#include "target/TargetKernelChecks.h"

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

// An f8 dtype only where the target multiplies its encoding (TargetInfo::f8).
void checkDtype(const graph::KernelGraph& kernel, const CompileOptions& options, const TargetInfo& target,
                DataType dtype, const std::string& op, const graph::SourceLoc& loc) {
  const bool fnuz = dtype == DataType::f8e4m3fnuz || dtype == DataType::f8e5m2fnuz;
  const bool ocp = dtype == DataType::f8e4m3 || dtype == DataType::f8e5m2;
  const F8Encoding encoding = fnuz ? F8Encoding::fnuz : ocp ? F8Encoding::ocp : F8Encoding::none;
  if (encoding == F8Encoding::none || encoding == target.f8) return;
  const std::string f8 = target.f8 == F8Encoding::fnuz ? "f8e4m3fnuz, f8e5m2fnuz, "
                         : target.f8 == F8Encoding::ocp ? "f8e4m3, f8e5m2, "
                                                        : "";
  const std::string why = fnuz ? " (AMD CDNA3's f8 encoding: target gfx942" +
                                     std::string(target.vendor == Vendor::amd ? "; gfx950 multiplies OCP f8)" : ")")
                          : target.f8 == F8Encoding::none
                              ? " (f8 needs sm_89 or later: target sm_90a)"
                              : " (OCP f8: " + options.target + " computes with the FNUZ f8 variants)";
  throw Error(kernel.name, op, loc.file, loc.line,
              expected_found("a dtype target " + options.target + " computes with (f16, bf16, f32, f64, " + f8 +
                                 "i1, i8, i32, i64)",
                             std::string(name(dtype)) + why));
}

// The ops the AMD lowering does not take yet: each is an error at its line, not a crash
// deeper in or a kernel that computes something else.
void checkAmdOp(const graph::KernelGraph& kernel, const CompileOptions& options, const graph::Node& node) {
  if (node.kind != graph::OpKind::Print) return;
  const char* missing = "printing from the GPU is not lowered for it yet";
  throw Error(kernel.name, op_name(node.kind), node.loc.file, node.loc.line,
              expected_found("an op the " + options.target + " target lowers",
                             std::string(op_name(node.kind)) + " (" + options.target + ": " + missing + ")"));
}

void checkNodes(const graph::KernelGraph& kernel, const CompileOptions& options, const TargetInfo& target,
                const graph::Block& block) {
  for (const graph::Node& node : block.nodes) {
    for (const graph::TensorType& t : node.result_types)
      checkDtype(kernel, options, target, t.dtype, op_name(node.kind), node.loc);
    if (target.vendor == Vendor::amd) checkAmdOp(kernel, options, node);
    if (node.mma && info(*node.mma).vendor != target.vendor)
      throw Error(kernel.name, "mma", node.loc.file, node.loc.line,
                  expected_found("an MMA kind of target " + options.target + "'s vendor",
                                 std::string(info(*node.mma).name)));
    for (const graph::Block& region : node.regions) checkNodes(kernel, options, target, region);
  }
}

}  // namespace

const TargetInfo& targetNamed(const std::string& target, const std::string& kernel) {
  if (const TargetInfo* row = find_target(target)) return *row;
  throw Error(kernel, "compile", "", 0, "target: " + expected_found(target_names(), "'" + target + "'"));
}

void checkKernelForTarget(const graph::KernelGraph& kernel, const CompileOptions& options) {
  const TargetInfo& target = targetNamed(options.target, kernel.name);
  const char* vendor = target.vendor == Vendor::amd ? "AMD" : "NVIDIA";
  const HardwareConstraint* hw = kernel.constraints.hardware();
  if (hw) {
    auto fail = [&](const std::string& message) { throw Error(kernel.name, "HardwareConstraint", hw->where, message); };
    const int threads = hw->threads_per_wave ? hw->threads_per_wave : hw->mma ? info(*hw->mma).threads : 0;
    if (threads && threads != target.threads_per_wave)
      fail("threads_per_wave: " +
           expected_found(std::to_string(target.threads_per_wave) + " on the " + vendor + " target (" + options.target +
                              (target.vendor == Vendor::amd ? ": a wave is 64 threads; 32 is an NVIDIA warp's)"
                                                            : ": a wave is a warp of 32 threads; 64 is AMD CDNA's)"),
                          std::to_string(threads) + (hw->threads_per_wave ? std::string()
                                                                          : " (MMA kind " + std::string(info(*hw->mma).name) + ")")));
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
           expected_found("0 for a dim whose workgroup tile is 1 (the compiler derives every other "
                          "dim's per-thread vectors from the MMA kind and the wave constraints)",
                          std::to_string(s.size) + (tile ? " with a workgroup tile of " + std::to_string(*tile)
                                                         : std::string(" with no one-element tile"))));
    }
  }
  for (std::size_t i = 0; i < kernel.args.size(); ++i)
    checkDtype(kernel, options, target, kernel.args[i].type.dtype, "argument " + std::to_string(i), kernel.loc);
  checkNodes(kernel, options, target, kernel.body);
}

}  // namespace wave::jit
