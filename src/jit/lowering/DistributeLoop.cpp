//===- DistributeLoop.cpp - wave.iterate per thread ----------------------===//
//
// An scf.for over the dim's tiles, its carried values the vectors; ended early where a
// schedule pass set its end (wave-skip-masked-tiles), and its marked masks computed only
// on the tiles they touch (wave-mask-partial-tiles).
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/DistributedLayout.h"
#include "analysis/ThreadLayout.h"
#include "lowering/ExprToArith.h"
#include "lowering/KernelSignature.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SmallBitVector.h"

namespace wave::jit::distribution {

LogicalResult Distributor::lowerIterate(dialect::IterateOp loop) {
  StringRef dim = loop.getDim();
  const DimTiling& tiling = grid_.tiling(dim);
  if (!tiling.loop)
    return loop.emitOpError("expected a TilingConstraint on ") << dim << ", the dim it walks, but found none";
  AffineExpr d0 = getAffineDimExpr(0, b_.getContext());
  // The tiles past `end` cannot change the results (wave-skip-masked-tiles).
  FailureOr<Value> extent = endingAt(loop, endOf(dim), loop.getEndAttr(), loop.getEndDimsAttr(), "end_dims");
  if (failed(extent)) return failure();
  // Split over workgroups too: this workgroup walks the tiles of its part, from `start`;
  // or under stream-K, the tile's segment of trips.
  Value start = tiling.splitTile ? offsets_.lookup(dim) : Value();
  Value length = start ? index(tiling.splitTile) : Value();
  if (start && failed(checkSplitSums(loop))) return failure();
  const bool streamK = streamK_ && streamK_->loop == loop;
  if (streamK) {
    start = arith::MulIOp::create(b_, loc_, streamK_->begin, index(tiling.blockTile));
    length = arith::MulIOp::create(b_, loc_, arith::SubIOp::create(b_, loc_, streamK_->end, streamK_->begin),
                                   index(tiling.blockTile));
  }
  if (start) {
    extent = arith::MinSIOp::create(b_, loc_, arith::SubIOp::create(b_, loc_, *extent, start), length).getResult();
    extent = arith::MaxSIOp::create(b_, loc_, *extent, index(0)).getResult();
  }
  Value tiles = apply(d0.ceilDiv(tiling.blockTile), *extent);
  // A workgroup whose tile along a dim that every carried value has starts past the end
  // set at run time holds none of their elements: no tile would change them.
  if (!loop.getIterArgs().empty())
    for (const auto& [d, end] : ends_) {
      if (!llvm::all_of(loop.getIterArgs(), [&](Value v) { return llvm::is_contained(dimsOf(v), d); })) continue;
      Value holds = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, offsets_.lookup(d), end);
      tiles = arith::SelectOp::create(b_, loc_, holds, tiles, index(0));
    }
  FailureOr<Value> firstMasked = firstMaskedTile(loop, tiles, start);
  if (failed(firstMasked)) return failure();
  SmallVector<Value> inits;
  for (Value v : loop.getIterArgs()) inits.push_back(lookup(v));
  if (start) {
    // Each workgroup sums its part; the initial values count once, in the first.
    Value first = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, start, index(0));
    for (Value& init : inits) {
      Value zero = arith::ConstantOp::create(b_, loc_, init.getType(), b_.getZeroAttr(init.getType()));
      init = arith::SelectOp::create(b_, loc_, first, init, zero);
    }
  }
  ArrayAttr folds = loop.getWaveFoldsAttr();
  if (folds) {
    // Waves folding apart: the initial value of a sum counts once, in the first wave
    // along the dim; the others start from zero.
    Value first = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, waveDigit(grid_.waves.axisOf(dim)),
                                        index(0));
    for (auto [init, fold] : llvm::zip(inits, folds)) {
      if (dialect::symbolizeFoldKind(cast<StringAttr>(fold).getValue()) != dialect::FoldKind::sum) continue;
      Value zero = arith::ConstantOp::create(b_, loc_, init.getType(), b_.getZeroAttr(init.getType()));
      init = arith::SelectOp::create(b_, loc_, first, init, zero);
    }
  }
  auto forOp = scf::ForOp::create(b_, loc_, index(0), tiles, index(1), inits);
  countTripsAcrossTiles(forOp, tiles);
  Block& body = loop.getBody().front();
  {
    OpBuilder::InsertionGuard guard(b_);
    if (inits.empty())
      b_.setInsertionPoint(forOp.getBody()->getTerminator());
    else
      b_.setInsertionPointToStart(forOp.getBody());
    Value outside = offsets_.lookup(dim);
    offsets_[dim] = arith::MulIOp::create(b_, loc_, forOp.getInductionVar(), index(tiling.blockTile));
    if (start) offsets_[dim] = arith::AddIOp::create(b_, loc_, start, offsets_[dim]);
    std::optional<std::pair<int64_t, int64_t>> outsideRange;
    if (auto it = offsetRanges_.find(dim); it != offsetRanges_.end()) {
      outsideRange = it->second;
      offsetRanges_.erase(it);
    }
    for (auto [arg, carried] : llvm::zip(body.getArguments(), forOp.getRegionIterArgs())) {
      values_[arg] = carried;
      if (folds) partials_.insert(arg);
    }
    if (folds) foldingApart_.insert(dim);
    // Where no tile reaches the first masked one (sizes known now: K2 a whole number of
    // tiles, not causal), the body gets no condition and the masks are left out rather
    // than branched over in every tile.
    std::optional<int64_t> firstStatic = *firstMasked ? foldedConstant(*firstMasked) : std::nullopt;
    std::optional<int64_t> tilesStatic = foldedConstant(tiles);
    const bool noneMasked = firstStatic && tilesStatic && *firstStatic >= *tilesStatic;
    if (*firstMasked && !noneMasked)
      tileIsMasked_[&body] = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sge, forOp.getInductionVar(),
                                                   *firstMasked);
    if (failed(lowerBlock(body))) return failure();
    foldingApart_.erase(dim);
    offsets_[dim] = outside;
    if (outsideRange) offsetRanges_[dim] = *outsideRange;
    if (!inits.empty()) {
      SmallVector<Value> next;
      for (Value v : body.getTerminator()->getOperands()) next.push_back(lookup(v));
      scf::YieldOp::create(b_, loc_, next);
    }
  }
  for (auto [result, value] : llvm::zip(loop.getResults(), forOp.getResults())) {
    values_[result] = value;
    if (folds) partials_.insert(result);
    if (tiling.splitTile) splitSums_[result] = loop;
  }
  if (streamK) combineStreamKParts(loop);
  return success();
}

