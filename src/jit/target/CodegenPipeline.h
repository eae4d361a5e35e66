//===- CodegenPipeline.h - running a target's MLIR conversions -*- C++ -*-===//
//
// How both targets (NvptxTarget.h, AmdgpuTarget.h) run their conversions to the LLVM
// dialect: timing, the IR after each pass as files, the verifier, and the one gpu.module
// that comes out.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TARGET_CODEGENPIPELINE_H
#define WAVE_JIT_TARGET_CODEGENPIPELINE_H

#include <string>

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

namespace wave::jit {

struct CodegenPipelineOptions {
  bool verifyEachPass = true;           // false: the module verified once, at the end
  mlir::TimingScope* timing = nullptr;  // where the passes' times go, if anywhere
  std::string dumpDir;                  // if set: the IR after each pass, as a file tree there
};

// Runs the passes `addPasses` adds on `module` and returns its gpu.module; fails with the
// diagnostics MLIR emitted.
mlir::FailureOr<mlir::gpu::GPUModuleOp> runCodegenPipeline(mlir::ModuleOp module, const CodegenPipelineOptions& options,
                                                           llvm::function_ref<void(mlir::OpPassManager&)> addPasses);

}  // namespace wave::jit

#endif
