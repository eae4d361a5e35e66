//===- DistributeTmaCopy.cpp - a tile filled by the tensor memory accelerator ---===//
//
// wave.tma_copy: thread 0 arms the copy's mbarrier with the tile's bytes and issues one
// TMA copy per box (a 128-byte-wide block of the innermost dim, which the swizzled tile
// stores as one [rows, block] array, as the copy engine writes it); every thread then
// waits on the mbarrier's phase. A copy in a loop completes once per iteration, so its
// phase is the iteration's parity. The tensor map is a kernel parameter of its own
// (`wave.tensor_maps` tells the runtime how to encode it); the mbarrier is made and armed
// once at the kernel's start.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "analysis/Cluster.h"
#include "analysis/TileLoop.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace wave::jit::distribution {

Value Distributor::tensorMap(unsigned argument, ArrayRef<int64_t> box, MemRefType boxType, int64_t swizzle) {
  MLIRContext* ctx = b_.getContext();
  Value& map = tensorMaps_[{argument, SmallVector<int64_t>(box)}];
  if (map) return map;
  OpBuilder::InsertionGuard guard(b_);
  // A parameter after the others; the runtime passes the map encoded for this box.
  const unsigned position = func_.getNumArguments();
  if (failed(func_.insertArgument(position, LLVM::LLVMPointerType::get(ctx), DictionaryAttr(), loc_))) return {};
  SmallVector<Attribute> maps;
  if (auto existing = func_->getAttrOfType<ArrayAttr>("wave.tensor_maps")) llvm::append_range(maps, existing);
  maps.push_back(b_.getDictionaryAttr({b_.getNamedAttr("argument", b_.getI64IntegerAttr(argument)),
                                       b_.getNamedAttr("box", b_.getDenseI64ArrayAttr(box)),
                                       b_.getNamedAttr("swizzle", b_.getI64IntegerAttr(swizzle))}));
  func_->setAttr("wave.tensor_maps", b_.getArrayAttr(maps));
  b_.setInsertionPointToStart(&func_.getBody().front());
  // The type describes the map the runtime encodes (runtime::encode_tensor_map): the
  // box, its swizzle, zeros past the ends, L2 promotion of 128 bytes.
  const auto swizzleKind = swizzle == 128 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
                           : swizzle == 64 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_64B
                                           : nvgpu::TensorMapSwizzleKind::SWIZZLE_32B;
  auto type = nvgpu::TensorMapDescriptorType::get(ctx, boxType, swizzleKind, nvgpu::TensorMapL2PromoKind::L2PROMO_128B,
                                                  nvgpu::TensorMapOOBKind::OOB_ZERO,
                                                  nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  map = UnrealizedConversionCastOp::create(b_, loc_, type, func_.getArgument(position)).getResult(0);
  return map;
}

Value Distributor::armedBarrier() {
  OpBuilder::InsertionGuard guard(b_);
  MLIRContext* ctx = b_.getContext();
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto type = nvgpu::MBarrierGroupType::get(ctx, workgroup, /*num_barriers=*/1);
  // Made and initialized (one arrival: the thread that issues the copies) at the start;
  // one barrier after all initializations publishes them before any copy.
  Value leader = isLeader();
  if (!barriersReady_) {
    b_.setInsertionPointAfterValue(leader);
    barriersReady_ = gpu::BarrierOp::create(b_, loc_);
  }
  b_.setInsertionPoint(barriersReady_);
  Value barrier = nvgpu::MBarrierCreateOp::create(b_, loc_, type);
  Value first = arith::ConstantIndexOp::create(b_, loc_, 0);
  nvgpu::MBarrierInitOp::create(b_, loc_, barrier, arith::ConstantIndexOp::create(b_, loc_, 1), first, leader);
  return barrier;
}

Value Distributor::isLeader() {
  if (!leader_) {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointAfterValue(wave_);
    Value firstLane = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, lane_, index(0));
    Value firstWave = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, wave_, index(0));
    leader_ = arith::AndIOp::create(b_, loc_, firstLane, firstWave);
  }
  return leader_;
}

