//===- LlvmCodegen.h - what both GPU back ends do with LLVM IR -*- C++ -*-===//
//
// The steps the NVPTX (LlvmToPtx.h) and AMDGPU (LlvmToHsaco.h) back ends share: an
// optimization pipeline given as `opt -passes=` text, and the target's code generator
// writing assembly or an object into a string.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TARGET_LLVMCODEGEN_H
#define WAVE_JIT_TARGET_LLVMCODEGEN_H

#include <string>

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/LLVM.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace wave::jit {

// Runs `passes` (as `opt -passes=` takes them) on `module`; a pipeline that does not
// parse is a diagnostic on `op`.
mlir::LogicalResult runLlvmPasses(llvm::Module& module, llvm::TargetMachine& machine, llvm::StringRef passes,
                                  mlir::gpu::GPUModuleOp op);

// `module` through `machine`'s code generator, as assembly text or an object file.
mlir::FailureOr<std::string> emitMachineCode(llvm::Module& module, llvm::TargetMachine& machine,
                                             llvm::CodeGenFileType type, mlir::gpu::GPUModuleOp op);

}  // namespace wave::jit

#endif
