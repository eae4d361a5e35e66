// wave::runtime on the CUDA driver: each device's primary context, made current on first use.
#include "runtime/DeviceContext.h"
#include "runtime/HipRuntime.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wave/error.hpp"
#include "wave/runtime.hpp"
#include "wave/target.hpp"

namespace wave::runtime {
namespace {

using namespace jit::cuda;

[[noreturn]] void fail(const std::source_location& where, const std::string& message) {
  throw Error("", "runtime", where, message);
}

}  // namespace

const Driver& ready(const std::source_location& where, int device) {
  const Driver& d = Driver::get();
  if (!d.available()) fail(where, "expected a GPU, but found " + d.unavailable_reason());
  static const int count = [&] {
    int n = 0;
    d.cuDeviceGetCount(&n);
    return n;
  }();
  if (device < 0 || device >= count)
    fail(where, "device " + std::to_string(device) + ": " +
                    expected_found("a device ordinal below " + std::to_string(count) + " (the GPUs here)",
                                   std::to_string(device)));
  static std::mutex mutex;
  static std::vector<CUcontext> contexts(static_cast<std::size_t>(count), nullptr);
  thread_local int current = -1;
  if (current == device) return d;
  CUcontext context = nullptr;
  {
    std::lock_guard lock(mutex);
    CUcontext& slot = contexts[static_cast<std::size_t>(device)];
    if (!slot) {
      CUdevice handle = 0;
      if (CUresult r = d.cuDeviceGet(&handle, device); r != CUDA_SUCCESS) fail(where, d.describe("cuDeviceGet", r));
      if (CUresult r = d.cuDevicePrimaryCtxRetain(&slot, handle); r != CUDA_SUCCESS)
        fail(where, d.describe("cuDevicePrimaryCtxRetain", r));
    }
    context = slot;
  }
  if (CUresult r = d.cuCtxSetCurrent(context); r != CUDA_SUCCESS) fail(where, d.describe("cuCtxSetCurrent", r));
  current = device;
  return d;
}

void check(const Driver& d, CUresult r, const char* call, const std::source_location& where) {
  if (r != CUDA_SUCCESS) fail(where, d.describe(call, r));
}

bool device_available(std::string* reason) {
  const Driver& d = Driver::get();
  if (reason) *reason = d.unavailable_reason();
  return d.available();
}

namespace {

// The target of an NVIDIA GPU of compute capability major.minor; none for one older than
// Ampere.
std::optional<std::string> nvidiaTarget(int major, int minor) {
  if (major == 9 && minor == 0) return "sm_90a";
  if (major >= 9) return "sm_90";  // (sm_90a's instructions are Hopper's alone)
  if (major == 8) return "sm_80";
  return std::nullopt;
}

// The first GPU node's target in the AMD kernel driver's topology: its gfx_target_version
// (major * 10000 + minor * 100 + stepping, e.g. 90402) named as LLVM names it (gfx942).
std::optional<std::string> amdTarget() {
  for (int node = 0;; ++node) {
    std::ifstream properties("/sys/class/kfd/kfd/topology/nodes/" + std::to_string(node) + "/properties");
    if (!properties) return std::nullopt;
    std::string key;
    long long value = 0;
    while (properties >> key >> value) {
      if (key != "gfx_target_version" || value == 0) continue;  // (0: a CPU node)
      char name[32];
      std::snprintf(name, sizeof name, "gfx%lld%llx%llx", value / 10000, value / 100 % 100, value % 100);
      if (find_target(name)) return std::string(name);
    }
  }
}

}  // namespace

std::string default_target() {
  static const std::string found = []() -> std::string {
    const Driver& d = Driver::get();
    int count = 0;
    CUdevice device = 0;
    int major = 0, minor = 0;
    if (d.available() && d.cuDeviceGetCount(&count) == CUDA_SUCCESS && count > 0 &&
        d.cuDeviceGet(&device, 0) == CUDA_SUCCESS &&
        d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) == CUDA_SUCCESS &&
        d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) == CUDA_SUCCESS)
      if (std::optional<std::string> target = nvidiaTarget(major, minor)) return *target;
    if (amd_device_available())
      if (std::optional<std::string> target = amdTarget()) return *target;
    return "sm_90a";
  }();
  return found;
}

