// Elementwise arithmetic and math on registers.
//
//   auto y = exp2(x - m) * scale + bias;   // operators: + - * / and unary -
//   auto z = maximum(x, y);
//   auto keep = gt(x, y);                  // i1: comparisons gt ge lt le eq ne
//
// Operands have the same dtype. When their dims differ, one operand's dims must be a subset
// of the other's, and it is broadcast along the missing dims (acc[B, N, M] * m[B, M]).
// A number is a scalar of the other operand's dtype.
#pragma once

#include <numbers>
#include <source_location>

#include "wave/ops/emit.hpp"

namespace wave {
namespace detail {

template <Dims A, Dims B>
struct broadcast_result {
  static_assert(dims_subset_v<A, B> || dims_subset_v<B, A>,
                "elementwise op: the operands' dims must be equal or one a subset of the other "
                "(which is then broadcast)");
  using type = std::conditional_t<dims_subset_v<B, A>, A, B>;
};

template <Dims D, DType T>
struct Elementwise<Register<D, T>> {
  template <graph::OpKind Kind, Dims D2, DType T2>
  static auto binary(const Register<D, T>& a, const Register<D2, T2>& b,
                     const std::source_location& where) {
    static_assert(std::is_same_v<T, T2>,
                  "elementwise op: both operands must have the same dtype; cast<>() one of them");
    using Result = Register<typename broadcast_result<D, D2>::type, T>;
    return emit<Result>(Kind, where, {ValueAccess::ref(a), ValueAccess::ref(b)});
  }

  // `scalar_first` keeps the order for - and /.
  template <graph::OpKind Kind>
  static Register<D, T> with_scalar(const Register<D, T>& a, double scalar, bool scalar_first,
                                    const std::source_location& where) {
    const Register<dims<>, T> s(scalar, where);
    if (scalar_first) return Elementwise<Register<dims<>, T>>::template binary<Kind>(s, a, where);
    return binary<Kind>(a, s, where);
  }

  // A comparison: i1 elements, with the binary ops' broadcasting.
  template <graph::OpKind Kind, Dims D2, DType T2>
  static auto compare(const Register<D, T>& a, const Register<D2, T2>& b, const std::source_location& where) {
    static_assert(std::is_same_v<T, T2>, "comparison: both operands must have the same dtype; cast<>() one of them");
    using Result = Register<typename broadcast_result<D, D2>::type, i1>;
    return emit<Result>(Kind, where, {ValueAccess::ref(a), ValueAccess::ref(b)});
  }

