//===- MMAInstructions.h - one tensor-core instruction ---------*- C++ -*-===//
//
// The MMA instructions the distributed lowering issues (NVIDIA mma.sync, AMD MFMA), on the
// registers analysis/MMALayout describes.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_MMAINSTRUCTIONS_H
#define WAVE_JIT_LOWERING_MMAINSTRUCTIONS_H

#include "analysis/MMALayout.h"

#include "mlir/IR/Builders.h"

namespace wave::jit {

// acc + a * b by one mma.sync of `layout`. `a` and `b` are the operands' register rows as
// the layout lists them (e.g. 4 and 2 values of vector<2xf16>); `acc` and the result are
// the lane's accumulator elements, one scalar each (e.g. 4 f32). Scalars, not vectors, so
// that a fragment updated by several instructions in a row is never packed and unpacked
// between them: that churn was most of the IR LLVM compiled.
llvm::SmallVector<mlir::Value> mmaSync(mlir::OpBuilder& b, mlir::Location loc, const MMALayout& layout,
                                       mlir::ValueRange a, mlir::ValueRange bOperand, mlir::ValueRange acc);

// acc + a * b by one AMD MFMA of `layout` (wave64; `a` and `b` one vector<4xf16> each),
// the same scalars in and out as mmaSync.
llvm::SmallVector<mlir::Value> mfma(mlir::OpBuilder& b, mlir::Location loc, const MMALayout& layout, mlir::ValueRange a,
                                    mlir::ValueRange bOperand, mlir::ValueRange acc);

// The instruction of `layout`'s kind: mma.sync on NVIDIA, MFMA on AMD.
llvm::SmallVector<mlir::Value> mmaInstruction(mlir::OpBuilder& b, mlir::Location loc, const MMALayout& layout,
                                              mlir::ValueRange a, mlir::ValueRange bOperand, mlir::ValueRange acc);

// A side-effecting inline asm statement of `ptx` over `operands` (LLVM's constraint string
// `constraints`), its outputs `result`: for instructions the NVVM dialect lacks.
mlir::Value inlineAsm(mlir::OpBuilder& b, mlir::Location loc, mlir::Type result, mlir::ValueRange operands,
                      llvm::StringRef ptx, llvm::StringRef constraints);

}  // namespace wave::jit

#endif
