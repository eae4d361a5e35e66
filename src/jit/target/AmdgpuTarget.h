//===- AmdgpuTarget.h - upstream GPU IR -> HSACO ---------------*- C++ -*-===//
//
// The last stage of the AMD path, the NVIDIA one's twin (NvptxTarget.h): a module holding
// `gpu.module`s in upstream dialects goes through MLIR's conversions to the LLVM and
// ROCDL dialects, then LLVM's AMDGPU back end and lld (LlvmToHsaco.h), and comes out as
// a code object (HSACO) and its assembly.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TARGET_AMDGPUTARGET_H
#define WAVE_JIT_TARGET_AMDGPUTARGET_H

#include <string>

#include "target/LlvmToHsaco.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"

namespace wave::jit {

struct AmdgpuOptions {
  std::string chip = "gfx942";
  bool verifyEachPass = true;           // false: the LLVM dialect's module verified once, at the end
  mlir::TimingScope* timing = nullptr;  // where the passes' times go, if anywhere
  std::string dumpDir;                  // if set: the IR after each pass, as a file tree there
};

// Lowers `module` in place and returns the code object of its (single) gpu.module. Fails
// with the diagnostics MLIR emitted.
mlir::FailureOr<Hsaco> compileToHsaco(mlir::ModuleOp module, const AmdgpuOptions& options);

}  // namespace wave::jit

#endif
