//===- DistributeSignal.cpp - flags waited for and set across GPUs --------===//
//
// wait_at_least (wave.read's wait_at_least): each flag a thread's registers cover is read
// with an acquire load at system scope until it reaches the value (an expression of the
// kernel's symbols, evaluated at launch), then the workgroup
// meets at a barrier (and, where TMA reads follow, fences the async proxy), so every
// later read of any thread sees what was written before the flag. signal (wave.write's
// release): the workgroup meets at a barrier, then each flag is stored once with release
// semantics at system scope. LLVM's atomic loads and stores carry the scope to PTX
// (ld.acquire.sys / st.release.sys) and to AMDGPU alike.
//
//===----------------------------------------------------------------------===//

#include "lowering/Distributor.h"
#include "lowering/ExprToArith.h"
#include "lowering/KernelSignature.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace wave::jit::distribution {

namespace {
// Clock cycles a wait spins before it traps: 2^34, some 10 seconds at Hopper's clocks. A
// flag that never comes (a wait for a workgroup that cannot start) fails the launch
// instead of hanging the GPU.
constexpr int64_t kWaitCycles = int64_t{1} << 34;
}  // namespace

Value Distributor::flagPointer(Value memref, ArrayRef<Value> indices) {
  return LLVM::IntToPtrOp::create(b_, loc_, LLVM::LLVMPointerType::get(b_.getContext(), /*addressSpace=*/1),
                                  globalAddress(memref, indices));
}

FailureOr<Value> Distributor::flagThreshold(Operation* op, dialect::ExprAttr least, Type element) {
  SmallVector<Value> symbols;
  for (StringAttr s : least.getSymbols()) {
    FailureOr<Value> size = dimSize(b_, kernel_, func_, s.getValue());
    if (failed(size)) return op->emitOpError("expected a value for symbol ") << s << " of wait_at_least";
    symbols.push_back(arith::IndexCastOp::create(b_, loc_, element, *size));
  }
  return buildExpr(b_, loc_, least, element, {}, symbols);
}

Value Distributor::readFlagIf(Value when, Value memref, ArrayRef<Value> indices, Value otherwise) {
  Type element = otherwise.getType();
  auto branch = scf::IfOp::create(b_, loc_, TypeRange{element}, when, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToStart(branch.thenBlock());
  Value seen = LLVM::LoadOp::create(b_, loc_, element, flagPointer(memref, indices),
                                    element.getIntOrFloatBitWidth() / 8, /*isVolatile=*/false,
                                    /*isNonTemporal=*/false, /*isInvariant=*/false, /*isInvariantGroup=*/false,
                                    LLVM::AtomicOrdering::monotonic);
  scf::YieldOp::create(b_, loc_, ValueRange{seen});
  b_.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b_, loc_, ValueRange{otherwise});
  return branch.getResult(0);
}

Value Distributor::waitForFlag(Value memref, ArrayRef<Value> indices, Value least, bool take) {
  Type element = getElementTypeOrSelf(memref);
  const unsigned bytes = element.getIntOrFloatBitWidth() / 8;
  Value pointer = flagPointer(memref, indices);
  auto clock = [&] {
    return LLVM::CallIntrinsicOp::create(b_, loc_, b_.getI64Type(), b_.getStringAttr("llvm.readcyclecounter"),
                                         ValueRange{})
        .getResult(0);
  };
  Value start = clock();
  auto loop = scf::WhileOp::create(b_, loc_, TypeRange{element}, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b_);
    b_.createBlock(&loop.getBefore());
    Value seen = LLVM::LoadOp::create(b_, loc_, element, pointer, bytes, /*isVolatile=*/false,
                                      /*isNonTemporal=*/false, /*isInvariant=*/false, /*isInvariantGroup=*/false,
                                      LLVM::AtomicOrdering::acquire);
    Value below = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, seen, least);
    Value spent = arith::SubIOp::create(b_, loc_, clock(), start);
    Value late = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sgt, spent,
                                       arith::ConstantIntOp::create(b_, loc_, b_.getI64Type(), kWaitCycles));
    ifThen(arith::AndIOp::create(b_, loc_, below, late), [&] { LLVM::Trap::create(b_, loc_); });
    scf::ConditionOp::create(b_, loc_, below, ValueRange{seen});
    b_.createBlock(&loop.getAfter(), {}, TypeRange{element}, {loc_});
    scf::YieldOp::create(b_, loc_, ValueRange{});
  }
  // Taken by a relaxed atomic add of -least (at system scope in a distributed kernel,
  // whose peers set the flag): ordered before this workgroup's later signals by their
  // barrier and release.
  if (take)
    combineIntoMemory(dialect::WriteCombine::add,
                      arith::SubIOp::create(b_, loc_, arith::ConstantIntOp::create(b_, loc_, element, 0), least),
                      memref, indices);
  return loop.getResult(0);
}

void Distributor::afterWait() {
  gpu::BarrierOp::create(b_, loc_);
  // TMA reads go through the async proxy: ordered after the acquire only across a fence.
  const bool tmaReads =
      kernel_.walk([](dialect::TmaCopyOp) { return WalkResult::interrupt(); }).wasInterrupted();
  if (tmaReads)
    NVVM::FenceProxyOp::create(b_, loc_, NVVM::ProxyKindAttr::get(b_.getContext(), NVVM::ProxyKind::async_global),
                               NVVM::SharedSpaceAttr());
}

void Distributor::beforeRelease() { gpu::BarrierOp::create(b_, loc_); }

void Distributor::storeRelease(Value value, Value memref, ArrayRef<Value> indices) {
  const unsigned bytes = value.getType().getIntOrFloatBitWidth() / 8;
  LLVM::StoreOp::create(b_, loc_, value, flagPointer(memref, indices), bytes, /*isVolatile=*/false,
                        /*isNonTemporal=*/false, /*isInvariantGroup=*/false, LLVM::AtomicOrdering::release);
}

}  // namespace wave::jit::distribution
