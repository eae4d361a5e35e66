//===- WaveAttrs.cpp - expressions, index mappings, constraints -----------===//

#include "dialect/WaveDialect.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace wave::dialect;

#define GET_ATTRDEF_CLASSES
#include "dialect/WaveAttrs.cpp.inc"

void WaveDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/WaveAttrs.cpp.inc"
      >();
}

FailureOr<SmallVector<int64_t>> wave::dialect::parseIntList(AsmParser& parser) {
  SmallVector<int64_t> values;
  auto parseOne = [&]() -> ParseResult {
    int64_t v;
    if (parser.parseInteger(v)) return failure();
    values.push_back(v);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseOne)) return failure();
  return values;
}

void wave::dialect::printIntList(AsmPrinter& printer, ArrayRef<int64_t> values) {
  printer << "[";
  llvm::interleaveComma(values, printer);
  printer << "]";
}

MMAShape wave::dialect::getMMAShape(MLIRContext* ctx, MMAKind kind) {
  Builder b(ctx);
  switch (kind) {
    case MMAKind::f32_16x8x16_f16: return {16, 8, 16, b.getF16Type(), b.getF32Type()};
    case MMAKind::f32_16x8x16_bf16: return {16, 8, 16, b.getBF16Type(), b.getF32Type()};
    case MMAKind::f16_16x8x16_f16: return {16, 8, 16, b.getF16Type(), b.getF16Type()};
    case MMAKind::f32_16x16x16_f16: return {16, 16, 16, b.getF16Type(), b.getF32Type()};
    case MMAKind::f32_32x32x8_f16: return {32, 32, 8, b.getF16Type(), b.getF32Type()};
    case MMAKind::f32_16x16x16_bf16: return {16, 16, 16, b.getBF16Type(), b.getF32Type()};
    case MMAKind::f32_32x32x8_bf16: return {32, 32, 8, b.getBF16Type(), b.getF32Type()};
    case MMAKind::f32_16x8x32_f8e4m3: return {16, 8, 32, b.getType<Float8E4M3FNType>(), b.getF32Type()};
    case MMAKind::f32_16x8x32_f8e5m2: return {16, 8, 32, b.getType<Float8E5M2Type>(), b.getF32Type()};
    case MMAKind::i32_16x8x32_i8: return {16, 8, 32, b.getI8Type(), b.getI32Type()};
    case MMAKind::i32_16x16x32_i8: return {16, 16, 32, b.getI8Type(), b.getI32Type()};
    case MMAKind::i32_32x32x16_i8: return {32, 32, 16, b.getI8Type(), b.getI32Type()};
    case MMAKind::f32_16x16x32_f8e4m3fnuz: return {16, 16, 32, b.getType<Float8E4M3FNUZType>(), b.getF32Type()};
    case MMAKind::f32_32x32x16_f8e4m3fnuz: return {32, 32, 16, b.getType<Float8E4M3FNUZType>(), b.getF32Type()};
    case MMAKind::f32_16x16x32_f8e5m2fnuz: return {16, 16, 32, b.getType<Float8E5M2FNUZType>(), b.getF32Type()};
    case MMAKind::f32_32x32x16_f8e5m2fnuz: return {32, 32, 16, b.getType<Float8E5M2FNUZType>(), b.getF32Type()};
    case MMAKind::f32_16x16x32_f8e4m3: return {16, 16, 32, b.getType<Float8E4M3FNType>(), b.getF32Type()};
    case MMAKind::f32_32x32x16_f8e4m3: return {32, 32, 16, b.getType<Float8E4M3FNType>(), b.getF32Type()};
    case MMAKind::f32_16x16x32_f8e5m2: return {16, 16, 32, b.getType<Float8E5M2Type>(), b.getF32Type()};
    case MMAKind::f32_32x32x16_f8e5m2: return {32, 32, 16, b.getType<Float8E5M2Type>(), b.getF32Type()};
  }
  llvm_unreachable("every MMA kind has a shape");
}

bool wave::dialect::isMfma(MMAKind kind) {
  switch (kind) {
    case MMAKind::f32_16x8x16_f16:
    case MMAKind::f32_16x8x16_bf16:
    case MMAKind::f16_16x8x16_f16:
    case MMAKind::f32_16x8x32_f8e4m3:
    case MMAKind::f32_16x8x32_f8e5m2:
    case MMAKind::i32_16x8x32_i8: return false;
    case MMAKind::f32_16x16x16_f16:
    case MMAKind::f32_32x32x8_f16:
    case MMAKind::f32_16x16x16_bf16:
    case MMAKind::f32_32x32x8_bf16:
    case MMAKind::i32_16x16x32_i8:
    case MMAKind::i32_32x32x16_i8:
    case MMAKind::f32_16x16x32_f8e4m3fnuz:
    case MMAKind::f32_32x32x16_f8e4m3fnuz:
    case MMAKind::f32_16x16x32_f8e5m2fnuz:
    case MMAKind::f32_32x32x16_f8e5m2fnuz:
    case MMAKind::f32_16x16x32_f8e4m3:
    case MMAKind::f32_32x32x16_f8e4m3:
    case MMAKind::f32_16x16x32_f8e5m2:
    case MMAKind::f32_32x32x16_f8e5m2: return true;
  }
  llvm_unreachable("every MMA kind has a vendor");
}

