//===- WaveOps.cpp - verifiers and custom formats of the wave ops ---------===//
//
// Dims are matched by name. Every message says what was expected and what was found.
//
//===----------------------------------------------------------------------===//

#include "dialect/WaveDialect.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

using namespace mlir;

#include "dialect/WaveInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "dialect/WaveOps.cpp.inc"

namespace wave::dialect {

namespace {

using Names = SmallVector<StringRef>;

bool contains(ArrayRef<StringRef> names, StringRef n) { return llvm::is_contained(names, n); }

bool isSubset(ArrayRef<StringRef> a, ArrayRef<StringRef> b) {
  return llvm::all_of(a, [&](StringRef n) { return contains(b, n); });
}

bool sameSet(ArrayRef<StringRef> a, ArrayRef<StringRef> b) {
  return a.size() == b.size() && isSubset(a, b);
}

std::string list(ArrayRef<StringRef> names) {
  std::string s = "[";
  for (auto [i, n] : llvm::enumerate(names)) s += (i ? ", " : "") + n.str();
  return s + "]";
}

Names keys(DictionaryAttr dict) {
  return llvm::map_to_vector(dict, [](NamedAttribute a) { return a.getName().getValue(); });
}

Names dimsOf(Value v) { return cast<TensorType>(v.getType()).getDimNames(); }
Type elementOf(Value v) { return cast<TensorType>(v.getType()).getElementType(); }

// The register side and memory side of a read or write's mapping must name the dims of
// the value and of the memory.
// the value and of the memory; its dynamic values are the op's `dynamic` operands: integer
// tensors over some of the register dims, used only by the memory side.
LogicalResult verifyMapping(Operation* op, IndexMappingAttr mapping, ArrayRef<StringRef> registerDims,
                            ArrayRef<StringRef> memoryDims, bool isRead, ValueRange dynamic) {
  if (mapping.getIterators() != registerDims.size())
    return op->emitOpError("expected one mapping iterator per register dim (")
           << registerDims.size() << "), but found " << mapping.getIterators();
  DictionaryAttr registerSide = isRead ? mapping.getOutputs() : mapping.getInputs();
  DictionaryAttr memorySide = isRead ? mapping.getInputs() : mapping.getOutputs();
  if (!sameSet(keys(registerSide), registerDims))
    return op->emitOpError("expected the mapping's ") << (isRead ? "outputs" : "inputs") << " to be the register dims "
           << list(registerDims) << ", but found " << list(keys(registerSide));
  if (!sameSet(keys(memorySide), memoryDims))
    return op->emitOpError("expected the mapping's ") << (isRead ? "inputs" : "outputs") << " to be the memory dims "
           << list(memoryDims) << ", but found " << list(keys(memorySide));
  for (NamedAttribute entry : registerSide) {
    AffineMap map = cast<ExprAttr>(entry.getValue()).getMap();
    for (unsigned d = mapping.getIterators(); d < map.getNumDims(); ++d)
      if (map.isFunctionOfDim(d))
        return op->emitOpError("expected the mapping's register side to use iterators only, but ")
               << entry.getName().getValue() << " uses a dynamic value";
  }
  if (dynamic.size() != mapping.getDynamic())
    return op->emitOpError("expected ") << mapping.getDynamic() << " dynamic values for the mapping, but found "
                                        << dynamic.size();
  for (auto [k, v] : llvm::enumerate(dynamic)) {
    Type element = elementOf(v);
    if (!element.isSignlessInteger() || element.isInteger(1))
      return op->emitOpError("expected dynamic value ") << k << " to hold indices (i8, i32 or i64), but found "
                                                        << element;
    if (!isSubset(dimsOf(v), registerDims))
      return op->emitOpError("expected dynamic value ")
             << k << "'s dims to be some of the register dims " << list(registerDims) << ", but found "
             << list(dimsOf(v));
  }
  return success();
}

LogicalResult verifySameElementType(Operation* op, Type expected, Type found, StringRef what) {
  if (expected != found)
    return op->emitOpError("expected ") << what << " of element type " << expected << ", but found " << found;
  return success();
}

// Elementwise binary ops: one operand's dims a subset of the other's; the result is the
// larger operand's type.
// The operand of a broadcasting binary op whose dims hold the other's (the result's
// shape); an error where the element types differ or neither holds the other's dims.
FailureOr<Value> broadcastOperands(Operation* op) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (failed(verifySameElementType(op, elementOf(lhs), elementOf(rhs), "operands")))
    return failure();
  Names l = dimsOf(lhs), r = dimsOf(rhs);
  if (isSubset(r, l)) return lhs;
  if (isSubset(l, r)) return rhs;
  return op->emitOpError("expected one operand's dims to be a subset of the other's, but found ")
         << list(l) << " and " << list(r);
}

LogicalResult verifyBroadcastBinary(Operation* op) {
  FailureOr<Value> larger = broadcastOperands(op);
  if (failed(larger)) return failure();
  if (op->getResult(0).getType() != larger->getType())
    return op->emitOpError("expected result type ") << larger->getType() << ", but found "
                                                    << op->getResult(0).getType();
  return success();
}

LogicalResult verifyFloatElements(Operation* op) {
  Type elt = elementOf(op->getOperand(0));
  if (!isa<FloatType>(elt)) return op->emitOpError("expected a float element type, but found ") << elt;
  return success();
}

LogicalResult verifyReduction(Operation* op, Value input, Value init, StringRef dim) {
  Names in = dimsOf(input);
  if (!contains(in, dim))
    return op->emitOpError("expected the input to have the dim ") << dim << ", but found " << list(in);
  Names expected;
  for (StringRef d : in)
    if (d != dim) expected.push_back(d);
  Value result = op->getResult(0);
  if (dimsOf(result) != expected)
    return op->emitOpError("expected result dims ") << list(expected) << ", but found " << list(dimsOf(result));
  if (failed(verifySameElementType(op, elementOf(input), elementOf(result), "a result")))
    return failure();
  if (init && init.getType() != result.getType())
    return op->emitOpError("expected init of the result type ") << result.getType() << ", but found "
                                                                << init.getType();
  return success();
}

}  // namespace

