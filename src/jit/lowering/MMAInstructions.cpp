#include "lowering/MMAInstructions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit {

using namespace mlir;

// MLIR 22 lowers nvgpu.mma.sync for f16 but not for bf16 operands; those go to
// nvvm.mma.sync directly, with the registers packed as the instruction takes them (two
// bf16 per 32-bit register).
Value mmaSync(OpBuilder& b, Location loc, const MMALayout& layout, Value a, Value bOperand, Value acc) {
  const std::array<int64_t, 3> shape{layout.m, layout.n, layout.k};
  if (!layout.inputType.isBF16()) return nvgpu::MmaSyncOp::create(b, loc, a, bOperand, acc, shape);
  auto i32 = b.getI32Type();
  auto registers = [&](Value fragment) {
    SmallVector<Value> words;
    for (int64_t r = 0; r < cast<VectorType>(fragment.getType()).getDimSize(0); ++r) {
      Value pair = vector::ExtractOp::create(b, loc, fragment, ArrayRef<int64_t>{r});
      Value word = vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
      words.push_back(vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
    }
    return words;
  };
  auto accType = cast<VectorType>(acc.getType());
  SmallVector<Value> c;
  for (int64_t r = 0; r < accType.getDimSize(0); ++r)
    for (int64_t e = 0; e < accType.getDimSize(1); ++e)
      c.push_back(vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, e}));
  SmallVector<Type> fields(c.size(), accType.getElementType());
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  Value d = NVVM::MmaOp::create(b, loc, resultType, registers(a), registers(bOperand), c, shape, std::nullopt,
                                std::nullopt, std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
                                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t i = 0; i < static_cast<int64_t>(c.size()); ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{i}));
  return vector::FromElementsOp::create(b, loc, accType, elements);
}

}  // namespace wave::jit
