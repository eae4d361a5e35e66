//===- DistributeReduction.cpp - reductions per thread -------------------===//
//
// In the thread over registers that differ along the reduced dim, then xor shuffles over
// the lane bits that move along it, then through shared memory over the wave axes that
// do; and the combination of waves that folded their parts of a loop apart.
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

static ReductionKind reductionKind(dialect::FoldKind kind) {
  switch (kind) {
    case dialect::FoldKind::max: return ReductionKind::max;
    case dialect::FoldKind::min: return ReductionKind::min;
    case dialect::FoldKind::sum: return ReductionKind::sum;
  }
  llvm_unreachable("a fold kind");
}

SmallVector<Value> Distributor::combineAcrossWaves(ArrayRef<Value> partial, ReductionKind kind, ArrayRef<bool> axes,
                                                   LayoutAttr layout) {
  // Slot [wave][register][lane]: each wave's partials, then each thread combines those of
  // the waves that differ from its own only along `axes`.
  ArrayRef<int64_t> waveAxes = layout.getWaves();
  const int64_t lanes = layout.getNumLanes(), waves = layout.getNumWaves(), regs = layout.getNumRegisters();
  Value buffer = sharedBuffer({waves * regs * lanes}, partial.front().getType());
  AffineExpr l = getAffineDimExpr(0, b_.getContext()), w = getAffineDimExpr(1, b_.getContext());
  for (int64_t r = 0; r < regs; ++r)
    memref::StoreOp::create(b_, loc_, partial[r], buffer, threadIndex((w * regs + r) * lanes + l));
  // The waves of this thread's group: its own wave with the digits along `axes` replaced.
  SmallVector<int64_t> strides = waveAxisStrides(waveAxes);
  AffineExpr base = w;
  for (size_t a = 0; a < waveAxes.size(); ++a)
    if (axes[a]) base = base - (w.floorDiv(strides[a]) % waveAxes[a]) * strides[a];
  SmallVector<AffineExpr> group = {base};
  for (size_t a = 0; a < waveAxes.size(); ++a) {
    if (!axes[a]) continue;
    SmallVector<AffineExpr> next;
    for (AffineExpr e : group)
      for (int64_t d = 0; d < waveAxes[a]; ++d) next.push_back(e + d * strides[a]);
    group = next;
  }
  SmallVector<Value> combined;
  for (int64_t r = 0; r < regs; ++r) {
    Value acc;
    for (AffineExpr wave : group) {
      Value v = memref::LoadOp::create(b_, loc_, buffer, threadIndex((wave * regs + r) * lanes + l));
      acc = acc ? combine(b_, loc_, kind, acc, v) : v;
    }
    combined.push_back(acc);
  }
  return combined;
}

LogicalResult Distributor::lowerCombineWaves(dialect::CombineWavesOp op) {
  LayoutAttr layout = layoutOf(op.getInput());
  const int axis = grid_.waves.axisOf(op.getDim());
  if (axis < 0 || layout.getWaves().size() != grid_.waves.dims.size())
    return op.emitOpError("expected waves split along ") << op.getDim() << ", but no WaveConstraint splits it";
  SmallVector<bool> axes(grid_.waves.dims.size(), false);
  axes[axis] = true;
  const ReductionKind kind = reductionKind(op.getKind());
  Type element = elementOf(op.getInput());
  // Narrow floats combine in f32.
  Type work = accumulationType(element);
  Value in = lookup(op.getInput());
  SmallVector<Value> partial;
  for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
    Value v = vector::ExtractOp::create(b_, loc_, in, ArrayRef<int64_t>{r});
    partial.push_back(v.getType() == work ? v : arith::ExtFOp::create(b_, loc_, work, v).getResult());
  }
  Value out = in;
  for (auto [r, v] : llvm::enumerate(combineAcrossWaves(partial, kind, axes, layout))) {
    if (v.getType() != element) v = arith::TruncFOp::create(b_, loc_, element, v);
    out = vector::InsertOp::create(b_, loc_, v, out, ArrayRef<int64_t>{int64_t(r)});
  }
  values_[op.getResult()] = out;
  return success();
}

LogicalResult Distributor::checkOneWorkgroupCovers(Operation* op, StringRef dim, StringRef what) {
  const int64_t blockTile = grid_.tiling(dim).blockTile;
  if (isKnownAtMost(kernel_, dim, blockTile)) return success();
  auto diag = op->emitOpError("expected one workgroup to cover the dim it ")
              << what << ", " << dim << ", whose workgroup tile is " << blockTile;
  if (auto size = staticSize(kernel_, dim)) return diag << ", but " << dim << " is " << *size;
  return diag << ", but " << dim << " is dynamic and not known to be at most that (state it: Assumption(" << dim
              << " <= " << blockTile << "))";
}