//===----------------------------------------------------------------------===//
// RegisterOp: `wave.register 1.5 : !wave.tensor<...>`, the constant typed by the element.
//===----------------------------------------------------------------------===//

void RegisterOp::print(OpAsmPrinter& p) {
  p << " ";
  p.printAttributeWithoutType(getValue());
  p.printOptionalAttrDict((*this)->getAttrs(), {"value"});
  p << " : " << getResult().getType();
}

namespace {
// The constant `text` (as printed by printAttributeWithoutType: a decimal integer or
// float, `true`/`false`, or the hex bits of a float such as -inf) typed as `elt`.
FailureOr<TypedAttr> typeLiteral(StringRef text, Type elt, function_ref<InFlightDiagnostic()> emitError) {
  if (auto intType = dyn_cast<IntegerType>(elt)) {
    const unsigned width = intType.getWidth();
    if (text == "true" || text == "false") {
      if (width != 1) return emitError() << "expected an integer for elements of type " << elt << ", but found " << text;
      return TypedAttr(IntegerAttr::get(elt, text == "true" ? 1 : 0));
    }
    const bool negative = text.consume_front("-");
    APInt magnitude;
    if (text.ltrim().getAsInteger(0, magnitude))
      return emitError() << "expected an integer for elements of type " << elt << ", but found " << text;
    // Signless: both the signed and the unsigned range of the width fit.
    auto outOfRange = [&] {
      return emitError() << "expected a constant that fits in " << elt << ", but found "
                         << (negative ? "-" : "") << text;
    };
    if (magnitude.getActiveBits() > width) return outOfRange();
    APInt value = magnitude.zext(width + 1);
    if (negative) value.negate();
    if (!value.isSignedIntN(width) && (negative || !value.isIntN(width))) return outOfRange();
    return TypedAttr(IntegerAttr::get(elt, value.trunc(width)));
  }
  auto floatType = cast<FloatType>(elt);
  const llvm::fltSemantics& semantics = floatType.getFloatSemantics();
  if (text.starts_with("0x")) {
    // Hex digits are the bit pattern, as MLIR prints infinities and NaNs.
    APInt bits;
    if (text.drop_front(2).getAsInteger(16, bits) || bits.getActiveBits() > floatType.getWidth())
      return emitError() << "expected the " << floatType.getWidth() << " bits of a " << elt << ", but found " << text;
    return TypedAttr(FloatAttr::get(elt, APFloat(semantics, bits.zextOrTrunc(floatType.getWidth()))));
  }
  APFloat value(semantics);
  std::string digits = text.str();
  llvm::erase(digits, ' ');
  auto status = value.convertFromString(digits, APFloat::rmNearestTiesToEven);
  if (!status) {
    llvm::consumeError(status.takeError());
    return emitError() << "expected a number for elements of type " << elt << ", but found " << text;
  }
  return TypedAttr(FloatAttr::get(elt, value));
}
}  // namespace

