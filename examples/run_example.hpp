// The shared main() of the examples: compile the kernel with its default symbol values and
// show the result. Today that is the verified `wave` IR; later stages add PTX and a launch.
//
//   wave-example-<name> [--symbolic] [--debug-locations]
//     --symbolic         leave every symbol unset (the kernel as written)
//     --debug-locations  print the user's source locations with the IR
#pragma once

#include <cstdio>
#include <cstring>
#include <iostream>

#include <wave/wave.hpp>

namespace examples {

template <class Kernel>
int run_example(const Kernel& kernel, wave::CompileOptions options, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--symbolic")) {
      options.subs.clear();
    } else if (!std::strcmp(argv[i], "--debug-locations")) {
      options.debug_locations = true;
    } else {
      std::fprintf(stderr, "usage: %s [--symbolic] [--debug-locations]\n", argv[0]);
      return 2;
    }
  }
  try {
    std::cout << kernel.ir(options);
  } catch (const wave::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace examples
