//===- CompileModule.h - wave IR module -> PTX ------------------*- C++ -*-===//
//
// The compiler after import: lowers a verified `wave` module to GPU IR and generates PTX,
// without the kernel cache. compile_to_ptx calls it on imported kernels; the module fuzz
// target on parsed text.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TARGET_COMPILEMODULE_H
#define WAVE_JIT_TARGET_COMPILEMODULE_H

#include <string>

#include "import/FirstError.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "wave/jit.hpp"

namespace wave::jit {

// Throws wave::Error (the first diagnostic, through `first`) when a stage fails. `timing`,
// when given, receives the stages' and passes' times.
PtxKernel compileWaveModule(mlir::ModuleOp module, const std::string& kernelName, const CompileOptions& options,
                            const FirstError& first, mlir::TimingScope* timing = nullptr);

}  // namespace wave::jit

#endif
