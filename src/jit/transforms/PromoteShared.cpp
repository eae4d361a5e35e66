//===- PromoteShared.cpp - operands staged through shared memory -----------===//

#include "analysis/InvariantReads.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEPROMOTESHARED
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// The tile of each dim a workgroup holds at a time: its workgroup tile, or for the dims
// that loops walk, the tiling constraint's tile; a dim no constraint splits is held whole
// (attention's head dim), where its size is known at compile time.
llvm::StringMap<dialect::ExprAttr> tileExtents(func::FuncOp kernel) {
  llvm::StringMap<dialect::ExprAttr> tiles;
  if (auto sizes = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters"))
    for (NamedAttribute size : sizes)
      if (auto value = dyn_cast<IntegerAttr>(size.getValue()))
        tiles[size.getName().getValue()] = dialect::ExprAttr::get(
            kernel.getContext(), {}, AffineMap::getConstantMap(value.getInt(), kernel.getContext()),
            dialect::ExprKind::value);
  for (Attribute c : kernel->getAttrOfType<ArrayAttr>("wave.constraints"))
    if (auto wg = dyn_cast<dialect::WorkgroupConstraintAttr>(c)) tiles[wg.getDim().getValue()] = wg.getTile();
  for (Attribute c : kernel->getAttrOfType<ArrayAttr>("wave.constraints"))
    if (auto t = dyn_cast<dialect::TilingConstraintAttr>(c)) tiles[t.getDim().getValue()] = t.getTile();
  return tiles;
}

// The dims of the tile a mapped read fills: its value's, with the one the memory's
// innermost index walks (an iterator alone, e.g. conv2d's filters NF) moved last, so that
// runs along the memory's innermost dim are runs in the tile too and the fill copies
// 16-byte pieces; mmas then read the tile transposed (ldmatrix .trans) where they must.
SmallVector<StringRef> tileOrder(dialect::IndexMappingAttr mapping, dialect::MemoryType memory,
                                 dialect::TensorType value) {
  SmallVector<StringRef> dims = llvm::to_vector(value.getDimNames());
  auto inner = dyn_cast_or_null<dialect::ExprAttr>(mapping.getInputs().get(memory.getDimNames().back()));
  if (!inner || inner.getMap().getNumResults() != 1 || !isa<AffineDimExpr>(inner.getMap().getResult(0))) return dims;
  AffineExpr iterator = inner.getMap().getResult(0);
  for (NamedAttribute out : mapping.getOutputs()) {
    auto expr = dyn_cast<dialect::ExprAttr>(out.getValue());
    if (!expr || expr.getMap().getNumResults() != 1 || expr.getMap().getResult(0) != iterator) continue;
    auto at = llvm::find(dims, out.getName().getValue());
    if (at == dims.end()) return dims;
    StringRef walked = *at;
    dims.erase(at);
    dims.push_back(walked);
    return dims;
  }
  return dims;
}

// The contraction dim of the mmas `read` feeds as an operand, where it feeds only mmas
// and all contract the same dim; empty otherwise.
StringRef contractionOfUses(dialect::ReadOp read) {
  StringRef k;
  for (OpOperand& use : read->getUses()) {
    auto mma = dyn_cast<dialect::MmaOp>(use.getOwner());
    if (!mma || use.getOperandNumber() > 1) return {};
    const SmallVector<StringRef> acc = mma.getAcc().getType().getDimNames();
    StringRef contracted;
    for (StringRef d : read.getType().getDimNames())
      if (!llvm::is_contained(acc, d)) contracted = d;
    if (contracted.empty() || (!k.empty() && k != contracted)) return {};
    k = contracted;
  }
  return k;
}

// Whether `read` already only fills shared tiles (the pass ran, or the IR was written so).
bool isStaged(dialect::ReadOp read) {
  return !read->use_empty() && llvm::all_of(read->getUsers(), [&](Operation* user) {
    auto write = dyn_cast<dialect::WriteOp>(user);
    return write && write.getMemory().getDefiningOp<dialect::AllocateOp>();
  });
}

struct WavePromoteSharedPass : impl::WavePromoteSharedBase<WavePromoteSharedPass> {
  using WavePromoteSharedBase::WavePromoteSharedBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (kernel.isExternal() || !kernel->hasAttr("wave.constraints")) return;  // declarations have no body
    const llvm::StringMap<dialect::ExprAttr> tiles = tileExtents(kernel);
    lastTile_ = nullptr;
    lastFill_.clear();
    SmallVector<dialect::ReadOp> promoted;
    kernel.walk([&](dialect::ReadOp read) {
      if (isa<BlockArgument>(read.getMemory()) && read.getMemory().getType().getAddressSpace().getValue() == "shared" &&
          read->getParentOfType<dialect::IterateOp>() && !isStaged(read))
        promoted.push_back(read);
    });
    for (dialect::ReadOp read : promoted)
      if (failed(promote(kernel, read, tiles))) return signalPassFailure();
  }

  // read(a)  ->  s = allocate; ...; write(read(a), s); read(s)
  LogicalResult promote(func::FuncOp kernel, dialect::ReadOp read, const llvm::StringMap<dialect::ExprAttr>& tiles) {
    // Through an index mapping the tile holds the read's value (its register side), filled
    // by the mapped read and read back plainly.
    dialect::MemoryType memory = read.getMemory().getType();
    if (dialect::IndexMappingAttr mapping = read.getMappingAttr())
      memory = dialect::MemoryType::get(read.getContext(), tileOrder(mapping, memory, read.getType()),
                                        memory.getElementType(), memory.getAddressSpace().getValue());
    // (Where the operand is read without transposing: its contraction dim innermost.)
    if (StringRef k = contractionInnermost ? contractionOfUses(read) : StringRef();
        !k.empty() && memory.getDimNames().back() != k) {
      SmallVector<StringRef> dims = memory.getDimNames();
      llvm::erase(dims, k);
      dims.push_back(k);
      memory = dialect::MemoryType::get(read.getContext(), dims, memory.getElementType(),
                                        memory.getAddressSpace().getValue());
    }
    SmallVector<Attribute> extents;
    for (StringRef dim : memory.getDimNames()) {
      auto tile = tiles.find(dim);
      if (tile == tiles.end())
        return read.emitOpError("expected a value in subs for ")
               << dim << " (a dim without a workgroup constraint is one tile), but found none";
      extents.push_back(tile->second);
    }
    // Allocations go to the top of the kernel, in the order of the reads they stage.
    OpBuilder b(kernel.getBody());
    if (lastTile_) b.setInsertionPointAfter(lastTile_);
    // 16 bytes of padding per row: consecutive rows start four banks apart, so the eight
    // rows one ldmatrix (or a column of a wave's fragment loads) touches hit every bank once.
    const int64_t padding = 128 / memory.getElementType().getIntOrFloatBitWidth();
    auto tile = dialect::AllocateOp::create(b, read.getLoc(), memory, b.getArrayAttr(extents),
                                            b.getI64IntegerAttr(padding), /*swizzle=*/nullptr);
    lastTile_ = tile;
    // The tile is read where the memory was; it is filled at the top of the loop body, all
    // fills first, so that one barrier after them covers every tile. A read that every
    // iteration repeats (left in the loop by wave-hoist-invariant-reads) fills its tile
    // once, before the outermost loop it does not change in.
    b.setInsertionPoint(read);
    auto fromShared = dialect::ReadOp::create(b, read.getLoc(), read.getType(), tile, ValueRange{}, nullptr, nullptr, nullptr);
    read.getResult().replaceAllUsesWith(fromShared.getResult());
    Operation* outside = nullptr;
    for (auto loop = read->getParentOfType<dialect::IterateOp>(); loop && isLoopInvariant(read, loop);
         loop = loop->getParentOfType<dialect::IterateOp>())
      outside = loop;
    if (outside) {
      read->moveBefore(outside);
      b.setInsertionPointAfter(read);
      dialect::WriteOp::create(b, read.getLoc(), read.getResult(), tile, ValueRange{}, nullptr, nullptr, nullptr, nullptr);
      return success();
    }
    Block* body = read->getBlock();
    // The fill goes after the fills before it and after what computes its dynamic values.
    Operation* after = lastFill_.lookup(body);
    for (Value v : read.getDynamic())
      if (Operation* def = v.getDefiningOp(); def && def->getBlock() == body && (!after || after->isBeforeInBlock(def)))
        after = def;
    if (after)
      read->moveAfter(after);
    else
      read->moveBefore(&body->front());
    b.setInsertionPointAfter(read);
    lastFill_[body] = dialect::WriteOp::create(b, read.getLoc(), read.getResult(), tile, ValueRange{}, nullptr, nullptr, nullptr, nullptr);
    return success();
  }

  Operation* lastTile_ = nullptr;
  DenseMap<Block*, Operation*> lastFill_;  // per loop body, its last fill so far
};

}  // namespace

}  // namespace wave::jit
