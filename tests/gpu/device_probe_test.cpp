// Finds the CUDA driver and a device through dlopen, as the runtime will: nothing links
// against libcuda, so the tests build and skip cleanly on machines without a GPU.
// Exit codes: 0 pass, 1 fail, 77 skip (no driver or no device).
#include <dlfcn.h>

#include <cstdio>

namespace {
using CUresult = int;
using CUdevice = int;
constexpr int kSkip = 77;
constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76;

template <class F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}
}  // namespace

int main() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::printf("SKIP: no CUDA driver on this machine (dlopen libcuda.so.1: %s)\n", dlerror());
    return kSkip;
  }
  auto cuInit = symbol<CUresult (*)(unsigned)>(lib, "cuInit");
  auto cuDeviceGetCount = symbol<CUresult (*)(int*)>(lib, "cuDeviceGetCount");
  auto cuDeviceGet = symbol<CUresult (*)(CUdevice*, int)>(lib, "cuDeviceGet");
  auto cuDeviceGetAttribute = symbol<CUresult (*)(int*, int, CUdevice)>(lib, "cuDeviceGetAttribute");
  auto cuDeviceGetName = symbol<CUresult (*)(char*, int, CUdevice)>(lib, "cuDeviceGetName");
  if (!cuInit || !cuDeviceGetCount || !cuDeviceGet || !cuDeviceGetAttribute || !cuDeviceGetName) {
    std::printf("FAIL: libcuda.so.1 lacks a driver API entry point\n");
    return 1;
  }
  if (CUresult r = cuInit(0); r != 0) {
    std::printf("SKIP: the CUDA driver is installed but cuInit failed (CUresult %d): no usable device\n", r);
    return kSkip;
  }
  int count = 0;
  if (cuDeviceGetCount(&count) != 0 || count == 0) {
    std::printf("SKIP: the CUDA driver reports no device\n");
    return kSkip;
  }
  CUdevice dev = 0;
  int major = 0, minor = 0;
  char name[256] = {};
  if (cuDeviceGet(&dev, 0) != 0 || cuDeviceGetAttribute(&major, kComputeCapabilityMajor, dev) != 0 ||
      cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, dev) != 0 ||
      cuDeviceGetName(name, sizeof name, dev) != 0) {
    std::printf("FAIL: device 0 could not be queried\n");
    return 1;
  }
  std::printf("device 0: %s, compute capability %d.%d (%d device(s))\n", name, major, minor, count);
  if (major < 8) {
    std::printf("FAIL: wave-cpp needs compute capability 8.0 or newer (mma.sync m16n8k16)\n");
    return 1;
  }
  return 0;
}
