//===- OverlapWarpgroupMma.cpp - a loop's last wgmma batch one iteration late ===//
//
// Software-pipelines a loop of two or more wgmma batches by one iteration: the last
// batch (attention's P V) of iteration i is issued in iteration i + 1 right after that
// iteration's earlier batches (Q K^T), and waited for after the work between them (the
// softmax), which so runs on the ALUs while the tensor cores run both batches:
// FlashAttention-3's intra-warpgroup overlap. See Passes.td for which loops qualify.
//
//===----------------------------------------------------------------------===//

#include "transforms/ConsumerThreads.h"
#include "transforms/Passes.h"
#include "transforms/WarpgroupMma.h"

#include "analysis/TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEOVERLAPWARPGROUPMMA
#include "transforms/Passes.h.inc"

using namespace mlir;

namespace {

// The registers beside the values counted (see pays).
constexpr int64_t kRegistersBesideOverlap = 16;

// A cast to fewer bits.
bool narrows(Operation* op) {
  if (!isa<CastOpInterface>(op) || op->getNumOperands() != 1 || op->getNumResults() != 1) return false;
  auto bits = [](Type t) { return getElementTypeOrSelf(t).getIntOrFloatBitWidth(); };
  Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
  return getElementTypeOrSelf(from).isIntOrFloat() && getElementTypeOrSelf(to).isIntOrFloat() && bits(to) < bits(from);
}

// Whether `op` (not counting ops nested in it) may run one iteration late: it has no
// effects, or it is a wgmma batch's own (its instructions, fence, commit, wait, the
// registers' fences) or an mbarrier arrival (the release of a stage).
bool mayBeDeferred(Operation* op) {
  if (isa<NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp, NVVM::WgmmaWaitGroupSyncOp,
          nvgpu::MBarrierArriveOp, scf::IfOp, scf::YieldOp>(op))
    return true;
  return isWarpgroupMma(op) || isRegisterFence(op) || isMemoryEffectFree(op);
}

// The two stages of a loop body: stage 1 is the last wgmma batch (from its fence on, to
// the end of the body) and the effect-free ops that only it needs (the accumulators'
// rescaling, the operands' packing); stage 0 the rest, among it the earlier batches.
struct Stages {
  llvm::SetVector<Operation*> late;  // stage 1, in body order
  Operation* lastFence = nullptr;    // the last batch's wgmma.fence
  Operation* lastWait = nullptr;     // its wgmma.wait_group
  Operation* earlierWait = nullptr;  // the wait of the batch before it (stage 0)
  // Values stage 1 reads from its iteration's stage 0 (the induction variable and
  // iteration arguments stage 0 yields included): carried one iteration further.
  llvm::SetVector<Value> crossing;
  // Per iteration argument: whether stage 1 yields it.
  SmallVector<bool> yieldedLate;
};

// The stages of `loop`'s body, or failure where it has no two batches at its top level
// (fence, commit, wait 0 each, in that order) or the split does not hold.
FailureOr<Stages> stagesOf(scf::ForOp loop) {
  Block* body = loop.getBody();
  Stages s;
  SmallVector<Operation*> fences, commits, waits;
  bool ordered = true;
  for (Operation& op : body->without_terminator()) {
    if (isa<gpu::BarrierOp, NVVM::BarrierOp, nvgpu::TmaAsyncLoadOp, nvgpu::DeviceAsyncCopyOp, scf::ForOp>(op))
      return failure();  // a loop that also copies, syncs the workgroup or nests loops
    if (isa<NVVM::WgmmaFenceAlignedOp>(op)) {
      ordered &= fences.size() == waits.size();
      fences.push_back(&op);
    } else if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op)) {
      ordered &= commits.size() + 1 == fences.size();
      commits.push_back(&op);
    } else if (auto wait = dyn_cast<NVVM::WgmmaWaitGroupSyncOp>(op)) {
      ordered &= waits.size() + 1 == commits.size() && wait.getGroup() == 0;
      waits.push_back(&op);
    } else if (op.getNumRegions() != 0 &&
               op.walk([](Operation* inner) { return isWarpgroupMma(inner) ? WalkResult::interrupt() : WalkResult::advance(); })
                   .wasInterrupted()) {
      return failure();  // a batch under a condition
    }
  }
  if (!ordered || fences.size() < 2 || waits.size() != fences.size()) return failure();
  s.lastFence = fences.back();
  s.lastWait = waits.back();
  s.earlierWait = waits[waits.size() - 2];

  // Stage 1: the last batch on; then, walking back, each effect-free op all of whose users
  // are in stage 1 (users come after their operands' definitions, so one pass decides).
  // What runs one iteration late may only be the batch, register work and the release of
  // the stages it read: a store, say, would move past the next iteration's loads.
  for (Operation* op = s.lastFence; op != body->getTerminator(); op = op->getNextNode()) {
    const bool deferrable = !op->walk([](Operation* inner) {
                                  return mayBeDeferred(inner) ? WalkResult::advance() : WalkResult::interrupt();
                                }).wasInterrupted();
    if (!deferrable) return failure();
    s.late.insert(op);
  }
  // A narrowing cast stays in stage 0, so that the narrower value is the one carried
  // (attention's P as f16, not f32). A branch with no effects joins too: the zeros a tile
  // reaching past the key dim's end gives P's registers past it, filled in stage 0, would
  // be written while the batch before reads them, and ptxas serializes every wgmma of the
  // loop for that (C7513; bench/RESULTS.md, run 247); in stage 1 they are written before
  // the batch that reads them starts.
  for (Operation* op = s.lastFence->getPrevNode(); op; op = op->getPrevNode()) {
    const bool effectFreeBranch = isa<scf::IfOp>(op) && isMemoryEffectFree(op);
    const bool movable =
        ((isPure(op) && op->getNumRegions() == 0) || effectFreeBranch || isRegisterFence(op)) && !narrows(op);
    const bool lateUsersOnly = !op->use_empty() && llvm::all_of(op->getUsers(), [&](Operation* user) {
      Operation* top = body->findAncestorOpInBlock(*user);
      return top && s.late.contains(top);
    });
    if (movable && lateUsersOnly) s.late.insert(op);
  }
  llvm::SetVector<Operation*> inBodyOrder;
  for (Operation& op : body->without_terminator())
    if (s.late.contains(&op)) inBodyOrder.insert(&op);
  s.late = std::move(inBodyOrder);

  // Per iteration argument, which stage yields it; stage 0 must not read one stage 1 yields.
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (auto [arg, yielded] : llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
    Operation* def = yielded.getDefiningOp();
    const bool late = def && def->getBlock() == body && s.late.contains(def);
    s.yieldedLate.push_back(late);
    if (!late) continue;
    for (Operation* user : arg.getUsers())
      if (Operation* top = body->findAncestorOpInBlock(*user); !top || !s.late.contains(top)) return failure();
  }

  // What stage 1 reads from stage 0 (its operands, and those of ops nested in it).
  auto collect = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body) return;
      if (arg == loop.getInductionVar() || !s.yieldedLate[arg.getArgNumber() - 1]) s.crossing.insert(v);
      return;
    }
    Operation* def = v.getDefiningOp();
    if (def && def->getBlock() == body && !s.late.contains(def)) s.crossing.insert(v);
  };
  for (Operation* op : s.late)
    op->walk([&](Operation* inner) {
      for (Value operand : inner->getOperands()) collect(operand);
    });
  return s;
}

