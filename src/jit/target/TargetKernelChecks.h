//===- TargetKernelChecks.h - what each target takes of a kernel -----*- C++ -*-===//
//
// The constraints, dtypes and ops a traced kernel may use are the language's; some mean
// nothing or something else on a given GPU, or are not lowered for it yet. Each is
// honoured or rejected here, at compile(), with an error at the user's line: never
// silently ignored.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_TARGET_TARGETKERNELCHECKS_H
#define WAVE_JIT_TARGET_TARGETKERNELCHECKS_H

#include "wave/graph.hpp"
#include "wave/options.hpp"

namespace wave::jit {

// The row of `target` in wave/target.hpp's table; throws wave::Error naming `kernel`
// when there is none.
const TargetInfo& targetNamed(const std::string& target, const std::string& kernel);

// Throws wave::Error naming the constraint field or op, and its source line, when the
// kernel asks for what options.target does not do: waves of other than its threads
// (32 on NVIDIA, 64 on AMD), an MMA kind of the other vendor, a waves_per_block split the
// wave constraints do not make, vector_shapes other than 0 on a dim of one workgroup
// tile, f8 where the target has no such f8; on AMD, the ops its lowering lacks so far
// (print).
void checkKernelForTarget(const graph::KernelGraph& kernel, const CompileOptions& options);

}  // namespace wave::jit

#endif
