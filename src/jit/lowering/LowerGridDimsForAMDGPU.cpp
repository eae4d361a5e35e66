//===- LowerGridDimsForAMDGPU.cpp - grid and block sizes from the kernel's arguments -===//
//
// See Passes.td: the ROCDL conversion reads gpu.grid_dim (and a gpu.block_dim of unknown
// size) through ROCm's device library, which no kernel of ours links; the dispatch's
// implicit kernel arguments hold the same numbers.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVELOWERGRIDDIMSFORAMDGPU
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

// Code object v5's implicit kernel arguments: hidden_block_count_{x,y,z} (u32) from byte
// 0, hidden_group_size_{x,y,z} (u16) from byte 12.
constexpr int32_t kBlockCountOffset = 0;
constexpr int32_t kGroupSizeOffset = 12;
constexpr unsigned kConstantAddressSpace = 4;

int32_t axisOf(gpu::Dimension d) { return static_cast<int32_t>(d); }

// The `bits`-wide unsigned implicit argument at byte `offset`, as an index.
Value implicitArgument(OpBuilder& b, Location loc, int32_t offset, unsigned bits) {
  MLIRContext* ctx = b.getContext();
  auto constant = LLVM::LLVMPointerType::get(ctx, kConstantAddressSpace);
  Value base = LLVM::CallIntrinsicOp::create(b, loc, constant, b.getStringAttr("llvm.amdgcn.implicitarg.ptr"),
                                             ValueRange{})
                   .getResult(0);
  Value at = LLVM::GEPOp::create(b, loc, constant, b.getI8Type(), base, ArrayRef<LLVM::GEPArg>{offset});
  Value word = LLVM::LoadOp::create(b, loc, b.getIntegerType(bits), at, /*alignment=*/bits / 8, /*isVolatile=*/false,
                                    /*isNonTemporal=*/false, /*isInvariant=*/true);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), word);
}

struct WaveLowerGridDimsForAMDGPUPass : impl::WaveLowerGridDimsForAMDGPUBase<WaveLowerGridDimsForAMDGPUPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::GridDimOp op) {
      OpBuilder b(op);
      op.replaceAllUsesWith(implicitArgument(b, op.getLoc(), kBlockCountOffset + 4 * axisOf(op.getDimension()), 32));
      op.erase();
    });
    getOperation().walk([](gpu::BlockDimOp op) {
      auto func = op->getParentOfType<gpu::GPUFuncOp>();
      if (func && func.getKnownBlockSizeAttr()) return;  // the conversion takes the known size
      OpBuilder b(op);
      op.replaceAllUsesWith(implicitArgument(b, op.getLoc(), kGroupSizeOffset + 2 * axisOf(op.getDimension()), 16));
      op.erase();
    });
  }
};

}  // namespace
}  // namespace wave::jit