bool amd_device_available(std::string* reason) {
  const jit::hip::Runtime& hip = jit::hip::Runtime::get();
  if (reason) *reason = hip.unavailable_reason();
  return hip.available();
}

int device_count(std::source_location where) {
  const Driver& d = ready(where);
  int count = 0;
  check(d, d.cuDeviceGetCount(&count), "cuDeviceGetCount", where);
  return count;
}

DeviceInfo device_info(int ordinal, std::source_location where) {
  const Driver& d = ready(where, ordinal);
  DeviceInfo info;
  CUdevice device = 0;
  check(d, d.cuDeviceGet(&device, ordinal), "cuDeviceGet", where);
  char name[256] = {};
  check(d, d.cuDeviceGetName(name, sizeof name, device), "cuDeviceGetName", where);
  info.name = name;
  check(d, d.cuDeviceGetAttribute(&info.compute_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
        "cuDeviceGetAttribute", where);
  check(d, d.cuDeviceGetAttribute(&info.compute_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
        "cuDeviceGetAttribute", where);
  check(d, d.cuDeviceGetAttribute(&info.multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
        "cuDeviceGetAttribute", where);
  check(d, d.cuDeviceTotalMem(&info.memory_bytes, device), "cuDeviceTotalMem", where);
  check(d, d.cuDriverGetVersion(&info.driver_version), "cuDriverGetVersion", where);
  return info;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, int device, std::source_location where)
    : bytes_(bytes), device_(device) {
  const Driver& d = ready(where, device);
  if (bytes == 0) fail(where, "DeviceBuffer: expected a positive size, but found 0 bytes");
  CUdeviceptr ptr = 0;
  if (CUresult r = d.cuMemAlloc(&ptr, bytes); r != CUDA_SUCCESS)
    fail(where, "DeviceBuffer of " + std::to_string(bytes) + " bytes: " + d.describe("cuMemAlloc", r));
  address_ = ptr;
}

DeviceBuffer::~DeviceBuffer() {
  if (address_) Driver::get().cuMemFree(address_);  // (unified addressing: from any context)
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : address_(std::exchange(other.address_, 0)), bytes_(std::exchange(other.bytes_, 0)), device_(other.device_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  std::swap(address_, other.address_);
  std::swap(bytes_, other.bytes_);
  std::swap(device_, other.device_);
  return *this;
}

void DeviceBuffer::copy_from_host(const void* src, std::source_location where) {
  const Driver& d = ready(where, device_);
  check(d, d.cuMemcpyHtoD(address_, src, bytes_), "cuMemcpyHtoD", where);
}

void DeviceBuffer::copy_to_host(void* dst, std::source_location where) const {
  const Driver& d = ready(where, device_);
  check(d, d.cuMemcpyDtoH(dst, address_, bytes_), "cuMemcpyDtoH", where);
}

void DeviceBuffer::fill_bytes(std::uint8_t value, std::source_location where) {
  const Driver& d = ready(where, device_);
  check(d, d.cuMemsetD8(address_, value, bytes_), "cuMemsetD8", where);
}

void DeviceBuffer::copy_from(const DeviceBuffer& src, std::source_location where) {
  const Driver& d = ready(where, device_);
  check(d, d.cuMemcpyDtoD(address_, src.address_, std::min(bytes_, src.bytes_)), "cuMemcpyDtoD", where);
}

LoadedKernel::LoadedKernel(const std::string& ptx, const std::string& entry, int device, std::source_location where)
    : entry_(entry), device_(device) {
  const Driver& d = ready(where, device);
  // The driver's JIT explains a rejected module in its error log.
  std::vector<char> log(8192, '\0');
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size()))};
  CUmodule module = nullptr;
  if (CUresult r = d.cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values); r != CUDA_SUCCESS)
    fail(where, "loading the PTX of '" + entry + "': " + d.describe("cuModuleLoadDataEx", r) + "\n" + log.data());
  module_ = module;
  CUfunction function = nullptr;
  if (CUresult r = d.cuModuleGetFunction(&function, module, entry.c_str()); r != CUDA_SUCCESS)
    fail(where, "expected a kernel named '" + entry + "' in the module, but found none: " +
                    d.describe("cuModuleGetFunction", r));
  function_ = function;
}

