//===- ElementConversion.h - elements to another type ---------*- C++ -*-===//

#ifndef WAVE_JIT_LOWERING_ELEMENTCONVERSION_H
#define WAVE_JIT_LOWERING_ELEMENTCONVERSION_H

#include "mlir/IR/Builders.h"

namespace wave::jit {

// `v` (a scalar or a vector) converted to `to` (of the same shape), between any two of the
// kernel's integer and float types, with the language's meaning (wave/interpret.hpp):
// float rounding, integer truncation or sign extension, float <-> signed integer
// (toward zero, saturated to the integer's range, NaN to 0: PTX's cvt.rzi.sat), nonzero
// (NaN included) is true for i1, and i1 converts as 0 or 1.
mlir::Value convertElements(mlir::OpBuilder& b, mlir::Location loc, mlir::Value v, mlir::Type to);

// Whether `type`, or the element type of a vector or memref of it, is an 8-bit float
// (f8E4M3FN, f8E5M2): what LLVM holds as i8 and wave-lower-f8-to-nvvm computes with.
bool isF8(mlir::Type type);

}  // namespace wave::jit

#endif
