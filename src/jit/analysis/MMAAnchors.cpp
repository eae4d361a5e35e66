#include "analysis/MMAAnchors.h"

#include "analysis/DistributedLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace wave::jit {

using namespace mlir;

namespace {

// The op's kind, else the kernel's hardware constraint's.
std::optional<dialect::MMAKind> kindOf(dialect::MmaOp op) {
  if (auto k = op.getKindAttr()) return k.getValue();
  auto kernel = op->getParentOfType<func::FuncOp>();
  auto constraints = kernel ? kernel->getAttrOfType<ArrayAttr>("wave.constraints") : ArrayAttr();
  for (Attribute c : constraints ? constraints.getValue() : ArrayRef<Attribute>())
    if (auto hw = dyn_cast<dialect::HardwareConstraintAttr>(c); hw && hw.getMma()) return hw.getMma().getValue();
  return std::nullopt;
}

// The dims that reductions of values computed from `product` reduce, through the loops
// that carry them.
llvm::SmallDenseSet<StringRef> dimsReducedFrom(Value product) {
  llvm::SmallDenseSet<StringRef> dims;
  SmallVector<Value> work{product};
  DenseSet<Value> seen{product};
  auto push = [&](Value v) {
    if (seen.insert(v).second) work.push_back(v);
  };
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand& use : v.getUses()) {
      Operation* user = use.getOwner();
      if (use.getOperandNumber() == 0) {
        if (auto reduction = dyn_cast<dialect::ReductionOpInterface>(user)) dims.insert(reduction.getDim());
      }
      if (auto loop = isa<dialect::YieldOp>(user) ? dyn_cast<dialect::IterateOp>(user->getParentOp()) : nullptr) {
        push(loop->getResult(use.getOperandNumber()));
        push(loop.getBody().front().getArgument(use.getOperandNumber()));
      }
      for (Value r : user->getResults()) push(r);
    }
  }
  return dims;
}

