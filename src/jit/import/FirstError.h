//===- FirstError.h - MLIR diagnostics -> wave::Error ----------*- C++ -*-===//
//
// Ops carry the user's source locations from tracing, so the first error MLIR reports
// names the user's line; this turns it into the wave::Error users see.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_IMPORT_FIRSTERROR_H
#define WAVE_JIT_IMPORT_FIRSTERROR_H

#include <string>

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "wave/error.hpp"

namespace wave::jit {

class FirstError {
 public:
  explicit FirstError(mlir::MLIRContext* ctx)
      : handler_(ctx, [this](mlir::Diagnostic& diag) {
          record(diag);
          return mlir::success();
        }) {}

  // The error for `kernel`, `stage` ("import", "lowering", ...) saying what failed.
  Error error(const std::string& kernel, const std::string& stage, const std::string& what) const {
    return Error(kernel, op_.empty() ? stage : op_, file_, line_, what + ": " + message_);
  }

 private:
  void record(mlir::Diagnostic& diag) {
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Error || !message_.empty()) return;
    message_ = diag.str();
    if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation())) {
      file_ = loc.getFilename().str();
      line_ = loc.getLine();
    }
    // Op messages read "'wave.mma' op ...": the op's name is between the quotes.
    if (message_.size() > 1 && message_[0] == '\'') {
      auto end = message_.find('\'', 1);
      if (end != std::string::npos) op_ = message_.substr(1, end - 1);
    }
  }

  mlir::ScopedDiagnosticHandler handler_;
  std::string message_, op_, file_;
  unsigned line_ = 0;
};

}  // namespace wave::jit

#endif
