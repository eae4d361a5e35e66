//===- HipRuntime.h - the HIP runtime, loaded at run time ------*- C++ -*-===//
//
// The AMD back end of the runtime, the CUDA driver's twin (CudaDriver.h): wave-cpp never
// links against libamdhip64; it loads it when a kernel compiled for an AMD target is
// launched, and says why not where it cannot (no library, no device). Only what a launch
// needs is here: code objects, kernels, a persistent grid's size (compute units and
// occupancy), launches on a stream, and the workspace a stream-K kernel keeps
// its counters and partial sums in. Tensors' memory comes from the caller (hipMalloc'ed
// pointers, a ROCm PyTorch tensor's DLPack data).
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_RUNTIME_HIPRUNTIME_H
#define WAVE_JIT_RUNTIME_HIPRUNTIME_H

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace wave::jit::hip {

using hipError_t = int;
using hipModule_t = struct ihipModule_t*;
using hipFunction_t = struct ihipModuleSymbol_t*;
using hipStream_t = struct ihipStream_t*;

constexpr hipError_t hipSuccess = 0;

struct Runtime {
  // Loads libamdhip64 once and initializes it. Never throws: `available()` says whether
  // it worked and `unavailable_reason()` why not.
  static const Runtime& get();

  bool available() const { return reason.empty(); }
  const std::string& unavailable_reason() const { return reason; }

  // "hipModuleLoadData (hipErrorInvalidImage: ...)" for a failed call.
  std::string describe(const char* call, hipError_t result) const;

  hipError_t (*hipInit)(unsigned) = nullptr;
  hipError_t (*hipGetDeviceCount)(int*) = nullptr;
  hipError_t (*hipModuleLoadData)(hipModule_t*, const void*) = nullptr;
  hipError_t (*hipModuleUnload)(hipModule_t) = nullptr;
  hipError_t (*hipModuleGetFunction)(hipFunction_t*, hipModule_t, const char*) = nullptr;
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void**, void**) = nullptr;
  hipError_t (*hipGetDevice)(int*) = nullptr;
  hipError_t (*hipDeviceGetAttribute)(int*, int, int) = nullptr;
  hipError_t (*hipModuleOccupancyMaxActiveBlocksPerMultiprocessor)(int*, hipFunction_t, int, std::size_t) = nullptr;
  hipError_t (*hipMalloc)(void**, std::size_t) = nullptr;
  hipError_t (*hipFree)(void*) = nullptr;
  hipError_t (*hipMemset)(void*, int, std::size_t) = nullptr;
  hipError_t (*hipDeviceSynchronize)() = nullptr;
  const char* (*hipGetErrorName)(hipError_t) = nullptr;
  const char* (*hipGetErrorString)(hipError_t) = nullptr;

 private:
  Runtime();
  std::string reason;
};

// A kernel of a code object (HSACO), loaded into device 0 on first use.
class Kernel {
 public:
  // `fail` reports an error (and throws): the caller's, naming its kernel and line.
  using Fail = std::function<void(const std::string&)>;
  Kernel(const std::string& hsaco, const std::string& entry, const Fail& fail);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // The workgroups of `block` threads and `sharedBytes` of LDS the device holds at once
  // (its compute units times those each holds, at least one): a persistent grid's size.
  unsigned resident(std::array<unsigned, 3> block, unsigned sharedBytes, const Fail& fail) const;

  // On `stream` (null: the default stream), with each parameter's address in `args`.
  void launch(std::array<unsigned, 3> grid, std::array<unsigned, 3> block, std::vector<void*>& args,
              unsigned sharedBytes, hipStream_t stream, const Fail& fail) const;

 private:
  hipModule_t module_ = nullptr;
  hipFunction_t function_ = nullptr;
};

// Device memory of device 0, zeroed before any later launch on any stream reads it (a
// kernel's workspace: it leaves it zero again).
class ZeroedBuffer {
 public:
  ZeroedBuffer(std::size_t bytes, const Kernel::Fail& fail);
  ~ZeroedBuffer();
  ZeroedBuffer(const ZeroedBuffer&) = delete;
  ZeroedBuffer& operator=(const ZeroedBuffer&) = delete;
  void* address() const { return address_; }

 private:
  void* address_ = nullptr;
};

}  // namespace wave::jit::hip

#endif
