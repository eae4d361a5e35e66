//===- AlternateWarpgroupMma.cpp - computing warpgroups take turns at wgmma ===//
//
// In a warp-specialized function of two or more computing warpgroups, each loop
// iteration's wgmma issue is taken in turns, warpgroup by warpgroup, through named
// barriers: one warpgroup's batches then run on the tensor cores while the other one
// runs its work between batches (attention's softmax): FlashAttention-3's ping-pong.
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "transforms/ConsumerThreads.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "transforms/WarpgroupMma.h"

#include "analysis/TileLoop.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEALTERNATEWARPGROUPMMA
#include "transforms/Passes.h.inc"

using namespace mlir;

namespace {

// Named barriers 0 (gpu.barrier) and 1 (the computing threads') are taken: warpgroup w
// waits for its turn on 2 + w.
constexpr int64_t kFirstTurnBarrier = 2;
constexpr int64_t kBarrierIds = 16;

// The span of `loop`'s body a warpgroup takes its turn for: from the first wgmma.fence to
// the last commit before the first wait (the batches issued back to back), where the
// body runs two or more batches at its top level.
std::optional<std::pair<Operation*, Operation*>> issueSpan(scf::ForOp loop) {
  Block* body = loop.getBody();
  auto commits = body->getOps<NVVM::WgmmaGroupSyncAlignedOp>();
  if (std::distance(commits.begin(), commits.end()) < 2) return std::nullopt;
  auto fences = body->getOps<NVVM::WgmmaFenceAlignedOp>();
  if (fences.empty()) return std::nullopt;
  Operation* first = *fences.begin();
  Operation* end = nullptr;
  for (Operation* op = first; op && !isa<NVVM::WgmmaWaitGroupSyncOp>(op); op = op->getNextNode())
    if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op)) end = op;
  if (!end) return std::nullopt;
  return std::make_pair(first, end);
}

struct WaveAlternateWarpgroupMmaPass : impl::WaveAlternateWarpgroupMmaBase<WaveAlternateWarpgroupMmaPass> {
  void runOnOperation() override {
    getOperation().walk([&](scf::IfOp roles) {
      auto consumers = roles->getAttrOfType<IntegerAttr>(kConsumerThreadsAttr);
      if (!consumers) return;
      const int64_t groups = consumers.getInt() / kWarpgroupThreads;
      if (groups < 2 || kFirstTurnBarrier + groups > kBarrierIds) return;
      SmallVector<std::pair<scf::ForOp, std::pair<Operation*, Operation*>>> loops;
      roles.getThenRegion().walk([&](scf::ForOp loop) {
        if (loop->hasAttr(kTileLoopAttr)) return;
        if (auto span = issueSpan(loop)) loops.push_back({loop, *span});
      });
      if (loops.empty()) return;
      alternate(roles, groups, loops);
    });
  }

  // Warpgroup w waits for barrier 2 + w before its span and arrives on the next one's
  // after it; the last warpgroup arrives on the first's once at the start, so the first
  // goes first. (That arrival is left over when the function ends. The ids are in
  // registers, as FlashAttention-3 has them: ptxas then reserves all 16 barriers.)
  static void alternate(scf::IfOp roles, int64_t groups,
                        ArrayRef<std::pair<scf::ForOp, std::pair<Operation*, Operation*>>> loops) {
    const Location loc = roles.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(roles.thenBlock());
    // (After the computing threads' setmaxnreg, which must come first.)
    if (auto grow = dyn_cast<NVVM::SetMaxRegisterOp>(roles.thenBlock()->front())) b.setInsertionPointAfter(grow);
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    auto barrierId = [&](Value group) {
      Value id = arith::AddIOp::create(b, loc, group, index(kFirstTurnBarrier));
      return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), id);
    };
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value group = arith::DivUIOp::create(b, loc, tid, index(kWarpgroupThreads));
    Value mine = barrierId(group);
    Value next = barrierId(arith::RemUIOp::create(b, loc, arith::AddIOp::create(b, loc, group, index(1)), index(groups)));
    Value pair = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 2 * kWarpgroupThreads);
    Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group, index(groups - 1));
    auto opening = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
    OpBuilder first = OpBuilder::atBlockBegin(opening.thenBlock());
    NVVM::BarrierArriveOp::create(first, loc, next, pair);

    for (auto& [loop, span] : loops) {
      OpBuilder at(span.first);
      NVVM::BarrierOp::create(at, loc, Type(), mine, pair, NVVM::BarrierReductionAttr(), Value());
      at.setInsertionPointAfter(span.second);
      NVVM::BarrierArriveOp::create(at, loc, next, pair);
    }
  }
};

}  // namespace

}  // namespace wave::jit