//===----------------------------------------------------------------------===//
// ExprAttr
//===----------------------------------------------------------------------===//

ExprAttr ExprAttr::get(MLIRContext* ctx, ArrayRef<StringAttr> symbols, AffineMap map,
                       ExprKind kind) {
  // Canonical form: the used symbols, sorted by name, so that equal expressions are the
  // same attribute whatever order their symbols were met in.
  SmallVector<unsigned> used;
  for (unsigned i = 0; i < symbols.size(); ++i)
    if (map.isFunctionOfSymbol(i)) used.push_back(i);
  llvm::sort(used, [&](unsigned a, unsigned b) { return symbols[a].getValue() < symbols[b].getValue(); });
  SmallVector<StringAttr> sorted;
  SmallVector<AffineExpr> replacements(symbols.size(), getAffineConstantExpr(0, ctx));
  for (auto [newIndex, oldIndex] : llvm::enumerate(used)) {
    sorted.push_back(symbols[oldIndex]);
    replacements[oldIndex] = getAffineSymbolExpr(newIndex, ctx);
  }
  SmallVector<AffineExpr> dims;
  for (unsigned d = 0; d < map.getNumDims(); ++d) dims.push_back(getAffineDimExpr(d, ctx));
  AffineMap canonical = map.replaceDimsAndSymbols(dims, replacements, map.getNumDims(), sorted.size());
  return Base::get(ctx, sorted, canonical, kind);
}

LogicalResult ExprAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<StringAttr> symbols, AffineMap map, ExprKind kind) {
  if (!map) return emitError() << "expected an affine map";
  if (map.getNumSymbols() != symbols.size())
    return emitError() << "expected " << map.getNumSymbols() << " symbol names, but found "
                       << symbols.size();
  const unsigned results = map.getNumResults();
  switch (kind) {
    case ExprKind::value:
      if (results != 1) return emitError() << "expected one result for a value, but found " << results;
      break;
    case ExprKind::min:
    case ExprKind::max:
      if (results < 2) return emitError() << "expected two or more results for min/max, but found " << results;
      break;
    default:
      if (results != 2) return emitError() << "expected two sides of a comparison, but found " << results;
      break;
  }
  return success();
}

void ExprAttr::print(AsmPrinter& printer) const {
  printer << "<\"" << str() << "\">";
}

Attribute ExprAttr::parse(AsmParser& parser, Type) {
  std::string text;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseString(&text) || parser.parseGreater()) return {};
  auto attr = parse(parser.getContext(), text, [&] { return parser.emitError(loc); });
  if (failed(attr)) return {};
  return *attr;
}

//===----------------------------------------------------------------------===//
// IndexMappingAttr
//===----------------------------------------------------------------------===//

LogicalResult IndexMappingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       unsigned iterators, DictionaryAttr inputs,
                                       DictionaryAttr outputs, unsigned dynamic, bool) {
  for (DictionaryAttr side : {inputs, outputs}) {
    if (!side) return emitError() << "expected inputs and outputs dictionaries";
    for (NamedAttribute entry : side) {
      auto expr = dyn_cast<ExprAttr>(entry.getValue());
      if (!expr || expr.getKind() != ExprKind::value)
        return emitError() << "expected " << entry.getName()
                           << " to map to a #wave.expr value, but found " << entry.getValue();
      // Parsed text has one dim per variable up to the last one used, so an
      // expression may have fewer dims than the mapping has iterators.
      const unsigned variables = iterators + dynamic;  // the op checks which side uses which
      if (expr.getMap().getNumDims() > variables) {
        auto diag = emitError() << "expected " << entry.getName() << " to use ";
        if (variables == 0) diag << "no iterators";
        else diag << "iterators " << (dynamic ? "and dynamic values " : "") << "$0..$" << variables - 1;
        return diag << ", but found $" << expr.getMap().getNumDims() - 1;
      }
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Constraints
//===----------------------------------------------------------------------===//

static LogicalResult verifyTile(function_ref<InFlightDiagnostic()> emitError, ExprAttr tile) {
  if (tile.getKind() != ExprKind::value || tile.getMap().getNumDims() != 0)
    return emitError() << "expected a tile size over symbols, but found " << tile;
  return success();
}

LogicalResult WorkgroupConstraintAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                              StringAttr dim, ExprAttr tile, int64_t workgroupDim) {
  if (workgroupDim < 0 || workgroupDim > 2)
    return emitError() << "expected workgroup_dim 0, 1 or 2, but found " << workgroupDim;
  return verifyTile(emitError, tile);
}

LogicalResult WaveConstraintAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         StringAttr, ExprAttr tile) {
  return verifyTile(emitError, tile);
}

LogicalResult TilingConstraintAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                           StringAttr, ExprAttr tile) {
  return verifyTile(emitError, tile);
}

