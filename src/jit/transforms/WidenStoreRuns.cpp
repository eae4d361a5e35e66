//===- WidenStoreRuns.cpp - 16-byte runs for global writes ---------------===//
//
// A write's value arrives in its producer's layout; where that leaves each thread runs
// of under 16 bytes along the row (an accumulator's pairs), a
// `wave.convert_layout` into the layout with lane and register steps exchanged
// (analysis/LayoutBases.h, `widenRuns`) comes first. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "analysis/DistributedLayout.h"
#include "analysis/LayoutBases.h"
#include "dialect/WaveDialect.h"
#include "transforms/Passes.h"

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

// Whether a write through `mapping` keeps the value's runs along the memory's rows: the
// memory's innermost index is the iterator of the value dim of its name (conv2d's output
// channels), as the write's lowering requires to store runs whole.
bool rowsFollowValue(dialect::IndexMappingAttr mapping, StringRef innerDim) {
  auto iteratorOf = [](Attribute index) -> std::optional<unsigned> {
    auto e = dyn_cast_or_null<dialect::ExprAttr>(index);
    if (!e || e.getMap().getNumSymbols() != 0) return std::nullopt;
    if (auto d = dyn_cast<AffineDimExpr>(e.getMap().getResult(0))) return d.getPosition();
    return std::nullopt;
  };
  std::optional<unsigned> memory = iteratorOf(mapping.getOutputs().get(innerDim)),
                          value = iteratorOf(mapping.getInputs().get(innerDim));
  return memory && memory == value;
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
          !write.getDynamic().empty() ||
          (write.getMapping() && !rowsFollowValue(write.getMappingAttr(), memory.getDimNames().back())))
        return;
      const int inner = dimIndex(value.getDimNames(), memory.getDimNames().back());
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
