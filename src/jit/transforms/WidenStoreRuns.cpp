//===- WidenStoreRuns.cpp - 16-byte runs for global writes ---------------===//
//
// A write's value arrives in its producer's layout; where that leaves each thread runs
// of under 16 bytes along the row (an accumulator's pairs), a
// `wave.convert_layout` into the layout with lane and register steps exchanged
// (analysis/LayoutBases.h, `widenRuns`) comes first. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "analysis/AffineBounds.h"
#include "analysis/DistributedLayout.h"
#include "analysis/LayoutBases.h"
#include "dialect/WaveDialect.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEWIDENSTORERUNS
#include "transforms/Passes.h.inc"

namespace {

using namespace mlir;

// The longest run along the rows of `memory` of at most 16 bytes that keeps each run
// aligned: a power of two dividing the row's static length (a dynamic row is checked at
// run time by the write's lowering).
int64_t longestAlignedRun(func::FuncOp kernel, dialect::MemoryType memory) {
  int64_t run = 128 / memory.getElementType().getIntOrFloatBitWidth();
  if (memory.getDimNames().size() < 2) return run;
  if (auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters"))
    if (auto row = hyper.getAs<IntegerAttr>(memory.getDimNames().back()))
      while (run > 1 && row.getInt() % run != 0) run /= 2;
  return run;
}

// The value dim whose runs a write through `mapping` keeps along the memory's rows, or
// none: the memory's innermost index steps with one value dim's iterator, alone or plus
// terms in other iterators (conv2d's output channels; a row-major slot's
// `(i mod R) * N + j`), and no other memory index moves with it. The write's lowering
// checks the alignment of each run (contiguousMappedDim).
std::optional<StringRef> runDimThrough(dialect::IndexMappingAttr mapping, ArrayRef<StringRef> memoryDims) {
  auto mapOf = [](Attribute index) -> std::optional<AffineMap> {
    auto e = dyn_cast_or_null<dialect::ExprAttr>(index);
    if (!e) return std::nullopt;
    return e.getMap();
  };
  std::optional<AffineMap> inner = mapOf(mapping.getOutputs().get(memoryDims.back()));
  if (!inner) return std::nullopt;
  for (NamedAttribute valueDim : mapping.getInputs()) {
    std::optional<AffineMap> own = mapOf(valueDim.getValue());
    if (!own || own->getNumSymbols() != 0) continue;
    auto iterator = dyn_cast<AffineDimExpr>(own->getResult(0));
    if (!iterator) continue;
    // One term of the innermost index is the iterator itself; no other term has it.
    int ownTerms = 0, otherUses = 0;
    for (AffineExpr t : additiveTerms(inner->getResult(0))) {
      ownTerms += t == iterator;
      otherUses += t != iterator && t.isFunctionOfDim(iterator.getPosition());
    }
    if (ownTerms != 1 || otherUses) continue;
    bool others = false;
    for (StringRef d : memoryDims.drop_back())
      if (std::optional<AffineMap> m = mapOf(mapping.getOutputs().get(d)))
        others |= m->getResult(0).isFunctionOfDim(iterator.getPosition());
    if (!others) return valueDim.getName().strref();
  }
  return std::nullopt;
}

struct WaveWidenStoreRunsPass : impl::WaveWidenStoreRunsBase<WaveWidenStoreRunsPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    kernel.walk([&](dialect::WriteOp write) {
      dialect::MemoryType memory = write.getMemory().getType();
      auto value = cast<dialect::TensorType>(write.getValue().getType());
      LayoutAttr layout = value.getLayout();
      // Shared tiles have their readers' layouts; other mappings scatter rows, and so do
      // indices read at run time (which would have to follow the value's new layout).
      if (!layout || memory.getDimNames().empty() || write.getMemory().getDefiningOp<dialect::AllocateOp>() ||
          !write.getDynamic().empty())
        return;
      std::optional<StringRef> runDim = memory.getDimNames().back();
      if (write.getMapping()) runDim = runDimThrough(write.getMappingAttr(), memory.getDimNames());
      if (!runDim) return;
      const int inner = dimIndex(value.getDimNames(), *runDim);
      const unsigned bits = memory.getElementType().getIntOrFloatBitWidth();
      if (inner < 0 || bits < 8 || registerRuns(layout, inner, 16).front().length * bits >= 128) return;
      LayoutAttr wide = widenRuns(layout, inner, longestAlignedRun(kernel, memory));
      if (!wide) return;
      OpBuilder b(write);
      write.getValueMutable().set(
          dialect::ConvertLayoutOp::create(b, write.getLoc(), value.withLayout(wide), write.getValue()));
    });
  }
};

}  // namespace

}  // namespace wave::jit
