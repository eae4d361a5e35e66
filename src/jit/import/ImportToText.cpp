// wave::jit::import_to_mlir: the public entry point of the import stage.
#include "dialect/WaveDialect.h"
#include "import/FirstError.h"
#include "import/ImportKernel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "wave/error.hpp"
#include "wave/jit.hpp"

namespace wave::jit {

std::string import_to_mlir(const graph::KernelGraph& kernel, const CompileOptions& options) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<dialect::WaveDialect, mlir::func::FuncDialect>();
  FirstError first(&ctx);

  mlir::OwningOpRef<mlir::ModuleOp> module = importKernel(ctx, kernel, options);
  if (mlir::failed(mlir::verify(*module)))
    throw first.error(kernel.name, "import", "the traced kernel does not verify");

  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  if (options.debug_locations) flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(os, flags);
  os << "\n";  // as mlir-opt ends its output, so the two compare equal
  return text;
}

}  // namespace wave::jit
