// Prints the verified `wave` IR of the copy example kernel (see kernels/copy.hpp).
#include "kernels/copy.hpp"
#include "run_example.hpp"

int main(int argc, char** argv) {
  return examples::run_example(examples::copy::make_kernel(), examples::copy::default_options(),
                               argc, argv);
}