FailureOr<ReductionPlan> Distributor::planReduction(Operation* op) {
  Value input = op->getOperand(0), result = op->getResult(0);
  StringRef dim = op->getAttrOfType<StringAttr>("dim").getValue();
  const int k = dimIndex(dimsOf(input), dim);
  LayoutAttr in = layoutOf(input), out = layoutOf(result);
  // Inside a loop over `dim`, the reduction is over the loop's tile.
  if (!grid_.tiling(dim).loop && failed(checkOneWorkgroupCovers(op, dim, "reduces over"))) return failure();
  Type element = elementOf(result);
  Type work = accumulationType(element);
  if (work.getIntOrFloatBitWidth() != 32)
    return op->emitOpError("is not yet supported: a reduction of ")
           << element << " (32-bit or narrower floats, 32-bit integers)";
  // A row (a position but for `dim`) as one number: a key mixing the other dims' places.
  const LayoutPoints inPoints(in), outPoints(out);
  const int64_t inRegisters = in.getNumRegisters(), outRegisters = out.getNumRegisters();
  const int64_t inWaves = in.getNumWaves(), lanes = in.getNumLanes();
  const int64_t rank = dimsOf(input).size();
  SmallVector<int64_t> rowExtent;  // per dim of the result
  {
    SmallVector<int64_t> inExtent = inPoints.extent(), outExtent = outPoints.extent();
    for (int64_t d = 0, o = 0; d < rank; ++d)
      if (d != k) rowExtent.push_back(std::max(inExtent[d], outExtent[o++]));
  }
  // The row of a position with `skipped` dims among `dims` (the input's: `dim`; the
  // output's: none).
  auto rowKey = [&](const int64_t* p, int64_t dims, int64_t skipped) {
    int64_t key = 0;
    for (int64_t d = 0, o = 0; d < dims; ++d)
      if (d != skipped) key = key * rowExtent[o++] + p[d];
    return key;
  };
  auto rowOfInput = [&](const int64_t* p) { return rowKey(p, rank, k); };
  auto rowOfOutput = [&](const int64_t* p) { return rowKey(p, rank - 1, -1); };
  // In the thread: for each result register, the input registers of its row, each
  // position along `dim` once.
  SmallVector<SmallVector<int64_t>> members(outRegisters);
  for (int64_t r = 0; r < outRegisters; ++r) {
    const int64_t row = rowOfOutput(outPoints.data(r, 0, 0));
    SmallVector<int64_t> seen;
    for (int64_t s = 0; s < inRegisters; ++s) {
      const int64_t* p = inPoints.data(s, 0, 0);
      if (rowOfInput(p) != row || llvm::is_contained(seen, p[k])) continue;
      seen.push_back(p[k]);
      members[r].push_back(s);
    }
  }
  // The same grouping must hold in every thread.
  for (int64_t w = 0; w < inWaves; ++w)
    for (int64_t l = 0; l < lanes; ++l)
      for (int64_t r = 0; r < outRegisters; ++r)
        for (int64_t s : members[r])
          if (rowOfInput(inPoints.data(s, l, w)) != rowOfOutput(outPoints.data(r, l, w)))
            return op->emitOpError("is not yet supported: a reduction over a layout whose rows differ between threads");
  // Which lane bits and wave axes move only along `dim` (combine), only repeat elements
  // (skip) or change the row (skip).
  auto classify = [&](auto flip) -> FailureOr<bool> {
    bool alongOnly = true, moves = false;
    for (int64_t w = 0; w < inWaves; ++w)
      for (int64_t l = 0; l < lanes; ++l) {
        auto [l2, w2] = flip(l, w);
        for (int64_t s = 0; s < inRegisters; ++s) {
          const int64_t *p = inPoints.data(s, l, w), *q = inPoints.data(s, l2, w2);
          if (std::equal(p, p + rank, q)) continue;
          moves = true;
          if (rowOfInput(p) != rowOfInput(q)) alongOnly = false;
        }
      }
    return moves && alongOnly;
  };
  SmallVector<int64_t> laneBits;
  for (int64_t bit = 1; bit < lanes; bit *= 2) {
    auto c = classify([&](int64_t l, int64_t w) { return std::pair{l ^ bit, w}; });
    if (*c) laneBits.push_back(bit);
  }
  ArrayRef<int64_t> waveAxes = in.getWaves();
  SmallVector<int64_t> strides = waveAxisStrides(waveAxes);
  SmallVector<bool> reduceAxis(waveAxes.size(), false);
  for (size_t a = 0; a < waveAxes.size(); ++a) {
    const int64_t stride = strides[a];
    auto c = classify([&](int64_t l, int64_t w) {
      int64_t digit = w / stride % waveAxes[a];
      return std::pair{l, w + ((digit + 1) % waveAxes[a] - digit) * stride};
    });
    reduceAxis[a] = *c;
  }
  // Waves that fold their parts of the dim apart keep their own partials.
  SmallVector<bool> apart(waveAxes.size(), false);
  if (waveAxes.size() == grid_.waves.dims.size())
    for (size_t a = 0; a < waveAxes.size(); ++a) apart[a] = foldingApart_.contains(grid_.waves.dims[a]);
  bool keepsPartials = false;
  for (size_t a = 0; a < waveAxes.size(); ++a) {
    keepsPartials |= reduceAxis[a] && apart[a];
    reduceAxis[a] = reduceAxis[a] && !apart[a];
  }

  // Every element of a row must be counted once: each thread's group (its registers, the
  // lanes over the combined bits, the waves over the combined axes) must hold each of the
  // row's positions exactly once (of its own part, where waves fold apart). Layouts that
  // repeat elements irregularly fail here. A group only reaches its own row (the lane bits
  // and wave axes combined move along `dim` alone), so holding as many distinct positions
  // as the row has is holding each once.
  {
    // A row, and the wave's digits along the axes folding apart.
    auto partOf = [&](int64_t row, int64_t w) {
      for (size_t a = 0; a < waveAxes.size(); ++a)
        if (apart[a]) row = row * waveAxes[a] + w / strides[a] % waveAxes[a];
      return row;
    };
    DenseMap<int64_t, SmallVector<int64_t>> rowPositions;
    for (int64_t w = 0; w < inWaves; ++w)
      for (int64_t l = 0; l < lanes; ++l)
        for (int64_t s = 0; s < inRegisters; ++s) {
          const int64_t* p = inPoints.data(s, l, w);
          rowPositions[partOf(rowOfInput(p), w)].push_back(p[k]);
        }
    DenseMap<int64_t, size_t> rowLength;
    for (auto& [row, positions] : rowPositions) {
      llvm::sort(positions);
      rowLength[row] = std::unique(positions.begin(), positions.end()) - positions.begin();
    }
    SmallVector<int64_t> groupLanes = {0};
    for (int64_t bit : laneBits)
      for (int64_t i = 0, n = groupLanes.size(); i < n; ++i) groupLanes.push_back(groupLanes[i] ^ bit);
    SmallVector<int64_t> counted;
    for (int64_t w = 0; w < inWaves; ++w) {
      SmallVector<int64_t> groupWaves = {w};
      for (size_t a = 0; a < waveAxes.size(); ++a) {
        if (!reduceAxis[a]) continue;
        SmallVector<int64_t> next;
        for (int64_t g : groupWaves)
          for (int64_t d = 0; d < waveAxes[a]; ++d) next.push_back(g + (d - g / strides[a] % waveAxes[a]) * strides[a]);
        groupWaves = next;
      }
      for (int64_t l = 0; l < lanes; ++l)
        for (int64_t r = 0; r < outRegisters; ++r) {
          counted.clear();
          for (int64_t gw : groupWaves)
            for (int64_t gl : groupLanes)
              for (int64_t s : members[r]) counted.push_back(inPoints.data(s, l ^ gl, gw)[k]);
          llvm::sort(counted);
          if (std::adjacent_find(counted.begin(), counted.end()) != counted.end() ||
              counted.size() != rowLength.lookup(partOf(rowOfOutput(outPoints.data(r, l, w)), w)))
            return op->emitOpError("is not yet supported: a reduction over ")
                   << dim << " in a layout that repeats some of a row's elements across threads (tile the dims "
                   << "so that each wave's tile is a multiple of a wave's " << lanes << " lanes' runs)";
        }
    }
  }

  return ReductionPlan{work, std::move(members), std::move(laneBits), std::move(reduceAxis), keepsPartials};
}

