// Trace graph -> `wave` dialect: one func.func per kernel, carrying its constraints and
// symbol values as attributes, with the body's ops in order.
#ifndef WAVE_JIT_IMPORT_IMPORTKERNEL_H
#define WAVE_JIT_IMPORT_IMPORTKERNEL_H

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

}  // namespace wave::jit

#endif
