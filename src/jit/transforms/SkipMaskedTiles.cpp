//===- SkipMaskedTiles.cpp - loops end before tiles a mask hides whole -----===//
//
// Causal attention adds `select(k - m <= c, 0, -BIG)` to its scores: for a workgroup
// whose queries end at m0 + BLOCK_M - 1, every key tile from m0 + BLOCK_M + c on is
// masked whole. Such a tile changes nothing, provided that what the masked scores reach
// ignores them: the row max (already above them, since the first tile holds key 0,
// visible to every query when c >= 0), and exp2(score - max), which is 0 for them, summed
// along the keys and contracted with V. This pass proves that shape of use and sets the
// loop's `end`; anything else reaching the masked scores (another consumer, a write or a
// print in the loop) leaves the loop as it is.
//
//===----------------------------------------------------------------------===//

#include "analysis/KernelGrid.h"
#include "analysis/ScoreMasks.h"
#include "transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVESKIPMASKEDTILES
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// Whether every use of the masked scores `scores` ignores positions where they are
// -BIG: the row max along the loop's dim (carried), exp2 of the scores less that max,
// summed along the dim or contracted over it by an mma, or another hiding mask added.
bool onlySoftmaxUses(Value scores, StringRef loopDim) {
  dialect::ReduceMaxOp rowMax;
  for (Operation* user : scores.getUsers())
    if (auto max = dyn_cast<dialect::ReduceMaxOp>(user); max && max.getDim() == loopDim && max.getInit() &&
                                                         isa<BlockArgument>(max.getInit()))
      rowMax = max;
  for (Operation* user : scores.getUsers()) {
    if (user == rowMax) continue;
    if (auto add = dyn_cast<dialect::AddOp>(user)) {
      Value other = add.getLhs() == scores ? add.getRhs() : add.getLhs();
      if (!hidingMask(other) || !onlySoftmaxUses(add.getResult(), loopDim)) return false;
      continue;
    }
    auto shifted = dyn_cast<dialect::SubOp>(user);
    if (!rowMax || !shifted || shifted.getLhs() != scores || shifted.getRhs() != rowMax.getResult()) return false;
    for (Operation* s : shifted->getUsers()) {
      auto weights = dyn_cast<dialect::Exp2Op>(s);
      if (!weights) return false;
      for (Operation* w : weights->getUsers()) {
        if (auto sum = dyn_cast<dialect::ReduceSumOp>(w); sum && sum.getDim() == loopDim && sum.getInput() ==
                                                                                                 weights.getResult())
          continue;
        auto narrowed = dyn_cast<dialect::CastOp>(w);
        if (!narrowed) return false;
        for (Operation* c : narrowed->getUsers()) {
          auto mma = dyn_cast<dialect::MmaOp>(c);
          // The loop's dim must be what the mma sums over: in both operands, not in its result.
          if (!mma || mma.getAcc() == narrowed.getResult() ||
              llvm::is_contained(cast<dialect::TensorType>(mma.getType()).getDimNames(), loopDim))
            return false;
        }
      }
    }
  }
  return true;
}

struct WaveSkipMaskedTilesPass : impl::WaveSkipMaskedTilesBase<WaveSkipMaskedTilesPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    FailureOr<KernelGrid> grid = kernelGridQuietly(kernel);
    if (failed(grid)) return;
    kernel.walk([&](dialect::IterateOp loop) {
      if (loop.getEndAttr()) return;
      const bool effects = loop.walk([](Operation* op) {
                                 return isa<dialect::WriteOp, dialect::PrintOp>(op) ? WalkResult::interrupt()
                                                                                     : WalkResult::advance();
                               }).wasInterrupted();
      if (effects) return;
      std::optional<int64_t> end;
      StringRef rowDim;
      loop.getBody().walk([&](dialect::AddOp add) {
        for (Value mask : {add.getRhs(), add.getLhs()}) {
          std::optional<CausalMask> causal = causalMask(mask, loop.getDim());
          if (!causal || !onlySoftmaxUses(add.getResult(), loop.getDim())) continue;
          if (!grid->dims.contains(causal->rowDim)) continue;
          const int64_t candidate = grid->tiling(causal->rowDim).blockTile + causal->slack;
          if (!end || candidate < *end) {
            end = candidate;
            rowDim = causal->rowDim;
          }
        }
      });
      if (!end) return;
      MLIRContext* ctx = loop.getContext();
      AffineMap map = AffineMap::get(1, 0, getAffineDimExpr(0, ctx) + *end);
      loop.setEndAttr(dialect::ExprAttr::get(ctx, {}, map, dialect::ExprKind::value));
      loop.setEndDimsAttr(ArrayAttr::get(ctx, {StringAttr::get(ctx, rowDim)}));
    });
  }
};

}  // namespace
}  // namespace wave::jit
