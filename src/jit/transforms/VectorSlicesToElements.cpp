//===- VectorSlicesToElements.cpp - strided slices as element chains ------===//
//
// Slices taken out of a thread's wide register vectors become element extracts before
// LLVM, which would otherwise spend most of a compile combining whole-vector shuffles.
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEVECTORSLICESTOELEMENTS
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

struct WaveVectorSlicesToElementsPass : impl::WaveVectorSlicesToElementsBase<WaveVectorSlicesToElementsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    vector::populateVectorInsertExtractStridedSliceDecompositionPatterns(patterns);
    vector::populateVectorExtractStridedSliceToExtractInsertChainPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

}  // namespace
}  // namespace wave::jit