LoadedKernel::~LoadedKernel() {
  if (module_) Driver::get().cuModuleUnload(static_cast<CUmodule>(module_));
}

void LoadedKernel::allow_shared(std::uint32_t shared_bytes, std::source_location where) const {
  // Without opting in, static and dynamic shared memory together get 48 KiB, and the
  // generated PTX declares its dynamic array as a (1-byte) static one: every kernel with
  // dynamic shared memory opts in, once per size it grows to.
  if (shared_bytes <= dynamic_shared_limit_.load(std::memory_order_relaxed)) return;
  const Driver& d = ready(where, device_);
  check(d,
        d.cuFuncSetAttribute(static_cast<CUfunction>(function_), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(shared_bytes)),
        "cuFuncSetAttribute", where);
  dynamic_shared_limit_.store(shared_bytes, std::memory_order_relaxed);
}

void LoadedKernel::launch(Dim3 grid, Dim3 block, const std::vector<void*>& args,
                          std::uint32_t shared_bytes, const Stream* stream, std::source_location where) const {
  if (stream && stream->device() != device_)
    fail(where, "launching '" + entry_ + "': " +
                    expected_found("a stream of device " + std::to_string(device_) + " (where the kernel is loaded)",
                                   "one of device " + std::to_string(stream->device())));
  const Driver& d = ready(where, device_);
  std::vector<void*> params(args);  // the driver takes a mutable array
  allow_shared(shared_bytes, where);
  check(d,
        d.cuLaunchKernel(static_cast<CUfunction>(function_), grid.x, grid.y, grid.z, block.x, block.y,
                         block.z, shared_bytes, stream ? static_cast<CUstream>(stream->handle()) : nullptr,
                         params.data(), nullptr),
        "cuLaunchKernel", where);
}

