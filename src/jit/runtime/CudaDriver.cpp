#include "runtime/CudaDriver.h"

#include <dlfcn.h>

namespace wave::jit::cuda {

namespace {
template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}
}  // namespace

Driver::Driver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    reason = std::string("no CUDA driver on this machine (libcuda.so.1: ") + (why ? why : "not found") + ")";
    return;
  }
  // The _v2 entry points are the 64-bit ones the headers map the plain names to.
  const bool bound =
      bind(lib, "cuInit", cuInit) && bind(lib, "cuDriverGetVersion", cuDriverGetVersion) &&
      bind(lib, "cuDeviceGetCount", cuDeviceGetCount) && bind(lib, "cuDeviceGet", cuDeviceGet) &&
      bind(lib, "cuDeviceGetName", cuDeviceGetName) &&
      bind(lib, "cuDeviceGetAttribute", cuDeviceGetAttribute) &&
      bind(lib, "cuDeviceTotalMem_v2", cuDeviceTotalMem) &&
      bind(lib, "cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain) &&
      bind(lib, "cuCtxSetCurrent", cuCtxSetCurrent) && bind(lib, "cuCtxSynchronize", cuCtxSynchronize) &&
      bind(lib, "cuModuleLoadDataEx", cuModuleLoadDataEx) && bind(lib, "cuModuleUnload", cuModuleUnload) &&
      bind(lib, "cuModuleGetFunction", cuModuleGetFunction) && bind(lib, "cuLaunchKernel", cuLaunchKernel) &&
      bind(lib, "cuFuncSetAttribute", cuFuncSetAttribute) &&
      bind(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor", cuOccupancyMaxActiveBlocksPerMultiprocessor) &&
      bind(lib, "cuStreamCreate", cuStreamCreate) && bind(lib, "cuStreamDestroy_v2", cuStreamDestroy) &&
      bind(lib, "cuStreamSynchronize", cuStreamSynchronize) && bind(lib, "cuMemAlloc_v2", cuMemAlloc) &&
      bind(lib, "cuMemFree_v2", cuMemFree) && bind(lib, "cuMemcpyHtoD_v2", cuMemcpyHtoD) &&
      bind(lib, "cuMemcpyDtoH_v2", cuMemcpyDtoH) && bind(lib, "cuMemsetD8_v2", cuMemsetD8) &&
      bind(lib, "cuMemcpyDtoD_v2", cuMemcpyDtoD) && bind(lib, "cuEventCreate", cuEventCreate) &&
      bind(lib, "cuEventRecord", cuEventRecord) && bind(lib, "cuEventSynchronize", cuEventSynchronize) &&
      bind(lib, "cuEventElapsedTime", cuEventElapsedTime) && bind(lib, "cuEventDestroy_v2", cuEventDestroy) &&
      bind(lib, "cuGetErrorName", cuGetErrorName) && bind(lib, "cuGetErrorString", cuGetErrorString);
  if (!bound) {
    reason = "the CUDA driver (libcuda.so.1) lacks a driver API entry point wave-cpp needs";
    return;
  }
  bind(lib, "cuTensorMapEncodeTiled", cuTensorMapEncodeTiled);  // optional: see the header
  bind(lib, "cuOccupancyMaxActiveClusters", cuOccupancyMaxActiveClusters);
  bind(lib, "cuDeviceCanAccessPeer", cuDeviceCanAccessPeer);
  bind(lib, "cuMemGetAllocationGranularity", cuMemGetAllocationGranularity);
  bind(lib, "cuMemCreate", cuMemCreate);
  bind(lib, "cuMemRelease", cuMemRelease);
  bind(lib, "cuMemAddressReserve", cuMemAddressReserve);
  bind(lib, "cuMemAddressFree", cuMemAddressFree);
  bind(lib, "cuMemMap", cuMemMap);
  bind(lib, "cuMemUnmap", cuMemUnmap);
  bind(lib, "cuMemSetAccess", cuMemSetAccess);
  bind(lib, "cuPointerGetAttribute", cuPointerGetAttribute);
  bind(lib, "cuMemcpyDtoDAsync_v2", cuMemcpyDtoDAsync);
  if (!bind(lib, "cuStreamWriteValue32_v2", cuStreamWriteValue32)) bind(lib, "cuStreamWriteValue32", cuStreamWriteValue32);
  bind(lib, "cuStreamWaitEvent", cuStreamWaitEvent);
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS) {
    reason = "the CUDA driver is installed but no device is usable: " + describe("cuInit", r);
    return;
  }
  int count = 0;
  if (cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) reason = "the CUDA driver reports no device";
}

const Driver& Driver::get() {
  static const Driver driver;
  return driver;
}

std::string Driver::describe(const char* call, CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(result, &name);
  if (cuGetErrorString) cuGetErrorString(result, &text);
  return std::string(call) + " (" + (name ? name : "CUDA error " + std::to_string(result)) + ": " +
         (text ? text : "no description") + ")";
}

}  // namespace wave::jit::cuda
