//===- DistributeMma.cpp - wave.mma and its operand fragments per thread -===//
//
// Per instruction tile of the wave: the fragments sliced out of the operands' and
// accumulator's registers (or loaded from a shared tile by ldmatrix where the operand is
// read there), one mma.sync (NVIDIA) or MFMA (AMD) each.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/DistributedLayout.h"
#include "analysis/ThreadLayout.h"
#include "lowering/MMAInstructions.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit::distribution {

FailureOr<const MMAAnchors*> Distributor::anchorsOf(dialect::MmaOp op) {
  auto [it, inserted] = anchors_.try_emplace(op, std::nullopt);
  if (inserted)
    if (auto anchors = mmaAnchors(op, grid_); succeeded(anchors)) it->second = std::move(*anchors);
  if (!it->second) return failure();
  return &*it->second;
}

std::optional<FragmentSource> Distributor::fragmentSource(dialect::ReadOp read) {
  LayoutAttr layout = layoutOf(read.getResult());
  for (Operation* user : read->getUsers()) {
    auto mma = dyn_cast<dialect::MmaOp>(user);
    if (!mma) continue;
    auto found = anchorsOf(mma);
    if (failed(found)) return std::nullopt;
    const MMAAnchors* anchors = *found;
    const bool lhs = layout == anchors->lhs;
    if (!lhs && layout != anchors->rhs) continue;
    FragmentSource source;
    source.operand = lhs ? &anchors->lhsOperand() : &anchors->rhsOperand();
    source.rowDim = lhs ? anchors->m : anchors->n;
    source.kDim = anchors->k;
    // ldmatrix reads rows of 16 consecutive bytes: along K as they are, or 16-bit elements
    // along the operand's rows transposed (.trans), as V of attention is stored.
    source.memoryDims = llvm::to_vector(read.getMemory().getType().getDimNames());
    source.transpose = source.memoryDims.back() == source.rowDim;
    // .trans moves 16-bit elements: 8-bit ones stored along the rows take plain loads.
    source.element = elementOf(read.getResult());
    if (source.operand->ldmatrixTiles == 0 || (source.memoryDims.back() != anchors->k && !source.transpose) ||
        (source.transpose && source.element.getIntOrFloatBitWidth() != 16))
      return std::nullopt;
    for (StringRef d : source.memoryDims)
      if (d != source.rowDim && d != anchors->k && grid_.tiling(d).blockTile != 1) return std::nullopt;
    SmallVector<StringRef> valueDims = dimsOf(read.getResult());
    const int rowAt = dimIndex(valueDims, source.rowDim), colAt = dimIndex(valueDims, anchors->k);
    source.memref = memrefs_.lookup(read.getMemory());
    // The fragment's first element (lane 0's first register) is its origin.
    MLIRContext* ctx = b_.getContext();
    AffineExpr zeroLane = getAffineConstantExpr(0, ctx), wave = getAffineDimExpr(1, ctx);
    const int64_t perFragment = source.operand->elementsPerLane();
    for (int64_t f = 0; f < layout.getNumRegisters() / perFragment; ++f) {
      SmallVector<AffineExpr> origin = positionOfRegister(layout, f * perFragment);
      source.origins.push_back({origin[rowAt].replaceDims({zeroLane, wave}), origin[colAt].replaceDims({zeroLane, wave})});
    }
    // Two x2 fragments a constant step apart take one ldmatrix.x4: lanes 16-31 address
    // the second's rows as lanes 0-15 do the first's (unused by .x2). Preferably the
    // fragments of the next row tile, which the same k step takes (registers run over
    // [row tiles, k steps]), so that each step's loads come just before its mmas.
    const int64_t count = static_cast<int64_t>(source.origins.size());
    source.partner.assign(count, -1);
    source.step.assign(count, {0, 0});
    auto difference = [&](AffineExpr to, AffineExpr from) {
      return dyn_cast<AffineConstantExpr>(simplifyAffineExpr(to - from, 2, 0));
    };
    for (int64_t f = 0; source.operand->ldmatrixTiles == 2 && f < count; ++f) {
      if (source.partner[f] >= 0) continue;
      for (int64_t g : {f + anchors->tilesK, f + 1}) {
        if (g >= count || source.partner[g] >= 0 || g == f) continue;
        auto rows = difference(source.origins[g].first, source.origins[f].first);
        auto cols = difference(source.origins[g].second, source.origins[f].second);
        if (!rows || !cols) continue;
        source.partner[f] = g;
        source.partner[g] = f;
        source.step[f] = {rows.getValue(), cols.getValue()};
        source.step[g] = {-rows.getValue(), -cols.getValue()};
        break;
      }
    }
    return source;
  }
  return std::nullopt;
}

