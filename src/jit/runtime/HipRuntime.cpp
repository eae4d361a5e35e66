#include "runtime/HipRuntime.h"

#include <dlfcn.h>

#include <algorithm>

namespace wave::jit::hip {

namespace {

template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

// The HIP runtime as ROCm installs it (its development link first, then each ABI version).
void* openLibrary(std::string& tried) {
  for (const char* name : {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}) {
    if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
    const char* why = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (why ? why : name);
  }
  return nullptr;
}

}  // namespace

Runtime::Runtime() {
  std::string tried;
  void* lib = openLibrary(tried);
  if (!lib) {
    reason = "no HIP runtime on this machine (" + tried + ")";
    return;
  }
  const bool bound = bind(lib, "hipInit", hipInit) && bind(lib, "hipGetDeviceCount", hipGetDeviceCount) &&
                     bind(lib, "hipModuleLoadData", hipModuleLoadData) &&
                     bind(lib, "hipModuleUnload", hipModuleUnload) &&
                     bind(lib, "hipModuleGetFunction", hipModuleGetFunction) &&
                     bind(lib, "hipModuleLaunchKernel", hipModuleLaunchKernel) &&
                     bind(lib, "hipGetDevice", hipGetDevice) && bind(lib, "hipDeviceGetAttribute", hipDeviceGetAttribute) &&
                     bind(lib, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",
                          hipModuleOccupancyMaxActiveBlocksPerMultiprocessor) &&
                     bind(lib, "hipGetErrorName", hipGetErrorName) && bind(lib, "hipGetErrorString", hipGetErrorString) &&
                     bind(lib, "hipMalloc", hipMalloc) && bind(lib, "hipFree", hipFree) &&
                     bind(lib, "hipMemset", hipMemset) && bind(lib, "hipDeviceSynchronize", hipDeviceSynchronize);
  if (!bound) {
    reason = "the HIP runtime (libamdhip64) lacks an entry point wave-cpp needs";
    return;
  }
  if (hipError_t r = hipInit(0); r != hipSuccess) {
    reason = "the HIP runtime is installed but no AMD GPU is usable: " + describe("hipInit", r);
    return;
  }
  int count = 0;
  if (hipError_t r = hipGetDeviceCount(&count); r != hipSuccess || count == 0)
    reason = "the HIP runtime reports no AMD GPU" + (r != hipSuccess ? ": " + describe("hipGetDeviceCount", r) : "");
}

const Runtime& Runtime::get() {
  static const Runtime runtime;
  return runtime;
}

std::string Runtime::describe(const char* call, hipError_t result) const {
  const char* name = hipGetErrorName ? hipGetErrorName(result) : nullptr;
  const char* text = hipGetErrorString ? hipGetErrorString(result) : nullptr;
  return std::string(call) + " (" + (name ? name : "error " + std::to_string(result)) +
         (text && (!name || std::string(text) != name) ? std::string(": ") + text : "") + ")";
}

Kernel::Kernel(const std::string& hsaco, const std::string& entry, const Fail& fail) {
  const Runtime& hip = Runtime::get();
  if (!hip.available()) fail("expected an AMD GPU to launch a code object on, but found none: " + hip.unavailable_reason());
  if (hipError_t r = hip.hipModuleLoadData(&module_, hsaco.data()); r != hipSuccess)
    fail("the HIP runtime rejects the code object: " + hip.describe("hipModuleLoadData", r));
  if (hipError_t r = hip.hipModuleGetFunction(&function_, module_, entry.c_str()); r != hipSuccess) {
    hip.hipModuleUnload(module_);
    fail("the code object has no kernel '" + entry + "': " + hip.describe("hipModuleGetFunction", r));
  }
}

Kernel::~Kernel() {
  if (module_) Runtime::get().hipModuleUnload(module_);
}

unsigned Kernel::resident(std::array<unsigned, 3> block, unsigned sharedBytes, const Fail& fail) const {
  const Runtime& hip = Runtime::get();
  // hipDeviceAttributeMultiprocessorCount in HIP's hipDeviceAttribute_t (ROCm 5 and 6).
  constexpr int kMultiprocessorCount = 63;
  int device = 0, units = 0, perUnit = 0;
  if (hipError_t r = hip.hipGetDevice(&device); r != hipSuccess) fail(hip.describe("hipGetDevice", r));
  if (hipError_t r = hip.hipDeviceGetAttribute(&units, kMultiprocessorCount, device); r != hipSuccess)
    fail(hip.describe("hipDeviceGetAttribute", r));
  const int threads = static_cast<int>(block[0] * block[1] * block[2]);
  if (hipError_t r = hip.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&perUnit, function_, threads, sharedBytes);
      r != hipSuccess)
    fail(hip.describe("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor", r));
  return static_cast<unsigned>(std::max(1, units) * std::max(1, perUnit));
}

void Kernel::launch(std::array<unsigned, 3> grid, std::array<unsigned, 3> block, std::vector<void*>& args,
                    unsigned sharedBytes, hipStream_t stream, const Fail& fail) const {
  const Runtime& hip = Runtime::get();
  if (hipError_t r = hip.hipModuleLaunchKernel(function_, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                               sharedBytes, stream, args.data(), nullptr);
      r != hipSuccess)
    fail(hip.describe("hipModuleLaunchKernel", r));
}

ZeroedBuffer::ZeroedBuffer(std::size_t bytes, const Kernel::Fail& fail) {
  const Runtime& hip = Runtime::get();
  if (!hip.available()) fail("expected an AMD GPU to allocate a workspace on, but found none: " + hip.unavailable_reason());
  if (hipError_t r = hip.hipMalloc(&address_, bytes); r != hipSuccess) fail(hip.describe("hipMalloc", r));
  // Done before returning: a launch on a non-blocking stream would not wait for it.
  const char* call = "hipMemset";
  hipError_t r = hip.hipMemset(address_, 0, bytes);
  if (r == hipSuccess) {
    call = "hipDeviceSynchronize";
    r = hip.hipDeviceSynchronize();
  }
  if (r != hipSuccess) {
    hip.hipFree(address_);
    address_ = nullptr;
    fail(hip.describe(call, r));
  }
}

ZeroedBuffer::~ZeroedBuffer() {
  if (address_) Runtime::get().hipFree(address_);
}

}  // namespace wave::jit::hip