// A warpgroup mma's anchors (wave.mma's `warpgroup`): `a` with its instruction and
// contraction tiles set; the layouts follow the warpgroups' split of the tile. Transposed,
// the instruction's rows are the op's columns: its A reads rhs, its B lhs.
FailureOr<MMAAnchors> warpgroupAnchors(dialect::MmaOp op, dialect::MMAKind kind, const KernelGrid& grid,
                                       bool foldsApart, MMAAnchors a, ArrayRef<StringRef> lhsDims,
                                       ArrayRef<StringRef> rhsDims, ArrayRef<StringRef> accDims) {
  MLIRContext* ctx = op.getContext();
  const MMALayout& mma = a.instruction;
  const WaveGrid& waves = grid.waves;
  const int64_t inputBits = mma.inputType.getIntOrFloatBitWidth();
  const bool wideAcc = mma.accType.isF32() || mma.accType.isInteger(32);
  if (foldsApart || !wideAcc || mma.m != 16 || mma.k * inputBits != 256)
    return op.emitOpError("expected a warpgroup mma with f32 (or i32) accumulators and the whole contraction tile "
                          "per wave, but found ")
           << dialect::stringifyMMAKind(kind) << (foldsApart ? ", its waves folding the loop apart" : "");
  const StringRef rows = a.transposed ? a.n : a.m, cols = a.transposed ? a.m : a.n;
  std::string why;
  auto tiling = warpgroupTiling(waves.count(), grid.tiling(rows).blockTile, grid.tiling(cols).blockTile, why);
  if (failed(tiling)) return op.emitOpError("is a warpgroup mma: expected ") << why;
  const WarpgroupTiling& t = *tiling;
  // B comes from a swizzled shared tile (wave-select-warpgroup-mma's); one that holds the
  // columns innermost (MN-major) is read in whole swizzle rows per instruction.
  dialect::AllocateOp bTile = swizzledTileOf(a.transposed ? op.getLhs() : op.getRhs());
  if (!bTile)
    return op.emitOpError("is a warpgroup mma: expected its ")
           << (a.transposed ? "lhs" : "rhs") << " (the instruction's B) to be read from a swizzled shared tile";
  // An A from registers is one the mma's block computes (attention's P, each key tile):
  // values from outside its loop (a hoisted read) are not taken in registers.
  Value aOperand = a.transposed ? op.getRhs() : op.getLhs();
  if (!swizzledTileOf(aOperand) && aOperand.getParentBlock() != op->getBlock())
    return op.emitOpError("is a warpgroup mma: expected its ")
           << (a.transposed ? "rhs" : "lhs") << " (the instruction's A) read from a swizzled shared tile or computed "
           << "beside it, but it comes from outside its block";
  // wgmma reads 8-bit operands only K-major.
  for (dialect::AllocateOp tile : {bTile, swizzledTileOf(aOperand)})
    if (tile && inputBits != 16 && tile.getResult().getType().getDimNames().back() != a.k)
      return op.emitOpError("is a warpgroup mma on ")
             << mma.inputType << ": expected its operand tiles to hold " << a.k
             << " (the contraction dim) innermost, as wgmma reads 8-bit operands, but one holds "
             << tile.getResult().getType().getDimNames().back() << " innermost";
  const int64_t rowElements = *bTile.getSwizzle() * 8 / inputBits;
  if (bTile.getResult().getType().getDimNames().back() == cols && t.instructionCols % rowElements != 0)
    return op.emitOpError("is a warpgroup mma: expected instructions of a multiple of ")
           << rowElements << " columns of " << cols << " (stored innermost, " << *bTile.getSwizzle()
           << "-byte swizzle), but found " << t.instructionCols;
  // Reductions of the product stay within each wave's rows, as the lowering's are: not
  // over the rows (wgmma's warps split each strip's), nor over columns that warpgroups split.
  const llvm::SmallDenseSet<StringRef> reduced = dimsReducedFrom(op.getResult());
  if (reduced.contains(rows) || (reduced.contains(cols) && !t.splitsRows && t.groups > 1))
    return op.emitOpError("is a warpgroup mma: expected its product reduced only along a dim each wave holds whole, "
                          "but it is reduced along ")
           << (reduced.contains(rows) ? rows : cols) << ", which its warpgroups' waves split";
  a.warpgroup = t;
  a.tilesM = t.strips();
  a.tilesN = t.cols / 8;
  const int64_t groupRows = t.splitsRows ? t.rows : 0, groupCols = t.splitsRows ? 0 : t.cols;
  LayoutAttr instrA = warpgroupLayout(ctx, mma.a, mma.lanes, waves.waves, {t.strips(), 64, a.tilesK, mma.k, true, groupRows, 0});
  LayoutAttr instrB = warpgroupLayout(ctx, mma.b, mma.lanes, waves.waves, {a.tilesN, 8, a.tilesK, mma.k, false, groupCols, 0});
  a.lhs = placeLayout(a.transposed ? instrB : instrA, {a.transposed ? cols : rows, a.k}, lhsDims);
  a.rhs = placeLayout(a.transposed ? instrA : instrB, {a.transposed ? rows : cols, a.k}, rhsDims);
  a.acc = placeLayout(warpgroupLayout(ctx, mma.c, mma.lanes, waves.waves,
                                      {t.strips(), 64, a.tilesN, 8, true, groupRows, groupCols}),
                      {rows, cols}, accDims);
  return a;
}

}  // namespace

std::tuple<StringRef, StringRef, StringRef> mmaDims(dialect::MmaOp op) {
  // The verifier has checked the dims: the accumulator's last two are the rows (in lhs)
  // and columns (in rhs), the contraction dim is the one both operands have and it lacks.
  SmallVector<StringRef> accDims = op.getAcc().getType().getDimNames(), rhsDims = op.getRhs().getType().getDimNames();
  StringRef k;
  for (StringRef d : op.getLhs().getType().getDimNames())
    if (llvm::is_contained(rhsDims, d) && !llvm::is_contained(accDims, d)) k = d;
  return {accDims[accDims.size() - 2], accDims.back(), k};
}

