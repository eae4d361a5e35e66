#include "lowering/MMAInstructions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit {

using namespace mlir;

namespace {

NVVM::MMATypes ptxType(Type t) {
  if (t.isBF16()) return NVVM::MMATypes::bf16;
  if (t.isF16()) return NVVM::MMATypes::f16;
  return NVVM::MMATypes::f32;
}

}  // namespace

// nvvm.mma.sync directly (MLIR 22's nvgpu.mma.sync takes 2-D vectors, which cost a
// pack and unpack per instruction, and has no bf16): f16 registers go in as vector<2xf16>,
// bf16 ones as the i32 words the instruction takes; an f32 accumulator as 4 scalars, an
// f16 one as 2 vector<2xf16>.
SmallVector<Value> mmaSync(OpBuilder& b, Location loc, const MMALayout& layout, ValueRange a, ValueRange bOperand,
                           ValueRange acc) {
  const std::array<int64_t, 3> shape{layout.m, layout.n, layout.k};
  auto words = [&](ValueRange rows) {
    SmallVector<Value> registers(rows.begin(), rows.end());
    if (!layout.inputType.isBF16()) return registers;
    for (Value& row : registers) {
      Value word = vector::BitCastOp::create(b, loc, VectorType::get({1}, b.getI32Type()), row);
      row = vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
    }
    return registers;
  };
  const bool packedAcc = !layout.accType.isF32();  // f16: two halves per register
  const int64_t perRegister = packedAcc ? 2 : 1;
  SmallVector<Value> c;
  for (size_t i = 0; i < acc.size(); i += perRegister)
    c.push_back(packedAcc ? vector::FromElementsOp::create(b, loc, VectorType::get({2}, layout.accType),
                                                           ValueRange{acc[i], acc[i + 1]})
                          : acc[i]);
  SmallVector<Type> fields(c.size(), c.front().getType());
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  const NVVM::MMATypes in = ptxType(layout.inputType);
  Value d = NVVM::MmaOp::create(b, loc, resultType, words(a), words(bOperand), c, shape, std::nullopt, std::nullopt,
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

}  // namespace wave::jit
