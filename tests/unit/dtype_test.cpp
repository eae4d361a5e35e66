#include <catch2/catch.hpp>

#include <wave/dtype.hpp>
#include <wave/mma.hpp>
#include <wave/target.hpp>

using namespace wave;

TEST_CASE("dtype properties", "[dtype]") {
  static_assert(DType<f16> && DType<i1> && !DType<int>);
  CHECK(bit_width(f16::value) == 16);
  CHECK(bit_width(bf16::value) == 16);
  CHECK(bit_width(f8e4m3::value) == 8);
  CHECK(bit_width(f8e5m2::value) == 8);
  CHECK(bit_width(i1::value) == 1);
  CHECK(bit_width(i64::value) == 64);
  CHECK(is_float(bf16::value));
  CHECK(is_float(f8e5m2::value));
  CHECK_FALSE(is_float(i8::value));
  CHECK(is_integer(i32::value));
  CHECK_FALSE(is_integer(f64::value));
  CHECK(name(f8e4m3::value) == "f8e4m3");
  CHECK(name(bf16::value) == "bf16");
}

TEST_CASE("MMA kinds are described as data", "[dtype][mma]") {
  const MMAInfo& nv = info(MMA::F32_16x8x16_BF16);
  CHECK(nv.m == 16);
  CHECK(nv.n == 8);
  CHECK(nv.k == 16);
  CHECK(nv.operand == DataType::bf16);
  CHECK(nv.accumulator == DataType::f32);
  CHECK(nv.threads == 32);
  CHECK(info(MMA::F32_32x32x8_F16).threads == 64);
  CHECK(info(MMA::F32_32x32x8_F16).name == "f32_32x32x8_f16");
  // CDNA3's bf16 MFMA: the f16 kinds' shapes on bf16 operands.
  const MMAInfo& amd_bf16 = info(MMA::F32_32x32x8_BF16);
  CHECK(amd_bf16.operand == DataType::bf16);
  CHECK(amd_bf16.accumulator == DataType::f32);
  CHECK((amd_bf16.m == 32 && amd_bf16.n == 32 && amd_bf16.k == 8));
  CHECK(amd_bf16.vendor == Vendor::amd);
  CHECK(amd_bf16.threads == 64);
  CHECK(info(MMA::F32_16x16x16_BF16).name == "f32_16x16x16_bf16");
  CHECK(default_mma(Vendor::amd, DataType::bf16) == MMA::F32_16x16x16_BF16);
  CHECK(default_mma(Vendor::amd, DataType::f16) == MMA::F32_16x16x16_F16);
  CHECK_FALSE(default_mma(Vendor::amd, DataType::f32).has_value());
  // i8 into i32: NVIDIA's m16n8k32 .s8, CDNA3's two MFMA forms.
  const MMAInfo& s8 = info(MMA::I32_16x8x32_I8);
  CHECK((s8.m == 16 && s8.n == 8 && s8.k == 32));
  CHECK(s8.operand == DataType::i8);
  CHECK(s8.accumulator == DataType::i32);
  CHECK(s8.vendor == Vendor::nvidia);
  CHECK(info(MMA::I32_32x32x16_I8).name == "i32_32x32x16_i8");
  CHECK((info(MMA::I32_16x16x32_I8).k == 32 && info(MMA::I32_16x16x32_I8).threads == 64));
  CHECK(default_mma(Vendor::nvidia, DataType::i8) == MMA::I32_16x8x32_I8);
  CHECK(default_mma(Vendor::amd, DataType::i8) == MMA::I32_16x16x32_I8);
  CHECK_FALSE(default_mma(Vendor::nvidia, DataType::i32).has_value());
  // CDNA3's f8 MFMA on its FNUZ encodings: the i8 forms' shapes, f32 out; NVIDIA has none.
  CHECK(name(f8e4m3fnuz::value) == "f8e4m3fnuz");
  CHECK(bit_width(f8e5m2fnuz::value) == 8);
  CHECK(is_float(DataType::f8e5m2fnuz));
  const MMAInfo& fp8 = info(MMA::F32_16x16x32_F8E4M3FNUZ);
  CHECK((fp8.m == 16 && fp8.n == 16 && fp8.k == 32 && fp8.threads == 64));
  CHECK(fp8.accumulator == DataType::f32);
  CHECK(info(MMA::F32_32x32x16_F8E5M2FNUZ).name == "f32_32x32x16_f8e5m2fnuz");
  CHECK(info(MMA::F32_32x32x16_F8E5M2FNUZ).operand == DataType::f8e5m2fnuz);
  CHECK(default_mma(Vendor::amd, DataType::f8e4m3fnuz) == MMA::F32_16x16x32_F8E4M3FNUZ);
  CHECK(default_mma(Vendor::amd, DataType::f8e5m2fnuz) == MMA::F32_16x16x32_F8E5M2FNUZ);
  CHECK_FALSE(default_mma(Vendor::nvidia, DataType::f8e4m3fnuz).has_value());
  // CDNA4's f8 MFMA on the OCP encodings: the same shapes, AMD's, distinct from NVIDIA's kinds.
  const MMAInfo& ocp = info(MMA::F32_32x32x16_F8E5M2_CDNA4);
  CHECK((ocp.m == 32 && ocp.n == 32 && ocp.k == 16 && ocp.threads == 64 && ocp.vendor == Vendor::amd));
  CHECK(ocp.operand == DataType::f8e5m2);
  CHECK(info(MMA::F32_16x16x32_F8E4M3_CDNA4).name == "f32_16x16x32_f8e4m3");
  CHECK(default_mma(Vendor::amd, DataType::f8e4m3) == MMA::F32_16x16x32_F8E4M3_CDNA4);
  CHECK(default_mma(Vendor::amd, DataType::f8e5m2) == MMA::F32_16x16x32_F8E5M2_CDNA4);
  CHECK(default_mma(Vendor::nvidia, DataType::f8e4m3) == MMA::F32_16x8x32_F8E4M3);
}
