//===- SkipMaskedTiles.cpp - loops end before tiles a mask hides whole -----===//
//
// Causal attention hides the scores of keys after the query (`select(k - m <= c, 0,
// -BIG)` added to them, or `select(k - m <= c, scores, -BIG)`): for a workgroup whose
// queries end at m0 + BLOCK_M - 1, every key tile from m0 + BLOCK_M + c on is hidden
// whole. The loop may end there only if such a tile changes none of its carried values.
// This pass proves that by evaluating the body abstractly, as it runs on a hidden tile
// (`TileFacts`): the masked scores are very negative, their running max keeps its value,
// exp2 of them less that max is 0, a sum or mma of zeros adds nothing, exp2(max - max) is
// 1. The loop ends early only when every yielded value is shown to equal the carried value
// it replaces; anything else (a statistic of the unmasked scores, a write or a print in
// the loop) keeps every tile.
//
//===----------------------------------------------------------------------===//

#include <tuple>

#include "analysis/KernelGrid.h"
#include "analysis/ScoreMasks.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVESKIPMASKEDTILES
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// What a value of the loop body is on a tile its causal masks hide whole.
struct Fact {
  enum Kind {
    moderate,  // a value computed from the data, assumed far from the masks' magnitude
    same,      // exactly carried value `carried` (and of its type)
    masked,    // every element at or below `bound` plus a moderate value
    atMost,    // at most a moderate value, maybe far below (a mask not known to hide)
    zero,      // exactly 0
    one,       // exactly 1
    unknown,   // nothing is known (a huge value: -masked, masked - masked, a large constant)
  } kind = unknown;
  unsigned carried = 0;
  double bound = 0;

  static Fact of(Kind k) { return {k, 0, 0}; }
  static Fact sameAs(unsigned i) { return {same, i, 0}; }
  static Fact maskedBelow(double b) { return {masked, 0, b}; }
  bool hides() const { return kind == masked && bound <= kHidingMask; }
  // Neither masked nor unknown: adding it to a masked value keeps it masked.
  bool bounded() const { return kind == moderate || kind == same || kind == zero || kind == one; }
};

// The body of `loop` evaluated on a hidden tile: `hidden(cond)` says whether a select's
// condition is false on every element of such a tile.
class TileFacts {
 public:
  TileFacts(dialect::IterateOp loop, llvm::function_ref<bool(Value)> hidden) : loop_(loop), hidden_(hidden) {
    for (BlockArgument arg : loop.getBody().getArguments()) facts_[arg] = Fact::sameAs(arg.getArgNumber());
  }

  // Whether every yielded value equals the carried value it replaces.
  bool carriedValuesUnchanged() {
    Block& body = loop_.getBody().front();
    for (Operation& op : body.without_terminator())
      for (Value result : op.getResults()) facts_[result] = evaluate(&op, result);
    for (auto [i, yielded] : llvm::enumerate(body.getTerminator()->getOperands())) {
      Fact f = fact(yielded);
      if (f.kind != Fact::same || f.carried != i) return false;
    }
    return true;
  }

 private:
  Fact fact(Value v) {
    auto it = facts_.find(v);
    if (it != facts_.end()) return it->second;
    // Defined outside the loop: the same in every tile, as anything computed from data.
    return v.getParentRegion()->isProperAncestor(&loop_.getBody()) ? constantFact(v) : Fact::of(Fact::unknown);
  }

  static Fact constantFact(Value v) {
    std::optional<double> c = splatValue(v);
    if (!c) return Fact::of(Fact::moderate);
    if (*c == 0) return Fact::of(Fact::zero);
    if (*c == 1) return Fact::of(Fact::one);
    if (*c <= kHidingMask) return Fact::maskedBelow(*c);
    return std::abs(*c) < -kHidingMask / 16 ? Fact::of(Fact::moderate) : Fact::of(Fact::unknown);
  }

  // `f`, where the result of an op is `result`: a carried value stays itself only in its
  // own type (broadcast or permuted, it is just a moderate value).
  Fact as(Fact f, Value result) {
    if (f.kind == Fact::same && result.getType() != loop_.getBody().getArgument(f.carried).getType())
      return Fact::of(Fact::moderate);
    return f;
  }

