//===- LowerExp2ToNVVM.cpp - f32 exp2 as ex2.approx.ftz --------------------===//
//
// See Passes.td: the flushing approximation, one intrinsic call per element.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVELOWEREXP2TONVVM
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

struct Exp2ToApproxFtz : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Exp2Op op, PatternRewriter& rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32()) return failure();
    Location loc = op.getLoc();
    auto ex2 = [&](Value x) {
      return LLVM::CallIntrinsicOp::create(rewriter, loc, x.getType(),
                                           rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"), ValueRange{x})
          .getResult(0);
    };
    auto vec = dyn_cast<VectorType>(type);
    if (!vec) {
      rewriter.replaceOp(op, ex2(op.getOperand()));
      return success();
    }
    if (vec.getRank() != 1 || vec.isScalable()) return failure();
    Value result = arith::ConstantOp::create(rewriter, loc, vec, rewriter.getZeroAttr(vec));
    for (int64_t i = 0; i < vec.getNumElements(); ++i) {
      Value x = vector::ExtractOp::create(rewriter, loc, op.getOperand(), ArrayRef<int64_t>{i});
      result = vector::InsertOp::create(rewriter, loc, ex2(x), result, ArrayRef<int64_t>{i});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct WaveLowerExp2ToNVVMPass : impl::WaveLowerExp2ToNVVMBase<WaveLowerExp2ToNVVMPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<Exp2ToApproxFtz>(&getContext());
    // One walk: the rewrite makes nothing it would rewrite again (a greedy driver's folding
    // of the whole kernel cost 30x more).
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

}  // namespace
}  // namespace wave::jit
