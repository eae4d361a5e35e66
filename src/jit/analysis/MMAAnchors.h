//===- MMAAnchors.h - the layouts a wave.mma fixes -------------*- C++ -*-===//
//
// An mma is a layout anchor: its instruction reads its operands and accumulator from
// registers in one fixed arrangement (analysis/MMALayout), repeated over the instruction
// tiles of each wave's part of the workgroup tile. Layout assignment demands these
// layouts of the mma's operands; the distribution slices their registers into the
// instruction's fragments.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_MMAANCHORS_H
#define WAVE_JIT_ANALYSIS_MMAANCHORS_H

#include "analysis/KernelGrid.h"
#include "analysis/MMALayout.h"

namespace wave::jit {

struct MMAAnchors {
  MMALayout instruction;
  // The op is `transposed` (wave.mma's attribute): the instruction computes acc^T, its A
  // registers holding rhs and its B registers lhs.
  bool transposed = false;
  // Over the op's operand and result dims, in their order.
  LayoutAttr lhs, rhs, acc;
  // Instruction tiles per wave along the output rows (M), columns (N) and the
  // contraction (K); registers of lhs are [tilesM, tilesK, fragment], of rhs
  // [tilesN, tilesK, fragment], of acc [tilesM, tilesN, fragment], or [tilesN, tilesM,
  // fragment] when transposed.
  int64_t tilesM = 0, tilesN = 0, tilesK = 0;
  llvm::StringRef m, n, k;

  // The instruction operand whose registers each of the op's operands fills.
  const MMAOperandLayout& lhsOperand() const { return transposed ? instruction.b : instruction.a; }
  const MMAOperandLayout& rhsOperand() const { return transposed ? instruction.a : instruction.b; }
};

// The layouts of `op` under `grid`'s distribution, in the orientation the op's
// `transposed` attribute states. Emits a diagnostic at the op and fails where its kind
// has no instruction, its types or dims do not fit it, or the tiles do not divide into
// instruction tiles.
mlir::FailureOr<MMAAnchors> mmaAnchors(dialect::MmaOp op, const KernelGrid& grid);

// Whether `kernel` computes with wave.mma anywhere.
bool computesWithMMA(mlir::Operation* kernel);

}  // namespace wave::jit

#endif