LogicalResult Distributor::lowerReduction(Operation* op) {
  FailureOr<ReductionPlan> planned = planReduction(op);
  if (failed(planned)) return failure();
  const ReductionKind kind = reductionKind(cast<dialect::ReductionOpInterface>(op).getKind());
  Value input = op->getOperand(0), result = op->getResult(0);
  StringRef dim = op->getAttrOfType<StringAttr>("dim").getValue();
  const int k = dimIndex(dimsOf(input), dim);
  LayoutAttr in = layoutOf(input), out = layoutOf(result);
  const int64_t lanes = in.getNumLanes();
  Type element = elementOf(result), work = planned->work;
  const ReductionPlan& plan = *planned;
  Value x = lookup(input);
  Value reducedIndex = offsets_.lookup(dim);
  if (!reducedIndex) reducedIndex = index(0);
  // wave.extract sums the one element whose index along `dim` is the position's.
  auto extract = dyn_cast<dialect::ExtractOp>(op);
  Value positions = extract ? lookup(extract.getPosition()) : Value();
  // Per output register, this thread's elements combined; with `masked`, those past the
  // dim's end (and, for wave.extract, those off the position) as the identity.
  auto threadPartials = [&](bool masked) {
    SmallVector<Value> partials;
    SmallVector<Value> before = masked && mayOverrun(dim) ? registersBeforeEnd(in, k, dim) : SmallVector<Value>();
    for (int64_t r = 0; r < out.getNumRegisters(); ++r) {
      SmallVector<Value> elements;
      Value position;
      if (extract)
        position = arith::IndexCastOp::create(b_, loc_, b_.getIndexType(),
                                              vector::ExtractOp::create(b_, loc_, positions, ArrayRef<int64_t>{r}));
      for (int64_t s : plan.members[r]) {
        Value v = vector::ExtractOp::create(b_, loc_, x, ArrayRef<int64_t>{s});
        if (masked) {
          Value keep = before.empty() ? Value() : before[s];
          if (extract) {
            Value at = arith::AddIOp::create(b_, loc_, reducedIndex, threadIndex(positionOfRegister(in, s)[k]));
            Value picked = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, at, position);
            keep = keep ? arith::AndIOp::create(b_, loc_, keep, picked).getResult() : picked;
          }
          v = arith::SelectOp::create(b_, loc_, keep, v, reductionIdentity(b_, loc_, kind, element));
        }
        if (v.getType() != work) v = arith::ExtFOp::create(b_, loc_, work, v);
        elements.push_back(v);
      }
      partials.push_back(combineTree(b_, loc_, kind, elements));
    }
    return partials;
  };
  // Only a tile that overruns the end holds elements past it: the others combine theirs
  // without a select each.
  SmallVector<Value> partial =
      mayOverrun(dim) && !extract
          ? fillOnOverrunningTiles(dim, SmallVector<Type>(out.getNumRegisters(), work),
                                   [&] { return threadPartials(true); }, [&] { return threadPartials(false); })
          : threadPartials(extract != nullptr);
  for (Value& acc : partial)
    for (int64_t bit : plan.laneBits) {
      auto shuffle = gpu::ShuffleOp::create(b_, loc_, acc, static_cast<int32_t>(bit), static_cast<int32_t>(lanes),
                                            gpu::ShuffleMode::XOR);
      acc = combine(b_, loc_, kind, acc, shuffle.getShuffleResult());
    }
  if (llvm::is_contained(plan.reduceAxis, true)) partial = combineAcrossWaves(partial, kind, plan.reduceAxis, out);
  if (plan.keepsPartials) partials_.insert(result);
  VectorType outType = registersOf(result);
  Value initValue = cast<dialect::ReductionOpInterface>(op).getInit();
  Value init = initValue ? lookup(initValue) : Value();
  Value vec = arith::ConstantOp::create(b_, loc_, outType, b_.getZeroAttr(outType));
  for (int64_t r = 0; r < out.getNumRegisters(); ++r) {
    Value v = partial[r];
    if (init) {
      Value i = vector::ExtractOp::create(b_, loc_, init, ArrayRef<int64_t>{r});
      if (i.getType() != work) i = arith::ExtFOp::create(b_, loc_, work, i);
      v = combine(b_, loc_, kind, v, i);
    }
    if (v.getType() != element) v = arith::TruncFOp::create(b_, loc_, element, v);
    vec = vector::InsertOp::create(b_, loc_, v, vec, ArrayRef<int64_t>{r});
  }
  values_[result] = vec;
  return success();
}

}  // namespace wave::jit::distribution
