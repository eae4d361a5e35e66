//===- WaveTypes.h - !wave.tensor and !wave.memory ------------*- C++ -*-===//

#ifndef WAVE_JIT_DIALECT_WAVETYPES_H
#define WAVE_JIT_DIALECT_WAVETYPES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Types.h"

#include "dialect/WaveAttrs.h"

#define GET_TYPEDEF_CLASSES
#include "dialect/WaveTypes.h.inc"

namespace wave::dialect {
// The element types of wave tensors: those of the DSL's dtypes.
bool isSupportedElementType(::mlir::Type type);
}  // namespace wave::dialect

#endif  // WAVE_JIT_DIALECT_WAVETYPES_H
