#include "lowering/Distribution.h"

#include "dialect/WaveDialect.h"

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/StringMap.h"

namespace wave::jit {
namespace {

using namespace mlir;

// The value of a symbolic expression once every symbol is known.
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

}  // namespace

int64_t Distribution::waveElements() const {
  int64_t e = 1;
  for (int64_t t : waveTile) e *= t;
  return e;
}

FailureOr<Distribution> Distribution::compute(func::FuncOp kernel, ArrayRef<StringRef> iterationDims,
                                              unsigned elementBits) {
  llvm::StringMap<int64_t> values;
  if (auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters"))
    for (NamedAttribute entry : hyper)
      if (auto v = dyn_cast<IntegerAttr>(entry.getValue())) values[entry.getName()] = v.getInt();

  Distribution d;
  for (StringRef dim : iterationDims) {
    auto it = values.find(dim);
    if (it == values.end())
      return kernel.emitError("expected a value for dim ") << dim << " in wave.hyperparameters, but found none";
    d.dims.push_back(dim.str());
    d.sizes.push_back(it->second);
    d.blockTile.push_back(it->second);  // undistributed dims: one tile covers the dim
    d.waveTile.push_back(-1);
    d.gridAxis.push_back(-1);
  }
  auto indexOf = [&](StringRef dim) -> int {
    for (auto [i, name] : llvm::enumerate(d.dims))
      if (name == dim) return static_cast<int>(i);
    return -1;
  };
  auto tileValue = [&](dialect::ExprAttr tile, StringRef dim) -> FailureOr<int64_t> {
    auto v = evaluate(tile, values);
    if (!v || *v <= 0)
      return kernel.emitError("expected a positive tile for ") << dim << ", but found " << tile;
    return *v;
  };

  std::optional<SmallVector<int64_t>> wavesPerBlock;
  auto constraints = kernel->getAttrOfType<ArrayAttr>("wave.constraints");
  for (Attribute c : constraints ? constraints.getValue() : ArrayRef<Attribute>()) {
    if (auto wg = dyn_cast<dialect::WorkgroupConstraintAttr>(c)) {
      int i = indexOf(wg.getDim().getValue());
      if (i < 0) continue;  // a dim this kernel's writes do not iterate over
      auto tile = tileValue(wg.getTile(), wg.getDim().getValue());
      if (failed(tile)) return failure();
      d.blockTile[i] = *tile;
      d.gridAxis[i] = static_cast<int>(wg.getWorkgroupDim());
    } else if (auto hw = dyn_cast<dialect::HardwareConstraintAttr>(c)) {
      d.threadsPerWave = hw.getThreadsPerWave();
      if (!hw.getWavesPerBlock().empty()) wavesPerBlock = llvm::to_vector(hw.getWavesPerBlock());
    }
  }
  for (Attribute c : constraints ? constraints.getValue() : ArrayRef<Attribute>())
    if (auto w = dyn_cast<dialect::WaveConstraintAttr>(c)) {
      int i = indexOf(w.getDim().getValue());
      if (i < 0) continue;
      auto tile = tileValue(w.getTile(), w.getDim().getValue());
      if (failed(tile)) return failure();
      d.waveTile[i] = *tile;
    }

  int64_t waves = 1;
  for (size_t i = 0; i < d.dims.size(); ++i) {
    if (d.waveTile[i] < 0) d.waveTile[i] = d.blockTile[i];
    if (d.blockTile[i] % d.waveTile[i] != 0)
      return kernel.emitError("expected the wave tile of ")
             << d.dims[i] << " (" << d.waveTile[i] << ") to divide its workgroup tile (" << d.blockTile[i] << ")";
    waves *= d.blockTile[i] / d.waveTile[i];
    if (d.gridAxis[i] >= 0) d.grid[d.gridAxis[i]] = (d.sizes[i] + d.blockTile[i] - 1) / d.blockTile[i];
  }
  if (wavesPerBlock && (*wavesPerBlock)[0] * (*wavesPerBlock)[1] * (*wavesPerBlock)[2] != waves)
    return kernel.emitError("expected waves_per_block to multiply to the ")
           << waves << " waves the wave constraints make";

  // Up to 16 bytes per thread and step, a power of two that divides the innermost wave tile.
  const int64_t inner = d.waveTile.empty() ? 1 : d.waveTile.back();
  d.elementsPerThread = std::max<int64_t>(1, 128 / std::max(8u, elementBits));
  while (inner % d.elementsPerThread != 0) d.elementsPerThread /= 2;
  const int64_t perStep = d.threadsPerWave * d.elementsPerThread;
  d.steps = (d.waveElements() + perStep - 1) / perStep;
  d.block = {waves * d.threadsPerWave, 1, 1};
  if (d.block[0] > 1024)
    return kernel.emitError("expected at most 1024 threads per workgroup, but the constraints make ")
           << d.block[0];
  return d;
}

}  // namespace wave::jit