dialect::AllocateOp swizzledTileOf(Value operand) {
  auto read = operand.getDefiningOp<dialect::ReadOp>();
  auto tile = read ? read.getMemory().getDefiningOp<dialect::AllocateOp>() : nullptr;
  return tile && tile.getSwizzle() ? tile : nullptr;
}

FailureOr<WarpgroupTiling> warpgroupTiling(int64_t waves, int64_t blockM, int64_t blockN, std::string& why) {
  if (waves % 4 != 0) {
    why = "whole warpgroups (a multiple of 4 waves), but the kernel has " + std::to_string(waves);
    return failure();
  }
  WarpgroupTiling t;
  t.groups = waves / 4;
  if (blockM % (64 * t.groups) == 0) {
    t.rows = blockM / t.groups;
    t.cols = blockN;
  } else if (blockM % 64 == 0 && blockN % (8 * t.groups) == 0) {
    t.splitsRows = false;
    t.rows = blockM;
    t.cols = blockN / t.groups;
  } else {
    why = "a workgroup tile of rows that is a multiple of 64 per warpgroup (" + std::to_string(t.groups) +
          " of them), but found " + std::to_string(blockM);
    return failure();
  }
  if (t.cols % 8 != 0) {
    why = "a workgroup tile of columns per warpgroup that is a multiple of 8, but found " + std::to_string(t.cols);
    return failure();
  }
  // As few instructions as N <= 256 allows, each a multiple of 8 wide.
  for (int64_t count = llvm::divideCeil(t.cols, 256);; ++count)
    if (t.cols % count == 0 && (t.cols / count) % 8 == 0) {
      t.instructionCols = t.cols / count;
      break;
    }
  return t;
}

int64_t warpgroupSwizzle(int64_t rowBytes) {
  if (rowBytes % 128 == 0) return 128;
  return rowBytes == 64 || rowBytes == 32 ? rowBytes : 0;
}