LogicalResult Distributor::checkSplitSums(dialect::IterateOp loop) {
  std::optional<unsigned> other = firstNonSum(loop);
  if (!other) return success();
  Block& body = loop.getBody().front();
  Operation* def = body.getTerminator()->getOperand(*other).getDefiningOp();
  return loop.emitOpError("walks ")
         << loop.getDim() << ", which a WorkgroupConstraint splits across workgroups: expected each carried value "
         << "to be a sum over it (an mma's accumulator, or the value plus a term not computed from carried "
         << "values), but carried value #" << *other << " is updated by "
         << (def ? def->getName().getStringRef() : StringRef("nothing (passed through)"));
}

std::optional<unsigned> Distributor::firstNonSum(dialect::IterateOp loop) {
  Block& body = loop.getBody().front();
  // Whether `v` is computed from a carried value (then the term is no sum's term).
  auto fromCarried = [&](Value v) {
    SmallVector<Value> work{v};
    DenseSet<Value> seen;
    while (!work.empty()) {
      Value x = work.pop_back_val();
      if (!seen.insert(x).second) continue;
      if (auto arg = dyn_cast<BlockArgument>(x); arg && arg.getOwner() == &body) return true;
      if (Operation* def = x.getDefiningOp(); def && body.findAncestorOpInBlock(*def))
        llvm::append_range(work, def->getOperands());
    }
    return false;
  };
  for (auto [arg, next] : llvm::zip(body.getArguments(), body.getTerminator()->getOperands())) {
    Operation* def = next.getDefiningOp();
    // acc' = mma(a, b, acc) or acc + term, the term (a, b) not computed from carried values.
    auto termOf = [&]() -> SmallVector<Value> {
      if (!def || def->getBlock() != &body) return {};
      if (isa<dialect::MmaOp>(def) && def->getOperand(2) == arg) return {def->getOperand(0), def->getOperand(1)};
      if (isa<dialect::AddOp>(def) && def->getOperand(0) == arg) return {def->getOperand(1)};
      if (isa<dialect::AddOp>(def) && def->getOperand(1) == arg) return {def->getOperand(0)};
      return {};
    };
    SmallVector<Value> term = termOf();
    if (term.empty() || llvm::any_of(term, fromCarried)) return arg.getArgNumber();
  }
  return std::nullopt;
}

