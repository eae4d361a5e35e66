// Fuzz target: the `wave` dialect's attribute and type parsers (#wave.expr, index
// mappings, constraints, tensor and memory types). Text starting with '!' is parsed as a
// type, anything else as an attribute. Parse errors are expected; crashes, hangs and
// leaks are not.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dialect/WaveDialect.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  ctx.loadDialect<wave::dialect::WaveDialect>();
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic&) { return mlir::success(); });
  if (!text.empty() && text[0] == '!') {
    if (mlir::Type t = mlir::parseType(text, &ctx)) (void)t.getTypeID();
  } else {
    if (mlir::Attribute a = mlir::parseAttribute(text, &ctx)) (void)a.getTypeID();
  }
  return 0;
}
