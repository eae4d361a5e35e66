//===- ElementConversion.h - a vector's elements to another type ---*- C++ -*-===//

#ifndef WAVE_JIT_LOWERING_ELEMENTCONVERSION_H
#define WAVE_JIT_LOWERING_ELEMENTCONVERSION_H

#include "mlir/IR/Builders.h"

namespace wave::jit {

// `v`'s elements as `to`'s, between any two of the kernel's integer and float types: float
// rounding, integer truncation or sign extension, float <-> signed integer, and nonzero
// is true for i1.
mlir::Value convertElements(mlir::OpBuilder& b, mlir::Location loc, mlir::Value v, mlir::VectorType to);

}  // namespace wave::jit

#endif
