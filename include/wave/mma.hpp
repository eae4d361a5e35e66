// Matrix-multiply-accumulate kinds: each hardware MMA instruction family, described as data.
// The front end checks operand dtypes against this table; the compiler derives tile shapes
// from it. A new kind is one enumerator and one row.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "wave/dtype.hpp"

namespace wave {

enum class MMA : std::uint8_t {
  // NVIDIA mma.sync (sm_80+), one warp of 32 threads.
  F32_16x8x16_F16,
  F32_16x8x16_BF16,
  F16_16x8x16_F16,
  // AMD MFMA (CDNA3), one wave of 64 threads.
  F32_16x16x16_F16,
  F32_32x32x8_F16,
  // NVIDIA f8 (OCP E4M3 / E5M2) in, f32 accumulate: mma.sync m16n8k32 on sm_89+, and on
  // sm_90a wgmma m64nNk32, whose f8 operands both hold K innermost.
  F32_16x8x32_F8E4M3,
  F32_16x8x32_F8E5M2,
  // AMD MFMA on bf16 (CDNA3: v_mfma_f32_16x16x16_bf16, v_mfma_f32_32x32x8_bf16), the f16
  // kinds' shapes and layouts.
  F32_16x16x16_BF16,
  F32_32x32x8_BF16,
  // Signed 8-bit integers in, i32 accumulate, exact: NVIDIA mma.sync m16n8k32 .s8 (sm_80+)
  // and on sm_90a wgmma m64nNk32 .s8 (both operands K innermost, as f8's); AMD CDNA3's
  // v_mfma_i32_16x16x32_i8 and v_mfma_i32_32x32x16_i8 (eight bytes of K per lane).
  I32_16x8x32_I8,
  I32_16x16x32_I8,
  I32_32x32x16_I8,
  // AMD CDNA3's f8 MFMA (v_mfma_f32_16x16x32_fp8_fp8 and _32x32x16_, the bf8 forms for
  // E5M2) on its FNUZ encodings, f32 accumulate: the i8 forms' shapes and layouts.
  F32_16x16x32_F8E4M3FNUZ,
  F32_32x32x16_F8E4M3FNUZ,
  F32_16x16x32_F8E5M2FNUZ,
  F32_32x32x16_F8E5M2FNUZ,
  // AMD CDNA4's (gfx950) f8 MFMA: the same instructions on the OCP encodings (E4M3, E5M2),
  // CDNA3's shapes and layouts.
  F32_16x16x32_F8E4M3_CDNA4,
  F32_32x32x16_F8E4M3_CDNA4,
  F32_16x16x32_F8E5M2_CDNA4,
  F32_32x32x16_F8E5M2_CDNA4,
};

enum class Vendor : std::uint8_t { nvidia, amd };

struct MMAInfo {
  MMA kind;
  std::string_view name;  // as in the IR: #wave.mma_kind<name>
  int m, n, k;
  DataType operand;       // A and B
  DataType accumulator;   // C and the result
  Vendor vendor;
  int threads;            // threads that issue one instruction together
};

inline constexpr std::array<MMAInfo, 20> mma_kinds{{
    {MMA::F32_16x8x16_F16, "f32_16x8x16_f16", 16, 8, 16, DataType::f16, DataType::f32, Vendor::nvidia, 32},
    {MMA::F32_16x8x16_BF16, "f32_16x8x16_bf16", 16, 8, 16, DataType::bf16, DataType::f32, Vendor::nvidia, 32},
    {MMA::F16_16x8x16_F16, "f16_16x8x16_f16", 16, 8, 16, DataType::f16, DataType::f16, Vendor::nvidia, 32},
    {MMA::F32_16x16x16_F16, "f32_16x16x16_f16", 16, 16, 16, DataType::f16, DataType::f32, Vendor::amd, 64},
    {MMA::F32_32x32x8_F16, "f32_32x32x8_f16", 32, 32, 8, DataType::f16, DataType::f32, Vendor::amd, 64},
    {MMA::F32_16x8x32_F8E4M3, "f32_16x8x32_f8e4m3", 16, 8, 32, DataType::f8e4m3, DataType::f32, Vendor::nvidia, 32},
    {MMA::F32_16x8x32_F8E5M2, "f32_16x8x32_f8e5m2", 16, 8, 32, DataType::f8e5m2, DataType::f32, Vendor::nvidia, 32},
    {MMA::F32_16x16x16_BF16, "f32_16x16x16_bf16", 16, 16, 16, DataType::bf16, DataType::f32, Vendor::amd, 64},
    {MMA::F32_32x32x8_BF16, "f32_32x32x8_bf16", 32, 32, 8, DataType::bf16, DataType::f32, Vendor::amd, 64},
    {MMA::I32_16x8x32_I8, "i32_16x8x32_i8", 16, 8, 32, DataType::i8, DataType::i32, Vendor::nvidia, 32},
    {MMA::I32_16x16x32_I8, "i32_16x16x32_i8", 16, 16, 32, DataType::i8, DataType::i32, Vendor::amd, 64},
    {MMA::I32_32x32x16_I8, "i32_32x32x16_i8", 32, 32, 16, DataType::i8, DataType::i32, Vendor::amd, 64},
    {MMA::F32_16x16x32_F8E4M3FNUZ, "f32_16x16x32_f8e4m3fnuz", 16, 16, 32, DataType::f8e4m3fnuz, DataType::f32,
     Vendor::amd, 64},
    {MMA::F32_32x32x16_F8E4M3FNUZ, "f32_32x32x16_f8e4m3fnuz", 32, 32, 16, DataType::f8e4m3fnuz, DataType::f32,
     Vendor::amd, 64},
    {MMA::F32_16x16x32_F8E5M2FNUZ, "f32_16x16x32_f8e5m2fnuz", 16, 16, 32, DataType::f8e5m2fnuz, DataType::f32,
     Vendor::amd, 64},
    {MMA::F32_32x32x16_F8E5M2FNUZ, "f32_32x32x16_f8e5m2fnuz", 32, 32, 16, DataType::f8e5m2fnuz, DataType::f32,
     Vendor::amd, 64},
    {MMA::F32_16x16x32_F8E4M3_CDNA4, "f32_16x16x32_f8e4m3", 16, 16, 32, DataType::f8e4m3, DataType::f32, Vendor::amd, 64},
    {MMA::F32_32x32x16_F8E4M3_CDNA4, "f32_32x32x16_f8e4m3", 32, 32, 16, DataType::f8e4m3, DataType::f32, Vendor::amd, 64},
    {MMA::F32_16x16x32_F8E5M2_CDNA4, "f32_16x16x32_f8e5m2", 16, 16, 32, DataType::f8e5m2, DataType::f32, Vendor::amd, 64},
    {MMA::F32_32x32x16_F8E5M2_CDNA4, "f32_32x32x16_f8e5m2", 32, 32, 16, DataType::f8e5m2, DataType::f32, Vendor::amd, 64},
}};

constexpr const MMAInfo& info(MMA kind) {
  for (const MMAInfo& row : mma_kinds)
    if (row.kind == kind) return row;
  return mma_kinds[0];  // unreachable: every enumerator has a row (checked below)
}

static_assert([] {
  for (std::size_t i = 0; i < mma_kinds.size(); ++i)
    if (static_cast<std::size_t>(mma_kinds[i].kind) != i) return false;
  return true;
}(), "mma_kinds rows must follow the MMA enumerators in order");

}  // namespace wave