ArrayRef<Value> Distributor::loadFragment(FragmentSource& source, int64_t f) {
  if (auto it = source.loaded.find(f); it != source.loaded.end()) return it->second;
  const MMAOperandLayout& operand = *source.operand;
  MLIRContext* ctx = b_.getContext();
  AffineExpr lane = getAffineDimExpr(0, ctx);
  auto [row, col] = source.origins[f];
  row = row + operand.ldmatrix.getResult(0);
  col = col + operand.ldmatrix.getResult(1);
  const int64_t partner = source.partner[f];
  const bool pair = partner >= 0;
  if (pair) {
    row = row + lane.floorDiv(16) * source.step[f].first;
    col = col + lane.floorDiv(16) * source.step[f].second;
  }
  if (source.transpose) {
    // Lane l of each group of 8 addresses the matrix's K row l, a run along the rows.
    AffineExpr inGroup = lane % 8;
    row = row - inGroup;
    col = col + inGroup;
  }
  SmallVector<Value> indices;
  for (StringRef d : source.memoryDims)
    indices.push_back(d == source.rowDim ? threadIndex(row) : d == source.kDim ? threadIndex(col) : index(0));
  const int64_t count = pair ? 2 : 1;
  auto loadedType = VectorType::get({operand.registers[0] * count, operand.registers[1]}, source.element);
  // f8 loads as bytes: the ldmatrix lowering would insert f8 vectors into its i8 result
  // (IR that verifies only once everything is converted). The tile is a view of the
  // shared bytes, so a byte view of it is the same memory.
  Value memref = source.memref;
  auto view = memref.getDefiningOp<memref::ViewOp>();
  const bool asBytes = isa<Float8E4M3FNType, Float8E5M2Type>(source.element) && view;
  if (asBytes) {
    auto type = cast<MemRefType>(memref.getType());
    auto bytes = MemRefType::get(type.getShape(), b_.getI8Type(), type.getLayout(), type.getMemorySpace());
    memref = memref::ViewOp::create(b_, loc_, bytes, view.getSource(), view.getByteShift(), view.getSizes());
  }
  Value fragments = nvgpu::LdMatrixOp::create(
      b_, loc_, asBytes ? VectorType::get(loadedType.getShape(), b_.getI8Type()) : loadedType, memref, indices,
      source.transpose, static_cast<uint32_t>(operand.ldmatrixTiles * count));
  if (asBytes) fragments = vector::BitCastOp::create(b_, loc_, loadedType, fragments);
  // The x4's first registers are this fragment's, the rest its partner's.
  const int64_t rows = operand.registers[0];
  auto rowsFrom = [&](int64_t first) {
    SmallVector<Value> registers;
    for (int64_t r = first; r < first + rows; ++r)
      registers.push_back(vector::ExtractOp::create(b_, loc_, fragments, ArrayRef<int64_t>{r}));
    return registers;
  };
  source.loaded[f] = rowsFrom(0);
  if (pair) source.loaded[partner] = rowsFrom(rows);
  return source.loaded[f];
}

Value Distributor::loadFragments(dialect::ReadOp read) {
  std::optional<FragmentSource> source = fragmentSource(read);
  if (!source) return {};
  VectorType all = registersOf(read.getResult());
  Value result = arith::ConstantOp::create(b_, loc_, all, b_.getZeroAttr(all));
  const int64_t perFragment = source->operand->elementsPerLane(), perRow = source->operand->registers[1];
  for (int64_t f = 0; f < static_cast<int64_t>(source->origins.size()); ++f)
    for (auto [r, row] : llvm::enumerate(loadFragment(*source, f)))
      result = vector::InsertStridedSliceOp::create(b_, loc_, row, result,
                                                    ArrayRef<int64_t>{f * perFragment + int64_t(r) * perRow},
                                                    ArrayRef<int64_t>{1});
  return result;
}

// Whether `read`'s fragments may be loaded where its one mma uses them, each just before
// the instructions that take it: nothing between the two writes memory, and past the
// contraction dim's end the tile holds zeros (the mma masks nothing).
bool Distributor::loadsAtUse(dialect::ReadOp read) {
  if (!read->hasOneUse()) return false;
  auto mma = dyn_cast<dialect::MmaOp>(*read->user_begin());
  if (!mma || mma->getBlock() != read->getBlock() || mma.getAcc() == read.getResult()) return false;
  for (Operation* op = read->getNextNode(); op != mma; op = op->getNextNode())
    if (isa<dialect::WriteOp>(op) || op->getNumRegions() != 0) return false;
  auto anchors = anchorsOf(mma);
  return succeeded(anchors) && (!mayOverrun((*anchors)->k) || zeroFilledPastEnd(read.getResult()));
}

Value Distributor::zeroPastEnd(Value value, LayoutAttr layout, unsigned dimIndex, StringRef dim) {
  auto type = cast<VectorType>(value.getType());
  auto zeroed = [&]() -> SmallVector<Value> {
    Value zero = arith::ConstantOp::create(b_, loc_, type.getElementType(), b_.getZeroAttr(type.getElementType()));
    Value result = value;
    SmallVector<Value> before = registersBeforeEnd(layout, dimIndex, dim);
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
      Value x = vector::ExtractOp::create(b_, loc_, value, ArrayRef<int64_t>{r});
      x = arith::SelectOp::create(b_, loc_, before[r], x, zero);
      result = vector::InsertOp::create(b_, loc_, x, result, ArrayRef<int64_t>{r});
    }
    return {result};
  };
  return fillOnOverrunningTiles(dim, TypeRange{type}, zeroed, [&]() -> SmallVector<Value> { return {value}; })[0];
}