int LoadedKernel::resident_per_sm(Dim3 block, std::uint32_t shared_bytes, std::source_location where) const {
  const Driver& d = ready(where, device_);
  allow_shared(shared_bytes, where);  // (the calculator counts none past the kernel's limit)
  int count = 0;
  check(d,
        d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&count, static_cast<CUfunction>(function_),
                                                      static_cast<int>(block.x * block.y * block.z), shared_bytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", where);
  return count;
}

int LoadedKernel::resident_clusters(Dim3 block, std::uint32_t shared_bytes, unsigned cluster,
                                    std::source_location where) const {
  const Driver& d = ready(where, device_);
  if (!d.cuOccupancyMaxActiveClusters) return 0;
  allow_shared(shared_bytes, where);
  // (One cluster's grid; the cluster dims are the kernel's own, .reqnctapercluster.)
  const CUlaunchConfig config{cluster, 1, 1, block.x, block.y, block.z, shared_bytes, nullptr, nullptr, 0};
  int count = 0;
  check(d, d.cuOccupancyMaxActiveClusters(&count, static_cast<CUfunction>(function_), &config),
        "cuOccupancyMaxActiveClusters", where);
  return count;
}

Stream::Stream(int device, StreamKind kind, std::source_location where) : device_(device) {
  const Driver& d = ready(where, device);
  CUstream stream = nullptr;
  const unsigned flags = kind == StreamKind::independent ? CU_STREAM_NON_BLOCKING : 0;
  check(d, d.cuStreamCreate(&stream, flags), "cuStreamCreate", where);
  handle_ = stream;
}

namespace {
// An optional driver entry point, or an error naming what needs it.
template <class F>
F entry(F fn, const char* name, const std::source_location& where) {
  if (!fn)
    fail(where, expected_found("a CUDA driver with " + std::string(name), "one without it"));
  return fn;
}
}  // namespace

void Stream::wait_for(const Stream& other, std::source_location where) const {
  const Driver& d = ready(where, other.device_);
  CUevent done = nullptr;
  check(d, d.cuEventCreate(&done, CU_EVENT_DISABLE_TIMING), "cuEventCreate", where);
  check(d, d.cuEventRecord(done, static_cast<CUstream>(other.handle_)), "cuEventRecord", where);
  ready(where, device_);
  check(d, entry(d.cuStreamWaitEvent, "cuStreamWaitEvent", where)(static_cast<CUstream>(handle_), done, 0),
        "cuStreamWaitEvent", where);
  d.cuEventDestroy(done);  // (released once the wait has passed it)
}

void copy_async(void* dst, const void* src, std::size_t bytes, const Stream& stream, std::source_location where) {
  const Driver& d = ready(where, stream.device());
  check(d,
        entry(d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync", where)(reinterpret_cast<CUdeviceptr>(dst),
                                                                reinterpret_cast<CUdeviceptr>(src), bytes,
                                                                static_cast<CUstream>(stream.handle())),
        "cuMemcpyDtoDAsync", where);
}

void set_flag_async(void* flag, std::uint32_t value, const Stream& stream, std::source_location where) {
  const Driver& d = ready(where, stream.device());
  // Flags 0: the store waits for the stream's earlier writes (no NO_MEMORY_BARRIER).
  check(d,
        entry(d.cuStreamWriteValue32, "cuStreamWriteValue32", where)(static_cast<CUstream>(stream.handle()),
                                                                      reinterpret_cast<CUdeviceptr>(flag), value, 0),
        "cuStreamWriteValue32", where);
}

Stream::~Stream() {
  if (handle_) Driver::get().cuStreamDestroy(static_cast<CUstream>(handle_));
}

void Stream::synchronize(std::source_location where) const {
  const Driver& d = ready(where, device_);
  check(d, d.cuStreamSynchronize(static_cast<CUstream>(handle_)), "cuStreamSynchronize", where);
}

float elapsed_ms(const std::function<void()>& enqueue, std::source_location where) {
  const Driver& d = ready(where);
  CUevent start = nullptr, stop = nullptr;
  check(d, d.cuEventCreate(&start, 0), "cuEventCreate", where);
  check(d, d.cuEventCreate(&stop, 0), "cuEventCreate", where);
  check(d, d.cuEventRecord(start, nullptr), "cuEventRecord", where);
  enqueue();
  check(d, d.cuEventRecord(stop, nullptr), "cuEventRecord", where);
  check(d, d.cuEventSynchronize(stop), "cuEventSynchronize", where);
  float ms = 0;
  check(d, d.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime", where);
  d.cuEventDestroy(start);
  d.cuEventDestroy(stop);
  return ms;
}

float elapsed_ms(const std::vector<int>& devices, const std::function<void()>& enqueue, std::source_location where) {
  std::vector<int> distinct(devices);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<CUevent> starts(distinct.size()), stops(distinct.size());
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    const Driver& d = ready(where, distinct[i]);
    check(d, d.cuEventCreate(&starts[i], 0), "cuEventCreate", where);
    check(d, d.cuEventCreate(&stops[i], 0), "cuEventCreate", where);
    check(d, d.cuEventRecord(starts[i], nullptr), "cuEventRecord", where);
  }
  enqueue();
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    const Driver& d = ready(where, distinct[i]);
    check(d, d.cuEventRecord(stops[i], nullptr), "cuEventRecord", where);
  }
  float longest = 0;
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    const Driver& d = ready(where, distinct[i]);
    check(d, d.cuEventSynchronize(stops[i]), "cuEventSynchronize", where);
    float ms = 0;
    check(d, d.cuEventElapsedTime(&ms, starts[i], stops[i]), "cuEventElapsedTime", where);
    longest = std::max(longest, ms);
    d.cuEventDestroy(starts[i]);
    d.cuEventDestroy(stops[i]);
  }
  return longest;
}

void synchronize(std::source_location where) { synchronize(0, where); }

void synchronize(int device, std::source_location where) {
  const Driver& d = ready(where, device);
  check(d, d.cuCtxSynchronize(), "cuCtxSynchronize", where);
}

}  // namespace wave::runtime
