//===- WaveDialect.h - the wave dialect -----------------------*- C++ -*-===//
//
// Everything a user of the dialect needs: the dialect, its types, attributes and ops.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_DIALECT_WAVEDIALECT_H
#define WAVE_JIT_DIALECT_WAVEDIALECT_H

#include <memory>
#include <mutex>

#include "mlir/IR/Dialect.h"
#include "mlir/Support/TypeID.h"
#include "llvm/ADT/DenseMap.h"

#include "dialect/WaveDialect.h.inc"

#include "dialect/WaveAttrs.h"
#include "dialect/WaveOps.h"
#include "dialect/WaveTypes.h"

#endif  // WAVE_JIT_DIALECT_WAVEDIALECT_H
