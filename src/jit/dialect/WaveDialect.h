//===- WaveDialect.h - the wave dialect -----------------------*- C++ -*-===//
//
// Everything a user of the dialect needs: the dialect, its types, attributes and ops.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_DIALECT_WAVEDIALECT_H
#define WAVE_JIT_DIALECT_WAVEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/WaveDialect.h.inc"
#include "dialect/WaveEnums.h.inc"

namespace wave::dialect {
// Parses an attribute parameter written in full (`#wave.expr<...>`), not stripped.
template <class AttrT>
::mlir::FailureOr<AttrT> parseFullAttr(::mlir::AsmParser& parser) {
  AttrT attr;
  if (parser.parseAttribute(attr)) return ::mlir::failure();
  return attr;
}

// `[1, 2, 3]`
::mlir::FailureOr<::llvm::SmallVector<int64_t>> parseIntList(::mlir::AsmParser& parser);
void printIntList(::mlir::AsmPrinter& printer, ::llvm::ArrayRef<int64_t> values);
}  // namespace wave::dialect

#define GET_TYPEDEF_CLASSES
#include "dialect/WaveTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/WaveAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/WaveOps.h.inc"

namespace wave::dialect {
// The (operand, accumulator) element types of an MMA kind.
std::pair<::mlir::Type, ::mlir::Type> mmaElementTypes(::mlir::MLIRContext* ctx, MMAKind kind);
}  // namespace wave::dialect

#endif  // WAVE_JIT_DIALECT_WAVEDIALECT_H
