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
// The same for an AMD GPU, through the HIP runtime (what kernels compiled for gfx942 and
// gfx950 launch on, on LaunchOptions::hip_stream; the rest of this runtime, memory and its
// Stream class, is CUDA's so far).
bool amd_device_available(std::string* reason = nullptr);

// The target (wave/target.hpp) of the GPU this process finds, which a CompileOptions::target
// left empty compiles for: the CUDA driver's device 0 (compute capability 9.0: sm_90a; later
// ones: sm_90, whose PTX their driver compiles; 8.x: sm_80), else the AMD GPU the HIP
// runtime finds (gfx942 or gfx950, by the kernel driver's topology); sm_90a where there is
// none, or none wave-cpp compiles for. Looked for once.
std::string default_target();

// The target a compile whose CompileOptions::target is `asked` is for: `asked`, or where it
// is empty, default_target().
inline std::string target_or_default(const std::string& asked) { return asked.empty() ? default_target() : asked; }

// How many GPUs this process can use (ordinals 0..count-1). Throws wave::Error when there
// is none.
int device_count(std::source_location where = std::source_location::current());

// Device `ordinal` (0 by default). Throws wave::Error when there is none.
DeviceInfo device_info(int ordinal, std::source_location where = std::source_location::current());
inline DeviceInfo device_info(std::source_location where = std::source_location::current()) {
  return device_info(0, where);
}

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// Device memory, freed with the object.
class DeviceBuffer {
 public:
  // On device 0.
  explicit DeviceBuffer(std::size_t bytes, std::source_location where = std::source_location::current())
      : DeviceBuffer(bytes, 0, where) {}
  // On device `device`.
  DeviceBuffer(std::size_t bytes, int device, std::source_location where = std::source_location::current());
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  std::uint64_t address() const { return address_; }
  std::size_t size() const { return bytes_; }
  int device() const { return device_; }
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
  int device_ = 0;
};

// Memory every rank of a node addresses, for kernels spread over several GPUs
// (docs/distributed.md): one range of device addresses holding one slot per rank, rank r's
// at address() + r * slot_bytes(), in the memory of device `devices[r]`, with every device
// of `devices` allowed to read and write every slot (peer access, through the driver's
// virtual memory). A kernel sees it as one tensor whose outermost dim is the rank, so a
// peer's data is an ordinary index away. A slot holds `bytes_per_rank` rounded up to the
// driver's mapping granularity (2 MiB on Hopper). Ranks on one device (emulated ranks,
// which test the logic on one GPU) are slots of one allocation, sized the same.
class SymmetricBuffer {
 public:
  SymmetricBuffer(std::size_t bytes_per_rank, std::vector<int> devices,
                  std::source_location where = std::source_location::current());
  ~SymmetricBuffer();
  SymmetricBuffer(const SymmetricBuffer&) = delete;
  SymmetricBuffer& operator=(const SymmetricBuffer&) = delete;

  std::uint64_t address() const { return address_; }
  int ranks() const { return static_cast<int>(devices_.size()); }
  const std::vector<int>& devices() const { return devices_; }
  std::size_t slot_bytes() const { return slot_; }
  const void* slot(int rank) const { return reinterpret_cast<const void*>(address_ + slot_ * static_cast<std::size_t>(rank)); }

  // Host copies of the first `bytes` of rank `rank`'s slot.
  void copy_from_host(int rank, const void* src, std::size_t bytes,
                      std::source_location where = std::source_location::current());
  void copy_to_host(int rank, void* dst, std::size_t bytes,
                    std::source_location where = std::source_location::current()) const;
  // Sets every byte of every slot.
  void fill_bytes(std::uint8_t value, std::source_location where = std::source_location::current());

 private:
  void release() noexcept;

  std::uint64_t address_ = 0;
  std::size_t slot_ = 0;
  std::vector<int> devices_;
  std::vector<unsigned long long> handles_;  // one physical allocation per rank (real ranks)
  bool emulated_ = false;                    // every rank on one device: one plain allocation
};

// How a stream's work orders against the device's default stream: a `synchronized` stream's
// work waits for the default stream's earlier work and holds back its later work (CUDA's
// blocking streams); an `independent` one's does neither, as a copy stream feeding a kernel
// that waits for its flags must (else the kernel would wait for copies queued after it).
enum class StreamKind { synchronized, independent };

// A queue of work on one device (a CUDA stream): launches on one stream run in order,
// launches on different streams may overlap. Work given no stream goes to device 0's
// default (null) stream.
class Stream {
 public:
  // On device 0.
  explicit Stream(std::source_location where = std::source_location::current()) : Stream(0, where) {}
  explicit Stream(int device, std::source_location where = std::source_location::current())
      : Stream(device, StreamKind::synchronized, where) {}
  Stream(int device, StreamKind kind, std::source_location where = std::source_location::current());
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Waits for the work queued on this stream; reports an error a kernel raised.
  void synchronize(std::source_location where = std::source_location::current()) const;
  // Work queued on this stream from now on starts after the work queued on `other` so far
  // (any device's stream).
  void wait_for(const Stream& other, std::source_location where = std::source_location::current()) const;
  void* handle() const { return handle_; }
  int device() const { return device_; }

 private:
  void* handle_ = nullptr;
  int device_ = 0;
};

// A PTX module loaded on one device, and one kernel of it.
class LoadedKernel {
 public:
  // On device 0.
  LoadedKernel(const std::string& ptx, const std::string& entry,
               std::source_location where = std::source_location::current())
      : LoadedKernel(ptx, entry, 0, where) {}
  LoadedKernel(const std::string& ptx, const std::string& entry, int device,
               std::source_location where = std::source_location::current());
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // Queues the kernel on `stream` (its device's; null: the default stream) with `shared_bytes` of
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
  int device_ = 0;
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

// The same over several devices (the ranks of a distributed kernel): `enqueue` queues
// work on their default streams; the longest device's milliseconds.
float elapsed_ms(const std::vector<int>& devices, const std::function<void()>& enqueue,
                 std::source_location where = std::source_location::current());

// Queues a copy of `bytes` from `src` to `dst` on `stream`: device memory, either of them
// another GPU's that the stream's device reaches (a peer allocation, a SymmetricBuffer's
// slot); done by the copy engines, no kernel.
void copy_async(void* dst, const void* src, std::size_t bytes, const Stream& stream,
                std::source_location where = std::source_location::current());

// Queues a store of `value` to the 32-bit flag at `flag` (device memory) on `stream`, after
// everything queued there before it is written and visible: a kernel's wait_at_least on
// the flag then reads what that work wrote. A stream memory operation, no kernel.
void set_flag_async(void* flag, std::uint32_t value, const Stream& stream,
                    std::source_location where = std::source_location::current());

// Waits for all work queued on device 0 (on `device`); reports an error a kernel raised.
void synchronize(std::source_location where = std::source_location::current());
void synchronize(int device, std::source_location where = std::source_location::current());

}  // namespace runtime
}  // namespace wave
