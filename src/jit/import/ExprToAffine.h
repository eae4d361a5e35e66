// Converts the front end's symbolic expressions to `#wave.expr` attributes.
#ifndef WAVE_JIT_IMPORT_EXPRTOAFFINE_H
#define WAVE_JIT_IMPORT_EXPRTOAFFINE_H

#include "dialect/WaveDialect.h"

#include "mlir/Support/LLVM.h"
#include "wave/expr.hpp"

namespace wave::jit {

// `numVariables` bound variables ($0..) become affine dims. Min, max and comparisons are
// accepted at the top of the expression only (the attribute holds them as its kind);
// elsewhere they fail with a message.
mlir::FailureOr<dialect::ExprAttr> exprToAttr(mlir::MLIRContext* ctx, const Expr& expr,
                                        unsigned numVariables, std::string& error);

}  // namespace wave::jit

#endif
