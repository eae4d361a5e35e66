//===- WaveTypes.cpp - !wave.tensor and !wave.memory ----------------------===//

#include "dialect/WaveDialect.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#define GET_TYPEDEF_CLASSES
#include "dialect/WaveTypes.cpp.inc"

void wave::dialect::WaveDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/WaveTypes.cpp.inc"
      >();
}

namespace wave::dialect {

static SmallVector<StringAttr> toAttrs(MLIRContext* ctx, ArrayRef<StringRef> names) {
  return llvm::map_to_vector(names, [&](StringRef n) { return StringAttr::get(ctx, n); });
}

static SmallVector<StringRef> toRefs(ArrayRef<StringAttr> names) {
  return llvm::map_to_vector(names, [](StringAttr n) { return n.getValue(); });
}

bool isSupportedElementType(Type type) {
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type, Float8E4M3FNType, Float8E5M2Type,
             Float8E4M3FNUZType, Float8E5M2FNUZType>(type) ||
         type.isSignlessInteger(1) || type.isSignlessInteger(8) || type.isSignlessInteger(32) ||
         type.isSignlessInteger(64);
}

static LogicalResult verifyElementType(function_ref<InFlightDiagnostic()> emitError, Type elementType) {
  if (!isSupportedElementType(elementType))
    return emitError() << "expected an element type of f16, bf16, f32, f64, f8E4M3FN, f8E5M2, i1, i8, "
                          "i32 or i64, but found "
                       << elementType;
  return success();
}

// Dims are symbol names, each at most once.
static LogicalResult verifyDims(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<StringAttr> dims) {
  llvm::StringSet<> seen;
  for (StringAttr d : dims)
    if (!seen.insert(d.getValue()).second)
      return emitError() << "expected distinct dims, but found " << d << " twice";
  return success();
}

// `[M, N] of f32`
static void printShape(AsmPrinter& printer, ArrayRef<StringAttr> dims, Type elementType) {
  printer << "[";
  llvm::interleaveComma(dims, printer, [&](StringAttr d) { printer << d.getValue(); });
  printer << "] of " << elementType;
}

static ParseResult parseShape(AsmParser& parser, SmallVectorImpl<StringAttr>& dims, Type& elementType) {
  auto parseDim = [&]() -> ParseResult {
    std::string name;
    if (parser.parseKeywordOrString(&name)) return failure();
    dims.push_back(StringAttr::get(parser.getContext(), name));
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseDim) ||
      parser.parseKeyword("of") || parser.parseType(elementType))
    return failure();
  return success();
}

TensorType TensorType::get(MLIRContext* ctx, ArrayRef<StringRef> dimNames, Type elementType) {
  return Base::get(ctx, toAttrs(ctx, dimNames), elementType, LayoutAttr());
}

SmallVector<StringRef> TensorType::getDimNames() const { return toRefs(getDims()); }

LogicalResult TensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<StringAttr> dims, Type elementType, LayoutAttr layout) {
  if (failed(verifyElementType(emitError, elementType))) return failure();
  if (layout && layout.getMap().getNumResults() != dims.size())
    return emitError() << "expected a layout with one result per dim (" << dims.size() << "), but found "
                       << layout.getMap().getNumResults();
  return verifyDims(emitError, dims);
}

void TensorType::print(AsmPrinter& printer) const {
  printer << "<";
  printShape(printer, getDims(), getElementType());
  if (getLayout()) printer << ", " << getLayout();
  printer << ">";
}

Type TensorType::parse(AsmParser& parser) {
  SmallVector<StringAttr> dims;
  Type elementType;
  LayoutAttr layout;
  if (parser.parseLess() || parseShape(parser, dims, elementType)) return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(layout)) return {};
  if (parser.parseGreater()) return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); }, parser.getContext(),
                    dims, elementType, layout);
}

MemoryType MemoryType::get(MLIRContext* ctx, ArrayRef<StringRef> dimNames, Type elementType,
                           StringRef space) {
  return Base::get(ctx, toAttrs(ctx, dimNames), elementType, StringAttr::get(ctx, space));
}

SmallVector<StringRef> MemoryType::getDimNames() const { return toRefs(getDims()); }

LogicalResult MemoryType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<StringAttr> dims, Type elementType, StringAttr space) {
  if (failed(verifyElementType(emitError, elementType))) return failure();
  if (!space || space.getValue().empty())
    return emitError() << "expected an address space (global, shared or a symbol)";
  return verifyDims(emitError, dims);
}

void MemoryType::print(AsmPrinter& printer) const {
  printer << "<";
  printShape(printer, getDims(), getElementType());
  printer << ", " << getAddressSpace().getValue() << ">";
}

Type MemoryType::parse(AsmParser& parser) {
  SmallVector<StringAttr> dims;
  Type elementType;
  std::string space;
  if (parser.parseLess() || parseShape(parser, dims, elementType) || parser.parseComma() ||
      parser.parseKeywordOrString(&space) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); }, parser.getContext(),
                    dims, elementType, StringAttr::get(parser.getContext(), space));
}

}  // namespace wave::dialect
