//===- DistributeWarpgroupMma.cpp - wave.mma as Hopper wgmma ---------------===//
//
// A warpgroup mma (wave-select-warpgroup-mma) reads its operands from their swizzled
// shared tiles through 64-bit matrix descriptors: per k16 step, one wgmma m64nNk16 per
// 64-row strip of the warpgroup's rows and per instruction's columns, all issued between
// one wgmma.fence and one commit, then waited for. The accumulator's registers are the
// instructions' own (analysis/MMAAnchors: [strips, cols / 8, 4] per thread).
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit::distribution {

namespace {

// The descriptor's swizzle field (bits 62-63): 128, 64 or 32 bytes.
int64_t swizzleMode(int64_t swizzle) { return swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3; }

std::optional<NVVM::WGMMATypes> wgmmaType(Type t) {
  if (t.isF16()) return NVVM::WGMMATypes::f16;
  if (t.isBF16()) return NVVM::WGMMATypes::bf16;
  return std::nullopt;
}

}  // namespace

LogicalResult Distributor::lowerWarpgroupMma(dialect::MmaOp op, const MMAAnchors& a) {
  const WarpgroupTiling& t = *a.warpgroup;
  auto lhsRead = op.getLhs().getDefiningOp<dialect::ReadOp>(), rhsRead = op.getRhs().getDefiningOp<dialect::ReadOp>();
  if (!lhsRead || !rhsRead || !warpgroupOperands_.contains(op.getLhs()) || !warpgroupOperands_.contains(op.getRhs()))
    return op.emitOpError("expected a warpgroup mma's operands to be read from swizzled shared tiles (wave-select-"
                          "warpgroup-mma sets them up), but found others");
  // Past the contraction dim's end both tiles hold zeros (their fills read none there).
  if (mayOverrun(a.k) && (!zeroFilledPastEnd(op.getLhs()) || !zeroFilledPastEnd(op.getRhs())))
    return op.emitOpError("expected tiles zero-filled past the end of ") << a.k << " for a warpgroup mma";
  std::optional<NVVM::WGMMATypes> inputType = wgmmaType(a.instruction.inputType);
  if (!inputType) return op.emitOpError("expected f16 or bf16 operands for a warpgroup mma");
  MLIRContext* ctx = b_.getContext();
  Type i64 = b_.getI64Type();
  auto constant = [&](int64_t v) { return arith::ConstantIntOp::create(b_, loc_, i64, v).getResult(); };
  const int64_t bytes = a.instruction.inputType.getIntOrFloatBitWidth() / 8;

  // Descriptor of a tile's matrix starting `rowOffset` rows in (a value; none: row 0), to
  // which each instruction's constant offset (a multiple of 16 bytes) adds.
  struct Tile {
    Value descriptor;
    int64_t rows, swizzle;
  };
  auto tileDescriptor = [&](dialect::ReadOp read, StringRef rowDim, Value rowOffset) -> Tile {
    auto alloc = read.getMemory().getDefiningOp<dialect::AllocateOp>();
    const int64_t swizzle = static_cast<int64_t>(*alloc.getSwizzle());
    Value memref = memrefs_.lookup(read.getMemory());
    // The address, taken where the tile is read (wave-pipeline-shared-copies moves it to
    // each iteration's copy, wave-insert-barriers counts it as the read).
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(b_, loc_, memref);
    if (rowOffset) address = arith::AddIOp::create(b_, loc_, address, arith::MulIOp::create(b_, loc_, rowOffset, index(swizzle)));
    Value field = arith::IndexCastOp::create(b_, loc_, i64, address);
    field = arith::AndIOp::create(b_, loc_, arith::ShRUIOp::create(b_, loc_, field, constant(4)), constant(0x3FFF));
    // Leading byte offset unused by swizzled K-major tiles (1 by convention); stride byte
    // offset: from one 8-row group to the next.
    const uint64_t fixed = (uint64_t{1} << 16) | (uint64_t(8 * swizzle >> 4) << 32) |
                           (uint64_t(swizzleMode(swizzle)) << 62);
    return {arith::OrIOp::create(b_, loc_, field, constant(static_cast<int64_t>(fixed))),
            grid_.tiling(rowDim).blockTile, swizzle};
  };
  // The warpgroup's rows or columns start g * part in; g = wave / 4.
  Value group = threadIndex(getAffineDimExpr(1, ctx).floorDiv(4));
  Value groupRows = t.splitsRows && t.groups > 1 ? arith::MulIOp::create(b_, loc_, group, index(t.rows)).getResult() : Value();
  Value groupCols = !t.splitsRows && t.groups > 1 ? arith::MulIOp::create(b_, loc_, group, index(t.cols)).getResult() : Value();
  Tile lhs = tileDescriptor(lhsRead, a.m, groupRows), rhs = tileDescriptor(rhsRead, a.n, groupCols);
  // Instruction (row, k step)'s matrix: column block, row, then the k step's 32 bytes.
  auto descriptor = [&](const Tile& tile, int64_t row, int64_t kk) {
    const int64_t kBytes = kk * a.instruction.k * bytes;
    const int64_t offset = (kBytes / tile.swizzle * tile.rows + row) * tile.swizzle + kBytes % tile.swizzle;
    return offset == 0 ? tile.descriptor : arith::AddIOp::create(b_, loc_, tile.descriptor, constant(offset >> 4)).getResult();
  };

  // The accumulator's registers per (strip, instruction), as the instruction's struct.
  Value acc = lookup(op.getAcc());
  const int64_t perInstruction = t.instructionCols / 2, perStrip = t.cols / 2;
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(perInstruction, b_.getF32Type()));
  SmallVector<Value> accs;
  for (int64_t s = 0; s < t.strips(); ++s)
    for (int64_t i = 0; i < t.instructions(); ++i) {
      Value packed = LLVM::PoisonOp::create(b_, loc_, structType);
      for (int64_t e = 0; e < perInstruction; ++e) {
        Value x = vector::ExtractOp::create(b_, loc_, acc, ArrayRef<int64_t>{s * perStrip + i * perInstruction + e});
        packed = LLVM::InsertValueOp::create(b_, loc_, packed, x, ArrayRef<int64_t>{e});
      }
      accs.push_back(packed);
    }
  // Shared memory written by ordinary stores (and cp.async) is read by wgmma through the
  // async proxy: fenced first.
  NVVM::FenceProxyOp::create(b_, loc_, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
                             NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  NVVM::WgmmaFenceAlignedOp::create(b_, loc_);
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, t.instructionCols, a.instruction.k);
  for (int64_t kk = 0; kk < a.tilesK; ++kk)
    for (int64_t s = 0; s < t.strips(); ++s)
      for (int64_t i = 0; i < t.instructions(); ++i) {
        Value& d = accs[s * t.instructions() + i];
        d = NVVM::WgmmaMmaAsyncOp::create(
            b_, loc_, structType, d, descriptor(lhs, 64 * s, kk), descriptor(rhs, i * t.instructionCols, kk), shape,
            *inputType, *inputType, NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
            NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row, NVVM::MMALayout::col, /*satfinite=*/nullptr);
      }
  NVVM::WgmmaGroupSyncAlignedOp::create(b_, loc_);
  NVVM::WgmmaWaitGroupSyncOp::create(b_, loc_, 0);
  SmallVector<Value> elements;
  for (Value d : accs)
    for (int64_t e = 0; e < perInstruction; ++e)
      elements.push_back(LLVM::ExtractValueOp::create(b_, loc_, d, ArrayRef<int64_t>{e}));
  values_[op.getResult()] = vector::FromElementsOp::create(b_, loc_, cast<VectorType>(acc.getType()), elements);
  return success();
}

}  // namespace wave::jit::distribution
