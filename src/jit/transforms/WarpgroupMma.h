//===- WarpgroupMma.h - lowered wgmma, registers -----------------*- C++ -*-===//
//
// What the schedules on distributed code (wave-pipeline-shared-copies,
// wave-overlap-warpgroup-mma, wave-alternate-warpgroup-mma) share: wgmma in its two forms,
// its register fences, warpgroups, register estimates.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TRANSFORMS_WARPGROUPMMA_H
#define WAVE_JIT_TRANSFORMS_WARPGROUPMMA_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

namespace wave::jit {

// The threads of a warpgroup, which wgmma runs on as one.
inline constexpr int64_t kWarpgroupThreads = 128;

// Registers a thread needs beside the values a loop carries (addresses, fragments, the
// loop's own): a floor, so an estimate that registers do not suffice holds.
inline constexpr int64_t kRegistersBesideCarried = 40;

// The 32-bit registers a value of type `t` takes (a vector's elements, a struct's members).
inline int64_t registersOf(mlir::Type t) {
  if (auto members = llvm::dyn_cast<mlir::LLVM::LLVMStructType>(t)) {
    int64_t registers = 0;
    for (mlir::Type member : members.getBody()) registers += registersOf(member);
    return registers;
  }
  auto vec = llvm::dyn_cast<mlir::VectorType>(t);
  const int64_t elements = vec ? vec.getNumElements() : 1;
  mlir::Type element = mlir::getElementTypeOrSelf(t);
  const unsigned bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  return llvm::divideCeil(elements * bits, 32);
}

// A wgmma: the NVVM op (A from shared memory) or its inline PTX (A from registers).
inline bool isWarpgroupMma(mlir::Operation* op) {
  if (llvm::isa<mlir::NVVM::WgmmaMmaAsyncOp>(op)) return true;
  auto asm_ = llvm::dyn_cast<mlir::LLVM::InlineAsmOp>(op);
  return asm_ && asm_.getAsmString().contains("wgmma.mma_async");
}

// An empty inline asm statement: the fences that keep a batch's registers in place.
inline bool isRegisterFence(mlir::Operation* op) {
  auto asm_ = llvm::dyn_cast<mlir::LLVM::InlineAsmOp>(op);
  return asm_ && asm_.getAsmString().empty();
}

}  // namespace wave::jit

#endif