LogicalResult Distributor::lowerTmaCopy(dialect::TmaCopyOp op) {
  dialect::MemoryType memory = op.getSource().getType();
  Type element = memory.getElementType();
  SmallVector<StringRef> dims = memory.getDimNames();
  const int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  const int64_t swizzle = *op.getTile().getDefiningOp<dialect::AllocateOp>().getSwizzle();
  const int64_t block = swizzle / bytes, inner = grid_.tiling(dims.back()).blockTile;
  if (inner % block != 0)
    return op.emitOpError("expected the tile's innermost extent to be a multiple of ")
           << block << " elements (a " << swizzle << "-byte box row), but found " << inner;
  SmallVector<int64_t> box;
  int64_t rows = 1;
  for (StringRef d : ArrayRef(dims).drop_back()) {
    box.push_back(grid_.tiling(d).blockTile);
    rows *= box.back();
  }
  box.push_back(block);
  auto workgroup = gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup);
  auto boxType = MemRefType::get(box, element, AffineMap(), workgroup);
  Value map = tensorMap(cast<BlockArgument>(op.getSource()).getArgNumber(), box, boxType, swizzle);
  if (!map) return op.emitOpError("cannot add the tensor map's parameter to the kernel");
  Value barrier = armedBarrier();
  Value leader = isLeader();
  Value tile = memrefs_.lookup(op.getTile());

  Value first = index(0);
  nvgpu::MBarrierArriveExpectTxOp::create(b_, loc_, barrier, index(rows * inner * bytes), first, leader);
  // A tile every workgroup of the cluster fills alike (no dim along its axis), in a loop:
  // wave-multicast-tensor-copies may split its copies among them.
  const bool shared = cluster_ && op->getParentOfType<dialect::IterateOp>() &&
                      llvm::none_of(dims, [&](StringRef d) { return grid_.tiling(d).gridAxis == *cluster_; });
  const int64_t boxElements = rows * block;
  SmallVector<ReassociationIndices> allDims(1);
  for (int64_t d = 0; d < static_cast<int64_t>(box.size()); ++d) allDims.front().push_back(d);
  for (int64_t boxIndex = 0; boxIndex < inner / block; ++boxIndex) {
    // Box b: elements [b * rows * block, (b + 1) * rows * block) of the tile, shaped as the box.
    SmallVector<OpFoldResult> offset{b_.getIndexAttr(boxIndex * boxElements)}, size{b_.getIndexAttr(boxElements)},
        stride{b_.getIndexAttr(1)};
    Value part = memref::SubViewOp::create(b_, loc_, tile, offset, size, stride);
    auto partType = cast<MemRefType>(part.getType());
    FailureOr<MemRefType> shaped = memref::ExpandShapeOp::computeExpandedType(partType, box, allDims);
    if (failed(shaped)) return op.emitOpError("cannot shape the tile's box ") << boxIndex << " as " << boxType;
    Value dst = memref::ExpandShapeOp::create(b_, loc_, *shaped, part, allDims);
    // Coordinates innermost first, as the tensor map orders its dims.
    SmallVector<Value> coordinates;
    for (StringRef d : llvm::reverse(dims)) {
      Value at = offsets_.lookup(d);
      if (!at) return op.emitOpError("found no tile offset along ") << d;
      coordinates.push_back(d == dims.back() ? add(at, boxIndex * block) : at);
    }
    auto load =
        nvgpu::TmaAsyncLoadOp::create(b_, loc_, dst, barrier, map, coordinates, first, /*multicastMask=*/Value(), leader);
    if (shared) load->setAttr(kMulticastAttr, b_.getUnitAttr());
  }
  // The copy's completion: in a loop, the parity of the trip (one completion per trip,
  // counted over the workgroup's tiles where it runs several: analysis/TileLoop.h).
  Value parity = arith::ConstantIntOp::create(b_, loc_, 0, 1);
  if (auto loop = dyn_cast<scf::ForOp>(b_.getInsertionBlock()->getParentOp()))
    parity = parityOf(b_, loc_, workgroupTrip(b_, loc_, loop));
  nvgpu::MBarrierTryWaitParityOp::create(b_, loc_, barrier, parity, index(kMBarrierWaitTicks), first);
  return success();
}

}  // namespace wave::jit::distribution
