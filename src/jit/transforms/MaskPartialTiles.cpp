//===- MaskPartialTiles.cpp - score masks only where they hide something ----===//
//
// Attention adds masks to its scores in every key tile, though most tiles lie wholly
// before the key dim's end and, under a causal mask, wholly before the workgroup's first
// query: there the mask adds zeros. This pass marks the adds of such masks
// (`wave.hiding_mask`, the mask moved to the rhs) and sets the loop's `unmasked_end`
// to where the causal masks stop being zero; the distribution then computes the marked
// masks under a branch that only the other tiles take. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "analysis/KernelGrid.h"
#include "analysis/ScoreMasks.h"
#include "analysis/SizeFacts.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEMASKPARTIALTILES
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// Whether every tile of the loop over `dim` is whole (its size, or a workgroup's part of
// it under split-K, a known multiple of the tile: a static size, or an Assumption; not a
// size set at run time), so that no key lies past the end.
bool endsOnTile(func::FuncOp kernel, const KernelGrid& grid, StringRef dim) {
  const DimTiling& tiling = grid.tiling(dim);
  if (tiling.blockTile <= 0 || tiling.rankSlice != 0) return false;
  if (tiling.splitTile)
    return tiling.splitTile % tiling.blockTile == 0 && isKnownMultiple(kernel, dim, tiling.splitTile);
  return isKnownMultiple(kernel, dim, tiling.blockTile);
}

// `op` and what only it used, erased where nothing uses them and they have no effects.
void eraseIfDead(Operation* op) {
  SmallVector<Operation*> work{op};
  DenseSet<Operation*> erased;
  while (!work.empty()) {
    Operation* dead = work.pop_back_val();
    if (!dead || erased.contains(dead) || !isOpTriviallyDead(dead)) continue;
    for (Value operand : dead->getOperands()) work.push_back(operand.getDefiningOp());
    erased.insert(dead);
    dead->erase();
  }
}

struct WaveMaskPartialTilesPass : impl::WaveMaskPartialTilesBase<WaveMaskPartialTilesPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    FailureOr<KernelGrid> grid = kernelGridQuietly(kernel);
    if (failed(grid)) return;
    MLIRContext* ctx = kernel.getContext();
    auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters");
    kernel.walk([&](dialect::IterateOp loop) {
      if (loop.getUnmaskedEndAttr() ||
          llvm::any_of(loop.getBody().front().getOps<dialect::AddOp>(),
                       [](dialect::AddOp add) { return add->hasAttr("wave.hiding_mask"); }))
        return;  // marked already
      StringRef dim = loop.getDim();
      const bool wholeTiles = endsOnTile(kernel, *grid, dim);
      // The causal masks' row dim (one) and the smallest slack: every key up to the
      // workgroup's first row + slack is visible to all its rows.
      std::optional<StringRef> rowDim;
      int64_t slack = 0;
      SmallVector<dialect::AddOp> marked;
      SmallVector<std::pair<dialect::AddOp, bool>> zero;  // each with whether its mask is the lhs
      for (auto add : loop.getBody().front().getOps<dialect::AddOp>()) {
        for (bool maskOnLeft : {false, true}) {
          Value mask = maskOnLeft ? add.getLhs() : add.getRhs();
          bool hides = boundsMask(mask, dim);
          if (hides && wholeTiles) {  // no tile has a key past the end: it adds zeros in all
            zero.push_back({add, maskOnLeft});
            break;
          }
          if (!hides)
            if (std::optional<CausalMask> causal = causalMask(mask, dim, hyper);
                causal && grid->dims.contains(causal->rowDim) && !grid->tiling(causal->rowDim).loop && (!rowDim || *rowDim == causal->rowDim)) {
              slack = rowDim ? std::min(slack, causal->slack) : causal->slack;
              rowDim = causal->rowDim;
              hides = true;
            }
          if (!hides) continue;
          if (maskOnLeft) {
            Value scores = add.getRhs();
            add->setOperands({scores, mask});
          }
          marked.push_back(add);
          break;
        }
      }
      for (auto [add, maskOnLeft] : zero) {
        Operation* mask = (maskOnLeft ? add.getLhs() : add.getRhs()).getDefiningOp();
        add.replaceAllUsesWith(maskOnLeft ? add.getRhs() : add.getLhs());
        add.erase();
        eraseIfDead(mask);
      }
      if (marked.empty()) return;
      for (dialect::AddOp add : marked) add->setAttr("wave.hiding_mask", UnitAttr::get(ctx));
      if (!rowDim) return;  // the dim's end alone bounds the unmasked tiles
      AffineMap map = AffineMap::get(1, 0, getAffineDimExpr(0, ctx) + slack + 1);
      loop.setUnmaskedEndAttr(dialect::ExprAttr::get(ctx, {}, map, dialect::ExprKind::value));
      loop.setUnmaskedEndDimsAttr(ArrayAttr::get(ctx, {StringAttr::get(ctx, *rowDim)}));
    });
  }
};

}  // namespace
}  // namespace wave::jit
