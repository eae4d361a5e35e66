//===- NvptxTarget.h - upstream GPU IR -> PTX ------------------*- C++ -*-===//
//
// The last stage of the NVIDIA path: a module holding `gpu.module`s written in upstream
// dialects (gpu, arith, memref, vector, scf) goes through MLIR's conversions to the LLVM and
// NVVM dialects, then LLVM's NVPTX back end (LlvmToPtx.h), and comes out as PTX text.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TARGET_NVPTXTARGET_H
#define WAVE_JIT_TARGET_NVPTXTARGET_H

#include <string>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/Timing.h"

namespace wave::jit {

struct NvptxOptions {
  std::string chip = "sm_90a";      // sm_80, sm_90, sm_90a
  std::string features = "+ptx80";  // the PTX ISA version to emit
  std::string llvmPasses;             // LLVM passes before code generation (LlvmToPtx.h)
  bool verifyEachPass = true;           // false: the LLVM dialect's module verified once, at the end
  mlir::TimingScope* timing = nullptr;  // where the passes' times go, if anywhere
  std::string dumpDir;                  // if set: the IR after each pass, as a file tree there
};

// Dialects, translations and target interfaces the pipeline needs; call once per registry.
void registerNvptxTarget(mlir::DialectRegistry& registry);

// Lowers `module` in place and returns the PTX of its (single) gpu.module. Fails with the
// diagnostics MLIR emitted.
mlir::FailureOr<std::string> compileToPtx(mlir::ModuleOp module, const NvptxOptions& options);

}  // namespace wave::jit

#endif