ParseResult RegisterOp::parse(OpAsmParser& parser, OperationState& result) {
  // The literal comes before the type that gives it meaning: take in its token, keep
  // its spelling, and type it once the element type is known.
  SMLoc start = parser.getCurrentLocation();
  if (failed(parser.parseOptionalKeyword("true")) && failed(parser.parseOptionalKeyword("false"))) {
    (void)parser.parseOptionalMinus();
    APInt integer;
    double real;
    OptionalParseResult isInteger = parser.parseOptionalInteger(integer);
    if (isInteger.has_value() ? failed(*isInteger) : failed(parser.parseFloat(real)))
      return failure();
  }
  SMLoc end = parser.getCurrentLocation();
  StringRef spelling = StringRef(start.getPointer(), end.getPointer() - start.getPointer()).rtrim();
  TensorType type;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() || parser.parseType(type))
    return failure();
  auto value = typeLiteral(spelling, type.getElementType(), [&] { return parser.emitError(start); });
  if (failed(value)) return failure();
  result.addAttribute("value", *value);
  result.addTypes(type);
  return success();
}

LogicalResult RegisterOp::verify() {
  return verifySameElementType(*this, getResult().getType().getElementType(),
                               cast<TypedAttr>(getValue()).getType(), "a constant");
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

LogicalResult AllocateOp::verify() {
  auto memory = getResult().getType();
  if (memory.getAddressSpace().getValue() != "shared")
    return emitOpError("expected memory in the shared address space, but found ") << memory.getAddressSpace();
  if (getTile().size() != memory.getDims().size())
    return emitOpError("expected one tile extent per dim (") << memory.getDims().size() << "), but found "
                                                             << getTile().size();
  for (Attribute extent : getTile())
    if (cast<ExprAttr>(extent).isComparison() || cast<ExprAttr>(extent).getMap().getNumDims() != 0)
      return emitOpError("expected tile extents over symbols only, but found ") << extent;
  if (getPaddingAttr().getInt() < 0)
    return emitOpError("expected a padding of 0 or more elements, but found ") << getPaddingAttr().getInt();
  if (auto swizzle = getSwizzle()) {
    if (*swizzle != 32 && *swizzle != 64 && *swizzle != 128)
      return emitOpError("expected a swizzle of 32, 64 or 128 bytes, but found ") << *swizzle;
    if (getPaddingAttr().getInt() != 0)
      return emitOpError("expected no padding on a swizzled tile, but found ") << getPaddingAttr().getInt();
  }
  return success();
}

LogicalResult TmaCopyOp::verify() {
  auto source = getSource().getType();
  auto tile = getTile().getType();
  if (!isa<BlockArgument>(getSource()))
    return emitOpError("expected a kernel argument (global memory) as the source");
  if (failed(verifySameElementType(*this, source.getElementType(), tile.getElementType(), "a tile")))
    return failure();
  if (source.getDimNames() != tile.getDimNames())
    return emitOpError("expected a tile of the source's dims ") << list(source.getDimNames()) << ", in order, but found "
                                                                << list(tile.getDimNames());
  auto allocate = getTile().getDefiningOp<AllocateOp>();
  if (!allocate || !allocate.getSwizzle())
    return emitOpError("expected a swizzled wave.allocate as the tile");
  return success();
}

// Flags a wait or a signal reads or sets: i32 or i64 in global memory.
static LogicalResult verifyFlags(Operation* op, Value memory, StringRef what) {
  auto type = cast<MemoryType>(memory.getType());
  Type element = type.getElementType();
  if (!element.isInteger(32) && !element.isInteger(64))
    return op->emitOpError("expected i32 or i64 flags to ") << what << ", but found " << element;
  if (type.getAddressSpace().getValue() == "shared" || memory.getDefiningOp<AllocateOp>())
    return op->emitOpError("expected flags in global memory to ") << what << ", but found a shared tile";
  return success();
}

void ReadOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getMemoryMutable());
  // A wait orders the workgroup's later accesses after it: to anything that moves or
  // removes ops, it writes.
  if (getWaitAtLeast()) effects.emplace_back(MemoryEffects::Write::get());
}

LogicalResult ReadOp::verify() {
  auto memory = getMemory().getType();
  auto result = getResult().getType();
  if (failed(verifySameElementType(*this, memory.getElementType(), result.getElementType(), "a result")))
    return failure();
  if (getTake() && !getWaitAtLeastAttr()) return emitOpError("expected take only on a wait (wait_at_least)");
  if (dialect::ExprAttr least = getWaitAtLeastAttr()) {
    if (failed(verifyFlags(*this, getMemory(), "wait for"))) return failure();
    if (least.getMap().getNumDims() != 0 || least.isComparison())
      return emitOpError("expected wait_at_least to be one value of the kernel's symbols, but found ")
             << least.str();
  }
  if (auto mapping = getMappingAttr()) {
    if (mapping.getMasked() && getWaitAtLeastAttr())
      return emitOpError("expected a wait for flags inside the memory, but found an index mapping that masks the "
                         "points outside it (a masked flag would read 0 and never be raised)");
    return verifyMapping(*this, mapping, result.getDimNames(), memory.getDimNames(), /*isRead=*/true, getDynamic());
  }
  if (!getDynamic().empty()) return emitOpError("expected dynamic values only with an index mapping that uses them");
  if (!sameSet(result.getDimNames(), memory.getDimNames()))
    return emitOpError("expected the memory's dims ") << list(memory.getDimNames()) << " (in any order), but found "
                                                      << list(result.getDimNames());
  return success();
}

