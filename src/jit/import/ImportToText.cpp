// wave::jit::import_to_mlir: the public entry point of the import stage.
#include "dialect/WaveDialect.h"
#include "import/ImportKernel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "wave/error.hpp"
#include "wave/jit.hpp"

namespace wave::jit {
namespace {

// The first error diagnostic, with the op it names and the user's source line.
struct FirstError {
  std::string message, op, file;
  unsigned line = 0;

  void record(mlir::Diagnostic& diag) {
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Error || !message.empty()) return;
    message = diag.str();
    if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation())) {
      file = loc.getFilename().str();
      line = loc.getLine();
    }
    // Verifier messages read "'wave.mma' op ...": the op's name is between the quotes.
    if (message.size() > 1 && message[0] == '\'') {
      auto end = message.find('\'', 1);
      if (end != std::string::npos) op = message.substr(1, end - 1);
    }
  }
};

}  // namespace

std::string import_to_mlir(const graph::KernelGraph& kernel, const CompileOptions& options) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<dialect::WaveDialect, mlir::func::FuncDialect>();
  FirstError first;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic& diag) {
    first.record(diag);
    return mlir::success();
  });

  mlir::OwningOpRef<mlir::ModuleOp> module = importKernel(ctx, kernel, options);
  if (mlir::failed(mlir::verify(*module)))
    throw Error(kernel.name, first.op.empty() ? "import" : first.op, first.file, first.line,
                "the traced kernel does not verify: " + first.message);

  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  if (options.debug_locations) flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(os, flags);
  os << "\n";  // as mlir-opt ends its output, so the two compare equal
  return text;
}

}  // namespace wave::jit
