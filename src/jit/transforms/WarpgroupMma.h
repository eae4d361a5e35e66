//===- WarpgroupMma.h - recognizing lowered wgmma ops -------------*- C++ -*-===//
//
// The schedules on distributed code (wave-pipeline-shared-copies,
// wave-overlap-warpgroup-mma) find wgmma in two forms.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TRANSFORMS_WARPGROUPMMA_H
#define WAVE_JIT_TRANSFORMS_WARPGROUPMMA_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace wave::jit {

// A wgmma: the NVVM op (A from shared memory) or its inline PTX (A from registers).
inline bool isWarpgroupMma(mlir::Operation* op) {
  if (llvm::isa<mlir::NVVM::WgmmaMmaAsyncOp>(op)) return true;
  auto asm_ = llvm::dyn_cast<mlir::LLVM::InlineAsmOp>(op);
  return asm_ && asm_.getAsmString().contains("wgmma.mma_async");
}

}  // namespace wave::jit

#endif
