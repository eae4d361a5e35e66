//===- DeviceContext.h - the driver, made ready for one device --*- C++ -*-===//
//
// One process drives every GPU of the node, each through its primary context; a call for
// a device makes that context current on the calling thread first.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_RUNTIME_DEVICECONTEXT_H
#define WAVE_JIT_RUNTIME_DEVICECONTEXT_H

#include <source_location>
#include <string>

#include "runtime/CudaDriver.h"

namespace wave::runtime {

// The driver, with `device`'s primary context current on this thread (retained on first
// use). Throws wave::Error naming `where` when there is no driver or no such device.
const jit::cuda::Driver& ready(const std::source_location& where, int device = 0);

// Throws wave::Error naming `where` when `r` is a failure of `call`.
void check(const jit::cuda::Driver& d, jit::cuda::CUresult r, const char* call, const std::source_location& where);

}  // namespace wave::runtime

#endif