  template <graph::OpKind Kind>
  static Register<D, T> unary(const Register<D, T>& a, const std::source_location& where) {
    return emit<Register<D, T>>(Kind, where, {ValueAccess::ref(a)});
  }
};

}  // namespace detail

#define WAVE_UNARY_MATH(fn, kind, float_only)                                              \
  template <Dims D, DType T>                                                               \
  Register<D, T> fn(const Register<D, T>& x,                                               \
                    std::source_location where = std::source_location::current()) {        \
    static_assert(!(float_only) || is_float(T::value), #fn ": expected a floating-point dtype"); \
    return detail::Elementwise<Register<D, T>>::template unary<graph::OpKind::kind>(x, where); \
  }
WAVE_UNARY_MATH(exp2, Exp2, true)
WAVE_UNARY_MATH(log2, Log2, true)
WAVE_UNARY_MATH(reciprocal, Reciprocal, true)
WAVE_UNARY_MATH(abs, Abs, false)
WAVE_UNARY_MATH(sqrt, Sqrt, true)
WAVE_UNARY_MATH(rsqrt, Rsqrt, true)
WAVE_UNARY_MATH(tanh, Tanh, true)
WAVE_UNARY_MATH(tanh_approx, TanhApprox, true)  // the hardware's (tanh.approx.f32: 2^-11 relative)
WAVE_UNARY_MATH(sin, Sin, true)
WAVE_UNARY_MATH(cos, Cos, true)
WAVE_UNARY_MATH(sinh, Sinh, true)
WAVE_UNARY_MATH(cbrt, Cbrt, true)
WAVE_UNARY_MATH(roundeven, RoundEven, true)  // to the nearest integer, ties to even
#undef WAVE_UNARY_MATH

// Comparisons, elementwise with broadcasting: i1 results. On floats they are ordered (false
// where either operand is NaN) but for `ne`, which is true there; on integers, signed.
#define WAVE_COMPARISON(fn, kind)                                                                      \
  template <Dims D1, DType T1, Dims D2, DType T2>                                                      \
  auto fn(const Register<D1, T1>& a, const Register<D2, T2>& b,                                        \
          std::source_location where = std::source_location::current()) {                              \
    return detail::Elementwise<Register<D1, T1>>::template compare<graph::OpKind::kind>(a, b, where);  \
  }                                                                                                    \
  template <Dims D, DType T>                                                                           \
  Register<D, i1> fn(const Register<D, T>& a, double b,                                                \
                     std::source_location where = std::source_location::current()) {                  \
    const Register<dims<>, T> scalar(b, where);                                                        \
    return detail::Elementwise<Register<D, T>>::template compare<graph::OpKind::kind>(a, scalar, where); \
  }
WAVE_COMPARISON(gt, Gt)
WAVE_COMPARISON(ge, Ge)
WAVE_COMPARISON(lt, Lt)
WAVE_COMPARISON(le, Le)
WAVE_COMPARISON(eq, Eq)
WAVE_COMPARISON(ne, Ne)
#undef WAVE_COMPARISON

// The natural exponential and logarithm, and the logistic function, built from the base-2
// ones the hardware has: exp(x) = exp2(x * log2(e)), log(x) = log2(x) * ln(2),
// sigmoid(x) = 1 / (1 + exp(-x)). Each op they add carries the caller's line.
template <Dims D, DType T>
Register<D, T> exp(const Register<D, T>& x, std::source_location where = std::source_location::current()) {
  static_assert(is_float(T::value), "exp: expected a floating-point dtype");
  using E = detail::Elementwise<Register<D, T>>;
  return exp2(E::template with_scalar<graph::OpKind::Mul>(x, std::numbers::log2e, false, where), where);
}

template <Dims D, DType T>
Register<D, T> log(const Register<D, T>& x, std::source_location where = std::source_location::current()) {
  static_assert(is_float(T::value), "log: expected a floating-point dtype");
  using E = detail::Elementwise<Register<D, T>>;
  return E::template with_scalar<graph::OpKind::Mul>(log2(x, where), std::numbers::ln2, false, where);
}

template <Dims D, DType T>
Register<D, T> sigmoid(const Register<D, T>& x, std::source_location where = std::source_location::current()) {
  static_assert(is_float(T::value), "sigmoid: expected a floating-point dtype");
  using E = detail::Elementwise<Register<D, T>>;
  const Register<D, T> e = exp2(E::template with_scalar<graph::OpKind::Mul>(x, -std::numbers::log2e, false, where), where);
  return reciprocal(E::template with_scalar<graph::OpKind::Add>(e, 1.0, false, where), where);
}

// log10(x) = log2(x) * log10(2); softsign(x) = x / (1 + |x|).
template <Dims D, DType T>
Register<D, T> log10(const Register<D, T>& x, std::source_location where = std::source_location::current()) {
  static_assert(is_float(T::value), "log10: expected a floating-point dtype");
  using E = detail::Elementwise<Register<D, T>>;
  return E::template with_scalar<graph::OpKind::Mul>(log2(x, where), std::numbers::log10e / std::numbers::log2e, false,
                                                     where);
}

template <Dims D, DType T>
Register<D, T> softsign(const Register<D, T>& x, std::source_location where = std::source_location::current()) {
  static_assert(is_float(T::value), "softsign: expected a floating-point dtype");
  using E = detail::Elementwise<Register<D, T>>;
  return E::template binary<graph::OpKind::Div>(x, E::template with_scalar<graph::OpKind::Add>(abs(x, where), 1.0, false, where),
                                                where);
}

// atan2(y, x): the angle of (x, y), in (-pi, pi]; powf(x, y): x to the power y. Floats,
// broadcasting as the binary operators do.
template <Dims D1, DType T1, Dims D2, DType T2>
auto atan2(const Register<D1, T1>& y, const Register<D2, T2>& x,
           std::source_location where = std::source_location::current()) {
  static_assert(is_float(T1::value), "atan2: expected a floating-point dtype");
  return detail::Elementwise<Register<D1, T1>>::template binary<graph::OpKind::Atan2>(y, x, where);
}

template <Dims D1, DType T1, Dims D2, DType T2>
auto powf(const Register<D1, T1>& x, const Register<D2, T2>& y,
          std::source_location where = std::source_location::current()) {
  static_assert(is_float(T1::value), "powf: expected a floating-point dtype");
  return detail::Elementwise<Register<D1, T1>>::template binary<graph::OpKind::Powf>(x, y, where);
}

template <Dims D1, DType T1, Dims D2, DType T2>
auto maximum(const Register<D1, T1>& a, const Register<D2, T2>& b,
             std::source_location where = std::source_location::current()) {
  return detail::Elementwise<Register<D1, T1>>::template binary<graph::OpKind::Maximum>(a, b, where);
}

template <Dims D1, DType T1, Dims D2, DType T2>
auto minimum(const Register<D1, T1>& a, const Register<D2, T2>& b,
             std::source_location where = std::source_location::current()) {
  return detail::Elementwise<Register<D1, T1>>::template binary<graph::OpKind::Minimum>(a, b, where);
}

}  // namespace wave
