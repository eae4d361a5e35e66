//===- DistributeBufferAccesses.cpp - global memory through AMD buffers ---===//
//
// On AMDGPU global memory can be read and written through a buffer resource whose range
// check reads zero and drops writes past the buffer's end. A masked access then needs no
// branch: an element outside the tensor is moved at an offset past the end (its first
// index set to the outermost dim's size). And where the only mask is the outermost dim's
// end, the range check is that mask: a row-major tensor's offsets pass its end exactly
// where the row does, so the compare goes too.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"
#include "lowering/KernelSignature.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace wave::jit::distribution {

namespace {

// Buffer offsets are 32-bit bytes, signed in the index arithmetic: the offsets of every
// position a workgroup's tiles reach (past the end too) must stay under 2^31.
constexpr int64_t kMaxBufferBytes = (int64_t(1) << 31) - 1;

}  // namespace

bool Distributor::throughBuffer(Value memref, Type element, ArrayRef<StringRef> memoryDims) {
  if (!options_.bufferAccesses) return false;
  // (A mapped access addresses the argument flattened: one buffer all the same.)
  Value tensor = memref;
  if (auto flat = memref.getDefiningOp<memref::CollapseShapeOp>()) tensor = flat.getSrc();
  auto argument = dyn_cast<BlockArgument>(tensor);
  if (!argument || argument.getOwner() != &func_.getBody().front()) return false;
  auto type = dyn_cast<MemRefType>(tensor.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() || type.getMemorySpace() ||
      type.getRank() == 0 || static_cast<size_t>(type.getRank()) != memoryDims.size())
    return false;
  const unsigned bits = element.getIntOrFloatBitWidth();
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return false;
  // Each dim rounded up to whole tiles, one more row for the offsets past the end.
  int64_t bytes = bits / 8;
  for (auto [k, size] : llvm::enumerate(type.getShape())) {
    const int64_t tile = std::max<int64_t>(1, grid_.tiling(memoryDims[k]).blockTile);
    bytes *= llvm::divideCeil(size, tile) * tile + (k == 0 ? tile : 0);
    if (bytes > kMaxBufferBytes) return false;
  }
  return true;
}

bool Distributor::bufferChecksEnd(Value memref, StringRef dim, ArrayRef<StringRef> memoryDims) {
  if (memoryDims.empty() || memoryDims.front() != dim || ends_.count(dim) || grid_.tiling(dim).rankSlice) return false;
  std::optional<int64_t> size = staticSize(kernel_, dim);
  return size && *size == cast<MemRefType>(memref.getType()).getDimSize(0);
}

SmallVector<Value> Distributor::bufferOffsets(Value memref, ArrayRef<Value> indices, Value inside) {
  const int64_t rows = cast<MemRefType>(memref.getType()).getDimSize(0);
  SmallVector<Value> offsets;
  for (auto [k, at] : llvm::enumerate(indices)) {
    Value i = k == 0 && inside ? arith::SelectOp::create(b_, loc_, inside, at, index(rows)).getResult() : at;
    offsets.push_back(arith::IndexCastOp::create(b_, loc_, b_.getI32Type(), i));
  }
  return offsets;
}

Value Distributor::bufferLoad(Type type, Value memref, ArrayRef<Value> indices, Value inside) {
  return amdgpu::RawBufferLoadOp::create(b_, loc_, type, memref, bufferOffsets(memref, indices, inside),
                                         /*boundsCheck=*/true, /*indexOffset=*/nullptr, /*sgprOffset=*/Value());
}

void Distributor::bufferStore(Value value, Value memref, ArrayRef<Value> indices, Value inside) {
  amdgpu::RawBufferStoreOp::create(b_, loc_, value, memref, bufferOffsets(memref, indices, inside),
                                   /*boundsCheck=*/true, /*indexOffset=*/nullptr, /*sgprOffset=*/Value());
}

}  // namespace wave::jit::distribution
