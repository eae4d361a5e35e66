// The shared main() of the examples.
//
//   wave-example-<name> [--symbolic] [--debug-locations]   print the verified `wave` IR
//   wave-example-<name> --run [--ptx]                       compile for the GPU, show the
//       PTX (all of it with --ptx), and run and check it where a GPU exists
//
//     --symbolic         leave every symbol unset (the kernel as written)
//     --debug-locations  print the user's source locations with the IR
//     --target T         compile for T (wave/target.hpp: sm_90a, gfx942, ...); on AMD the
//                        AMDGPU assembly is shown in place of PTX, and nothing runs
//     --hsaco FILE       with an AMD target, write the code object to FILE
//     --set SYMBOL=N     set a symbol (a tile size, say) in place of the example's value
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include <wave/runtime.hpp>
#include <wave/wave.hpp>

namespace examples {

// The target `--target` names in the arguments (null for a name of none), else the one a
// compile takes by default, the GPU's here: for examples whose kernels differ by target (a
// dtype that only some targets have).
inline const wave::TargetInfo* target_named(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--target")) return wave::find_target(argv[i + 1]);
  return wave::find_target(wave::runtime::default_target());
}

// Runs the compiled kernel on random data and checks it; returns a process exit code.
using DeviceCheck = std::function<int(const wave::CompiledKernel&)>;

template <class Kernel>
int run_example(const Kernel& kernel, wave::CompileOptions options, int argc, char** argv,
                const DeviceCheck& check) {
  bool run = false, full_ptx = false;
  std::string hsaco_file;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--symbolic")) {
      options.subs.clear();
    } else if (!std::strcmp(argv[i], "--debug-locations")) {
      options.debug_locations = true;
    } else if (!std::strcmp(argv[i], "--run")) {
      run = true;
    } else if (!std::strcmp(argv[i], "--ptx")) {
      full_ptx = true;
    } else if (!std::strcmp(argv[i], "--target") && i + 1 < argc) {
      options.target = argv[++i];
    } else if (!std::strcmp(argv[i], "--hsaco") && i + 1 < argc) {
      hsaco_file = argv[++i];
    } else if (!std::strcmp(argv[i], "--set") && i + 1 < argc && std::strchr(argv[i + 1], '=')) {
      const std::string set = argv[++i];
      const std::string symbol = set.substr(0, set.find('='));
      const std::int64_t value = std::stoll(set.substr(set.find('=') + 1));
      auto same = [&](const wave::Sub& s) { return s.symbol == symbol && !s.is_address_space; };
      if (auto it = std::find_if(options.subs.begin(), options.subs.end(), same); it != options.subs.end())
        it->value = value;
      else
        options.subs.push_back(wave::Sub(symbol, value));
    } else {
      std::fprintf(stderr,
                   "usage: %s [--symbolic] [--debug-locations] [--set SYMBOL=N]... [--run [--ptx] [--target T] "
                   "[--hsaco FILE]]\n",
                   argv[0]);
      return 2;
    }
  }
  try {
    if (!run) {
      std::cout << kernel.ir(options);
      return 0;
    }
    std::cout << "--- wave IR\n" << kernel.ir(options);
    const wave::CompiledKernel compiled = wave::compile(kernel, options);
    const bool amd = !compiled.ptx().hsaco.empty();
    std::cout << (amd ? "--- AMDGPU assembly (" : "--- PTX (") << compiled.ptx().target << "), grid "
              << compiled.ptx().grid[0] << "x" << compiled.ptx().grid[1] << "x" << compiled.ptx().grid[2]
              << ", block " << compiled.ptx().block[0] << "\n";
    std::istringstream code(amd ? compiled.ptx().amdgpu_assembly : compiled.ptx().ptx);
    std::string line;
    for (int n = 0; std::getline(code, line) && (full_ptx || n < 40); ++n) std::cout << line << "\n";
    if (!full_ptx) std::cout << "... (--ptx prints all of it)\n";
    if (amd) {
      if (!hsaco_file.empty()) std::ofstream(hsaco_file, std::ios::binary) << compiled.ptx().hsaco;
      std::string why;
      if (!wave::runtime::amd_device_available(&why))
        why = "no AMD GPU here: " + why;
      else
        why = "the examples' checks allocate device memory through CUDA only so far";
      std::cout << "--- not run: a " << compiled.ptx().target << " code object (" << compiled.ptx().hsaco.size()
                << " bytes); " << why << "\n";
      return 0;
    }
    std::string why;
    if (!wave::runtime::device_available(&why)) {
      std::cout << "--- not run: no GPU here (" << why << ")\n";
      return 0;
    }
    return check(compiled);
  } catch (const wave::Error& e) {
    // The compiler stops at the first stage that cannot handle this kernel: say which, and
    // fail, so that scripts/main.sh reports it.
    std::cerr << (run ? "--- not compiled to PTX: " : "") << e.what() << "\n";
    return 1;
  }
}

}  // namespace examples
