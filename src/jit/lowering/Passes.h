//===- Passes.h - passes that lower the wave dialect -----------*- C++ -*-===//

#ifndef WAVE_JIT_LOWERING_PASSES_H
#define WAVE_JIT_LOWERING_PASSES_H

// Only what the passes' declarations need: each pass includes the dialects it builds.
#include "mlir/Pass/Pass.h"

namespace wave::jit {

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

}  // namespace wave::jit

#endif
