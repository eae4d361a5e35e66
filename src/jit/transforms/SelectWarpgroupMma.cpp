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

#include "mlir/IR/Diagnostics.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVESELECTWARPGROUPMMA
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// The shared tile `operand` is a plain read of, when the tile holds `rowDim` rows of the
// contraction dim `k` (innermost), is filled from global memory only and read only here.
dialect::AllocateOp tileOf(Value operand, StringRef rowDim, StringRef k, const KernelGrid& grid) {
  auto read = operand.getDefiningOp<dialect::ReadOp>();
  if (!read || read.getMappingAttr() || !read->hasOneUse()) return {};
  auto tile = read.getMemory().getDefiningOp<dialect::AllocateOp>();
  if (!tile) return {};
  SmallVector<StringRef> dims = tile.getResult().getType().getDimNames();
  if (dims.back() != k || !llvm::is_contained(dims, rowDim)) return {};
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
    // The anchors decide the kind, the types and the warpgroups' tiling (a miss is no
    // error) and name the op's dims.
    mma.setWarpgroup(true);
    FailureOr<MMAAnchors> anchors;
    {
      ScopedDiagnosticHandler silence(mma.getContext(), [](Diagnostic&) { return success(); });
      anchors = mmaAnchors(mma, grid);
    }
    mma.setWarpgroup(false);
    if (failed(anchors)) return;
    const StringRef k = anchors->k;
    // The loop over the contraction dim carries the accumulator in the instruction's
    // registers and the product is used after it: a GEMM's main loop. (Products used in
    // the loop, as attention's scores, stay on mma.sync: reductions and the second mma
    // do not yet take warpgroup layouts.)
    auto loop = mma->getParentOfType<dialect::IterateOp>();
    auto carried = dyn_cast<BlockArgument>(mma.getAcc());
    if (!loop || loop.getDim() != k || !carried || carried.getOwner() != mma->getBlock() ||
        carried.getOwner()->getParentOp() != loop || !mma->hasOneUse())
      return;
    auto yield = dyn_cast<dialect::YieldOp>(*mma->user_begin());
    if (!yield || yield->getOperand(carried.getArgNumber()) != mma.getResult()) return;
    dialect::AllocateOp lhsTile = tileOf(mma.getLhs(), anchors->m, k, grid),
                        rhsTile = tileOf(mma.getRhs(), anchors->n, k, grid);
    if (!lhsTile || !rhsTile || lhsTile == rhsTile) return;
    const int64_t swizzle =
        warpgroupSwizzle(grid.tiling(k).blockTile * anchors->instruction.inputType.getIntOrFloatBitWidth() / 8);
    if (swizzle == 0) return;
    mma.setWarpgroup(true);
    OpBuilder b(mma.getContext());
    for (dialect::AllocateOp tile : {lhsTile, rhsTile}) {
      tile.setPaddingAttr(b.getI64IntegerAttr(0));
      tile.setSwizzleAttr(b.getI64IntegerAttr(swizzle));
    }
  }
};

}  // namespace

}  // namespace wave::jit
