// Element types. Each is a tag type for use in `Register<dims<M, N>, f32>` and
// `cast<f16>(x)`, with its runtime `DataType` as `::value`.
#pragma once

#include <cstdint>
#include <string_view>

namespace wave {

enum class DataType : std::uint8_t { f16, bf16, f32, f64, f8e4m3, f8e5m2, f8e4m3fnuz, f8e5m2fnuz, i1, i8, i32, i64 };

template <DataType D>
struct dtype_tag {
  static constexpr DataType value = D;
};

using f16 = dtype_tag<DataType::f16>;
using bf16 = dtype_tag<DataType::bf16>;
using f32 = dtype_tag<DataType::f32>;
using f64 = dtype_tag<DataType::f64>;
using f8e4m3 = dtype_tag<DataType::f8e4m3>;  // OCP FP8 E4M3 (finite, NaN only)
using f8e5m2 = dtype_tag<DataType::f8e5m2>;  // OCP FP8 E5M2
// AMD CDNA3's (gfx942) FP8: E4M3 and E5M2 with exponent biases one larger, no infinity, and
// NaN where negative zero would be ("finite, unsigned zero"): the encodings its MFMA reads.
using f8e4m3fnuz = dtype_tag<DataType::f8e4m3fnuz>;
using f8e5m2fnuz = dtype_tag<DataType::f8e5m2fnuz>;
using i1 = dtype_tag<DataType::i1>;
using i8 = dtype_tag<DataType::i8>;
using i32 = dtype_tag<DataType::i32>;
using i64 = dtype_tag<DataType::i64>;

template <class T>
inline constexpr bool is_dtype_v = false;
template <DataType D>
inline constexpr bool is_dtype_v<dtype_tag<D>> = true;

template <class T>
concept DType = is_dtype_v<T>;

constexpr bool is_float(DataType t) { return t <= DataType::f8e5m2fnuz; }
constexpr bool is_integer(DataType t) { return t >= DataType::i1; }

// The element types GPUs add to memory atomically.
constexpr bool has_atomic_add(DataType t) {
  return t == DataType::f16 || t == DataType::bf16 || t == DataType::f32 || t == DataType::f64 ||
         t == DataType::i32 || t == DataType::i64;
}

// The element types atomic_min and atomic_max take.
constexpr bool has_atomic_min_max(DataType t) {
  return t == DataType::f32 || t == DataType::f64 || t == DataType::i32 || t == DataType::i64;
}

constexpr int bit_width(DataType t) {
  switch (t) {
    case DataType::f16:
    case DataType::bf16: return 16;
    case DataType::f32:
    case DataType::i32: return 32;
    case DataType::f64:
    case DataType::i64: return 64;
    case DataType::f8e4m3:
    case DataType::f8e5m2:
    case DataType::f8e4m3fnuz:
    case DataType::f8e5m2fnuz:
    case DataType::i8: return 8;
    case DataType::i1: return 1;
  }
  return 0;
}

constexpr std::string_view name(DataType t) {
  switch (t) {
    case DataType::f16: return "f16";
    case DataType::bf16: return "bf16";
    case DataType::f32: return "f32";
    case DataType::f64: return "f64";
    case DataType::f8e4m3: return "f8e4m3";
    case DataType::f8e5m2: return "f8e5m2";
    case DataType::f8e4m3fnuz: return "f8e4m3fnuz";
    case DataType::f8e5m2fnuz: return "f8e5m2fnuz";
    case DataType::i1: return "i1";
    case DataType::i8: return "i8";
    case DataType::i32: return "i32";
    case DataType::i64: return "i64";
  }
  return "?";
}

}  // namespace wave