// Whether overlapping pays: not where a second workgroup shares the SM (the two already
// run one's softmax beside the other's batches: on an H100, flash attention over 64 x 64
// tiles of one warpgroup measured 4-10% slower with it at D 128, though 128-row tiles of
// one warpgroup gained 2-7%; autotune can sweep CompileOptions::overlap_mma), nor where
// the values carried one iteration further do not fit the computing threads' registers
// beside the loop's own and the earlier batch's results (128 x 64 tiles of one warpgroup
// at D 128: 5-11% slower causal). bench/RESULTS.md, run 131.
bool pays(scf::ForOp loop, const Stages& s) {
  auto func = loop->getParentOfType<gpu::GPUFuncOp>();
  if (auto perSM = func->getAttrOfType<IntegerAttr>("nvvm.minctasm"); perSM && perSM.getInt() > 1) return false;
  int64_t budget = 255;
  for (Operation* at = loop; at; at = at->getParentOp())
    if (auto roles = dyn_cast<scf::IfOp>(at); roles && roles->hasAttr(kConsumerThreadsAttr))
      if (auto grow = dyn_cast<NVVM::SetMaxRegisterOp>(roles.thenBlock()->front())) budget = grow.getRegCount();
  // The rest beside what is counted below (addresses, indices, phases): ptxas fits
  // attention's 192 x 128 tiles at D 64, which count 142 here, into 160 registers with no
  // spills, and the overlap gains 3-4% there (bench/RESULTS.md, run 227). Masks held
  // across the stages (a partial key tile's) keep the positions and bounds that compute
  // them live too: 40 then (D 128's 128 x 128 tiles count 206 with them, and spill 88-176
  // bytes in 232 registers).
  // (One condition alone, such as whether the tile reaches past the end, is no mask: the
  // branch it takes computes its selects' positions itself.)
  int64_t conditions = 0;
  for (Value v : s.crossing)
    if (getElementTypeOrSelf(v.getType()).isInteger(1))
      conditions += isa<VectorType>(v.getType()) ? cast<VectorType>(v.getType()).getNumElements() : 1;
  const bool holdsMasks = conditions > 1;
  int64_t needed = holdsMasks ? kRegistersBesideCarried : kRegistersBesideOverlap;
  for (Type t : loop.getResultTypes()) needed += registersOf(t);
  for (Value v : s.crossing) needed += registersOf(v.getType());
  // The earlier batch's results (attention's scores), live through the work between.
  for (Operation* op = s.earlierWait; op; op = op->getPrevNode())
    if (isWarpgroupMma(op)) {
      needed += registersOf(op->getResult(0).getType());
      break;
    }
  return needed <= budget;
}

