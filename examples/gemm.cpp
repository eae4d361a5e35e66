// Prints the verified `wave` IR of the gemm example kernel (see kernels/gemm.hpp).
#include "kernels/gemm.hpp"
#include "run_example.hpp"

int main(int argc, char** argv) {
  return examples::run_example(examples::gemm::make_kernel(), examples::gemm::default_options(),
                               argc, argv);
}
