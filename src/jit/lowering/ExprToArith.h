//===- ExprToArith.h - a symbolic expression as arith ops ------*- C++ -*-===//
//
// A `#wave.expr` evaluated on values: its bound variables ($0, $1, ..) and symbols
// bound to given values of one integer type (scalars or vectors alike), with the affine
// floordiv / ceildiv / mod semantics; a comparison yields 0 or 1 of that type.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_EXPRTOARITH_H
#define WAVE_JIT_LOWERING_EXPRTOARITH_H

#include "dialect/WaveDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace wave::jit {

// The signed integer predicate of a comparison's kind (lt, le, gt, ge, eq, ne).
mlir::arith::CmpIPredicate comparisonPredicate(dialect::ExprKind kind);

// `l mod r` for a positive `r`, the remainder taken into [0, r) (any integer type).
mlir::Value buildFloorMod(mlir::OpBuilder& b, mlir::Location loc, mlir::Value l, mlir::Value r);

// `variables[k]` is $k; `symbols[s]` the value of the expression's s-th symbol.
mlir::Value buildExpr(mlir::OpBuilder& b, mlir::Location loc, dialect::ExprAttr expr, mlir::ValueRange variables,
                      mlir::ValueRange symbols);
// The same in values of `type`, for expressions that may have no bound variables.
mlir::Value buildExpr(mlir::OpBuilder& b, mlir::Location loc, dialect::ExprAttr expr, mlir::Type type,
                      mlir::ValueRange variables, mlir::ValueRange symbols);

}  // namespace wave::jit

#endif
