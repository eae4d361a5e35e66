//===- PredicateAsyncCopies.cpp - all-or-nothing cp.async as ignore-src ---===//
//
// See Passes.td: a copy whose byte count is its size or zero takes a predicate.
//
//===----------------------------------------------------------------------===//

#include "lowering/MMAInstructions.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEPREDICATEASYNCCOPIES
#include "lowering/Passes.h.inc"

namespace {

using namespace mlir;

std::optional<int64_t> constantOf(Value v) {
  APInt k;
  if (!matchPattern(v, m_ConstantInt(&k)) || k.getBitWidth() > 64) return std::nullopt;
  return k.getSExtValue();
}

// `count` as `conditions all hold ? value : 0`: the value, with the conditions appended
// (none: always). Each step maps 0 to 0 (selects against 0, casts of small values, the
// conversion's scaling of elements to bytes), so the form holds through them.
std::optional<int64_t> guardedConstant(Value count, llvm::SetVector<Value>& conditions) {
  if (std::optional<int64_t> k = constantOf(count)) return k;
  Operation* op = count.getDefiningOp();
  if (!op) return std::nullopt;
  if (auto select = dyn_cast<LLVM::SelectOp>(op)) {
    if (constantOf(select.getFalseValue()) != 0) return std::nullopt;
    conditions.insert(select.getCondition());
    return guardedConstant(select.getTrueValue(), conditions);
  }
  if (isa<LLVM::TruncOp, LLVM::ZExtOp>(op)) {
    std::optional<int64_t> k = guardedConstant(op->getOperand(0), conditions);
    const unsigned width = op->getResult(0).getType().getIntOrFloatBitWidth();
    if (!k || *k < 0 || (width < 63 && *k >= (int64_t{1} << width))) return std::nullopt;
    return k;
  }
  if (isa<LLVM::MulOp, LLVM::ShlOp, LLVM::LShrOp>(op)) {
    std::optional<int64_t> by = constantOf(op->getOperand(1));
    if (!by || *by < 0 || *by > 32) return std::nullopt;
    std::optional<int64_t> k = guardedConstant(op->getOperand(0), conditions);
    if (!k || *k < 0 || *k > (int64_t{1} << 30)) return std::nullopt;
    if (isa<LLVM::MulOp>(op)) return *k * *by;
    return isa<LLVM::ShlOp>(op) ? *k << *by : *k >> *by;
  }
  return std::nullopt;
}

// The copy with PTX's ignore-src operand: zeros in place of the source where `ignore`.
void issueWithIgnoreSrc(OpBuilder& b, NVVM::CpAsyncOp copy, Value ignore) {
  const char* level = copy.getModifier() == NVVM::LoadCacheModifierKind::CG ? "cg" : "ca";
  const std::string ptx =
      llvm::formatv("cp.async.{0}.shared.global [$0], [$1], {1}, $2;", level, copy.getSize()).str();
  inlineAsm(b, copy.getLoc(), /*result=*/Type(), {copy.getDst(), copy.getSrc(), ignore}, ptx, "l,l,b");
}

struct WavePredicateAsyncCopiesPass : impl::WavePredicateAsyncCopiesBase<WavePredicateAsyncCopiesPass> {
  void runOnOperation() override {
    SmallVector<NVVM::CpAsyncOp> copies;
    getOperation().walk([&](NVVM::CpAsyncOp copy) {
      if (copy.getCpSize()) copies.push_back(copy);
    });
    for (NVVM::CpAsyncOp copy : copies) {
      llvm::SetVector<Value> conditions;
      if (guardedConstant(copy.getCpSize(), conditions) != int64_t{copy.getSize()}) continue;
      Operation* count = copy.getCpSize().getDefiningOp();
      OpBuilder b(copy);
      if (conditions.empty()) {
        copy.getCpSizeMutable().clear();  // always the whole size
      } else {
        const Location loc = copy.getLoc();
        Value all = conditions.front();
        for (Value c : conditions.getArrayRef().drop_front()) all = LLVM::AndOp::create(b, loc, all, c);
        Value yes = LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
        issueWithIgnoreSrc(b, copy, LLVM::XOrOp::create(b, loc, all, yes));
        copy.erase();
      }
      eraseDeadChain(count);
    }
  }

  // The count's arithmetic, where nothing else uses it.
  static void eraseDeadChain(Operation* op) {
    llvm::SetVector<Operation*> work;
    if (op) work.insert(op);
    for (size_t i = 0; i < work.size(); ++i)  // the ops the count is made of, users first
      for (Value operand : work[i]->getOperands())
        if (Operation* def = operand.getDefiningOp(); def && isPure(def)) work.insert(def);
    for (Operation* next : work)
      if (next->use_empty()) next->erase();
  }
};

}  // namespace
}  // namespace wave::jit
