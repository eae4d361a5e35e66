// The two kinds of values a kernel body handles, both with symbolic shapes:
//
//   Memory<dims<M, K>, f16, ADDRESS_SPACE>   a kernel argument: a tensor in device memory,
//                                            global, shared, or a symbol set in `subs`
//   Register<dims<M, N>, f32>                a value computed by the body (whole-tensor:
//                                            the compiler splits it over threads)
#pragma once

#include <source_location>
#include <string>
#include <type_traits>

#include "wave/dims.hpp"
#include "wave/dtype.hpp"
#include "wave/trace.hpp"

namespace wave {

enum class AddressSpace : std::uint8_t { global, shared };

inline constexpr AddressSpace GLOBAL_ADDRESS_SPACE = AddressSpace::global;
inline constexpr AddressSpace SHARED_ADDRESS_SPACE = AddressSpace::shared;

namespace detail {

template <auto Space>
std::string address_space_name() {
  using S = std::remove_cv_t<decltype(Space)>;
  if constexpr (std::is_same_v<S, AddressSpace>)
    return Space == AddressSpace::global ? "global" : "shared";
  else
    return std::string(S::name);
}

// Read access to a value's trace identity, for the ops.
struct ValueAccess;

// An operand that remembers where in the user's source it was used: operators cannot take
// a source_location argument, but the implicit conversion to Located can.
template <class V>
struct Located {
  V value;
  std::source_location where;
  Located(const V& v, std::source_location loc = std::source_location::current())
      : value(v), where(loc) {}
};

// The arithmetic operators of Register<...> (defined in ops/elementwise.hpp).
template <class R>
struct Elementwise;

}  // namespace detail

template <Dims D, DType T, auto Space = AddressSpace::global>
class Memory {
  static_assert(std::is_same_v<std::remove_cv_t<decltype(Space)>, AddressSpace> ||
                    is_symbol_v<std::remove_cv_t<decltype(Space)>>,
                "Memory's address space is GLOBAL_ADDRESS_SPACE, SHARED_ADDRESS_SPACE or a symbol");
  static_assert(detail::unique(D::names), "Memory: a dim may appear only once in dims<...>");

 public:
  using dims_type = D;
  using dtype = T;

  static graph::MemoryType type() {
    return {dim_names<D>(), T::value, detail::address_space_name<Space>()};
  }

 private:
  friend struct detail::ValueAccess;
  explicit Memory(detail::ValueRef ref) : ref_(ref) {}
  detail::ValueRef ref_;
};

template <Dims D, DType T>
class Register {
  static_assert(detail::unique(D::names), "Register: a dim may appear only once in dims<...>");

 public:
  using dims_type = D;
  using dtype = T;

  // A register tensor filled with `fill`: Register<dims<M, N>, f32> acc(0.0);
  explicit Register(double fill, std::source_location where = std::source_location::current()) {
    auto& tracer = detail::Tracer::active("register", where);
    graph::Node node;
    node.kind = graph::OpKind::Register;
    node.fill = fill;
    node.result_types = {type()};
    node.loc = detail::to_loc(where);
    ref_ = tracer.append(std::move(node)).front();
  }

  static graph::TensorType type() { return {dim_names<D>(), T::value}; }

  // Elementwise arithmetic; the operand with fewer dims is broadcast, a number is a scalar.
#define WAVE_REGISTER_OPERATOR(op, kind)                                                  \
  template <Dims D2, DType T2>                                                            \
  friend auto operator op(detail::Located<Register> a, const Register<D2, T2>& b) {       \
    return detail::Elementwise<Register>::template binary<graph::OpKind::kind>(a.value, b,   \
                                                                               a.where);   \
  }                                                                                       \
  friend Register operator op(detail::Located<Register> a, double b) {                    \
    return detail::Elementwise<Register>::template with_scalar<graph::OpKind::kind>(        \
        a.value, b, false, a.where);                                                      \
  }                                                                                       \
  friend Register operator op(double a, detail::Located<Register> b) {                    \
    return detail::Elementwise<Register>::template with_scalar<graph::OpKind::kind>(        \
        b.value, a, true, b.where);                                                       \
  }
  WAVE_REGISTER_OPERATOR(+, Add)
  WAVE_REGISTER_OPERATOR(-, Sub)
  WAVE_REGISTER_OPERATOR(*, Mul)
  WAVE_REGISTER_OPERATOR(/, Div)
#undef WAVE_REGISTER_OPERATOR

  friend Register operator-(detail::Located<Register> a) {
    return detail::Elementwise<Register>::template unary<graph::OpKind::Neg>(a.value, a.where);
  }

 private:
  friend struct detail::ValueAccess;
  explicit Register(detail::ValueRef ref) : ref_(ref) {}
  detail::ValueRef ref_;
};

template <class T>
inline constexpr bool is_register_v = false;
template <Dims D, DType T>
inline constexpr bool is_register_v<Register<D, T>> = true;

template <class T>
inline constexpr bool is_memory_v = false;
template <Dims D, DType T, auto S>
inline constexpr bool is_memory_v<Memory<D, T, S>> = true;

namespace detail {

struct ValueAccess {
  template <class V>
  static ValueRef ref(const V& v) { return v.ref_; }
  template <class V>
  static V make(ValueRef ref) { return V(ref); }
};

}  // namespace detail
}  // namespace wave
