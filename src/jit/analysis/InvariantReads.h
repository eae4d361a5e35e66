//===- InvariantReads.h - reads a loop repeats unchanged -------*- C++ -*-===//
//
// Inside `wave.iterate "K2"`, a value with the dim K2 is the current tile's; a read whose
// memory and value lack the loop's dim reads the same elements in every iteration
// (attention's queries, read beside each key tile). Schedules do such reads once:
// wave-hoist-invariant-reads into registers before the loop, wave-promote-shared into a
// shared tile filled before it.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_INVARIANTREADS_H
#define WAVE_JIT_ANALYSIS_INVARIANTREADS_H

#include "dialect/WaveDialect.h"

namespace wave::jit {

// Whether `read`, in the body of `loop`, reads the same elements in every iteration: its
// memory is not indexed by the loop's dim (nor is its value), nothing it takes comes from
// the loop, and the loop writes no memory it reads.
bool isLoopInvariant(dialect::ReadOp read, dialect::IterateOp loop);

}  // namespace wave::jit

#endif
