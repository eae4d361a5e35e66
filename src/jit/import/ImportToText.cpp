// wave::jit::import_to_mlir: the public entry point of the import stage.
#include "import/ImportKernel.h"
#include "runtime/TargetOfOptions.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"
#include "wave/error.hpp"
#include "wave/jit.hpp"

namespace wave::jit {

std::string import_to_mlir(const graph::KernelGraph& kernel, const CompileOptions& given) {
  const CompileOptions options = withTarget(given);
  mlir::MLIRContext ctx;
  FirstError first(&ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module = importVerified(ctx, kernel, options, first);

  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  if (options.debug_locations) flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(os, flags);
  os << "\n";  // as mlir-opt ends its output, so the two compare equal
  return text;
}

}  // namespace wave::jit
