// Element values on the host, for the interpreter and for test data: each DataType's
// encoding in memory, and rounding to it as the GPU rounds (to nearest, ties to even).
//
// Floating-point values are carried as double and integer values as int64; `round_float`
// and `wrap_integer` bring a result back to its dtype after each operation.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "wave/dtype.hpp"

namespace wave::elements {

// A binary floating-point format narrower than double.
struct FloatFormat {
  int mantissa_bits;  // stored fraction bits
  int exponent_bits;
  int min_exponent;   // of the smallest normal number
  double max_finite;
  bool has_infinity;  // false: OCP E4M3, whose only special value is NaN, and the FNUZ f8s
  bool fnuz = false;  // NaN encoded as negative zero, zero unsigned (CDNA3's f8)
};

constexpr FloatFormat format_of(DataType t) {
  switch (t) {
    case DataType::f16: return {10, 5, -14, 65504.0, true};
    case DataType::bf16: return {7, 8, -126, 3.38953138925153547590470800371487866880e38, true};
    case DataType::f8e4m3: return {3, 4, -6, 448.0, false};
    case DataType::f8e5m2: return {2, 5, -14, 57344.0, true};
    case DataType::f8e4m3fnuz: return {3, 4, -7, 240.0, false, true};
    case DataType::f8e5m2fnuz: return {2, 5, -15, 57344.0, false, true};
    default: return {23, 8, -126, 3.40282346638528859811704183484516925440e38, true};  // f32
  }
}

// `x` rounded to nearest-even in `f`. Overflow gives infinity where the format has one
// (IEEE rounding); the 8-bit formats saturate to their largest finite value, as the
// GPU's conversions to them do (.satfinite).
inline double round_to_format(double x, const FloatFormat& f, bool saturate) {
  if (std::isnan(x) || x == 0) return x;
  if (std::isinf(x)) return saturate ? std::copysign(f.max_finite, x) : x;
  int e;
  (void)std::frexp(std::fabs(x), &e);  // |x| = m * 2^e, m in [0.5, 1)
  const int exponent = std::max(e - 1, f.min_exponent);
  const double quantum = std::ldexp(1.0, exponent - f.mantissa_bits);
  const double rounded = std::nearbyint(std::fabs(x) / quantum) * quantum;
  if (rounded > f.max_finite)
    return std::copysign(saturate || !f.has_infinity ? f.max_finite : INFINITY, x);
  return std::copysign(rounded, x);
}

constexpr bool saturates(DataType t) { return is_float(t) && bit_width(t) == 8; }

// A floating-point value rounded to the float dtype `t`.
inline double round_float(DataType t, double x) {
  switch (t) {
    case DataType::f64: return x;
    case DataType::f32: return static_cast<double>(static_cast<float>(x));
    default: return round_to_format(x, format_of(t), saturates(t));
  }
}

// An integer value wrapped to the integer dtype `t` (two's complement); i1 keeps the low bit.
inline std::int64_t wrap_integer(DataType t, std::int64_t x) {
  switch (t) {
    case DataType::i1: return x & 1;
    case DataType::i8: return static_cast<std::int8_t>(x);
    case DataType::i32: return static_cast<std::int32_t>(x);
    default: return x;
  }
}

// The bits of a value already rounded to the narrow format `f` (f16, bf16, the f8s).
inline std::uint32_t encode_format(double x, const FloatFormat& f) {
  const int bias = 1 - f.min_exponent;
  const std::uint32_t sign_bit = 1u << (f.mantissa_bits + f.exponent_bits);
  const std::uint32_t sign = std::signbit(x) ? sign_bit : 0u;
  const std::uint32_t all_ones = (1u << f.exponent_bits) - 1;
  if (f.fnuz && std::isnan(x)) return sign_bit;
  if (f.fnuz && x == 0) return 0;
  if (std::isnan(x))
    return f.has_infinity ? (all_ones << f.mantissa_bits) | (1u << (f.mantissa_bits - 1))
                          : (all_ones << f.mantissa_bits) | ((1u << f.mantissa_bits) - 1);
  if (std::isinf(x)) return sign | (all_ones << f.mantissa_bits);
  const double a = std::fabs(x);
  if (a == 0) return sign;
  int e;
  (void)std::frexp(a, &e);
  const int exponent = e - 1;
  if (exponent < f.min_exponent)  // subnormal
    return sign | static_cast<std::uint32_t>(std::ldexp(a, f.mantissa_bits - f.min_exponent));
  const auto fraction = static_cast<std::uint32_t>(std::ldexp(a, f.mantissa_bits - exponent)) -
                        (1u << f.mantissa_bits);
  return sign | (static_cast<std::uint32_t>(exponent + bias) << f.mantissa_bits) | fraction;
}

inline double decode_format(std::uint32_t bits, const FloatFormat& f) {
  const int bias = 1 - f.min_exponent;
  if (f.fnuz && bits == 1u << (f.mantissa_bits + f.exponent_bits)) return std::numeric_limits<double>::quiet_NaN();
  const std::uint32_t fraction = bits & ((1u << f.mantissa_bits) - 1);
  const std::uint32_t biased = (bits >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1);
  const bool negative = (bits >> (f.mantissa_bits + f.exponent_bits)) & 1;
  const std::uint32_t all_ones = (1u << f.exponent_bits) - 1;
  double magnitude;
  if (f.has_infinity && biased == all_ones)
    magnitude = fraction ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
  else if (!f.has_infinity && !f.fnuz && biased == all_ones && fraction == (1u << f.mantissa_bits) - 1)
    magnitude = std::numeric_limits<double>::quiet_NaN();
  else if (biased == 0)
    magnitude = std::ldexp(static_cast<double>(fraction), f.min_exponent - f.mantissa_bits);
  else
    magnitude = std::ldexp(static_cast<double>(fraction | (1u << f.mantissa_bits)),
                           static_cast<int>(biased) - bias - f.mantissa_bits);
  return negative ? -magnitude : magnitude;
}

// Bytes an element of `t` takes in memory (i1: one byte, nonzero is true).
constexpr std::size_t size_of(DataType t) { return t == DataType::i1 ? 1 : bit_width(t) / 8; }

// The element at `index` of an array of `t`.
inline double load_float(DataType t, const void* data, std::int64_t index) {
  const auto* bytes = static_cast<const unsigned char*>(data) + index * size_of(t);
  switch (t) {
    case DataType::f64: { double v; std::memcpy(&v, bytes, 8); return v; }
    case DataType::f32: { float v; std::memcpy(&v, bytes, 4); return v; }
    case DataType::f16:
    case DataType::bf16: { std::uint16_t v; std::memcpy(&v, bytes, 2); return decode_format(v, format_of(t)); }
    default: return decode_format(*bytes, format_of(t));
  }
}

inline std::int64_t load_integer(DataType t, const void* data, std::int64_t index) {
  const auto* bytes = static_cast<const unsigned char*>(data) + index * size_of(t);
  switch (t) {
    case DataType::i1: return *bytes != 0;
    case DataType::i8: return static_cast<std::int8_t>(*bytes);
    case DataType::i32: { std::int32_t v; std::memcpy(&v, bytes, 4); return v; }
    default: { std::int64_t v; std::memcpy(&v, bytes, 8); return v; }
  }
}

// Stores `x`, already rounded to `t`.
inline void store_float(DataType t, void* data, std::int64_t index, double x) {
  auto* bytes = static_cast<unsigned char*>(data) + index * size_of(t);
  switch (t) {
    case DataType::f64: std::memcpy(bytes, &x, 8); return;
    case DataType::f32: { const float v = static_cast<float>(x); std::memcpy(bytes, &v, 4); return; }
    case DataType::f16:
    case DataType::bf16: {
      const auto v = static_cast<std::uint16_t>(encode_format(x, format_of(t)));
      std::memcpy(bytes, &v, 2);
      return;
    }
    default: *bytes = static_cast<unsigned char>(encode_format(x, format_of(t))); return;
  }
}

inline void store_integer(DataType t, void* data, std::int64_t index, std::int64_t x) {
  auto* bytes = static_cast<unsigned char*>(data) + index * size_of(t);
  switch (t) {
    case DataType::i1: *bytes = x != 0; return;
    case DataType::i8: *bytes = static_cast<unsigned char>(static_cast<std::int8_t>(x)); return;
    case DataType::i32: { const auto v = static_cast<std::int32_t>(x); std::memcpy(bytes, &v, 4); return; }
    default: std::memcpy(bytes, &x, 8); return;
  }
}

// Float to integer as the GPU converts (cvt.rzi): toward zero, saturated to the range of
// `t`, NaN to 0; to i1, nonzero (NaN included) is true.
inline std::int64_t float_to_integer(DataType t, double x) {
  if (t == DataType::i1) return x != 0;  // true for NaN
  if (std::isnan(x)) return 0;
  const int bits = bit_width(t);
  const double hi = std::ldexp(1.0, bits - 1) - 1, lo = -std::ldexp(1.0, bits - 1);
  if (x >= hi) return bits == 64 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(hi);
  if (x <= lo) return bits == 64 ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(lo);
  return static_cast<std::int64_t>(std::trunc(x));
}

}  // namespace wave::elements
