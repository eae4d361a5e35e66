// Prints the verified `wave` IR of the flash_attention example kernel (see kernels/flash_attention.hpp).
#include "kernels/flash_attention.hpp"
#include "run_example.hpp"

int main(int argc, char** argv) {
  return examples::run_example(examples::flash_attention::make_kernel(), examples::flash_attention::default_options(),
                               argc, argv);
}
