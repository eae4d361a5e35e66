//===- ExpandMathForAMDGPU.cpp - math ops as AMDGPU instructions ----------===//
//
// See Passes.td: MLIR's approximations and expansions, chosen by op, then each remaining
// op as the LLVM intrinsic the back end selects.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringMap.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEEXPANDMATHFORAMDGPU
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

// Approximated by polynomials: f32 only, so narrower floats go through f32 first.
bool approximated(StringRef op) {
  return llvm::is_contained({"math.tanh", "math.atan", "math.atan2", "math.cbrt", "math.erf"}, op);
}

// The math ops AMDGPU has instructions for (or LLVM expands inline), by their intrinsic.
const llvm::StringMap<StringRef>& intrinsics() {
  static const llvm::StringMap<StringRef> names{
      {"math.exp2", "llvm.exp2"},   {"math.exp", "llvm.exp"},           {"math.log2", "llvm.log2"},
      {"math.log", "llvm.log"},     {"math.log10", "llvm.log10"},       {"math.sqrt", "llvm.sqrt"},
      {"math.sin", "llvm.sin"},     {"math.cos", "llvm.cos"},           {"math.absf", "llvm.fabs"},
      {"math.floor", "llvm.floor"}, {"math.ceil", "llvm.ceil"},         {"math.trunc", "llvm.trunc"},
      {"math.round", "llvm.round"}, {"math.roundeven", "llvm.roundeven"}, {"math.fma", "llvm.fma"},
      {"math.copysign", "llvm.copysign"}};
  return names;
}

// A math op as a call of its intrinsic (a generic call, which the ROCDL conversion leaves
// alone: it would turn the math op, or LLVM's own op for the intrinsic, into a call to
// the device library).
struct MathToIntrinsic : RewritePattern {
  explicit MathToIntrinsic(MLIRContext* ctx) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation* op, PatternRewriter& rewriter) const override {
    auto it = intrinsics().find(op->getName().getStringRef());
    if (it == intrinsics().end() || op->getNumResults() != 1) return failure();
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(op, op->getResult(0).getType(),
                                                       rewriter.getStringAttr(it->second), op->getOperands());
    return success();
  }
};

// rsqrt as 1 / sqrt (no AMDGPU intrinsic is IEEE-accurate).
struct RsqrtToSqrt : OpRewritePattern<math::RsqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::RsqrtOp op, PatternRewriter& rewriter) const override {
    Value one = arith::ConstantOp::create(rewriter, op.getLoc(), op.getType(),
                                          rewriter.getFloatAttr(getElementTypeOrSelf(op.getType()), 1.0));
    if (auto vector = dyn_cast<VectorType>(op.getType()))
      one = arith::ConstantOp::create(rewriter, op.getLoc(), vector,
                                      DenseElementsAttr::get(vector, rewriter.getFloatAttr(vector.getElementType(), 1.0)));
    Value root = math::SqrtOp::create(rewriter, op.getLoc(), op.getOperand());
    rewriter.replaceOpWithNewOp<arith::DivFOp>(op, one, root);
    return success();
  }
};

// |x| of integers as a select, which needs no intrinsic flag.
struct AbsIToSelect : OpRewritePattern<math::AbsIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsIOp op, PatternRewriter& rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Value zero = arith::ConstantOp::create(rewriter, loc, x.getType(), rewriter.getZeroAttr(x.getType()));
    Value negative = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, x, zero);
    Value negated = arith::SubIOp::create(rewriter, loc, zero, x);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, negative, negated, x);
    return success();
  }
};

struct WaveExpandMathForAMDGPUPass : impl::WaveExpandMathForAMDGPUBase<WaveExpandMathForAMDGPUPass> {
  void runOnOperation() override {
    RewritePatternSet expansions(&getContext());
    populateMathF32ExpansionPatterns(expansions, approximated);
    populateMathPolynomialApproximationPatterns(expansions, approximated);
    math::populateExpansionPatterns(expansions, {"sinh", "cosh", "tan", "powf"});
    expansions.add<RsqrtToSqrt, AbsIToSelect>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(expansions)))) return signalPassFailure();
    // Then the rest, the expansions' products included, as intrinsics.
    RewritePatternSet calls(&getContext());
    calls.add<MathToIntrinsic>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(calls)))) return signalPassFailure();
    WalkResult left = getOperation()->walk([](Operation* op) {
      if (!isa<math::MathDialect>(op->getDialect())) return WalkResult::advance();
      op->emitOpError("has no AMDGPU lowering (no instruction, approximation or expansion)");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted()) signalPassFailure();
  }
};

}  // namespace
}  // namespace wave::jit
