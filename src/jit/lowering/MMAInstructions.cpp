#include "lowering/MMAInstructions.h"

#include "lowering/ElementConversion.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit {

using namespace mlir;

namespace {

NVVM::MMATypes ptxType(Type t) {
  if (t.isBF16()) return NVVM::MMATypes::bf16;
  if (t.isF16()) return NVVM::MMATypes::f16;
  if (isa<Float8E4M3FNType>(t)) return NVVM::MMATypes::e4m3;
  if (isa<Float8E5M2Type>(t)) return NVVM::MMATypes::e5m2;
  if (t.isInteger(8)) return NVVM::MMATypes::s8;
  return NVVM::MMATypes::f32;
}

// mma.sync m16n8k32 on f8, which MLIR 22's nvvm.mma.sync does not take: its PTX, A's four
// and B's two registers as i32, the accumulator's four f32 tied in and out.
SmallVector<Value> mmaSyncF8(OpBuilder& b, Location loc, const MMALayout& layout, ArrayRef<Value> a,
                             ArrayRef<Value> bOperand, ValueRange acc) {
  const std::string type = isa<Float8E4M3FNType>(layout.inputType) ? "e4m3" : "e5m2";
  std::string ptx = "mma.sync.aligned.m16n8k32.row.col.f32." + type + "." + type + ".f32 {$0, $1, $2, $3}, {";
  std::string constraints = "=f,=f,=f,=f";
  SmallVector<Value> operands;
  int next = 4;
  auto list = [&](ArrayRef<Value> registers, StringRef constraint) {
    for (auto [i, r] : llvm::enumerate(registers)) {
      ptx += (i ? ", $" : "$") + std::to_string(next++);
      constraints += "," + constraint.str();
      operands.push_back(r);
    }
  };
  list(a, "r");
  ptx += "}, {";
  list(bOperand, "r");
  // C is D: the accumulator's registers, tied to the outputs.
  ptx += "}, {$0, $1, $2, $3};";
  for (int64_t i = 0; i < 4; ++i) {
    constraints += "," + std::to_string(i);
    operands.push_back(acc[i]);
  }
  auto f32 = b.getF32Type();
  Value d = inlineAsm(b, loc, LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32}), operands, ptx,
                      constraints);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 4; ++i) elements.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{i}));
  return elements;
}

}  // namespace

Value inlineAsm(OpBuilder& b, Location loc, Type result, ValueRange operands, StringRef ptx, StringRef constraints) {
  return LLVM::InlineAsmOp::create(b, loc, result, operands, ptx, constraints, /*has_side_effects=*/true,
                                   /*is_align_stack=*/false, LLVM::TailCallKind::None,
                                   LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
                                   /*operand_attrs=*/ArrayAttr())
      .getRes();
}

// nvvm.mma.sync directly (MLIR 22's nvgpu.mma.sync takes 2-D vectors, which cost a
// pack and unpack per instruction, and has no bf16 or f8): f16 registers go in as
// vector<2xf16>, bf16, f8 and s8 ones as the i32 words the instruction takes; an f32 or
// i32 accumulator as 4 scalars, an f16 one as 2 vector<2xf16>. Integer products wrap
// (as the i32 sums of the loop around them do), they do not saturate.
SmallVector<Value> mmaSync(OpBuilder& b, Location loc, const MMALayout& layout, ValueRange a, ValueRange bOperand,
                           ValueRange acc) {
  const std::array<int64_t, 3> shape{layout.m, layout.n, layout.k};
  auto words = [&](ValueRange rows) {
    SmallVector<Value> registers(rows.begin(), rows.end());
    if (layout.inputType.isF16()) return registers;
    for (Value& row : registers) {
      Value word = vector::BitCastOp::create(b, loc, VectorType::get({1}, b.getI32Type()), row);
      row = vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
    }
    return registers;
  };
  if (isF8(layout.inputType)) return mmaSyncF8(b, loc, layout, words(a), words(bOperand), acc);
  const bool packedAcc = layout.accType.isF16();  // two halves per register
  const int64_t perRegister = packedAcc ? 2 : 1;
  SmallVector<Value> c;
  for (size_t i = 0; i < acc.size(); i += perRegister)
    c.push_back(packedAcc ? vector::FromElementsOp::create(b, loc, VectorType::get({2}, layout.accType),
                                                           ValueRange{acc[i], acc[i + 1]})
                          : acc[i]);
  SmallVector<Type> fields(c.size(), c.front().getType());
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  const NVVM::MMATypes in = ptxType(layout.inputType);
  std::optional<NVVM::MMAIntOverflow> overflow;
  if (layout.accType.isInteger(32)) overflow = NVVM::MMAIntOverflow::wrapped;
  Value d = NVVM::MmaOp::create(b, loc, resultType, words(a), words(bOperand), c, shape, std::nullopt, overflow,
                                std::array<NVVM::MMATypes, 2>{in, in},
                                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t i = 0; i < static_cast<int64_t>(c.size()); ++i) {
    Value field = LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{i});
    if (!packedAcc) {
      elements.push_back(field);
      continue;
    }
    for (int64_t e = 0; e < 2; ++e) elements.push_back(vector::ExtractOp::create(b, loc, field, ArrayRef<int64_t>{e}));
  }
  return elements;
}

SmallVector<Value> mfma(OpBuilder& b, Location loc, const MMALayout& layout, ValueRange a, ValueRange bOperand,
                        ValueRange acc) {
  auto i32 = [&](int64_t v) { return b.getI32IntegerAttr(static_cast<int32_t>(v)); };
  auto accType = VectorType::get({static_cast<int64_t>(acc.size())}, layout.accType);
  Value c = vector::FromElementsOp::create(b, loc, accType, acc);
  Value d = amdgpu::MFMAOp::create(b, loc, accType, i32(layout.m), i32(layout.n), i32(layout.k), i32(1), a.front(),
                                   bOperand.front(), c);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < accType.getNumElements(); ++i)
    elements.push_back(vector::ExtractOp::create(b, loc, d, ArrayRef<int64_t>{i}));
  return elements;
}

SmallVector<Value> mmaInstruction(OpBuilder& b, Location loc, const MMALayout& layout, ValueRange a,
                                  ValueRange bOperand, ValueRange acc) {
  return layout.lanes == 64 ? mfma(b, loc, layout, a, bOperand, acc) : mmaSync(b, loc, layout, a, bOperand, acc);
}

}  // namespace wave::jit
