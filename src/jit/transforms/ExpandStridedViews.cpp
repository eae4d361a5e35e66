//===- ExpandStridedViews.cpp - views as base + index arithmetic ----------===//
//
// See Passes.td: upstream's patterns, applied to the views and what they create.
//
//===----------------------------------------------------------------------===//

#include "transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEEXPANDSTRIDEDVIEWS
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

struct WaveExpandStridedViewsPass : impl::WaveExpandStridedViewsBase<WaveExpandStridedViewsPass> {
  void runOnOperation() override {
    // The memref ops besides accesses and allocations: those that make a view or take its
    // strides apart.
    SmallVector<Operation*> views;
    getOperation().walk([&](Operation* op) {
      if (isa<memref::SubViewOp, memref::ReinterpretCastOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
              memref::CastOp, memref::ExtractStridedMetadataOp, memref::ExtractAlignedPointerAsIndexOp>(op))
        views.push_back(op);
    });
    if (views.empty()) return;
    RewritePatternSet patterns(&getContext());
    memref::populateExpandStridedMetadataPatterns(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(views, std::move(patterns), config))) return signalPassFailure();
  }
};

}  // namespace
}  // namespace wave::jit
