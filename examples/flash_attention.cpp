// The flash attention example: prints its IR, or with --run compiles it, and on a GPU runs
// it on random data (B=4, H=16, S=4096, D=128) and checks 64 sampled query rows against a
// float64 reference, every output element written (see kernels/flash_attention.hpp).
#include <cmath>
#include <cstdio>
#include <random>

#include "attention_reference.hpp"
#include "kernels/flash_attention.hpp"
#include "run_example.hpp"

namespace {

int check_on_device(const wave::CompiledKernel& attention) {
  std::mt19937 rng(42);
  const auto in = examples::host::random_attention(4, 16, 4096, 4096, 128, 128, false, rng);
  const std::vector<float> out = examples::host::run_attention(attention, in);
  std::size_t unwritten = 0, wrong = 0;
  for (float x : out) unwritten += std::isnan(x);
  std::uniform_int_distribution<int> pick_b(0, in.b - 1), pick_h(0, in.h - 1), pick_m(0, in.m - 1);
  for (int s = 0; s < 64; ++s) {
    const int b = pick_b(rng), h = pick_h(rng), m = pick_m(rng);
    const auto want = examples::host::attention_row(in, b, h, m);
    for (int n = 0; n < in.n; ++n)
      wrong += !examples::host::attention_close(out[in.out_at(b, h, m, n)], want.out[n], want.magnitude[n], false);
  }
  const bool ok = unwritten == 0 && wrong == 0;
  std::printf("--- ran on %s: O[4, 16, 4096, 128] = softmax(Q K^T / sqrt(128)) V; %zu unwritten, %zu of %d sampled "
              "elements off the float64 reference: %s\n",
              wave::runtime::device_info().name.c_str(), unwritten, wrong, 64 * in.n, ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return examples::run_example(examples::flash_attention::make_kernel(), examples::flash_attention::default_options(),
                               argc, argv, check_on_device);
}
