// Trace graph -> `wave` dialect: one func.func per kernel, carrying its constraints and
// symbol values as attributes, with the body's ops in order.
#ifndef WAVE_JIT_IMPORT_IMPORTKERNEL_H
#define WAVE_JIT_IMPORT_IMPORTKERNEL_H

#include "import/FirstError.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "wave/graph.hpp"
#include "wave/options.hpp"

namespace wave::jit {

// Builds the module; ops carry the user's source locations. Throws wave::Error for a graph
// the dialect cannot express. The module is not verified here.
mlir::OwningOpRef<mlir::ModuleOp> importKernel(mlir::MLIRContext& ctx,
                                               const graph::KernelGraph& kernel,
                                               const CompileOptions& options);

// Loads the dialects import needs, imports and verifies: the start of every pipeline. A
// verifier error becomes the wave::Error that `first` (installed on `ctx`) recorded.
mlir::OwningOpRef<mlir::ModuleOp> importVerified(mlir::MLIRContext& ctx,
                                                 const graph::KernelGraph& kernel,
                                                 const CompileOptions& options,
                                                 const FirstError& first);

}  // namespace wave::jit

#endif
