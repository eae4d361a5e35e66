//===- LlvmToPtx.h - a gpu.module in the LLVM dialect -> PTX ---*- C++ -*-===//
//
// The back end of the NVIDIA path, in place of upstream's `gpu-module-to-binary`: it
// translates a gpu.module (LLVM and NVVM dialects only) to LLVM IR, links the few libdevice
// functions math ops call, runs a short optimization pipeline and LLVM's NVPTX code
// generator. Upstream runs LLVM's whole -O3 pipeline and loop strength reduction, which
// took most of a compile and gave ptxas code with more registers live: the IR that
// reaches LLVM is already simplified by MLIR, and ptxas optimizes again.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TARGET_LLVMTOPTX_H
#define WAVE_JIT_TARGET_LLVMTOPTX_H

#include <string>

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"

namespace wave::jit {

struct LlvmToPtxOptions {
  std::string chip;      // sm_80, sm_90, sm_90a
  std::string features;  // +ptx80: the PTX ISA version
  // LLVM passes before code generation, as `opt -passes=` takes them; empty: the default.
  std::string passes;
  std::string dumpDir;  // if set: the translated LLVM IR goes to <dumpDir>/<module>.ll
  mlir::TimingScope* timing = nullptr;  // where the steps' times go, if anywhere
};

// The LLVM passes run when nothing else is asked for (see LlvmToPtx.cpp for why these);
// WAVE_LLVM_PASSES replaces them, for experiments.
std::string defaultLlvmPasses();

// PTX text of `module`, or failure with a diagnostic on the module.
mlir::FailureOr<std::string> translateToPtx(mlir::gpu::GPUModuleOp module, const LlvmToPtxOptions& options);

}  // namespace wave::jit

#endif