LogicalResult WriteOp::verify() {
  auto memory = getMemory().getType();
  auto value = getValue().getType();
  if (failed(verifySameElementType(*this, memory.getElementType(), value.getElementType(), "a value")))
    return failure();
  if (getRelease()) {
    if (getCombine()) return emitOpError("expected a release store or a combining write, not both");
    if (failed(verifyFlags(*this, getMemory(), "signal"))) return failure();
  }
  if (auto combine = getCombine()) {
    Type element = memory.getElementType();
    const bool minMax = element.isF32() || element.isF64() || element.isInteger(32) || element.isInteger(64);
    const bool addable = minMax || element.isF16() || element.isBF16();
    const StringRef how = stringifyWriteCombine(*combine);
    if (*combine == WriteCombine::add && !addable)
      return emitOpError("expected f16, bf16, f32, f64, i32 or i64 elements to add to memory atomically, but found ")
             << element;
    if (*combine != WriteCombine::add && !minMax)
      return emitOpError("expected f32, f64, i32 or i64 elements to combine by ") << how << " atomically, but found "
                                                                                  << element;
    if (memory.getAddressSpace().getValue() == "shared" || getMemory().getDefiningOp<AllocateOp>())
      return emitOpError("expected global memory to combine with atomically (") << how << "), but found a shared tile";
  }
  if (auto mapping = getMappingAttr()) {
    if (mapping.getMasked() && getRelease())
      return emitOpError("expected a signal of flags inside the memory, but found an index mapping that masks the "
                         "points outside it (a skipped signal would leave its waiter waiting)");
    return verifyMapping(*this, mapping, value.getDimNames(), memory.getDimNames(), /*isRead=*/false, getDynamic());
  }
  if (!getDynamic().empty()) return emitOpError("expected dynamic values only with an index mapping that uses them");
  if (!sameSet(value.getDimNames(), memory.getDimNames()))
    return emitOpError("expected a value with the memory's dims ")
           << list(memory.getDimNames()) << " (in any order), but found " << list(value.getDimNames());
  return success();
}

