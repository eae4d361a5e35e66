// The copy example: prints its IR, or with --run compiles it, and on a GPU runs it on
// random data and checks every element (see kernels/copy.hpp).
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "kernels/copy.hpp"
#include "run_example.hpp"
#include "run_on_device.hpp"

namespace {

int check_on_device(const wave::CompiledKernel& copy) {
  const std::size_t n = 4096 * 4096;
  std::vector<std::uint16_t> a(n), b = examples::host::poisoned<std::uint16_t>(n);  // what no copy writes
  std::mt19937 rng(42);
  for (auto& h : a) h = static_cast<std::uint16_t>(rng());  // any bits: a copy keeps them
  examples::host::run_on_device(copy, {}, std::as_const(a), b);
  const bool ok = a == b;
  std::printf("--- ran on %s: %zu f16 elements %s\n", wave::runtime::device_info().name.c_str(), n,
              ok ? "copied exactly" : "WRONG");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return examples::run_example(examples::copy::make_kernel(), examples::copy::default_options(), argc, argv,
                               check_on_device);
}
