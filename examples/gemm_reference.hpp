// One element of A[M, K] x B[N, K]^T on the host in float64, from f16 bits, for the GEMM
// examples' checks: the value and the sum of its terms' magnitudes (what rounding the
// products perturbs it by, relatively).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "host_half.hpp"

namespace examples::host {

struct DotProduct {
  double value = 0, magnitude = 0;
};

inline DotProduct dot_nt(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b, std::size_t i,
                         std::size_t j, std::size_t k) {
  DotProduct d;
  for (std::size_t kk = 0; kk < k; ++kk) {
    const double x = double(half_to_float(a[i * k + kk])) * half_to_float(b[j * k + kk]);
    d.value += x;
    d.magnitude += std::abs(x);
  }
  return d;
}

}  // namespace examples::host