LogicalResult PrintOp::verify() {
  if (getLabel().empty()) return emitOpError("expected a label to start each line, but found an empty one");
  if (getLimit() < 1) return emitOpError("expected a limit of at least one element, but found ") << getLimit();
  if (Value mask = getMask()) {
    auto type = cast<TensorType>(mask.getType());
    if (!type.getElementType().isInteger(1))
      return emitOpError("expected an i1 mask, but found ") << type.getElementType();
    if (type.getDimNames() != getValue().getType().getDimNames())
      return emitOpError("expected a mask of the value's dims ")
             << list(getValue().getType().getDimNames()) << ", but found " << list(type.getDimNames());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// IterateOp
//===----------------------------------------------------------------------===//

// The carried values keep their types: iter_args, block arguments, yielded values and
// results. The yield checks its own side, so its error points at it.
LogicalResult IterateOp::verify() {
  TypeRange carried = getIterArgs().getTypes();
  TypeRange arguments = getBody().front().getArgumentTypes();
  if (arguments != carried)
    return emitOpError("expected block arguments of the iter_args' types (") << carried << "), but found ("
                                                                             << arguments << ")";
  if (getResultTypes() != carried)
    return emitOpError("expected results of the iter_args' types (") << carried << "), but found ("
                                                                     << getResultTypes() << ")";
  // Each trip holds another tile of the walked dim: a value over it cannot carry across.
  for (auto [i, type] : llvm::enumerate(carried))
    if (llvm::is_contained(cast<TensorType>(type).getDimNames(), getDim()))
      return emitOpError("expected carried values without ")
             << getDim() << ", the dim it walks (each trip holds another tile of it), but carried value #" << i
             << " is " << type;
  // `end` and `unmasked_end`: one value over the workgroup positions of their dims.
  auto verifyEnd = [&](StringRef name, ExprAttr end, ArrayAttr endDims) -> LogicalResult {
    if (static_cast<bool>(end) != static_cast<bool>(endDims))
      return emitOpError("expected ") << name << " and " << name << "_dims together, but found only "
                                      << (end ? name : name.str() + "_dims");
    if (end && (end.getKind() != ExprKind::value || end.getMap().getNumDims() != endDims.size()))
      return emitOpError("expected ") << name << " to be one value over $0..$"
                                      << static_cast<int64_t>(endDims.size()) - 1 << " (one per " << name
                                      << "_dims entry), but found " << end.str();
    return success();
  };
  if (failed(verifyEnd("end", getEndAttr(), getEndDimsAttr()))) return failure();
  if (failed(verifyEnd("unmasked_end", getUnmaskedEndAttr(), getUnmaskedEndDimsAttr()))) return failure();
  if (ArrayAttr folds = getWaveFoldsAttr()) {
    if (folds.size() != carried.size())
      return emitOpError("expected one wave_folds entry per carried value (") << carried.size() << "), but found "
                                                                                 << folds.size();
    for (Attribute fold : folds) {
      // Waves fold maxima and sums apart (CarriedFolds); no loop folds a minimum yet.
      std::optional<FoldKind> kind = symbolizeFoldKind(cast<StringAttr>(fold).getValue());
      if (!kind || *kind == FoldKind::min)
        return emitOpError("expected wave_folds entries \"max\" or \"sum\", but found ") << fold;
    }
  }
  return success();
}

LogicalResult CombineWavesOp::verify() {
  auto type = cast<TensorType>(getInput().getType());
  if (llvm::is_contained(type.getDimNames(), getDim()))
    return emitOpError("expected a value without ")
           << getDim() << ", the dim its partials were folded over, but found " << type;
  return success();
}

LogicalResult YieldOp::verify() {
  if (auto conditional = dyn_cast<ConditionalOp>(getOperation()->getParentOp())) {
    TypeRange results = conditional.getResultTypes();
    if (getValues().getTypes() != results)
      return emitOpError("expected to yield the conditional's result types (") << results << "), but found ("
                                                                               << getValues().getTypes() << ")";
    return success();
  }
  TypeRange carried = cast<IterateOp>(getOperation()->getParentOp()).getIterArgs().getTypes();
  if (getValues().getTypes() != carried)
    return emitOpError("expected to yield the iter_args' types (") << carried << "), but found ("
                                                                   << getValues().getTypes() << ")";
  return success();
}

LogicalResult ConditionalOp::verify() {
  if (!elementOf(getCondition()).isInteger(1))
    return emitOpError("expected an i1 condition, but found ") << elementOf(getCondition());
  if (getResultTypes() != getOtherwise().getTypes())
    return emitOpError("expected results of the otherwise values' types (")
           << getOtherwise().getTypes() << "), but found (" << getResultTypes() << ")";
  if (getBody().front().getNumArguments() != 0)
    return emitOpError("expected a body without block arguments, but found ") << getBody().front().getNumArguments();
  if ((*this)->getParentOfType<IterateOp>() || (*this)->getParentOfType<ConditionalOp>())
    return emitOpError("expected to be in the kernel's body itself, but found it inside ")
           << ((*this)->getParentOfType<IterateOp>() ? "wave.iterate" : "wave.conditional");
  return success();
}

// Control enters the body or goes straight to the results; from the body it leaves.
void ConditionalOp::getSuccessorRegions(RegionBranchPoint point, SmallVectorImpl<RegionSuccessor>& regions) {
  if (point.isParent()) regions.push_back(RegionSuccessor(&getBody(), getBody().getArguments()));
  regions.push_back(RegionSuccessor(getOperation(), getResults()));
}

// Skipping the body forwards the otherwise values to the results; the body takes none.
OperandRange ConditionalOp::getEntrySuccessorOperands(RegionSuccessor successor) {
  return successor.isParent() ? getOtherwise() : getOtherwise().take_front(0);
}

// Control enters the body or, for a dim with no tiles, goes straight to the results;
// from the body it loops back or leaves.
void IterateOp::getSuccessorRegions(RegionBranchPoint, SmallVectorImpl<RegionSuccessor>& regions) {
  regions.push_back(RegionSuccessor(&getBody(), getBody().getArguments()));
  regions.push_back(RegionSuccessor(getOperation(), getResults()));
}

OperandRange IterateOp::getEntrySuccessorOperands(RegionSuccessor) { return getIterArgs(); }

//===----------------------------------------------------------------------===//
// MmaOp
//===----------------------------------------------------------------------===//

LogicalResult MmaOp::verify() {
  Names a = dimsOf(getLhs()), b = dimsOf(getRhs()), c = dimsOf(getAcc());
  if (getResult().getType() != getAcc().getType())
    return emitOpError("expected the result to have the accumulator's type ")
           << getAcc().getType() << ", but found " << getResult().getType();
  if (c.size() < 2)
    return emitOpError("expected an accumulator with at least two dims [..., M, N], but found ") << list(c);
  Names contraction;
  for (StringRef d : a)
    if (contains(b, d) && !contains(c, d)) contraction.push_back(d);
  if (contraction.size() != 1)
    return emitOpError("expected lhs and rhs to share exactly one contraction dim that the "
                       "accumulator lacks, but found ")
           << list(contraction) << " in lhs " << list(a) << " and rhs " << list(b);
  StringRef m = c[c.size() - 2], n = c.back(), k = contraction.front();
  if (!contains(a, m)) return emitOpError("expected lhs to hold the accumulator's dim ") << m << ", but found " << list(a);
  if (!contains(b, n)) return emitOpError("expected rhs to hold the accumulator's dim ") << n << ", but found " << list(b);
  for (ArrayRef<StringRef> operand : {ArrayRef<StringRef>(a), ArrayRef<StringRef>(b)})
    for (StringRef d : operand)
      if (d != k && !contains(c, d))
        return emitOpError("expected every operand dim to be the contraction dim ")
               << k << " or an accumulator dim, but found " << d;
  if (failed(verifySameElementType(*this, elementOf(getLhs()), elementOf(getRhs()), "rhs")))
    return failure();
  if (auto kind = getKindAttr()) {
    MMAShape shape = getMMAShape(getContext(), kind.getValue());
    if (elementOf(getLhs()) != shape.operandType || elementOf(getAcc()) != shape.accumulatorType)
      return emitOpError("expected operands of ") << shape.operandType << " and an accumulator of "
             << shape.accumulatorType << " for " << kind << ", but found " << elementOf(getLhs())
             << " and " << elementOf(getAcc());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise and reductions
//===----------------------------------------------------------------------===//

#define WAVE_BROADCAST_BINARY_VERIFIER(Op) \
  LogicalResult Op::verify() { return verifyBroadcastBinary(*this); }
WAVE_BROADCAST_BINARY_VERIFIER(AddOp)
WAVE_BROADCAST_BINARY_VERIFIER(SubOp)
WAVE_BROADCAST_BINARY_VERIFIER(MulOp)
WAVE_BROADCAST_BINARY_VERIFIER(DivOp)
WAVE_BROADCAST_BINARY_VERIFIER(MaximumOp)
WAVE_BROADCAST_BINARY_VERIFIER(MinimumOp)
#undef WAVE_BROADCAST_BINARY_VERIFIER

LogicalResult Atan2Op::verify() {
  return failed(verifyFloatElements(*this)) ? failure() : verifyBroadcastBinary(*this);
}
LogicalResult PowfOp::verify() {
  return failed(verifyFloatElements(*this)) ? failure() : verifyBroadcastBinary(*this);
}

// Comparisons: a binary op's operands, and the larger one's dims with i1 elements.
LogicalResult verifyComparison(Operation* op) {
  FailureOr<Value> operand = broadcastOperands(op);
  if (failed(operand)) return failure();
  auto result = cast<TensorType>(op->getResult(0).getType());
  Names larger = dimsOf(*operand);
  if (!result.getElementType().isInteger(1) || dimsOf(op->getResult(0)) != larger)
    return op->emitOpError("expected an i1 result with the dims ") << list(larger) << ", but found " << result;
  return success();
}
#define WAVE_COMPARISON_VERIFIER(Op) \
  LogicalResult Op::verify() { return verifyComparison(*this); }
WAVE_COMPARISON_VERIFIER(GtOp)
WAVE_COMPARISON_VERIFIER(GeOp)
WAVE_COMPARISON_VERIFIER(LtOp)
WAVE_COMPARISON_VERIFIER(LeOp)
WAVE_COMPARISON_VERIFIER(EqOp)
WAVE_COMPARISON_VERIFIER(NeOp)
#undef WAVE_COMPARISON_VERIFIER

#define WAVE_FLOAT_UNARY_VERIFIER(Op) \
  LogicalResult Op::verify() { return verifyFloatElements(*this); }
WAVE_FLOAT_UNARY_VERIFIER(Exp2Op)
WAVE_FLOAT_UNARY_VERIFIER(Log2Op)
WAVE_FLOAT_UNARY_VERIFIER(ReciprocalOp)
WAVE_FLOAT_UNARY_VERIFIER(SqrtOp)
WAVE_FLOAT_UNARY_VERIFIER(RsqrtOp)
WAVE_FLOAT_UNARY_VERIFIER(TanhOp)
WAVE_FLOAT_UNARY_VERIFIER(TanhApproxOp)
WAVE_FLOAT_UNARY_VERIFIER(SinOp)
WAVE_FLOAT_UNARY_VERIFIER(CosOp)
WAVE_FLOAT_UNARY_VERIFIER(SinhOp)
WAVE_FLOAT_UNARY_VERIFIER(CbrtOp)
WAVE_FLOAT_UNARY_VERIFIER(RoundEvenOp)
#undef WAVE_FLOAT_UNARY_VERIFIER

LogicalResult ReduceMaxOp::verify() { return verifyReduction(*this, getInput(), getInit(), getDim()); }
LogicalResult ReduceMinOp::verify() { return verifyReduction(*this, getInput(), getInit(), getDim()); }
LogicalResult ReduceSumOp::verify() { return verifyReduction(*this, getInput(), getInit(), getDim()); }

LogicalResult ExtractOp::verify() {
  if (failed(verifyReduction(*this, getInput(), Value(), getDim()))) return failure();
  if (dimsOf(getPosition()) != dimsOf(getResult()))
    return emitOpError("expected a position of the result's dims ")
           << list(dimsOf(getResult())) << ", but found " << list(dimsOf(getPosition()));
  Type element = elementOf(getPosition());
  if (!element.isSignlessInteger() || element.isInteger(1))
    return emitOpError("expected an integer position (i8, i32 or i64), but found ") << element;
  return success();
}

LogicalResult ShuffleOp::verify() {
  if (!contains(dimsOf(getInput()), getDim()))
    return emitOpError("expected the input to have the dim ") << getDim() << ", but found " << list(dimsOf(getInput()));
  if (getMask() < 1) return emitOpError("expected an xor mask of at least 1, but found ") << getMask();
  return success();
}

LogicalResult ExtractSliceOp::verify() {
  Names in = dimsOf(getInput()), out = dimsOf(getResult());
  const auto k = llvm::find(in, getDim()) - in.begin();
  if (k == static_cast<std::ptrdiff_t>(in.size()))
    return emitOpError("expected the input to have the dim ") << getDim() << ", but found " << list(in);
  bool sameOthers = in.size() == out.size();
  for (size_t d = 0; sameOthers && d < in.size(); ++d)
    sameOthers = static_cast<std::ptrdiff_t>(d) == k ? out[d] == getDim() || !contains(in, out[d]) : in[d] == out[d];
  if (!sameOthers)
    return emitOpError("expected a result of the input's dims with ")
           << getDim() << " replaced in its place by a dim the input lacks (or by " << getDim() << "), but found "
           << list(in) << " -> " << list(out);
  if (dimsOf(getOffset()) != out)
    return emitOpError("expected an offset of the result's dims ") << list(out) << ", but found "
                                                                    << list(dimsOf(getOffset()));
  Type offset = elementOf(getOffset());
  if (!offset.isSignlessInteger() || offset.isInteger(1))
    return emitOpError("expected an integer offset (i8, i32 or i64), but found ") << offset;
  if (elementOf(getInput()) != elementOf(getResult()))
    return emitOpError("expected the input's element type, but found ") << elementOf(getResult());
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (elementOf(getInput()) != elementOf(getResult()))
    return emitOpError("expected the input's element type, but found ") << elementOf(getResult());
  return success();
}

LogicalResult SetSymbolOp::verify() {
  Type element = elementOf(getSize());
  if (!element.isSignlessInteger() || element.isInteger(1))
    return emitOpError("expected an integer size (i8, i32 or i64), but found ") << element;
  if (contains(dimsOf(getSize()), getDim()))
    return emitOpError("expected a size that does not vary along ")
           << getDim() << ", the dim it sets, but found a size over " << list(dimsOf(getSize()));
  if ((*this)->getParentOfType<IterateOp>() || (*this)->getParentOfType<ConditionalOp>())
    return emitOpError("expected to be in the kernel's body itself (a size is set once per workgroup), but found "
                       "it inside ")
           << ((*this)->getParentOfType<IterateOp>() ? "wave.iterate" : "wave.conditional");
  // Every op over the dim sees the one size: none of them may come before.
  for (Operation* prev = (*this)->getPrevNode(); prev; prev = prev->getPrevNode()) {
    Operation* over = nullptr;
    prev->walk([&](Operation* op) {
      auto set = dyn_cast<SetSymbolOp>(op);
      auto loop = dyn_cast<IterateOp>(op);
      const bool overDim = (set && set.getDim() == getDim()) || (loop && loop.getDim() == getDim()) ||
                           llvm::any_of(op->getResultTypes(), [&](Type t) {
                             auto tensor = dyn_cast<TensorType>(t);
                             return tensor && contains(tensor.getDimNames(), getDim());
                           });
      if (overDim && !over) over = op;
    });
    if (over) {
      InFlightDiagnostic diag = emitOpError("expected before every op over ")
                                << getDim() << ", but found " << over->getName() << " over it before";
      diag.attachNote(over->getLoc()) << "the earlier op over " << getDim();
      return diag;
    }
  }
  return success();
}

LogicalResult CumsumOp::verify() {
  if (!contains(dimsOf(getInput()), getDim()))
    return emitOpError("expected the input to have the dim ") << getDim() << ", but found " << list(dimsOf(getInput()));
  if (elementOf(getInput()).isInteger(1))
    return emitOpError("expected numbers to sum, but found i1 elements (cast<i32>() them first)");
  return success();
}

//===----------------------------------------------------------------------===//
// Shape and type changes, index arithmetic
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  if (dimsOf(getInput()) != dimsOf(getResult()))
    return emitOpError("expected the input's dims ") << list(dimsOf(getInput())) << ", but found "
                                                     << list(dimsOf(getResult()));
  return success();
}

LogicalResult BitcastOp::verify() {
  if (dimsOf(getInput()) != dimsOf(getResult()))
    return emitOpError("expected the input's dims ") << list(dimsOf(getInput())) << ", but found "
                                                     << list(dimsOf(getResult()));
  Type from = elementOf(getInput()), to = elementOf(getResult());
  if (from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth() || from.isInteger(1))
    return emitOpError("expected an element type of ") << from << "'s width (not i1), but found " << to;
  return success();
}

LogicalResult PermuteOp::verify() {
  if (!sameSet(dimsOf(getInput()), dimsOf(getResult())))
    return emitOpError("expected a reordering of ") << list(dimsOf(getInput())) << ", but found "
                                                    << list(dimsOf(getResult()));
  return verifySameElementType(*this, elementOf(getInput()), elementOf(getResult()), "a result");
}

LogicalResult BroadcastOp::verify() {
  if (!isSubset(dimsOf(getInput()), dimsOf(getResult())))
    return emitOpError("expected result dims that include ") << list(dimsOf(getInput())) << ", but found "
                                                             << list(dimsOf(getResult()));
  return verifySameElementType(*this, elementOf(getInput()), elementOf(getResult()), "a result");
}

LogicalResult SelectOp::verify() {
  Type cond = elementOf(getCond());
  if (!cond.isInteger(1)) return emitOpError("expected an i1 condition, but found ") << cond;
  if (getIfTrue().getType() != getIfFalse().getType())
    return emitOpError("expected both choices of one type, but found ")
           << getIfTrue().getType() << " and " << getIfFalse().getType();
  if (!isSubset(dimsOf(getCond()), dimsOf(getIfTrue())))
    return emitOpError("expected condition dims within ") << list(dimsOf(getIfTrue())) << ", but found "
                                                          << list(dimsOf(getCond()));
  if (getResult().getType() != getIfTrue().getType())
    return emitOpError("expected the choices' type ") << getIfTrue().getType() << " as result, but found "
                                                       << getResult().getType();
  return success();
}

LogicalResult SelfIndexOp::verify() {
  Names dims = dimsOf(getResult());
  if (dims.size() != 1 || dims.front() != getDim())
    return emitOpError("expected result dims [") << getDim() << "], but found " << list(dims);
  if (!isa<IntegerType>(elementOf(getResult())))
    return emitOpError("expected an integer element type, but found ") << elementOf(getResult());
  return success();
}

LogicalResult ApplyExprOp::verify() {
  if (getExpr().getMap().getNumDims() > 1)
    return emitOpError("expected an expression of $0 alone, but found ") << getExpr();
  if (dimsOf(getInput()) != dimsOf(getResult()))
    return emitOpError("expected the input's dims ") << list(dimsOf(getInput())) << " as result, but found "
                                                     << list(dimsOf(getResult()));
  if (!isa<IntegerType>(elementOf(getInput())))
    return emitOpError("expected an integer element type, but found ") << elementOf(getInput());
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  auto in = cast<TensorType>(getInput().getType()), out = cast<TensorType>(getResult().getType());
  if (in.getDims() != out.getDims() || in.getElementType() != out.getElementType())
    return emitOpError("expected the result to differ from the input in its layout only, but found ")
           << in << " to " << out;
  if (!in.getLayout() || !out.getLayout())
    return emitOpError("expected layouts on the input and the result, but found ") << in << " to " << out;
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType()) return getInput();
  return {};
}

}  // namespace wave::dialect

