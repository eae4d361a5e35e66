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

#include <tuple>

#include "analysis/KernelGrid.h"
#include "analysis/MMALayout.h"

namespace wave::jit {

// How the warpgroups of a warpgroup mma (wave.mma's `warpgroup`: Hopper wgmma m64nNk16)
// split its workgroup tile: along the rows where each gets whole 64-row strips, else
// along the columns; each warpgroup's part runs as strips x instructions wgmmas per k16
// step.
struct WarpgroupTiling {
  int64_t groups = 0;           // the kernel's waves / 4
  bool splitsRows = true;       // the warpgroups split the rows (M), else the columns (N)
  int64_t rows = 0, cols = 0;   // each warpgroup's part of the tile
  int64_t instructionCols = 0;  // N of each wgmma: a multiple of 8, at most 256
  int64_t strips() const { return rows / 64; }
  int64_t instructions() const { return cols / instructionCols; }
};

// The tiling of a blockM x blockN tile over `waves` waves, or what does not fit (in `why`).
mlir::FailureOr<WarpgroupTiling> warpgroupTiling(int64_t waves, int64_t blockM, int64_t blockN, std::string& why);

// The swizzle (bytes) wgmma reads a shared tile with whose rows are `rowBytes` long: the
// widest of 128, 64 and 32 that rows fill whole; 0 where none does.
int64_t warpgroupSwizzle(int64_t rowBytes);

// The op's rows, columns and contraction dim (m, n, k): the accumulator's last two dims,
// and the dim both operands have and it lacks.
std::tuple<llvm::StringRef, llvm::StringRef, llvm::StringRef> mmaDims(dialect::MmaOp op);

// The swizzled shared tile (wave.allocate's `swizzle`) `operand` is a read of, if any:
// a warpgroup mma's operand that wgmma reads itself.
dialect::AllocateOp swizzledTileOf(mlir::Value operand);

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
  // Set for a warpgroup mma, whose tiling is over the instruction's rows and columns (the
  // op's n and m when transposed): the instruction's A registers are then [strips, tilesK,
  // A fragment], B's [cols / 8, tilesK, B fragment], acc [strips, cols / 8, C fragment]
  // (see warpgroupLayout; tilesM and tilesN count strips and columns / 8); the operands
  // are never loaded into them (wgmma reads the tiles).
  std::optional<WarpgroupTiling> warpgroup;

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
