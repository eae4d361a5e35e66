//===- MMAInstructions.h - one tensor-core instruction ---------*- C++ -*-===//
//
// The MMA instruction the attention and distributed lowerings issue, on the registers analysis/MMALayout
// describes.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_MMAINSTRUCTIONS_H
#define WAVE_JIT_LOWERING_MMAINSTRUCTIONS_H

#include "analysis/MMALayout.h"

#include "mlir/IR/Builders.h"

namespace wave::jit {

// acc + a * b by one mma.sync of `layout`: a, b and acc are vectors shaped as the
// layout's registers (e.g. 4x2xf16, 2x2xf16, 2x2xf32); returns the new accumulator.
mlir::Value mmaSync(mlir::OpBuilder& b, mlir::Location loc, const MMALayout& layout, mlir::Value a, mlir::Value bOperand,
                    mlir::Value acc);

}  // namespace wave::jit

#endif
