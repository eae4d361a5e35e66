// The GPU runtime, in plain C++ (its CUDA backend is loaded with dlopen, so programs
// build and start on machines without a GPU driver, and are told so when they ask for a
// device). Link `wave::jit` to use it.
//
//   if (std::string why; !runtime::device_available(&why)) { std::puts(why.c_str()); return; }
//   runtime::DeviceBuffer x(n * sizeof(float));
//   x.copy_from_host(host.data());
//   runtime::LoadedKernel k(ptx, "copy");
//   k.launch({blocks, 1, 1}, {128, 1, 1}, {x.arg(), y.arg(), &n});
//   runtime::synchronize();
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include "wave/dtype.hpp"

namespace wave {

struct DeviceInfo {
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  std::size_t memory_bytes = 0;
  int driver_version = 0;  // e.g. 13000 for CUDA 13.0
};

namespace runtime {

// True when a GPU can be used here; otherwise false, with the reason in `reason`.
bool device_available(std::string* reason = nullptr);
// The same for an AMD GPU, through the HIP runtime (what kernels compiled for gfx942
// launch on; the rest of this runtime, memory and streams, is CUDA's so far).
bool amd_device_available(std::string* reason = nullptr);

// Device 0. Throws wave::Error when there is none.
DeviceInfo device_info(std::source_location where = std::source_location::current());

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// Device memory, freed with the object.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes,
                        std::source_location where = std::source_location::current());
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  std::uint64_t address() const { return address_; }
  std::size_t size() const { return bytes_; }
  // The kernel argument for this buffer (a pointer to the device address).
  void* arg() { return &address_; }

  void copy_from_host(const void* src, std::source_location where = std::source_location::current());
  void copy_to_host(void* dst, std::source_location where = std::source_location::current()) const;
  void fill_bytes(std::uint8_t value, std::source_location where = std::source_location::current());
  // Device-to-device copy of min(size(), src.size()) bytes.
  void copy_from(const DeviceBuffer& src, std::source_location where = std::source_location::current());

 private:
  std::uint64_t address_ = 0;
  std::size_t bytes_ = 0;
};

// A queue of work on device 0 (a CUDA stream): launches on one stream run in order,
// launches on different streams may overlap. Work given no stream goes to the default
// (null) stream.
class Stream {
 public:
  explicit Stream(std::source_location where = std::source_location::current());
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Waits for the work queued on this stream; reports an error a kernel raised.
  void synchronize(std::source_location where = std::source_location::current()) const;
  void* handle() const { return handle_; }

 private:
  void* handle_ = nullptr;
};

// A PTX module loaded on device 0, and one kernel of it.
class LoadedKernel {
 public:
  LoadedKernel(const std::string& ptx, const std::string& entry,
               std::source_location where = std::source_location::current());
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // Queues the kernel on `stream` (null: the default stream) with `shared_bytes` of
  // dynamic shared memory; `args` point at each argument's value, in order.
  void launch(Dim3 grid, Dim3 block, const std::vector<void*>& args,
              std::uint32_t shared_bytes = 0, const Stream* stream = nullptr,
              std::source_location where = std::source_location::current()) const;

  // How many workgroups of `block` threads with `shared_bytes` of dynamic shared memory
  // an SM holds at once (the driver's occupancy calculator).
  int resident_per_sm(Dim3 block, std::uint32_t shared_bytes,
                      std::source_location where = std::source_location::current()) const;

  // How many clusters of `cluster` such workgroups (the kernel's compile-time cluster
  // size) the GPU runs at once: fewer than the SMs / cluster where a cluster must fit on
  // one GPC. 0 where the driver cannot say.
  int resident_clusters(Dim3 block, std::uint32_t shared_bytes, unsigned cluster,
                        std::source_location where = std::source_location::current()) const;

 private:
  // Lets the kernel take `shared_bytes` of dynamic shared memory.
  void allow_shared(std::uint32_t shared_bytes, std::source_location where) const;

  void* module_ = nullptr;
  void* function_ = nullptr;
  std::string entry_;
  // The dynamic shared memory the kernel may take, raised on the launch that needs more.
  mutable std::atomic<std::uint32_t> dynamic_shared_limit_{0};
};

// A TMA tensor map (the driver's CUtensorMap): 128 opaque bytes, 64-byte aligned, passed
// to a kernel by value.
struct alignas(64) TensorMap {
  std::uint64_t words[16] = {};
};

// The tiled tensor map of a row-major tensor of `dtype` at `address` whose dims (outermost
// first) have `sizes`: boxes of `box` elements per dim, stored in shared memory swizzled
// by `swizzle` bytes (0, 32, 64 or 128), zeros read past each dim's end. Throws
// wave::Error when the driver cannot encode it (no CUDA 12 driver, strides or box it rejects).
TensorMap encode_tensor_map(const void* address, DataType dtype, const std::vector<std::int64_t>& sizes,
                            const std::vector<unsigned>& box, unsigned swizzle,
                            std::source_location where = std::source_location::current());

// Milliseconds the GPU spent on the work `enqueue` queues, measured with device events.
float elapsed_ms(const std::function<void()>& enqueue,
                 std::source_location where = std::source_location::current());

// Waits for all queued work; reports an error a kernel raised.
void synchronize(std::source_location where = std::source_location::current());

}  // namespace runtime
}  // namespace wave
