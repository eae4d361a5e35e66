//===- DistributeWarpgroupMma.cpp - wave.mma as Hopper wgmma ---------------===//
//
// A warpgroup mma (wave-select-warpgroup-mma) reads its B operand, and its A where that is
// a tile too, from their swizzled shared tiles through 64-bit matrix descriptors, K-major
// or MN-major as the tile stores them; an A the kernel computed (attention's P) comes from
// the registers of the A layout. Per k step (16 elements, 32 of f8), one wgmma m64nNk16
// (m64nNk32) per 64-row strip of the warpgroup's rows and per instruction's columns, all
// issued between one wgmma.fence and one commit, then waited for. The accumulator's registers are the instructions' own
// (analysis/MMAAnchors: [strips, cols / 8, 4] per thread).
//
//===----------------------------------------------------------------------===//

#include "analysis/ScoreMasks.h"
#include "lowering/Distributor.h"
#include "lowering/ElementConversion.h"
#include "lowering/MMAInstructions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <string>

namespace wave::jit::distribution {

namespace {

// The descriptor's swizzle field (bits 62-63): 128, 64 or 32 bytes.
int64_t swizzleMode(int64_t swizzle) { return swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3; }

std::optional<NVVM::WGMMATypes> wgmmaType(Type t) {
  if (t.isF16()) return NVVM::WGMMATypes::f16;
  if (t.isBF16()) return NVVM::WGMMATypes::bf16;
  if (isa<Float8E4M3FNType>(t)) return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(t)) return NVVM::WGMMATypes::e5m2;
  if (t.isInteger(8)) return NVVM::WGMMATypes::s8;
  return std::nullopt;
}

// wgmma with A from registers, which the NVVM op does not take: its PTX as inline
// assembly, the accumulators tied in and out. Integer forms (s8) take no scale-a/b.
Value wgmmaFromRegisters(OpBuilder& b, Location loc, LLVM::LLVMStructType result, Value acc, ArrayRef<Value> a,
                         Value bDescriptor, int64_t n, int64_t k, NVVM::WGMMATypes input, bool scaleAcc,
                         bool transposeB) {
  const int64_t count = static_cast<int64_t>(result.getBody().size());
  const std::string type = NVVM::stringifyWGMMATypes(input).str();
  const bool integer = input == NVVM::WGMMATypes::s8;
  std::string ptx = "{\n.reg .pred p;\nsetp.ne.b32 p, " + std::to_string(scaleAcc ? 1 : 0) +
                    ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k" + std::to_string(k) +
                    (integer ? ".s32." : ".f32.") + type + "." + type + " {";
  std::string constraints;
  SmallVector<Value> operands;
  for (int64_t i = 0; i < count; ++i) {
    ptx += (i ? ", $" : "$") + std::to_string(i);
    constraints += integer ? "=r," : "=f,";
  }
  for (int64_t i = 0; i < count; ++i) {
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, ArrayRef<int64_t>{i}));
    constraints += std::to_string(i) + ",";
  }
  ptx += "}, {";
  for (auto [i, r] : llvm::enumerate(a)) {
    ptx += (i ? ", $" : "$") + std::to_string(2 * count + i);
    operands.push_back(r);
    constraints += "r,";
  }
  // The scale-a and scale-b immediates, then (16-bit inputs only) B's transpose.
  ptx += "}, $" + std::to_string(2 * count + a.size()) + (integer ? ", p" : ", p, 1, 1") +
         (input == NVVM::WGMMATypes::f16 || input == NVVM::WGMMATypes::bf16 ? (transposeB ? ", 1" : ", 0") : "") +
         ";\n}";
  operands.push_back(bDescriptor);
  constraints += "l";
  return inlineAsm(b, loc, result, operands, ptx, constraints);
}

// `values` passed through an empty side-effecting asm statement: its results are the same
// registers, but code using them cannot move above it, nor code computing them below.
// wgmma reads its accumulators and A registers, and writes its results, asynchronously,
// between wgmma.fence and wgmma.wait_group, which take no operands: fenced so, the
// registers are written before the one and read after the other.
SmallVector<Value> fenceRegisters(OpBuilder& b, Location loc, ValueRange values) {
  std::string constraints;
  SmallVector<Type> types;
  for (Value v : values) {
    constraints += v.getType().isF32() ? "=f," : "=r,";
    types.push_back(v.getType());
  }
  for (size_t i = 0; i < values.size(); ++i) constraints += std::to_string(i) + (i + 1 < values.size() ? "," : "");
  Value fenced = inlineAsm(b, loc, LLVM::LLVMStructType::getLiteral(b.getContext(), types), values, "", constraints);
  SmallVector<Value> out;
  for (size_t i = 0; i < values.size(); ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, fenced, ArrayRef<int64_t>{static_cast<int64_t>(i)}));
  return out;
}

}  // namespace

