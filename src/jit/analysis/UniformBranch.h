//===- UniformBranch.h - branches every thread of a workgroup takes alike -*- C++ -*-===//
//
// The distribution marks the scf.index_switch it makes of a wave.conditional: its condition has one
// value per workgroup, so all of a workgroup's threads take the same branch, and the
// barriers the passes after it place inside are reached by every thread.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_UNIFORMBRANCH_H
#define WAVE_JIT_ANALYSIS_UNIFORMBRANCH_H

#include "llvm/ADT/StringRef.h"

namespace wave::jit {

inline constexpr llvm::StringLiteral kUniformBranchAttr = "wave.uniform_branch";

}  // namespace wave::jit

#endif
