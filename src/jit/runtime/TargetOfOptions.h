//===- TargetOfOptions.h - the target a compile is for -----------*- C++ -*-===//
//
// CompileOptions::target may be left empty: the entry points of the JIT (import, pictures,
// compile) name it first, from the GPU this process finds, so that every stage and the
// kernel cache's key see one target.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_RUNTIME_TARGETOFOPTIONS_H
#define WAVE_JIT_RUNTIME_TARGETOFOPTIONS_H

#include "wave/options.hpp"
#include "wave/runtime.hpp"

namespace wave::jit {

// `options` with its target named: the one asked for, else runtime::default_target().
inline CompileOptions withTarget(CompileOptions options) {
  options.target = runtime::target_or_default(options.target);
  return options;
}

}  // namespace wave::jit

#endif