LogicalResult Distributor::lowerWarpgroupMma(dialect::MmaOp op, const MMAAnchors& a) {
  const WarpgroupTiling& t = *a.warpgroup;
  // The instruction's rows and A, its columns and B: the op's, swapped when transposed.
  const Value aValue = a.transposed ? op.getRhs() : op.getLhs(), bValue = a.transposed ? op.getLhs() : op.getRhs();
  const StringRef rowsDim = a.transposed ? a.n : a.m, colsDim = a.transposed ? a.m : a.n;
  const LayoutAttr aLayout = a.transposed ? a.rhs : a.lhs;
  if (!warpgroupOperands_.contains(bValue))
    return op.emitOpError("expected a warpgroup mma's B operand to be read from a swizzled shared tile (wave-select-"
                          "warpgroup-mma sets it up), but found another value");
  const bool aFromTile = warpgroupOperands_.contains(aValue);
  // Past the contraction dim's end the tiles hold zeros (their fills read none there);
  // registers of A get them.
  if (mayOverrun(a.k) && (!zeroFilledPastEnd(bValue) || (aFromTile && !zeroFilledPastEnd(aValue))))
    return op.emitOpError("expected tiles zero-filled past the end of ") << a.k << " for a warpgroup mma";
  std::optional<NVVM::WGMMATypes> inputType = wgmmaType(a.instruction.inputType);
  if (!inputType) return op.emitOpError("expected f16, bf16, f8 or i8 operands for a warpgroup mma");
  Value aRegisters;
  if (!aFromTile) {
    aRegisters = lookup(aValue);
    if (mayOverrun(a.k) && !zeroFilledPastEnd(aValue))
      aRegisters = zeroPastEnd(aRegisters, aLayout, dimIndex(dimsOf(aValue), a.k), a.k);
  }
  MLIRContext* ctx = b_.getContext();
  Type i64 = b_.getI64Type();
  auto constant = [&](int64_t v) { return arith::ConstantIntOp::create(b_, loc_, i64, v).getResult(); };
  const int64_t bytes = a.instruction.inputType.getIntOrFloatBitWidth() / 8;

  // A tile's descriptor at the warpgroup's part of it, to which each instruction's constant
  // offset (a multiple of 16 bytes) adds. The tile is stored in rows of its innermost dim,
  // `rowElements` of them per swizzle row, the rows `rows` long: K-major where that dim is
  // the contraction dim (k steps within a row; 8-row groups SBO apart), MN-major where it is
  // the instruction's rows or columns (8-row groups of k SBO apart, swizzle rows of the
  // MN dim LBO apart).
  struct Tile {
    Value descriptor;
    int64_t rows, rowElements;
    bool mnMajor;
    // Elements from the tile's start to (mn, k).
    int64_t offset(int64_t mn, int64_t k) const {
      const int64_t fast = mnMajor ? mn : k, strided = mnMajor ? k : mn;
      return fast / rowElements * rows * rowElements + strided * rowElements + fast % rowElements;
    }
  };
  // The warpgroup's part starts g * part along the MN dim; g = wave / 4.
  Value group = t.groups > 1 ? threadIndex(getAffineDimExpr(1, ctx).floorDiv(4)) : Value();
  auto tileDescriptor = [&](Value operand, StringRef mnDim, int64_t part) -> Tile {
    dialect::AllocateOp alloc = swizzledTileOf(operand);
    const int64_t swizzle = static_cast<int64_t>(*alloc.getSwizzle());
    Tile tile;
    tile.mnMajor = alloc.getResult().getType().getDimNames().back() == mnDim;
    tile.rows = grid_.tiling(tile.mnMajor ? a.k : mnDim).blockTile;
    tile.rowElements = swizzle / bytes;
    // The address, taken where the tile is read (wave-pipeline-shared-copies moves it to
    // each iteration's copy, wave-insert-barriers counts it as the read).
    Value memref = memrefs_.lookup(operand.getDefiningOp<dialect::ReadOp>().getMemory());
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(b_, loc_, memref);
    if (group && part)
      address = arith::AddIOp::create(b_, loc_, address,
                                      arith::MulIOp::create(b_, loc_, group, index(tile.offset(part, 0) * bytes)));
    Value field = arith::IndexCastOp::create(b_, loc_, i64, address);
    field = arith::AndIOp::create(b_, loc_, arith::ShRUIOp::create(b_, loc_, field, constant(4)), constant(0x3FFF));
    const uint64_t leading = tile.mnMajor ? uint64_t(tile.rows * swizzle) >> 4 : 1;  // K-major: unused, 1
    const uint64_t fixed = (leading << 16) | (uint64_t(8 * swizzle >> 4) << 32) | (uint64_t(swizzleMode(swizzle)) << 62);
    tile.descriptor = arith::OrIOp::create(b_, loc_, field, constant(static_cast<int64_t>(fixed)));
    return tile;
  };
  std::optional<Tile> aTile;
  if (aFromTile) aTile = tileDescriptor(aValue, rowsDim, t.splitsRows ? t.rows : 0);
  const Tile bTile = tileDescriptor(bValue, colsDim, t.splitsRows ? 0 : t.cols);
  auto descriptor = [&](const Tile& tile, int64_t mn, int64_t kk) {
    const int64_t offset = tile.offset(mn, kk * a.instruction.k) * bytes;
    return offset == 0 ? tile.descriptor : arith::AddIOp::create(b_, loc_, tile.descriptor, constant(offset >> 4)).getResult();
  };
  // A's registers for (strip, k step): the A fragment's runs of 16-bit (8-bit) elements as
  // 32-bit registers, in the order mma.sync takes them (analysis/MMALayout).
  auto aFragment = [&](int64_t s, int64_t kk) {
    SmallVector<Value> regs;
    const int64_t perLane = a.instruction.a.elementsPerLane(), first = (s * a.tilesK + kk) * perLane;
    const int64_t run = a.instruction.a.registers[1];
    for (int64_t r = 0; r < perLane; r += run) {
      Value word = vector::ExtractStridedSliceOp::create(b_, loc_, aRegisters, ArrayRef<int64_t>{first + r},
                                                        ArrayRef<int64_t>{run}, ArrayRef<int64_t>{1});
      word = vector::BitCastOp::create(b_, loc_, VectorType::get({1}, b_.getI32Type()), word);
      regs.push_back(vector::ExtractOp::create(b_, loc_, word, ArrayRef<int64_t>{0}));
    }
    return regs;
  };

  // The accumulator's registers per (strip, instruction), as the instruction's struct. An
  // accumulator of zeros (attention's scores start from them) is never read: the first k
  // step's instructions overwrite it (scale-d 0).
  Value acc = lookup(op.getAcc());
  const bool zeroAcc = splatValue(op.getAcc()) == 0.0;
  // f8 wgmma adds its products into the accumulator with fewer bits than f32 keeps (about
  // 14, truncating: DeepSeek-V3's report measures it), an error that grows with K. Each
  // K tile's sums (BLOCK_K / 32 instructions) therefore go into fresh registers, added to
  // the f32 accumulator after their wait, as cuBLAS's FP8 GEMM (torch._scaled_mm's
  // default) and CUTLASS's promotion do.
  // (Integer sums are exact: s8 needs none of this.)
  const bool promote = isF8(a.instruction.inputType) && !zeroAcc;
  const bool freshAcc = zeroAcc || promote;
  // Promoted, the sums of each 64 x width part go to the accumulator one part at a time,
  // so that a warpgroup holds at most 64 registers of them beside its accumulator: at
  // most 128 columns per instruction, each part waited for and added on its own.
  int64_t width = promote ? std::min<int64_t>(t.instructionCols, 128) : t.instructionCols;
  while (t.instructionCols % width != 0) width -= 8;
  const int64_t instructions = t.cols / width, perInstruction = width / 2, perStrip = t.cols / 2;
  const Type accType = a.instruction.accType;
  const auto accWgmmaType = accType.isInteger(32) ? NVVM::WGMMATypes::s32 : NVVM::WGMMATypes::f32;
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(perInstruction, accType));
  SmallVector<Value> accs;
  for (int64_t s = 0; s < t.strips(); ++s)
    for (int64_t i = 0; i < instructions; ++i) {
      Value packed = LLVM::PoisonOp::create(b_, loc_, structType);
      if (!freshAcc) {
        SmallVector<Value> registers;
        for (int64_t e = 0; e < perInstruction; ++e)
          registers.push_back(
              vector::ExtractOp::create(b_, loc_, acc, ArrayRef<int64_t>{s * perStrip + i * perInstruction + e}));
        for (auto [e, x] : llvm::enumerate(fenceRegisters(b_, loc_, registers)))
          packed = LLVM::InsertValueOp::create(b_, loc_, packed, x, ArrayRef<int64_t>{static_cast<int64_t>(e)});
      }
      accs.push_back(packed);
    }
  SmallVector<SmallVector<Value>> fromRegisters;
  if (!aTile)
    for (int64_t kk = 0; kk < a.tilesK; ++kk)
      for (int64_t s = 0; s < t.strips(); ++s) fromRegisters.push_back(fenceRegisters(b_, loc_, aFragment(s, kk)));
  // Shared memory written by ordinary stores (and cp.async) is read by wgmma through the
  // async proxy: fenced first. Tiles only TMA fills are written through that proxy already.
  auto filledByThreads = [](Value operand) {
    return llvm::any_of(swizzledTileOf(operand)->getUsers(),
                        [](Operation* user) { return !isa<dialect::ReadOp, dialect::TmaCopyOp>(user); });
  };
  if (filledByThreads(bValue) || (aFromTile && filledByThreads(aValue)))
    NVVM::FenceProxyOp::create(b_, loc_, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
                               NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, width, a.instruction.k);
  const auto layoutA = aTile && aTile->mnMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  const auto layoutB = bTile.mnMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  // One batch of every (strip, instruction) part, or, promoted, one per part.
  const int64_t parts = t.strips() * instructions, perBatch = promote ? 1 : parts;
  SmallVector<Value> elements;
  for (int64_t first = 0; first < parts; first += perBatch) {
    NVVM::WgmmaFenceAlignedOp::create(b_, loc_);
    for (int64_t kk = 0; kk < a.tilesK; ++kk)
      for (int64_t part = first; part < first + perBatch; ++part) {
        const int64_t s = part / instructions, i = part % instructions;
        Value& d = accs[part];
        const bool scaleAcc = !(freshAcc && kk == 0);
        Value bDescriptor = descriptor(bTile, i * width, kk);
        d = aTile ? NVVM::WgmmaMmaAsyncOp::create(
                        b_, loc_, structType, d, descriptor(*aTile, 64 * s, kk), bDescriptor, shape, *inputType,
                        *inputType, accWgmmaType, scaleAcc ? NVVM::WGMMAScaleOut::one : NVVM::WGMMAScaleOut::zero,
                        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, layoutA, layoutB, /*satfinite=*/nullptr)
                        .getResult()
                  : wgmmaFromRegisters(b_, loc_, structType, d, fromRegisters[kk * t.strips() + s], bDescriptor,
                                       width, a.instruction.k, *inputType, scaleAcc, bTile.mnMajor);
      }
    NVVM::WgmmaGroupSyncAlignedOp::create(b_, loc_);
    NVVM::WgmmaWaitGroupSyncOp::create(b_, loc_, 0);
    for (int64_t part = first; part < first + perBatch; ++part) {
      SmallVector<Value> registers;
      for (int64_t e = 0; e < perInstruction; ++e)
        registers.push_back(LLVM::ExtractValueOp::create(b_, loc_, accs[part], ArrayRef<int64_t>{e}));
      for (Value x : fenceRegisters(b_, loc_, registers)) {
        if (promote) {
          const int64_t at = static_cast<int64_t>(elements.size());
          x = arith::AddFOp::create(b_, loc_, vector::ExtractOp::create(b_, loc_, acc, ArrayRef<int64_t>{at}), x);
        }
        elements.push_back(x);
      }
    }
  }
  values_[op.getResult()] = vector::FromElementsOp::create(b_, loc_, cast<VectorType>(acc.getType()), elements);
  return success();
}

}  // namespace wave::jit::distribution
