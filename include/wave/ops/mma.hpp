// mma: matrix multiply-accumulate on whole tensors, mapped to the hardware's MMA
// instructions.
//
//   acc = mma(a, b, acc);        // a[M, K], b[N, K] (or b[K, N]), acc[M, N] -> [M, N]
//
// The accumulator's last two dims are the output rows (M, held by A) and columns (N, held
// by B); leading dims are batch dims; the contraction dim K is the one dim A and B share
// that the accumulator lacks. Dims are matched by name, so any operand order works.
#pragma once

#include <optional>
#include <source_location>
#include <string>

#include "wave/mma.hpp"
#include "wave/ops/emit.hpp"

namespace wave {
namespace detail {

template <Dims A, Dims B, Dims C>
constexpr int contraction_dim_count() {
  int n = 0;
  for (auto a : A::names) n += contains(B::names, a) && !contains(C::names, a);
  return n;
}

template <Dims A, Dims B, Dims C>
constexpr bool operands_within_acc() {
  for (auto a : A::names)
    if (!contains(C::names, a) && !contains(B::names, a)) return false;
  for (auto b : B::names)
    if (!contains(C::names, b) && !contains(A::names, b)) return false;
  return true;
}

// Shape rules of mma, checked when the C++ compiles. GCC and Clang print the dims of the
// failing call in the "required from" note below the message.
template <Dims A, Dims B, Dims C>
constexpr void check_mma_shapes() {
  static_assert(C::rank >= 2, "mma: the accumulator needs at least two dims: [..., M, N]");
  if constexpr (C::rank >= 2) {
    static_assert(contraction_dim_count<A, B, C>() == 1,
                  "mma: A and B must share exactly one contraction dim that the accumulator "
                  "lacks, as in mma(A[M, K], B[N, K], acc[M, N])");
    static_assert(contains(A::names, C::names[C::rank - 2]),
                  "mma: A must hold the accumulator's second-to-last dim (M of acc[M, N])");
    static_assert(contains(B::names, C::names[C::rank - 1]),
                  "mma: B must hold the accumulator's last dim (N of acc[M, N])");
    static_assert(operands_within_acc<A, B, C>(),
                  "mma: every dim of A and B must be a dim of the accumulator or the "
                  "contraction dim");
  }
}

}  // namespace detail

template <Dims DA, DType TA, Dims DB, DType TB, Dims DC, DType TC>
Register<DC, TC> mma(const Register<DA, TA>& a, const Register<DB, TB>& b,
                     const Register<DC, TC>& acc, std::optional<MMA> kind = std::nullopt,
                     std::source_location where = std::source_location::current()) {
  detail::check_mma_shapes<DA, DB, DC>();
  static_assert(std::is_same_v<TA, TB>, "mma: A and B must have the same dtype");
  using detail::ValueAccess;
  return detail::emit<Register<DC, TC>>(
      graph::OpKind::Mma, where,
      {ValueAccess::ref(a), ValueAccess::ref(b), ValueAccess::ref(acc)},
      [&](graph::Node& n, detail::Tracer& tracer) {
        n.mma = kind;
        const HardwareConstraint* hw = tracer.constraints().hardware();
        const std::optional<MMA> effective = kind ? kind : (hw ? hw->mma : std::nullopt);
        if (!effective) return;
        const MMAInfo& k = info(*effective);
        if (TA::value != k.operand || TC::value != k.accumulator)
          tracer.fail("mma", where,
                      "MMA kind " + std::string(k.name) + ": " +
                          expected_found("operands of " + std::string(name(k.operand)) +
                                             " and an accumulator of " +
                                             std::string(name(k.accumulator)),
                                         "operands of " + std::string(name(TA::value)) +
                                             " and an accumulator of " +
                                             std::string(name(TC::value))));
      });
}

}  // namespace wave
