//===- LowerF8ToNVVM.cpp - f8 arithmetic in f32, conversions as cvt pairs --===//
//
// See Passes.td. LLVM has no f8 types: the NVVM lowering stores them as i8, which is right
// for loads, stores, moves and the MMA instructions, but leaves nothing that computes
// with them. Arithmetic on f8 becomes f32 arithmetic between an extension and a
// truncation (MLIR's float emulation); each extension and truncation then becomes PTX's
// paired conversions (cvt.rn.f16x2.e4m3x2, cvt.rn.satfinite.e4m3x2.f32), two elements
// per instruction.
//
//===----------------------------------------------------------------------===//

#include "lowering/ElementConversion.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVELOWERF8TONVVM
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

// The elements of a scalar or 1-D vector, and the value of the same shape made of them.
SmallVector<Value> elementsOf(OpBuilder& b, Location loc, Value v) {
  auto vec = dyn_cast<VectorType>(v.getType());
  if (!vec) return {v};
  SmallVector<Value> elements;
  for (int64_t i = 0; i < vec.getNumElements(); ++i)
    elements.push_back(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i}));
  return elements;
}

Value shaped(OpBuilder& b, Location loc, Type like, ArrayRef<Value> elements) {
  auto vec = dyn_cast<VectorType>(like);
  if (!vec) return elements.front();
  return vector::FromElementsOp::create(b, loc, vec.clone(elements.front().getType()), elements);
}

// `type` (scalar or vector) with the element type `element`.
Type withElement(Type type, Type element) {
  if (auto vec = dyn_cast<VectorType>(type)) return vec.clone(element);
  return element;
}

bool isOneDimensional(Type t) {
  auto vec = dyn_cast<VectorType>(t);
  return !vec || (vec.getRank() == 1 && !vec.isScalable());
}

// arith.extf from f8: pairs of bytes to f16x2 (exact: every f8 value is an f16), then to
// the result's type (f16 to f32 and f64 exactly; bf16 by way of f32, exactly).
struct ExtendFromF8 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op, PatternRewriter& rewriter) const override {
    Value in = op.getIn();
    if (!isF8(in.getType()) || !isOneDimensional(in.getType())) return failure();
    Location loc = op.getLoc();
    Type f8 = getElementTypeOrSelf(in.getType()), f16 = rewriter.getF16Type();
    SmallVector<Value> bytes = elementsOf(rewriter, loc, in), halves;
    for (size_t i = 0; i < bytes.size(); i += 2) {
      // An odd element out pairs with itself; the second half is dropped.
      Value pair = vector::FromElementsOp::create(rewriter, loc, VectorType::get({2}, f8),
                                                  ValueRange{bytes[i], bytes[std::min(i + 1, bytes.size() - 1)]});
      pair = vector::BitCastOp::create(rewriter, loc, VectorType::get({2}, rewriter.getI8Type()), pair);
      // The low byte (element 0) converts into the low half (element 0).
      Value converted = NVVM::ConvertF8x2ToF16x2Op::create(rewriter, loc, VectorType::get({2}, f16), pair,
                                                           /*relu=*/false, f8);
      for (int64_t e = 0; e < 2 && i + e < bytes.size(); ++e)
        halves.push_back(vector::ExtractOp::create(rewriter, loc, converted, ArrayRef<int64_t>{e}));
    }
    Value result = shaped(rewriter, loc, in.getType(), halves);
    Type to = getElementTypeOrSelf(op.getType());
    if (to.isBF16()) {
      result = arith::ExtFOp::create(rewriter, loc, withElement(in.getType(), rewriter.getF32Type()), result);
      result = arith::TruncFOp::create(rewriter, loc, op.getType(), result);
    } else if (!to.isF16()) {
      result = arith::ExtFOp::create(rewriter, loc, op.getType(), result);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

// arith.truncf to f8: f16 pairs through cvt.rn.satfinite.f8x2.f16x2, everything else
// through f32 pairs (bf16 to f32 is exact; f64 rounds to f32 first) and
// cvt.rn.satfinite.f8x2.f32. Values past the largest finite f8 saturate to it.
struct TruncateToF8 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op, PatternRewriter& rewriter) const override {
    if (!isF8(op.getType()) || !isOneDimensional(op.getType())) return failure();
    Location loc = op.getLoc();
    Type f8 = getElementTypeOrSelf(op.getType()), from = getElementTypeOrSelf(op.getIn().getType());
    Value in = op.getIn();
    const bool fromF16 = from.isF16();
    if (!fromF16 && !from.isF32()) {
      Type f32 = withElement(in.getType(), rewriter.getF32Type());
      in = from.isBF16() ? arith::ExtFOp::create(rewriter, loc, f32, in).getResult()
                         : arith::TruncFOp::create(rewriter, loc, f32, in).getResult();
    }
    SmallVector<Value> values = elementsOf(rewriter, loc, in), bytes;
    Type element = getElementTypeOrSelf(in.getType());
    auto pairType = VectorType::get({2}, rewriter.getI8Type());
    for (size_t i = 0; i < values.size(); i += 2) {
      Value first = values[i], second = values[std::min(i + 1, values.size() - 1)];
      // f16x2 converts half by half (element 0, the low half, to the low byte); the f32
      // form puts its first operand in the high byte (element 1).
      Value pair;
      if (fromF16) {
        Value halves = vector::FromElementsOp::create(rewriter, loc, VectorType::get({2}, element),
                                                      ValueRange{first, second});
        pair = NVVM::ConvertF16x2ToF8x2Op::create(rewriter, loc, pairType, halves, /*relu=*/false, f8);
      } else {
        pair = NVVM::ConvertF32x2ToF8x2Op::create(rewriter, loc, pairType, second, first, NVVM::FPRoundingMode::RN,
                                                  NVVM::SaturationMode::SATFINITE, /*relu=*/false, f8);
      }
      pair = vector::BitCastOp::create(rewriter, loc, VectorType::get({2}, f8), pair);
      for (int64_t e = 0; e < 2 && i + e < values.size(); ++e)
        bytes.push_back(vector::ExtractOp::create(rewriter, loc, pair, ArrayRef<int64_t>{e}));
    }
    rewriter.replaceOp(op, shaped(rewriter, loc, op.getType(), bytes));
    return success();
  }
};