// Rewrites `loop` into: if (lb < ub) { stage 0 of the first iteration; a loop over the
// others running each one's stage 0 beside the stage 1 of the one before; stage 1 of the
// last } else { the initial values }.
void overlap(scf::ForOp loop, const Stages& s) {
  Block* body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  const Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
  auto guarded = scf::IfOp::create(b, loc, loop.getResultTypes(), any, /*withElseRegion=*/true);
  b.setInsertionPointToStart(guarded.elseBlock());
  scf::YieldOp::create(b, loc, loop.getInitArgs());

  // Prologue: stage 0 of the first iteration.
  b.setInsertionPointToStart(guarded.thenBlock());
  IRMapping first;
  first.map(loop.getInductionVar(), lb);
  first.map(loop.getRegionIterArgs(), loop.getInitArgs());
  for (Operation& op : body->without_terminator())
    if (!s.late.contains(&op)) b.clone(op, first);
  SmallVector<Value> inits;
  for (auto [k, yielded] : llvm::enumerate(yield.getOperands()))
    inits.push_back(s.yieldedLate[k] ? loop.getInitArgs()[k] : first.lookupOrDefault(yielded));
  const size_t carried = inits.size();
  for (Value v : s.crossing) inits.push_back(first.lookupOrDefault(v));

  // The steady state: iteration i's stage 0 beside iteration i - 1's stage 1.
  Value second = arith::AddIOp::create(b, loc, lb, step);
  auto steady = scf::ForOp::create(b, loc, second, ub, step, inits);
  Block* steadyBody = steady.getBody();
  // (A loop without iteration arguments is made with its yield.)
  if (!steadyBody->empty()) steadyBody->getTerminator()->erase();
  OpBuilder sb = OpBuilder::atBlockEnd(steadyBody);
  IRMapping now, before;
  now.map(loop.getInductionVar(), steady.getInductionVar());
  for (auto [k, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    (s.yieldedLate[k] ? before : now).map(arg, steady.getRegionIterArgs()[k]);
  for (auto [j, v] : llvm::enumerate(s.crossing)) before.map(v, steady.getRegionIterArgs()[carried + j]);
  auto cloneRange = [&](Operation* from, Operation* to, bool late, IRMapping& map) {
    for (Operation* op = from; op != to; op = op->getNextNode())
      if (s.late.contains(op) == late) sb.clone(*op, map);
  };
  // Stage 0 up to the earlier batch's wait; stage 1 up to its own wait; that wait, now
  // leaving the later batch in flight; the rest of stage 0; the rest of stage 1.
  cloneRange(&body->front(), s.earlierWait, false, now);
  cloneRange(&body->front(), s.lastWait, true, before);
  cast<NVVM::WgmmaWaitGroupSyncOp>(sb.clone(*s.earlierWait, now)).setGroup(1);
  cloneRange(s.earlierWait->getNextNode(), body->getTerminator(), false, now);
  cloneRange(s.lastWait, body->getTerminator(), true, before);
  SmallVector<Value> next;
  for (auto [k, yielded] : llvm::enumerate(yield.getOperands()))
    next.push_back((s.yieldedLate[k] ? before : now).lookupOrDefault(yielded));
  for (Value v : s.crossing) next.push_back(now.lookupOrDefault(v));
  scf::YieldOp::create(sb, loc, next);

  // Epilogue: stage 1 of the last iteration.
  IRMapping last;
  for (auto [k, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    if (s.yieldedLate[k]) last.map(arg, steady.getResult(k));
  for (auto [j, v] : llvm::enumerate(s.crossing)) last.map(v, steady.getResult(carried + j));
  for (Operation* op : s.late) b.clone(*op, last);
  SmallVector<Value> results;
  for (auto [k, yielded] : llvm::enumerate(yield.getOperands()))
    results.push_back(s.yieldedLate[k] ? last.lookupOrDefault(yielded) : steady.getResult(k));
  scf::YieldOp::create(b, loc, results);

  loop->replaceAllUsesWith(guarded.getResults());
  loop->erase();
}

struct WaveOverlapWarpgroupMmaPass : impl::WaveOverlapWarpgroupMmaBase<WaveOverlapWarpgroupMmaPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop->hasAttr(kTileLoopAttr)) loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (FailureOr<Stages> stages = stagesOf(loop); succeeded(stages) && pays(loop, *stages)) overlap(loop, *stages);
  }
};

}  // namespace

}  // namespace wave::jit
