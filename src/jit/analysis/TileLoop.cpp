#include "analysis/TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace wave::jit {

using namespace mlir;

scf::ForOp enclosingTileLoop(scf::ForOp loop) {
  auto tiles = dyn_cast_or_null<scf::ForOp>(loop->getParentOp());
  return tiles && tiles->hasAttr(kTileLoopAttr) ? tiles : scf::ForOp();
}

Value tripsInEarlierTiles(scf::ForOp loop) {
  auto which = loop->getAttrOfType<IntegerAttr>(kTripBaseAttr);
  scf::ForOp tiles = enclosingTileLoop(loop);
  if (!which || !tiles || which.getInt() >= static_cast<int64_t>(tiles.getNumRegionIterArgs())) return {};
  return tiles.getRegionIterArgs()[which.getInt()];
}

Value localTrip(OpBuilder& b, Location loc, scf::ForOp loop) {
  Value trip = arith::SubIOp::create(b, loc, loop.getInductionVar(), loop.getLowerBound());
  return arith::DivUIOp::create(b, loc, trip, loop.getStep());
}

Value workgroupTrip(OpBuilder& b, Location loc, scf::ForOp loop) {
  Value trip = localTrip(b, loc, loop);
  if (Value earlier = tripsInEarlierTiles(loop)) trip = arith::AddIOp::create(b, loc, earlier, trip);
  return trip;
}

Value parityOf(OpBuilder& b, Location loc, Value count) {
  return arith::TruncIOp::create(b, loc, b.getI1Type(), arith::IndexCastUIOp::create(b, loc, b.getI64Type(), count));
}

Value tripCount(OpBuilder& b, Location loc, scf::ForOp loop) {
  Value span = arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getLowerBound());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value positive = arith::MaxSIOp::create(b, loc, span, zero);
  return arith::CeilDivUIOp::create(b, loc, positive, loop.getStep());
}

}  // namespace wave::jit
