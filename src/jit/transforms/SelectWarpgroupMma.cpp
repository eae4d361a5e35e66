//===- SelectWarpgroupMma.cpp - mmas on Hopper's warpgroups (wgmma) -------===//
//
// Marks the mmas whose operands wgmma can read from their shared tiles as `warpgroup`
// and swizzles those tiles as it reads them. Whether the tiling fits is one question for
// the pass and the layouts alike (analysis/MMAAnchors), asked here with the attribute set.
// See Passes.td for what qualifies.
//
//===----------------------------------------------------------------------===//

#include "analysis/KernelGrid.h"
#include "analysis/MMAAnchors.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

#include <optional>

namespace wave::jit {

#define GEN_PASS_DEF_WAVESELECTWARPGROUPMMA
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// Whether every use of `read` is one same operand (lhs or rhs) of mmas: a token tile the
// gate and up projections both multiply.
bool readOnlyAsOneOperand(dialect::ReadOp read) {
  std::optional<unsigned> operand;
  for (OpOperand& use : read->getUses()) {
    if (!isa<dialect::MmaOp>(use.getOwner()) || use.getOperandNumber() > 1) return false;
    if (operand && *operand != use.getOperandNumber()) return false;
    operand = use.getOperandNumber();
  }
  return operand.has_value();
}

// The shared tile `operand` is a plain read of, when the tile holds `rowDim` by the
// contraction dim `k`, either innermost (K-major, as a GEMM's A) or `rowDim` innermost
// (MN-major, as attention's V), is filled from global memory only and read only here.
dialect::AllocateOp tileOf(Value operand, StringRef rowDim, StringRef k, const KernelGrid& grid) {
  auto read = operand.getDefiningOp<dialect::ReadOp>();
  if (!read || read.getMappingAttr() || !readOnlyAsOneOperand(read)) return {};
  auto tile = read.getMemory().getDefiningOp<dialect::AllocateOp>();
  if (!tile) return {};
  SmallVector<StringRef> dims = tile.getResult().getType().getDimNames();
  if ((dims.back() != k && dims.back() != rowDim) || !llvm::is_contained(dims, rowDim) ||
      !llvm::is_contained(dims, k))
    return {};
  for (StringRef d : dims)
    if (d != rowDim && d != k && grid.tiling(d).blockTile != 1) return {};
  for (Operation* user : tile->getUsers()) {
    if (user == read) continue;
    auto fill = dyn_cast<dialect::WriteOp>(user);
    auto source = fill ? fill.getValue().getDefiningOp<dialect::ReadOp>() : nullptr;
    // Filled from global memory: zeros past the contraction dim's end, as wgmma needs.
    if (!fill || fill.getMappingAttr() || fill.getMemory() != tile || !source ||
        !isa<BlockArgument>(source.getMemory()))
      return {};
  }
  return tile;
}

// The swizzle wgmma reads `tile` with: by the bytes of its innermost dim's rows.
int64_t swizzleOf(dialect::AllocateOp tile, const KernelGrid& grid) {
  auto type = tile.getResult().getType();
  const int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  return warpgroupSwizzle(grid.tiling(type.getDimNames().back()).blockTile * bytes);
}

struct WaveSelectWarpgroupMmaPass : impl::WaveSelectWarpgroupMmaBase<WaveSelectWarpgroupMmaPass> {
  using WaveSelectWarpgroupMmaBase::WaveSelectWarpgroupMmaBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (!enabled || kernel.isExternal() || !kernel->hasAttr("wave.constraints")) return;
    FailureOr<KernelGrid> grid = kernelGridQuietly(kernel);
    if (failed(grid)) return;  // diagnosed by wave-assign-layouts
    kernel.walk([&](dialect::MmaOp mma) { select(mma, *grid); });
  }

  void select(dialect::MmaOp mma, const KernelGrid& grid) {
    if (mma.getTransposed() || mma.getWarpgroup()) return;
    // The mmas reading the same shared tile (gate and up of one token tile) go to wgmma
    // together or not at all: a swizzled tile is read by wgmma alone.
    SmallVector<dialect::MmaOp> group{mma};
    for (Value operand : {mma.getLhs(), mma.getRhs()})
      if (auto read = operand.getDefiningOp<dialect::ReadOp>())
        for (Operation* user : read->getUsers())
          if (auto other = dyn_cast<dialect::MmaOp>(user); other && !llvm::is_contained(group, other)) group.push_back(other);
    // wgmma reads its B from a shared tile, its A from one too (where the operand is such
    // a tile) or from registers (a value the kernel computed, as attention's P). Every
    // operand tile gets swizzled, tentatively: the anchors then decide whether the kind,
    // types and tiling fit in an orientation whose B is a tile (layout assignment picks
    // among those; a miss is no error and restores the tiles).
    SmallVector<std::tuple<dialect::AllocateOp, IntegerAttr, IntegerAttr>> tiles;
    for (dialect::MmaOp member : group) {
      if (member.getTransposed() || member.getWarpgroup()) return;
      // Waves that fold a loop apart (decode attention's) each own their part of its dim;
      // a warpgroup's warps own the rows wgmma gives them instead.
      for (auto loop = member->getParentOfType<dialect::IterateOp>(); loop;
           loop = loop->getParentOfType<dialect::IterateOp>())
        if (loop.getWaveFoldsAttr()) return;
      const auto [m, n, k] = mmaDims(member);
      dialect::AllocateOp lhsTile = tileOf(member.getLhs(), m, k, grid), rhsTile = tileOf(member.getRhs(), n, k, grid);
      if (lhsTile && lhsTile == rhsTile) return;
      for (dialect::AllocateOp tile : {lhsTile, rhsTile})
        if (tile && swizzleOf(tile, grid) != 0 &&
            llvm::none_of(tiles, [&](const auto& entry) { return std::get<0>(entry) == tile; }))
          tiles.push_back({tile, tile.getPaddingAttr(), tile.getSwizzleAttr()});
    }
    if (tiles.empty()) return;
    OpBuilder b(mma.getContext());
    for (auto [tile, padding, swizzle] : tiles) {
      tile.setPaddingAttr(b.getI64IntegerAttr(0));
      tile.setSwizzleAttr(b.getI64IntegerAttr(swizzleOf(tile, grid)));
    }
    bool allFit = true;
    {
      ScopedDiagnosticHandler silence(mma.getContext(), [](Diagnostic&) { return success(); });
      for (dialect::MmaOp member : group) {
        bool fits = false;
        member.setWarpgroup(true);
        for (bool transposed : {false, true}) {
          member.setTransposed(transposed);
          fits = fits || succeeded(mmaAnchors(member, grid));
        }
        member.setTransposed(false);
        allFit = allFit && fits;
      }
      for (dialect::MmaOp member : group) member.setWarpgroup(allFit);
    }
    if (allFit) return;
    for (auto [tile, padding, swizzle] : tiles) {
      tile.setPaddingAttr(padding);
      if (swizzle) tile.setSwizzleAttr(swizzle);
      else tile->removeAttr(tile.getSwizzleAttrName());
    }
  }
};

}  // namespace

}  // namespace wave::jit
