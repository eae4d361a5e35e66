//===- Passes.h - analyses and transforms on the wave dialect ---*- C++ -*-===//

#ifndef WAVE_JIT_TRANSFORMS_PASSES_H
#define WAVE_JIT_TRANSFORMS_PASSES_H

#include "dialect/WaveDialect.h"

// Only what the passes' declarations need: each pass includes the dialects it builds
// (the GPU and NVVM dialects' headers alone are some 200k lines).
#include "mlir/Pass/Pass.h"

namespace wave::jit {

#define GEN_PASS_DECL
#include "transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "transforms/Passes.h.inc"

}  // namespace wave::jit

#endif
