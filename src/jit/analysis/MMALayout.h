//===- MMALayout.h - MMA register layouts, as data -------------*- C++ -*-===//
//
// Which tile element each lane of a wave holds in each register of an MMA instruction's
// operands. Index analysis composes these maps with a wave's tile offsets to get every
// thread's accesses, so a new MMA kind is an entry in the table below (plus the
// instruction that consumes the registers).
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_MMALAYOUT_H
#define WAVE_JIT_ANALYSIS_MMALAYOUT_H

#include "dialect/WaveDialect.h"

#include "mlir/IR/AffineMap.h"

namespace wave::jit {

// One operand's layout. A is M x K, B is N x K (B's rows are output columns), C is M x N.
struct MMAOperandLayout {
  int64_t rows = 0, cols = 0;
  // The registers of one lane, as the instruction takes them: e.g. 4 x 2 halves.
  llvm::SmallVector<int64_t, 2> registers;
  // (lane, element) -> (row, col), element counting the lane's values row-major over
  // `registers`.
  mlir::AffineMap map;

  // ldmatrix: lane -> (row, col) of the 8-element row it addresses, so that a
  // non-transposed ldmatrix of `ldmatrixTiles` 8x8 matrices fills the registers above
  // from a row-major tile. Empty for the accumulator.
  mlir::AffineMap ldmatrix;
  int64_t ldmatrixTiles = 0;

  int64_t elementsPerLane() const { return registers[0] * registers[1]; }
};

struct MMALayout {
  dialect::MMAKind kind;
  int64_t m = 0, n = 0, k = 0;
  int64_t lanes = 32;
  mlir::Type inputType, accType;
  MMAOperandLayout a, b, c;
};

// The layout of `kind` (NVIDIA mma.sync, AMD MFMA), or failure for a kind that has none.
mlir::FailureOr<MMALayout> getMMALayout(mlir::MLIRContext* ctx, dialect::MMAKind kind);

}  // namespace wave::jit

#endif
