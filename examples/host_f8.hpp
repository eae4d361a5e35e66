// 8-bit floats (E4M3, E5M2) on the host, for example and test data: random values as the
// bytes a kernel reads.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <wave/interpreter/elements.hpp>

namespace examples::host {

// `count` values of the 8-bit float `type`, drawn uniformly from [-range, range] and
// rounded to it (to nearest, saturating), as its bytes.
inline std::vector<std::uint8_t> random_f8(wave::DataType type, std::size_t count, double range, std::mt19937& rng) {
  namespace elements = wave::elements;
  std::uniform_real_distribution<double> uniform(-range, range);
  std::vector<std::uint8_t> bytes(count);
  for (std::size_t i = 0; i < count; ++i)
    elements::store_float(type, bytes.data(), std::int64_t(i), elements::round_float(type, uniform(rng)));
  return bytes;
}

}  // namespace examples::host
