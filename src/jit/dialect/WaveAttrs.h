//===- WaveAttrs.h - wave dialect attributes and enums --------*- C++ -*-===//
//
// Symbolic expressions (#wave.expr), index mappings, kernel constraints and the MMA
// kinds, with the helpers their assembly formats and users share.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_DIALECT_WAVEATTRS_H
#define WAVE_JIT_DIALECT_WAVEATTRS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"

#include <string>

#include "dialect/WaveEnums.h.inc"

namespace wave::dialect {
// Parses an attribute parameter written in full (`#wave.expr<...>`), not stripped.
template <class AttrT>
::mlir::FailureOr<AttrT> parseFullAttr(::mlir::AsmParser& parser) {
  AttrT attr;
  if (parser.parseAttribute(attr)) return ::mlir::failure();
  return attr;
}

// The hyperparameter a kernel spread over several GPUs takes its GPU's rank from (the
// front end's wave::RANK): 0 or more, where every other hyperparameter is positive.
inline constexpr ::llvm::StringLiteral kRankSymbol = "RANK";

// `[1, 2, 3]`
::mlir::FailureOr<::llvm::SmallVector<int64_t>> parseIntList(::mlir::AsmParser& parser);
void printIntList(::mlir::AsmPrinter& printer, ::llvm::ArrayRef<int64_t> values);
}  // namespace wave::dialect

#define GET_ATTRDEF_CLASSES
#include "dialect/WaveAttrs.h.inc"

namespace wave::dialect {
// What one MMA instruction computes: acc[m x n] += a[m x k] * b[k x n], with A and B of
// `operandType` and the accumulator of `accumulatorType`.
struct MMAShape {
  int64_t m;
  int64_t n;
  int64_t k;
  ::mlir::Type operandType;
  ::mlir::Type accumulatorType;
};
MMAShape getMMAShape(::mlir::MLIRContext* ctx, MMAKind kind);
// Whether `kind` is AMD's (an MFMA on a wave of 64), not NVIDIA's (mma.sync on a warp).
bool isMfma(MMAKind kind);
}  // namespace wave::dialect

#endif  // WAVE_JIT_DIALECT_WAVEATTRS_H