  Fact evaluate(Operation* op, Value result) {
    if (op->getNumRegions() != 0) return Fact::of(Fact::unknown);  // a nested loop: not looked into
    if (isa<dialect::RegisterOp>(op)) return constantFact(result);
    if (isa<dialect::ReadOp, dialect::SelfIndexOp, dialect::ApplyExprOp>(op)) return Fact::of(Fact::moderate);
    if (auto select = dyn_cast<dialect::SelectOp>(op)) {
      Fact t = fact(select.getIfTrue()), f = fact(select.getIfFalse());
      if (hidden_(select.getCond())) return f;
      if (t.kind == Fact::masked && f.kind == Fact::masked) return Fact::maskedBelow(std::max(t.bound, f.bound));
      if (t.kind == f.kind && t.kind != Fact::same) return t;
      if (t.bounded() && f.bounded()) return Fact::of(Fact::moderate);
      return t.kind != Fact::unknown && f.kind != Fact::unknown ? Fact::of(Fact::atMost) : Fact::of(Fact::unknown);
    }
    if (auto add = dyn_cast<dialect::AddOp>(op)) return as(sum(fact(add.getLhs()), fact(add.getRhs())), result);
    if (auto sub = dyn_cast<dialect::SubOp>(op)) {
      Fact l = fact(sub.getLhs()), r = fact(sub.getRhs());
      if (l.kind == Fact::same && r.kind == Fact::same && l.carried == r.carried) return Fact::of(Fact::zero);
      if (r.kind == Fact::zero) return as(l, result);
      if ((l.kind == Fact::masked || l.kind == Fact::atMost) && r.bounded()) return l;
      return l.bounded() && r.bounded() ? Fact::of(Fact::moderate) : Fact::of(Fact::unknown);
    }
    if (auto mul = dyn_cast<dialect::MulOp>(op)) return as(product(mul.getLhs(), mul.getRhs()), result);
    if (auto max = dyn_cast<dialect::MaximumOp>(op)) {
      Fact l = fact(max.getLhs()), r = fact(max.getRhs());
      if (l.hides() && r.bounded()) return as(r, result);
      if (r.hides() && l.bounded()) return as(l, result);
      if (l.kind == Fact::same && r.kind == Fact::same && l.carried == r.carried) return as(l, result);
      return l.bounded() && r.bounded() ? Fact::of(Fact::moderate) : Fact::of(Fact::unknown);
    }
    if (auto exp = dyn_cast<dialect::Exp2Op>(op)) {
      Fact x = fact(exp.getInput());
      if (x.hides()) return Fact::of(Fact::zero);
      if (x.kind == Fact::zero) return Fact::of(Fact::one);
      return x.bounded() || x.kind == Fact::atMost ? Fact::of(Fact::moderate) : Fact::of(Fact::unknown);
    }
    if (auto convert = dyn_cast<dialect::CastOp>(op)) {
      Fact x = fact(convert.getInput());
      const bool toFloat = isa<FloatType>(cast<dialect::TensorType>(result.getType()).getElementType());
      if (x.kind == Fact::zero || (toFloat && (x.kind == Fact::one || x.kind == Fact::masked))) return x;
      return x.bounded() ? Fact::of(Fact::moderate) : Fact::of(Fact::unknown);
    }
    if (isa<dialect::BroadcastOp, dialect::PermuteOp>(op)) {
      Fact x = fact(op->getOperand(0));
      return x.kind == Fact::same ? as(x, result) : x;
    }
    if (auto max = dyn_cast<dialect::ReduceMaxOp>(op)) {
      Fact x = fact(max.getInput());
      if (!max.getInit()) return x.kind == Fact::same ? Fact::of(Fact::moderate) : x;
      Fact init = fact(max.getInit());
      // A running max is above the masked scores: every row's visible keys lie in the tiles
      // the loop still runs.
      if (x.hides() && init.bounded()) return as(init, result);
      return x.bounded() && init.bounded() ? Fact::of(Fact::moderate) : Fact::of(Fact::unknown);
    }
    if (auto sum = dyn_cast<dialect::ReduceSumOp>(op)) {
      Fact x = fact(sum.getInput());
      Fact init = sum.getInit() ? fact(sum.getInit()) : Fact::of(Fact::zero);
      if (x.kind == Fact::zero) return as(init, result);
      return x.bounded() && init.bounded() ? Fact::of(Fact::moderate) : Fact::of(Fact::unknown);
    }
    if (auto mma = dyn_cast<dialect::MmaOp>(op)) {
      Fact a = fact(mma.getLhs()), b = fact(mma.getRhs()), acc = fact(mma.getAcc());
      // Zeros times data (finite) add nothing.
      if ((a.kind == Fact::zero && b.bounded()) || (b.kind == Fact::zero && a.bounded())) return as(acc, result);
      return a.bounded() && b.bounded() && acc.bounded() ? Fact::of(Fact::moderate) : Fact::of(Fact::unknown);
    }
    // Any other op: moderate from moderate operands, nothing known otherwise.
    for (Value operand : op->getOperands())
      if (!fact(operand).bounded()) return Fact::of(Fact::unknown);
    return Fact::of(Fact::moderate);
  }

