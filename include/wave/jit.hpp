// The entry points of the JIT library (libwave-jit), declared in plain C++: a user's
// translation unit never sees MLIR or LLVM. Link `wave::jit` to use them.
#pragma once

#include <array>
#include <string>

#include "wave/graph.hpp"
#include "wave/options.hpp"

namespace wave::jit {

// Imports a traced kernel into the `wave` MLIR dialect, verifies it and returns it as MLIR
// text. `options.subs` are recorded as the kernel's hyperparameters. Throws wave::Error,
// naming the op and source line, if the IR does not verify.
std::string import_to_mlir(const graph::KernelGraph& kernel, const CompileOptions& options);

// A kernel compiled for NVIDIA GPUs, with the launch shape its constraints give.
struct PtxKernel {
  std::string entry;  // the kernel's name in the PTX
  std::string ptx;
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
};

// Imports, lowers and compiles a traced kernel to PTX for `options.target`, through the
// kernel cache unless `options.cache` is off. Throws wave::Error naming the op and source
// line a stage rejected. Memory-bound kernels (read, write, register, cast, elementwise
// math) with every dim set in `subs` for now.
PtxKernel compile_to_ptx(const graph::KernelGraph& kernel, const CompileOptions& options);

}  // namespace wave::jit