FailureOr<MMAAnchors> mmaAnchors(dialect::MmaOp op, const KernelGrid& grid) {
  MLIRContext* ctx = op.getContext();
  std::optional<dialect::MMAKind> kind = kindOf(op);
  if (!kind) return op.emitOpError("expected an MMA kind (on the op or the hardware constraint), but found none");
  auto instruction = getMMALayout(ctx, *kind);
  if (failed(instruction))
    return op.emitOpError("expected an MMA kind with an instruction (mma.sync, MFMA), but found ")
           << dialect::stringifyMMAKind(*kind);
  MMAAnchors a;
  a.instruction = *instruction;
  const MMALayout& mma = a.instruction;
  auto lhsType = cast<dialect::TensorType>(op.getLhs().getType());
  auto rhsType = cast<dialect::TensorType>(op.getRhs().getType());
  auto accType = cast<dialect::TensorType>(op.getAcc().getType());
  if (lhsType.getElementType() != mma.inputType || rhsType.getElementType() != mma.inputType ||
      accType.getElementType() != mma.accType)
    return op.emitOpError("expected ") << mma.inputType << " operands and a " << mma.accType << " accumulator for "
                                       << dialect::stringifyMMAKind(*kind) << ", but found "
                                       << lhsType.getElementType() << ", " << rhsType.getElementType() << " and "
                                       << accType.getElementType() << " (cast them first)";
  if (grid.waves.lanes != mma.lanes)
    return op.emitOpError("expected waves of ") << mma.lanes << " threads for its MMA kind, but the hardware "
                                                << "constraint has " << grid.waves.lanes;
  SmallVector<StringRef> accDims = accType.getDimNames(), lhsDims = lhsType.getDimNames(),
                         rhsDims = rhsType.getDimNames();
  std::tie(a.m, a.n, a.k) = mmaDims(op);
  // Every other dim is one the workgroup holds one element of.
  for (auto [dims, what] : {std::pair{ArrayRef(accDims), "accumulator"}, {ArrayRef(lhsDims), "lhs"},
                            {ArrayRef(rhsDims), "rhs"}})
    for (StringRef d : dims)
      if (d != a.m && d != a.n && d != a.k && grid.tiling(d).blockTile != 1)
        return op.emitOpError("expected a workgroup tile of 1 for its batch dim ")
               << d << " (in the " << what << "), but found " << grid.tiling(d).blockTile;

  auto divides = [&](StringRef dim, int64_t tile, int64_t instr, StringRef what) -> FailureOr<int64_t> {
    if (tile % instr == 0) return tile / instr;
    return op.emitOpError("expected the ") << what << " of " << dim << " (" << tile << ") to be a multiple of the "
                                           << dialect::stringifyMMAKind(*kind) << " tile (" << instr << ")";
  };
  // What a tile of `dim` is called in a diagnostic: a loop's, a wave's, or the whole dim.
  auto tileName = [&](StringRef dim, bool perWave) -> const char* {
    const DimTiling& t = grid.tiling(dim);
    if (t.loop) return "tiling tile";
    if (t.gridAxis < 0 && (!perWave || t.waveTile == t.blockTile)) return "size";
    return perWave ? "wave tile" : "workgroup tile";
  };
  // Transposed, the op's rows are the instruction's columns and its columns the rows.
  a.transposed = op.getTransposed();
  const int64_t rowsPerTile = a.transposed ? mma.n : mma.m, colsPerTile = a.transposed ? mma.m : mma.n;
  // Each wave holds the whole contraction tile (the loop's tile, or the workgroup's), but
  // in a loop whose waves fold their parts apart, where it holds its part of the loop's.
  auto loop = op->getParentOfType<dialect::IterateOp>();
  const bool foldsApart = loop && loop.getWaveFoldsAttr() && loop.getDim() == a.k;
  auto tilesK = foldsApart ? divides(a.k, grid.tiling(a.k).waveTile, mma.k, "wave tile")
                           : divides(a.k, grid.tiling(a.k).blockTile, mma.k, tileName(a.k, false));
  if (failed(tilesK)) return failure();
  a.tilesK = *tilesK;
  const WaveGrid& waves = grid.waves;
  if (op.getWarpgroup()) return warpgroupAnchors(op, *kind, grid, foldsApart, std::move(a), lhsDims, rhsDims, accDims);
  auto tilesM = divides(a.m, grid.tiling(a.m).waveTile, rowsPerTile, tileName(a.m, true));
  auto tilesN = divides(a.n, grid.tiling(a.n).waveTile, colsPerTile, tileName(a.n, true));
  if (failed(tilesM) || failed(tilesN)) return failure();
  a.tilesM = *tilesM;
  a.tilesN = *tilesN;

  const int axisM = waves.axisOf(a.m), axisN = waves.axisOf(a.n), axisK = foldsApart ? waves.axisOf(a.k) : -1;
  a.lhs = placeLayout(mmaLayout(ctx, a.lhsOperand(), mma.lanes, a.tilesM, a.tilesK, waves.waves, axisM, axisK),
                      {a.m, a.k}, lhsDims);
  a.rhs = placeLayout(mmaLayout(ctx, a.rhsOperand(), mma.lanes, a.tilesN, a.tilesK, waves.waves, axisN, axisK),
                      {a.n, a.k}, rhsDims);
  a.acc = a.transposed ? placeLayout(mmaLayout(ctx, mma.c, mma.lanes, a.tilesN, a.tilesM, waves.waves, axisN, axisM),
                                     {a.n, a.m}, accDims)
                       : placeLayout(mmaLayout(ctx, mma.c, mma.lanes, a.tilesM, a.tilesN, waves.waves, axisM, axisN),
                                     {a.m, a.n}, accDims);
  return a;
}

bool computesWithMMA(mlir::Operation* kernel) {
  return kernel->walk([](dialect::MmaOp) { return mlir::WalkResult::interrupt(); }).wasInterrupted();
}

}  // namespace wave::jit
