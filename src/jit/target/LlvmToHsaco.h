//===- LlvmToHsaco.h - a gpu.module in the LLVM dialect -> HSACO -*- C++ -*-===//
//
// The back end of the AMD path: it translates a gpu.module (LLVM and ROCDL dialects only)
// to LLVM IR, optimizes it (no later assembler optimizes again, as ptxas does for PTX),
// generates an AMDGPU object with LLVM's back end and links it into a code object
// (HSACO: a shared ELF) with lld's library, in process: no external tool is called.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TARGET_LLVMTOHSACO_H
#define WAVE_JIT_TARGET_LLVMTOHSACO_H

#include <string>

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"

namespace wave::jit {

struct LlvmToHsacoOptions {
  std::string chip;     // gfx942
  std::string dumpDir;  // if set: <dumpDir>/<module>.ll (as translated) and <module>.s
  mlir::TimingScope* timing = nullptr;
};

struct Hsaco {
  std::string object;    // the code object: what hipModuleLoadData takes
  std::string assembly;  // the same code as AMDGPU assembly, with its metadata
};

// Whether this build links LLVM's AMDGPU back end and lld (CMake option WAVE_AMDGPU).
bool amdgpuBackEndBuilt();

// The code object of `module`, or failure with a diagnostic on the module.
mlir::FailureOr<Hsaco> translateToHsaco(mlir::gpu::GPUModuleOp module, const LlvmToHsacoOptions& options);

}  // namespace wave::jit

#endif
