#include "analysis/ThreadLayout.h"

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/StringMap.h"

namespace wave::jit {

using namespace mlir;

namespace {

// The value of a tile expression once its symbols are known.
std::optional<int64_t> evaluate(dialect::ExprAttr expr, const llvm::StringMap<int64_t>& values) {
  if (expr.getKind() != dialect::ExprKind::value || expr.getMap().getNumDims() != 0) return std::nullopt;
  SmallVector<AffineExpr> symbols;
  for (StringAttr s : expr.getSymbols()) {
    auto it = values.find(s.getValue());
    if (it == values.end()) return std::nullopt;
    symbols.push_back(getAffineConstantExpr(it->second, expr.getContext()));
  }
  AffineMap map = expr.getMap().replaceDimsAndSymbols({}, symbols, 0, 0);
  if (auto c = dyn_cast<AffineConstantExpr>(map.getResult(0))) return c.getValue();
  return std::nullopt;
}

// Symbols of expr's tile that have no value.
std::string unknownSymbols(dialect::ExprAttr expr, const llvm::StringMap<int64_t>& values) {
  std::string names;
  for (StringAttr s : expr.getSymbols())
    if (!values.count(s.getValue())) names += (names.empty() ? "" : ", ") + s.getValue().str();
  return names;
}

}  // namespace

static llvm::StringMap<int64_t> hyperparameters(func::FuncOp kernel) {
  llvm::StringMap<int64_t> values;
  if (auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters"))
    for (NamedAttribute entry : hyper)
      if (auto v = dyn_cast<IntegerAttr>(entry.getValue())) values[entry.getName()] = v.getInt();
  return values;
}

FailureOr<int64_t> tileSize(func::FuncOp kernel, dialect::ExprAttr tile, StringRef dim, StringRef constraint) {
  const llvm::StringMap<int64_t> values = hyperparameters(kernel);
  auto v = evaluate(tile, values);
  if (!v)
    return kernel.emitError("expected a value in subs for ")
           << unknownSymbols(tile, values) << " (the " << constraint << " tile of " << dim
           << ": tiles are fixed at compile time), but found none";
  if (*v <= 0) return kernel.emitError("expected a positive tile for ") << dim << ", but found " << tile;
  return *v;
}

FailureOr<SmallVector<StringRef>> iterationDims(func::FuncOp kernel) {
  std::optional<SmallVector<StringRef>> dims;
  WalkResult walk = kernel.walk([&](dialect::WriteOp write) {
    SmallVector<StringRef> these = write.getMemory().getType().getDimNames();
    if (dims && *dims != these) {
      write.emitOpError("is not yet supported: writes of different dims in one memory-bound kernel");
      return WalkResult::interrupt();
    }
    dims = these;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted()) return failure();
  if (!dims || dims->empty()) return kernel.emitError("expected a kernel that writes a tensor with dims");
  return *dims;
}

FailureOr<dialect::ThreadLayoutAttr> inferThreadLayout(func::FuncOp kernel, ArrayRef<StringRef> dims,
                                                       unsigned elementBits) {
  const llvm::StringMap<int64_t> values = hyperparameters(kernel);
  const size_t rank = dims.size();
  // Undistributed dims: one tile covers the dim, which must then be known.
  SmallVector<int64_t> blockTile(rank, 0), waveTile(rank, 0), gridAxis(rank, -1);
  auto indexOf = [&](StringRef dim) -> int {
    auto it = llvm::find(dims, dim);
    return it == dims.end() ? -1 : static_cast<int>(it - dims.begin());
  };
  auto tileValue = [&](dialect::ExprAttr tile, StringRef dim, StringRef constraint) {
    return tileSize(kernel, tile, dim, constraint);
  };

  int64_t threadsPerWave = 32;
  std::optional<SmallVector<int64_t>> wavesPerBlock;
  auto constraints = kernel->getAttrOfType<ArrayAttr>("wave.constraints");
  for (Attribute c : constraints ? constraints.getValue() : ArrayRef<Attribute>()) {
    if (auto wg = dyn_cast<dialect::WorkgroupConstraintAttr>(c)) {
      int i = indexOf(wg.getDim().getValue());
      if (i < 0) continue;  // a dim this kernel's writes do not iterate over
      auto tile = tileValue(wg.getTile(), wg.getDim().getValue(), "workgroup");
      if (failed(tile)) return failure();
      blockTile[i] = *tile;
      gridAxis[i] = wg.getWorkgroupDim();
    } else if (auto w = dyn_cast<dialect::WaveConstraintAttr>(c)) {
      int i = indexOf(w.getDim().getValue());
      if (i < 0) continue;
      auto tile = tileValue(w.getTile(), w.getDim().getValue(), "wave");
      if (failed(tile)) return failure();
      waveTile[i] = *tile;
    } else if (auto hw = dyn_cast<dialect::HardwareConstraintAttr>(c)) {
      threadsPerWave = hw.getThreadsPerWave();
      if (!hw.getWavesPerBlock().empty()) wavesPerBlock = llvm::to_vector(hw.getWavesPerBlock());
    }
  }

  int64_t waves = 1, elements = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (blockTile[i] == 0) {
      auto size = values.find(dims[i]);
      if (size == values.end())
        return kernel.emitError("expected a value in subs for ")
               << dims[i] << " (a dim without a workgroup constraint is one tile), but found none";
      blockTile[i] = size->second;
    }
    if (waveTile[i] == 0) waveTile[i] = blockTile[i];
    if (blockTile[i] % waveTile[i] != 0)
      return kernel.emitError("expected the wave tile of ")
             << dims[i] << " (" << waveTile[i] << ") to divide its workgroup tile (" << blockTile[i] << ")";
    waves *= blockTile[i] / waveTile[i];
    elements *= waveTile[i];
  }
  if (wavesPerBlock && (*wavesPerBlock)[0] * (*wavesPerBlock)[1] * (*wavesPerBlock)[2] != waves)
    return kernel.emitError("expected waves_per_block to multiply to the ") << waves << " waves the wave constraints make";
  if (waves * threadsPerWave > 1024)
    return kernel.emitError("expected at most 1024 threads per workgroup, but the constraints make ")
           << waves * threadsPerWave;

  // Up to 16 bytes per thread and step: a power of two that divides the innermost wave tile.
  // Rows whose length (known at compile time) is not a multiple of the run would leave
  // most runs unaligned, each then loaded element by element: runs shrink to what the row
  // length keeps aligned, so that lanes still access consecutive memory together.
  int64_t elementsPerThread = std::max<int64_t>(1, 128 / std::max(8u, elementBits));
  auto innerSize = values.find(dims.back());
  while (waveTile.back() % elementsPerThread != 0 ||
         (innerSize != values.end() && rank > 1 && innerSize->second % elementsPerThread != 0))
    elementsPerThread /= 2;
  const int64_t perStep = threadsPerWave * elementsPerThread;
  Builder b(kernel.getContext());
  SmallVector<Attribute> names;
  for (StringRef d : dims) names.push_back(b.getStringAttr(d));
  return dialect::ThreadLayoutAttr::get(kernel.getContext(), b.getArrayAttr(names),
                                        b.getDenseI64ArrayAttr(blockTile), b.getDenseI64ArrayAttr(waveTile),
                                        b.getDenseI64ArrayAttr(gridAxis), threadsPerWave, elementsPerThread,
                                        (elements + perStep - 1) / perStep);
}

int64_t waveElements(dialect::ThreadLayoutAttr layout) {
  int64_t e = 1;
  for (int64_t t : layout.getWaveTile().asArrayRef()) e *= t;
  return e;
}

SmallVector<StringAttr> indexSymbols(MLIRContext* ctx) {
  using namespace thread_symbol;
  return {StringAttr::get(ctx, step), StringAttr::get(ctx, thread), StringAttr::get(ctx, workgroup[0]),
          StringAttr::get(ctx, workgroup[1]), StringAttr::get(ctx, workgroup[2])};
}

AffineExpr runOffset(dialect::ThreadLayoutAttr layout) {
  MLIRContext* ctx = layout.getContext();
  AffineExpr step = getAffineSymbolExpr(0, ctx), thread = getAffineSymbolExpr(1, ctx);
  const int64_t ept = layout.getElementsPerThread(), tpw = layout.getThreadsPerWave();
  return step * (tpw * ept) + (thread % tpw) * ept;
}

SmallVector<AffineExpr> runStart(dialect::ThreadLayoutAttr layout) {
  MLIRContext* ctx = layout.getContext();
  ArrayRef<int64_t> blockTile = layout.getBlockTile(), waveTile = layout.getWaveTile(),
                    gridAxis = layout.getGridAxis();
  const size_t rank = blockTile.size();
  AffineExpr wave = getAffineSymbolExpr(1, ctx).floorDiv(layout.getThreadsPerWave());
  AffineExpr offset = runOffset(layout);
  SmallVector<AffineExpr> start(rank);
  // Row-major, the innermost dim fastest: waves over the workgroup tile, runs over the
  // wave tile.
  int64_t waveStride = 1, elementStride = 1;
  for (size_t k = rank; k-- > 0;) {
    const int64_t wavesAlong = blockTile[k] / waveTile[k];
    AffineExpr e = wave.floorDiv(waveStride) % wavesAlong * waveTile[k] + offset.floorDiv(elementStride) % waveTile[k];
    if (gridAxis[k] >= 0) e = e + getAffineSymbolExpr(2 + gridAxis[k], ctx) * blockTile[k];
    start[k] = e;
    waveStride *= wavesAlong;
    elementStride *= waveTile[k];
  }
  return start;
}

}  // namespace wave::jit