// An f8 constant as its bits: the LLVM lowering takes no f8 attribute.
struct F8ConstantAsBits : OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ConstantOp op, PatternRewriter& rewriter) const override {
    if (!isF8(op.getType())) return failure();
    Type bitsType = withElement(op.getType(), rewriter.getI8Type());
    TypedAttr bits;
    if (auto dense = dyn_cast<DenseFPElementsAttr>(op.getValue()))
      bits = dense.bitcast(rewriter.getI8Type());
    else if (auto scalar = dyn_cast<FloatAttr>(op.getValue()))
      bits = rewriter.getIntegerAttr(bitsType, scalar.getValue().bitcastToAPInt());
    else
      return failure();
    Value constant = arith::ConstantOp::create(rewriter, op.getLoc(), bits);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), constant);
    return success();
  }
};

struct WaveLowerF8ToNVVMPass : impl::WaveLowerF8ToNVVMBase<WaveLowerF8ToNVVMPass> {
  void runOnOperation() override {
    Operation* module = getOperation();
    MLIRContext* ctx = &getContext();
    const bool usesF8 = module->walk([](Operation* op) {
      auto f8 = [](Value v) { return isF8(v.getType()); };
      return llvm::any_of(op->getResults(), f8) || llvm::any_of(op->getOperands(), f8) ? WalkResult::interrupt()
                                                                                       : WalkResult::advance();
    }).wasInterrupted();
    if (!usesF8) return;
    TypeConverter emulation;
    arith::populateEmulateUnsupportedFloatsConversions(
        emulation, {Float8E4M3FNType::get(ctx), Float8E5M2Type::get(ctx)}, Float32Type::get(ctx));
    RewritePatternSet emulate(ctx);
    arith::populateEmulateUnsupportedFloatsPatterns(emulate, emulation);
    ConversionTarget target(*ctx);
    arith::populateEmulateUnsupportedFloatsLegality(target, emulation);
    target.markUnknownOpDynamicallyLegal([](Operation*) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(emulate)))) return signalPassFailure();
    RewritePatternSet conversions(ctx);
    conversions.add<ExtendFromF8, TruncateToF8, F8ConstantAsBits>(ctx);
    walkAndApplyPatterns(module, std::move(conversions));
  }
};

}  // namespace
}  // namespace wave::jit
