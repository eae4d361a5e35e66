//===- LoweringBuilder.h - what the kernel lowerings build -----*- C++ -*-===//
//
// The index arithmetic, affine applications and guarded regions that the memory-bound,
// attention and distributed lowerings emit, over one builder at the kernel's location.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_LOWERINGBUILDER_H
#define WAVE_JIT_LOWERING_LOWERINGBUILDER_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>
#include <tuple>
#include <utility>

namespace wave::jit {

class LoweringBuilder {
 protected:
  explicit LoweringBuilder(mlir::func::FuncOp kernel) : b_(kernel.getContext()), loc_(kernel.getLoc()) {}

  mlir::Value index(int64_t v) { return mlir::arith::ConstantIndexOp::create(b_, loc_, v); }
  mlir::Value add(mlir::Value a, int64_t c) {
    return c ? mlir::arith::AddIOp::create(b_, loc_, a, index(c)).getResult() : a;
  }
  // Unsigned: indices and sizes are never negative.
  mlir::Value lessThan(mlir::Value a, mlir::Value b) {
    return mlir::arith::CmpIOp::create(b_, loc_, mlir::arith::CmpIPredicate::ult, a, b);
  }
  mlir::Value both(mlir::Value a, mlir::Value b) { return mlir::arith::AndIOp::create(b_, loc_, a, b); }
  mlir::Value negate(mlir::Value condition) {
    return mlir::arith::XOrIOp::create(b_, loc_, condition, mlir::arith::ConstantIntOp::create(b_, loc_, 1, 1));
  }
  mlir::Value andAll(llvm::ArrayRef<mlir::Value> conditions) {
    mlir::Value all = mlir::arith::ConstantIntOp::create(b_, loc_, 1, 1);
    for (mlir::Value c : conditions) all = both(all, c);
    return all;
  }
  // `v` where the pure ops computing it fold to a constant (index arithmetic of sizes set
  // at compile time), each asked to fold on its operands' constants; else nothing.
  static std::optional<int64_t> foldedConstant(mlir::Value v, int depth = 8) {
    if (std::optional<int64_t> c = mlir::getConstantIntValue(v)) return c;
    mlir::Operation* op = v.getDefiningOp();
    if (!op || depth == 0 || op->getNumResults() != 1 || op->getNumRegions() != 0 || !mlir::isPure(op))
      return std::nullopt;
    llvm::SmallVector<mlir::Attribute> operands;
    for (mlir::Value operand : op->getOperands()) {
      std::optional<int64_t> c = foldedConstant(operand, depth - 1);
      if (!c || !operand.getType().isIntOrIndex()) return std::nullopt;
      operands.push_back(mlir::IntegerAttr::get(operand.getType(), *c));
    }
    llvm::SmallVector<mlir::OpFoldResult> folded;
    if (mlir::failed(op->fold(operands, folded)) || folded.size() != 1) return std::nullopt;
    if (auto attr = llvm::dyn_cast_if_present<mlir::IntegerAttr>(llvm::dyn_cast<mlir::Attribute>(folded.front())))
      return attr.getInt();
    return std::nullopt;
  }
  // `expr` over dims d0, d1, ... bound to `operands`.
  mlir::Value apply(mlir::AffineExpr expr, mlir::ValueRange operands) {
    return mlir::affine::AffineApplyOp::create(b_, loc_, mlir::AffineMap::get(operands.size(), 0, expr), operands);
  }
  // Workgroup (x, y) of a grid of tilesX x tilesY, renumbered so that consecutive
  // workgroups take their tiles in groups of `groupX` along x, down a group before across
  // it: the workgroups running at once then share operand tiles in L2. Returns the tile
  // coordinates (x, y) this workgroup computes.
  std::pair<mlir::Value, mlir::Value> groupedTileOrder(mlir::Value x, mlir::Value y, mlir::Value tilesX,
                                                       mlir::Value tilesY, int64_t groupX) {
    using namespace mlir;
    // One group spans every x tile: the order is unchanged.
    std::optional<int64_t> staticTilesX = getConstantIntValue(tilesX);
    if (staticTilesX && *staticTilesX <= groupX) return {x, y};
    Value linear = arith::AddIOp::create(b_, loc_, arith::MulIOp::create(b_, loc_, y, tilesX), x);
    Value perGroup = arith::MulIOp::create(b_, loc_, tilesY, index(groupX));
    Value firstX = arith::MulIOp::create(b_, loc_, arith::DivUIOp::create(b_, loc_, linear, perGroup), index(groupX));
    // Only the last group may be short, and none is where the groups divide the x tiles.
    Value groupRows = staticTilesX && *staticTilesX % groupX == 0
                          ? index(groupX)
                          : arith::MinUIOp::create(b_, loc_, arith::SubIOp::create(b_, loc_, tilesX, firstX), index(groupX));
    Value inGroup = arith::RemUIOp::create(b_, loc_, linear, perGroup);
    return {arith::AddIOp::create(b_, loc_, firstX, arith::RemUIOp::create(b_, loc_, inGroup, groupRows)),
            arith::DivUIOp::create(b_, loc_, inGroup, groupRows)};
  }

  // Runs `build` inside an scf.if on `cond` (no else), then returns to where it was.
  template <class Build>
  void ifThen(mlir::Value cond, Build build) {
    auto branch = mlir::scf::IfOp::create(b_, loc_, mlir::TypeRange{}, cond, /*withElse=*/false);
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(branch.thenBlock());
    build();
  }

  mlir::OpBuilder b_;
  mlir::Location loc_;
};

}  // namespace wave::jit

#endif
