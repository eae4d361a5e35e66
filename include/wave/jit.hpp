// The entry points of the JIT library (libwave-jit), declared in plain C++: a user's
// translation unit never sees MLIR or LLVM. Link `wave::jit` to use them.
#pragma once

#include <string>

#include "wave/graph.hpp"
#include "wave/options.hpp"

namespace wave::jit {

// Imports a traced kernel into the `wave` MLIR dialect, verifies it and returns it as MLIR
// text. `options.subs` are recorded as the kernel's hyperparameters. Throws wave::Error,
// naming the op and source line, if the IR does not verify.
std::string import_to_mlir(const graph::KernelGraph& kernel, const CompileOptions& options);

}  // namespace wave::jit