LogicalResult DeviceConstraintAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                           StringAttr, ExprAttr tile) {
  return verifyTile(emitError, tile);
}

LogicalResult HardwareConstraintAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                             int64_t threadsPerWave, ArrayRef<int64_t> wavesPerBlock,
                                             MMAKindAttr, DictionaryAttr vectorShapes) {
  if (threadsPerWave != 32 && threadsPerWave != 64)
    return emitError() << "expected threads_per_wave 32 or 64, but found " << threadsPerWave;
  if (!wavesPerBlock.empty() && wavesPerBlock.size() != 3)
    return emitError() << "expected 3 waves_per_block entries, but found " << wavesPerBlock.size();
  if (vectorShapes)
    for (NamedAttribute entry : vectorShapes)
      if (!isa<IntegerAttr>(entry.getValue()))
        return emitError() << "expected an integer vector shape for " << entry.getName();
  return success();
}

LogicalResult AssumptionAttr::verify(function_ref<InFlightDiagnostic()> emitError, ExprAttr predicate) {
  if (!predicate.isComparison())
    return emitError() << "expected a comparison, but found " << predicate;
  return success();
}

//===----------------------------------------------------------------------===//
// ThreadLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult ThreadLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, ArrayAttr dims,
                                       DenseI64ArrayAttr blockTile, DenseI64ArrayAttr waveTile,
                                       DenseI64ArrayAttr gridAxis, int64_t threadsPerWave,
                                       int64_t elementsPerThread, int64_t steps) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (!llvm::all_of(dims, [](Attribute d) { return isa<StringAttr>(d); }))
    return emitError() << "expected dims to be dim names, but found " << dims;
  if (blockTile.size() != rank || waveTile.size() != rank || gridAxis.size() != rank)
    return emitError() << "expected block_tile, wave_tile and grid_axis to have one entry per dim (" << rank << ")";
  for (int64_t i = 0; i < rank; ++i) {
    if (waveTile[i] <= 0 || blockTile[i] % waveTile[i] != 0)
      return emitError() << "expected the wave tile of " << dims[i] << " (" << waveTile[i]
                         << ") to be positive and divide its workgroup tile (" << blockTile[i] << ")";
    if (gridAxis[i] < -1 || gridAxis[i] > 2)
      return emitError() << "expected grid_axis -1, 0, 1 or 2, but found " << gridAxis[i];
  }
  if (threadsPerWave != 32 && threadsPerWave != 64)
    return emitError() << "expected threads_per_wave 32 or 64, but found " << threadsPerWave;
  if (elementsPerThread <= 0 || steps <= 0)
    return emitError() << "expected positive elements_per_thread and steps";
  return success();
}

int64_t ThreadLayoutAttr::getWavesPerBlock() const {
  int64_t waves = 1;
  for (auto [block, wave] : llvm::zip(getBlockTile().asArrayRef(), getWaveTile().asArrayRef())) waves *= block / wave;
  return waves;
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

static int64_t product(ArrayRef<int64_t> extents) {
  int64_t p = 1;
  for (int64_t e : extents) p *= e;
  return p;
}

int64_t LayoutAttr::getNumRegisters() const { return product(getRegisters()); }
int64_t LayoutAttr::getNumLanes() const { return product(getLanes()); }
int64_t LayoutAttr::getNumWaves() const { return product(getWaves()); }

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> registers,
                                 ArrayRef<int64_t> lanes, ArrayRef<int64_t> waves, AffineMap map) {
  for (ArrayRef<int64_t> axes : {registers, lanes, waves})
    for (int64_t extent : axes)
      if (extent <= 0) return emitError() << "expected positive axis extents, but found " << extent;
  const size_t inputs = registers.size() + lanes.size() + waves.size();
  if (!map || map.getNumDims() != inputs || map.getNumSymbols() != 0)
    return emitError() << "expected a map of " << inputs
                       << " dims (one per register, lane and wave axis) and no symbols, but found " << AffineMapAttr::get(map);
  return success();
}