FailureOr<Value> Distributor::endingAt(dialect::IterateOp loop, Value extent, dialect::ExprAttr end, ArrayAttr endDims,
                                       StringRef what) {
  if (!end) return extent;
  SmallVector<Value> starts;
  for (Attribute d : endDims) starts.push_back(offsets_.lookup(cast<StringAttr>(d).getValue()));
  if (llvm::is_contained(starts, Value()))
    return loop.emitOpError("expected workgroup positions for its ") << what << ", but found a dim without one";
  return arith::MinSIOp::create(b_, loc_, extent, buildExpr(b_, loc_, end, starts, {})).getResult();
}

FailureOr<Value> Distributor::firstMaskedTile(dialect::IterateOp loop, Value tiles, Value start) {
  Block& body = loop.getBody().front();
  SmallVector<Operation*> adds;
  for (Operation& op : body)
    if (op.hasAttr("wave.hiding_mask")) adds.push_back(&op);
  if (adds.empty()) return Value();
  // The ops only a mask needs: walking the body backwards, users come before what they
  // use; a pure op joins when all its users have (the add first).
  for (Operation* add : adds) {
    SetVector<Operation*> only;
    only.insert(add);
    for (Operation& op : llvm::reverse(body)) {
      if (&op == add || !op.isBeforeInBlock(add) || deferred_.contains(&op) || op.getNumRegions() != 0 ||
          !isMemoryEffectFree(&op) || op.use_empty())
        continue;
      const bool feedsMask = llvm::all_of(op.getUsers(), [&](Operation* user) {
        return only.contains(user) && (user != add || op.getResult(0) == add->getOperand(1));
      });
      if (feedsMask) only.insert(&op);
    }
    SmallVector<Operation*> ordered(only.begin() + 1, only.end());
    llvm::sort(ordered, [](Operation* a, Operation* b) { return a->isBeforeInBlock(b); });
    deferred_.insert(ordered.begin(), ordered.end());
    maskOnly_[add] = std::move(ordered);
  }
  // Tiles ending at or before both the dim's end and unmasked_end see zeros in every mask.
  StringRef dim = loop.getDim();
  FailureOr<Value> unmaskedEnd = endingAt(loop, endOf(dim), loop.getUnmaskedEndAttr(),
                                          loop.getUnmaskedEndDimsAttr(), "unmasked_end_dims");
  if (failed(unmaskedEnd)) return failure();
  AffineExpr d0 = getAffineDimExpr(0, b_.getContext());
  Value unmasked = *unmaskedEnd;
  if (start)  // counted from the workgroup's first tile (a whole number of tiles in)
    unmasked = arith::MaxSIOp::create(b_, loc_, arith::SubIOp::create(b_, loc_, unmasked, start), index(0));
  Value whole = apply(d0.floorDiv(grid_.tiling(dim).blockTile), unmasked);
  return arith::MinSIOp::create(b_, loc_, whole, tiles).getResult();
}

// A marked add: in the tiles its mask touches, the mask (and what only it needs) and the
// sum; in the others the scores as they are.
LogicalResult Distributor::lowerHidingMask(dialect::AddOp add) {
  Value masked = tileIsMasked_.lookup(add->getBlock());
  Value scores = lookup(add.getLhs());
  if (!masked) {
    values_[add.getResult()] = scores;  // no tile of this loop is masked
    return success();
  }
  auto branch = scf::IfOp::create(b_, loc_, TypeRange{scores.getType()}, masked, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(branch.thenBlock());
    for (Operation* op : maskOnly_.lookup(add)) {
      loc_ = op->getLoc();
      if (failed(lowerOp(op))) return failure();
    }
    loc_ = add.getLoc();
    scf::YieldOp::create(b_, loc_, binary<arith::AddFOp, arith::AddIOp>(b_, loc_, scores, lookup(add.getRhs())));
    b_.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b_, loc_, scores);
  }
  values_[add.getResult()] = branch.getResult(0);
  return success();
}

}  // namespace wave::jit::distribution