LogicalResult Distributor::lowerMma(dialect::MmaOp op) {
  auto anchors = anchorsOf(op);
  if (failed(anchors)) return failure();
  const MMAAnchors& a = **anchors;
  if (a.warpgroup) return lowerWarpgroupMma(op, a);
  if (layoutOf(op.getLhs()) != a.lhs || layoutOf(op.getRhs()) != a.rhs || layoutOf(op.getAcc()) != a.acc)
    return op.emitOpError("expected its operands in the layouts its instruction reads (wave-assign-layouts puts "
                          "them there), but found others");
  Value lhs = lookup(op.getLhs()), rhs = lookup(op.getRhs()), acc = lookup(op.getAcc());
  // Operands read from shared tiles at their use: each fragment loaded when first taken.
  auto atUse = [&](Value operand) -> FragmentSource* {
    auto it = atUse_.find(operand);
    return it == atUse_.end() ? nullptr : &it->second;
  };
  FragmentSource *lhsAtUse = atUse(op.getLhs()), *rhsAtUse = atUse(op.getRhs());
  // Past the contraction dim's end both operands must be zero, or the products there
  // would count.
  if (mayOverrun(a.k)) {
    if (!lhsAtUse && !zeroFilledPastEnd(op.getLhs()))
      lhs = zeroPastEnd(lhs, a.lhs, dimIndex(dimsOf(op.getLhs()), a.k), a.k);
    if (!rhsAtUse && !zeroFilledPastEnd(op.getRhs()))
      rhs = zeroPastEnd(rhs, a.rhs, dimIndex(dimsOf(op.getRhs()), a.k), a.k);
  }
  const MMALayout& mma = a.instruction;
  // Fragment `index` of an operand: its register rows as the instruction takes them.
  auto fragment = [&](Value v, const MMAOperandLayout& operand, int64_t index,
                      FragmentSource* atUse = nullptr) -> SmallVector<Value> {
    if (atUse) return SmallVector<Value>(loadFragment(*atUse, index));
    const int64_t perRow = operand.registers[1];
    SmallVector<Value> rows;
    for (int64_t r = 0; r < operand.registers[0]; ++r)
      rows.push_back(vector::ExtractStridedSliceOp::create(b_, loc_, v,
                                                           ArrayRef<int64_t>{index * operand.elementsPerLane() + r * perRow},
                                                           ArrayRef<int64_t>{perRow}, ArrayRef<int64_t>{1}));
    return rows;
  };
  // Each accumulator fragment as scalars, from the loop's vector once and back once.
  const int64_t n = mma.c.elementsPerLane();
  SmallVector<SmallVector<Value>> accs;
  for (int64_t t = 0; t < a.tilesM * a.tilesN; ++t) {
    SmallVector<Value>& c = accs.emplace_back();
    for (int64_t e = 0; e < n; ++e) c.push_back(vector::ExtractOp::create(b_, loc_, acc, ArrayRef<int64_t>{t * n + e}));
  }
  for (int64_t kk = 0; kk < a.tilesK; ++kk) {
    SmallVector<SmallVector<Value>> ls, rs;
    for (int64_t i = 0; i < a.tilesM; ++i) ls.push_back(fragment(lhs, a.lhsOperand(), i * a.tilesK + kk, lhsAtUse));
    for (int64_t j = 0; j < a.tilesN; ++j) rs.push_back(fragment(rhs, a.rhsOperand(), j * a.tilesK + kk, rhsAtUse));
    for (int64_t i = 0; i < a.tilesM; ++i)
      for (int64_t j = 0; j < a.tilesN; ++j) {
        // Transposed, the accumulator's registers run over (j, i) and rhs is the A operand.
        SmallVector<Value>& c = accs[a.transposed ? j * a.tilesM + i : i * a.tilesN + j];
        c = a.transposed ? mmaInstruction(b_, loc_, mma, rs[j], ls[i], c)
                         : mmaInstruction(b_, loc_, mma, ls[i], rs[j], c);
      }
  }
  SmallVector<Value> elements;
  for (const SmallVector<Value>& c : accs) llvm::append_range(elements, c);
  auto accType = cast<VectorType>(acc.getType());
  Value result;
  if (static_cast<int64_t>(elements.size()) == accType.getNumElements()) {
    result = vector::FromElementsOp::create(b_, loc_, accType, elements);
  } else {
    result = acc;
    for (auto [i, e] : llvm::enumerate(elements))
      result = vector::InsertOp::create(b_, loc_, e, result, ArrayRef<int64_t>{int64_t(i)});
  }
  values_[op.getResult()] = result;
  if (foldingApart_.contains(a.k)) partials_.insert(op.getResult());
  return success();
}

}  // namespace wave::jit::distribution
