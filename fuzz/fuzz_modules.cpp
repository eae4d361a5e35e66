// Fuzz target: whole `wave` modules through parse, verify and the full pipeline to PTX,
// as a hand-edited IR file takes (CompileOptions::override_dir). Rejections are wave::Error;
// crashes, hangs and leaks are findings.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dialect/WaveDialect.h"
#include "import/FirstError.h"
#include "target/CompileModule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  ctx.loadDialect<wave::dialect::WaveDialect, mlir::func::FuncDialect>();
  wave::jit::FirstError first(&ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!module || mlir::failed(mlir::verify(*module))) return 0;
  try {
    (void)wave::jit::compileWaveModule(*module, "fuzzed", wave::CompileOptions{.cache = false}, first);
  } catch (const wave::Error&) {
  }
  return 0;
}
