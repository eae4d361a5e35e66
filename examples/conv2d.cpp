// Prints the verified `wave` IR of the conv2d example kernel (see kernels/conv2d.hpp).
#include "kernels/conv2d.hpp"
#include "run_example.hpp"

int main(int argc, char** argv) {
  return examples::run_example(examples::conv2d::make_kernel(), examples::conv2d::default_options(),
                               argc, argv);
}
