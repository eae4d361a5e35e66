// The GPUs wave-cpp compiles for (CompileOptions::target), and what a kernel's constraints
// must agree with on each: the threads of a wave, the vendor of its MMA kinds.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "wave/mma.hpp"

namespace wave {

// The 8-bit float encoding a GPU converts and multiplies: none, the OCP one (E4M3 / E5M2:
// NVIDIA sm_89 and later, AMD CDNA4) or AMD CDNA3's FNUZ variants (no infinities, one NaN,
// a bias one larger), which no other target has.
enum class F8Encoding { none, ocp, fnuz };

struct TargetInfo {
  std::string_view name;  // as CompileOptions::target names it
  Vendor vendor;
  int threads_per_wave;    // a warp of 32 on NVIDIA, a wave of 64 on AMD CDNA
  int shared_memory_kib;   // the dynamic shared memory (LDS) one workgroup may have
  F8Encoding f8;
  bool warpgroup_mma;      // Hopper's architecture-specific wgmma, TMA and setmaxnreg
  bool vector_atomics;     // red.global.add of 16-byte vectors (PTX 8.1, sm_90 and up)
  std::string_view gpus;
};

inline constexpr std::array<TargetInfo, 5> targets{{
    {"sm_80", Vendor::nvidia, 32, 163, F8Encoding::none, false, false,
     "NVIDIA Ampere (A100) and later: mma.sync, cp.async"},
    {"sm_90", Vendor::nvidia, 32, 227, F8Encoding::ocp, false, true,
     "NVIDIA Hopper without its architecture-specific instructions"},
    {"sm_90a", Vendor::nvidia, 32, 227, F8Encoding::ocp, true, true,
     "NVIDIA Hopper (H100, H200): wgmma, TMA, setmaxnreg (the default)"},
    {"gfx942", Vendor::amd, 64, 64, F8Encoding::fnuz, false, false,
     "AMD CDNA3 (MI300X): an HSACO code object (MFMA on wave64)"},
    {"gfx950", Vendor::amd, 64, 160, F8Encoding::ocp, false, false,
     "AMD CDNA4 (MI350X, MI355X): gfx942's code with 160 KiB of LDS, f8 in the OCP encodings"},
}};

// The row of `name`; null for a GPU wave-cpp does not compile for.
constexpr const TargetInfo* find_target(std::string_view name) {
  for (const TargetInfo& t : targets)
    if (t.name == name) return &t;
  return nullptr;
}

// The kind an `mma` takes on a vendor's GPUs when neither it nor the HardwareConstraint
// names one, by its operands' dtype (f32 accumulators; i32 for i8 operands); none where
// the vendor has no such instruction.
constexpr std::optional<MMA> default_mma(Vendor vendor, DataType operand) {
  if (vendor == Vendor::amd) {
    if (operand == DataType::f16) return MMA::F32_16x16x16_F16;
    if (operand == DataType::bf16) return MMA::F32_16x16x16_BF16;
    if (operand == DataType::i8) return MMA::I32_16x16x32_I8;
    if (operand == DataType::f8e4m3fnuz) return MMA::F32_16x16x32_F8E4M3FNUZ;
    if (operand == DataType::f8e5m2fnuz) return MMA::F32_16x16x32_F8E5M2FNUZ;
    if (operand == DataType::f8e4m3) return MMA::F32_16x16x32_F8E4M3_CDNA4;  // (gfx950 only: TargetKernelChecks)
    if (operand == DataType::f8e5m2) return MMA::F32_16x16x32_F8E5M2_CDNA4;
    return std::nullopt;
  }
  switch (operand) {
    case DataType::f16: return MMA::F32_16x8x16_F16;
    case DataType::bf16: return MMA::F32_16x8x16_BF16;
    case DataType::f8e4m3: return MMA::F32_16x8x32_F8E4M3;
    case DataType::f8e5m2: return MMA::F32_16x8x32_F8E5M2;
    case DataType::i8: return MMA::I32_16x8x32_I8;
    default: return std::nullopt;
  }
}

// The targets' names, for messages: "sm_80, sm_90, sm_90a, gfx942 or gfx950".
inline std::string target_names() {
  std::string names;
  for (std::size_t i = 0; i < targets.size(); ++i)
    names += std::string(i == 0 ? "" : i + 1 == targets.size() ? " or " : ", ") + std::string(targets[i].name);
  return names;
}

}  // namespace wave
