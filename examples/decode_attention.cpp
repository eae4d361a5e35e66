// The decode attention example: prints its IR, or with --run compiles it, and on a GPU
// runs it on random data (B=8, H=32, one query per head, 4096 keys, D=128) and checks
// every output element against a float64 reference (see kernels/decode_attention.hpp).
#include <cmath>
#include <cstdio>
#include <random>

#include "attention_reference.hpp"
#include "kernels/decode_attention.hpp"
#include "run_example.hpp"

namespace {

int check_on_device(const wave::CompiledKernel& attention) {
  std::mt19937 rng(42);
  const auto in = examples::host::random_attention(8, 32, 1, 4096, 128, 128, false, rng);
  const std::vector<float> out = examples::host::run_attention(attention, in);
  std::size_t unwritten = 0, wrong = 0;
  for (float x : out) unwritten += std::isnan(x);
  for (int b = 0; b < in.b; ++b)
    for (int h = 0; h < in.h; ++h) {
      const auto want = examples::host::attention_row(in, b, h, 0);
      for (int n = 0; n < in.n; ++n)
        wrong += !examples::host::attention_close(out[in.out_at(b, h, 0, n)], want.out[n], want.magnitude[n], false);
    }
  const bool ok = unwritten == 0 && wrong == 0;
  std::printf("--- ran on %s: O[8, 32, 1, 128] = softmax(q K^T / sqrt(128)) V over 4096 keys; %zu unwritten, %zu of "
              "%zu elements off the float64 reference: %s\n",
              wave::runtime::device_info().name.c_str(), unwritten, wrong, out.size(), ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return examples::run_example(examples::decode_attention::make_kernel(), examples::decode_attention::default_options(),
                               argc, argv, check_on_device);
}