  Fact sum(Fact l, Fact r) {
    if (l.kind == Fact::zero) return r;
    if (r.kind == Fact::zero) return l;
    if (l.kind == Fact::masked && r.kind == Fact::masked) return Fact::maskedBelow(l.bound + r.bound);
    // Masked stays masked, whatever at most moderate is added; at most moderate likewise.
    for (auto [a, b] : {std::pair{l, r}, std::pair{r, l}})
      if (a.kind == Fact::masked && (b.bounded() || b.kind == Fact::atMost)) return a;
    for (auto [a, b] : {std::pair{l, r}, std::pair{r, l}})
      if (a.kind == Fact::atMost && (b.bounded() || b.kind == Fact::atMost)) return a;
    return l.bounded() && r.bounded() ? Fact::of(Fact::moderate) : Fact::of(Fact::unknown);
  }

  Fact product(Value lhs, Value rhs) {
    Fact l = fact(lhs), r = fact(rhs);
    if (l.kind == Fact::one) return r;
    if (r.kind == Fact::one) return l;
    if ((l.kind == Fact::zero && r.bounded()) || (r.kind == Fact::zero && l.bounded())) return Fact::of(Fact::zero);
    // Masked scores scaled by a positive constant stay masked (at the scaled bound).
    for (auto [masked, scale] : {std::pair{l, rhs}, std::pair{r, lhs}})
      if (masked.kind == Fact::masked || masked.kind == Fact::atMost)
        if (std::optional<double> c = splatValue(scale); c && *c > 0)
          return masked.kind == Fact::atMost ? masked : Fact::maskedBelow(masked.bound * *c);
    return l.bounded() && r.bounded() ? Fact::of(Fact::moderate) : Fact::of(Fact::unknown);
  }

  dialect::IterateOp loop_;
  llvm::function_ref<bool(Value)> hidden_;
  llvm::DenseMap<Value, Fact> facts_;
};

struct WaveSkipMaskedTilesPass : impl::WaveSkipMaskedTilesBase<WaveSkipMaskedTilesPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    FailureOr<KernelGrid> grid = kernelGridQuietly(kernel);
    if (failed(grid)) return;
    auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters");
    kernel.walk([&](dialect::IterateOp loop) {
      if (loop.getEndAttr()) return;
      const bool effects = loop.walk([](Operation* op) {
                                 return isa<dialect::WriteOp, dialect::PrintOp>(op) ? WalkResult::interrupt()
                                                                                     : WalkResult::advance();
                               }).wasInterrupted();
      if (effects) return;
      // The causal conditions of the body's selects, over a row dim the workgroups tile.
      StringRef dim = loop.getDim();
      auto causal = [&](Value cond) -> std::optional<CausalMask> {
        std::optional<CausalMask> c = causalCondition(cond, dim, hyper);
        if (!c || !grid->dims.contains(c->rowDim) || grid->tiling(c->rowDim).loop) return std::nullopt;
        return c;
      };
      SmallVector<CausalMask> candidates;
      loop.getBody().walk([&](dialect::SelectOp select) {
        if (std::optional<CausalMask> c = causal(select.getCond())) candidates.push_back(*c);
      });
      auto end = [&](const CausalMask& c) { return grid->tiling(c.rowDim).blockTile + c.slack; };
      // Equal ends order by row dim and slack, so the order does not depend on the sort.
      llvm::sort(candidates, [&](const CausalMask& a, const CausalMask& b) {
        return std::make_tuple(end(a), a.rowDim, a.slack) < std::make_tuple(end(b), b.rowDim, b.slack);
      });
      // The earliest end at which the tiles after it change nothing. A condition is false on
      // all of them when its row dim is the candidate's and its slack is no larger.
      for (const CausalMask& candidate : candidates) {
        auto hidden = [&](Value cond) {
          std::optional<CausalMask> c = causal(cond);
          return c && c->rowDim == candidate.rowDim && c->slack <= candidate.slack;
        };
        if (!TileFacts(loop, hidden).carriedValuesUnchanged()) continue;
        MLIRContext* ctx = loop.getContext();
        AffineMap map = AffineMap::get(1, 0, getAffineDimExpr(0, ctx) + end(candidate));
        loop.setEndAttr(dialect::ExprAttr::get(ctx, {}, map, dialect::ExprKind::value));
        loop.setEndDimsAttr(ArrayAttr::get(ctx, {StringAttr::get(ctx, candidate.rowDim)}));
        return;
      }
    });
  }
};

}  // namespace
}  // namespace wave::jit
