//===- NvidiaKernelChecks.h - what the NVIDIA target takes of a kernel -*- C++ -*-===//
//
// The constraints and dtypes a traced kernel may use are the language's; some mean
// nothing or something else on an NVIDIA GPU. Each is honoured or rejected here, at
// compile(), with an error at the user's line: never silently ignored.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TARGET_NVIDIAKERNELCHECKS_H
#define WAVE_JIT_TARGET_NVIDIAKERNELCHECKS_H

#include "wave/graph.hpp"
#include "wave/options.hpp"

namespace wave::jit {

// Throws wave::Error naming the constraint field or op, and its source line, when the
// kernel asks for what the NVIDIA target does not do: waves of other than 32 threads,
// a waves_per_block split the wave constraints do not make, vector_shapes other than 0
// on a dim of one workgroup tile, f8 dtypes.
void checkKernelForNvidia(const graph::KernelGraph& kernel, const CompileOptions& options);

}  // namespace wave::jit

#endif
