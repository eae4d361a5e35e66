// SymmetricBuffer: one range of device addresses over every rank's slot, each slot in its
// rank's device memory (the driver's virtual memory calls), mapped for every device.
#include <algorithm>
#include <mutex>
#include <set>

#include "runtime/DeviceContext.h"
#include "wave/distributed.hpp"
#include "wave/error.hpp"
#include "wave/runtime.hpp"

namespace wave::runtime {
namespace {

using namespace jit::cuda;

[[noreturn]] void fail(const std::source_location& where, const std::string& message) {
  throw Error("", "SymmetricBuffer", where, message);
}

CUmemAllocationProp pinnedOn(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, device};
  return prop;
}

// The driver's mapping granularity on `device` (where it has no virtual memory calls,
// 2 MiB, Hopper's). Slots are whole multiples of device 0's, so that emulated and real
// ranks lay a tensor out alike.
std::size_t granularityOf(const Driver& d, int device) {
  std::size_t granularity = std::size_t(2) << 20;
  if (d.cuMemGetAllocationGranularity) {
    const CUmemAllocationProp prop = pinnedOn(device);
    std::size_t g = 0;
    if (d.cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) == CUDA_SUCCESS && g > 0)
      granularity = g;
  }
  return granularity;
}

// The device of `rank`, for a copy of `bytes` into or out of its slot of `slot` bytes;
// fails unless the rank exists and the bytes fit.
int rankDevice(const std::vector<int>& devices, std::size_t slot, int rank, std::size_t bytes,
               const std::source_location& where) {
  const int ranks = static_cast<int>(devices.size());
  if (rank < 0 || rank >= ranks || bytes > slot)
    fail(where, expected_found("a rank below " + std::to_string(ranks) + " and at most " + std::to_string(slot) +
                                   " bytes", "rank " + std::to_string(rank) + ", " + std::to_string(bytes) + " bytes"));
  return devices[static_cast<std::size_t>(rank)];
}

// The live symmetric buffers, which a distributed launch looks its addresses up in (the
// driver sees a real one as a mapping per slot, not as one range).
struct LiveBuffer {
  CUdeviceptr base;
  std::size_t bytes;
  std::vector<int> devices;
};
std::mutex liveMutex;
std::vector<LiveBuffer> liveBuffers;

std::string listOf(const std::vector<int>& devices) {
  std::string list;
  for (int device : std::set<int>(devices.begin(), devices.end())) list += (list.empty() ? "" : ", ") + std::to_string(device);
  return list;
}

}  // namespace

std::string unreachable_from(int device, const void* address, std::size_t bytes) {
  const auto at = reinterpret_cast<CUdeviceptr>(address);
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    for (const LiveBuffer& live : liveBuffers) {
      if (at < live.base || at >= live.base + live.bytes) continue;
      if (std::find(live.devices.begin(), live.devices.end(), device) == live.devices.end())
        return "a symmetric buffer over devices " + listOf(live.devices) + ", which device " + std::to_string(device) +
               " has no mapping of";
      if (bytes > live.base + live.bytes - at)
        return "a symmetric buffer of " + std::to_string(live.bytes) + " bytes, " + std::to_string(at - live.base) +
               " bytes into it: " + std::to_string(bytes) + " bytes from there run past its end";
      return "";
    }
  }
  const Driver& d = Driver::get();
  int owner = -1;
  if (!d.cuPointerGetAttribute || d.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, at) != CUDA_SUCCESS)
    return "";  // not the driver's device memory (host memory): not judged here
  if (owner != device)
    return "device " + std::to_string(owner) + "'s memory (not a symmetric buffer's), which device " +
           std::to_string(device) + " cannot address";
  CUdeviceptr start = 0;
  std::size_t size = 0;
  if (d.cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, at) == CUDA_SUCCESS &&
      d.cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, at) == CUDA_SUCCESS && bytes > start + size - at)
    return "an allocation of " + std::to_string(size) + " bytes, " + std::to_string(at - start) +
           " bytes into it: " + std::to_string(bytes) + " bytes from there run past its end";
  return "";
}

SymmetricBuffer::SymmetricBuffer(std::size_t bytes_per_rank, std::vector<int> devices, std::source_location where)
    : devices_(std::move(devices)) {
  if (devices_.empty()) fail(where, expected_found("one device per rank", "no ranks"));
  if (bytes_per_rank == 0) fail(where, expected_found("a positive size per rank", "0 bytes"));
  const Driver& d = ready(where, devices_.front());
  for (int device : devices_) ready(where, device);  // (each an existing device)
  const std::size_t granularity = granularityOf(d, 0);
  slot_ = (bytes_per_rank + granularity - 1) / granularity * granularity;
  const std::size_t total = slot_ * devices_.size();
  emulated_ = std::all_of(devices_.begin(), devices_.end(), [&](int dev) { return dev == devices_.front(); });
  if (emulated_) {
    ready(where, devices_.front());
    CUdeviceptr base = 0;
    check(d, d.cuMemAlloc(&base, total), "cuMemAlloc", where);
    address_ = base;
    std::lock_guard<std::mutex> lock(liveMutex);
    liveBuffers.push_back({address_, total, devices_});
    return;
  }
  if (!d.cuMemCreate || !d.cuMemMap || !d.cuMemSetAccess || !d.cuMemAddressReserve || !d.cuDeviceCanAccessPeer)
    fail(where, expected_found("a CUDA driver with virtual memory calls (CUDA 10.2 or later)", "an older one"));
  const std::set<int> distinct(devices_.begin(), devices_.end());
  for (int a : distinct) {
    int supported = 0;
    CUdevice handle = 0;
    check(d, d.cuDeviceGet(&handle, a), "cuDeviceGet", where);
    check(d, d.cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, handle),
          "cuDeviceGetAttribute", where);
    if (!supported) fail(where, "device " + std::to_string(a) + ": " +
                                    expected_found("virtual memory management", "a device without it"));
    for (int b : distinct) {
      if (a == b) continue;
      int can = 0;
      check(d, d.cuDeviceCanAccessPeer(&can, a, b), "cuDeviceCanAccessPeer", where);
      if (!can)
        fail(where, "devices " + std::to_string(a) + " and " + std::to_string(b) + ": " +
                        expected_found("peer access between every two devices of the ranks", "none between these"));
    }
  }
  CUdeviceptr base = 0;
  check(d, d.cuMemAddressReserve(&base, total, granularity, 0, 0), "cuMemAddressReserve", where);
  address_ = base;
  try {
    for (std::size_t r = 0; r < devices_.size(); ++r) {
      const CUmemAllocationProp prop = pinnedOn(devices_[r]);
      CUmemGenericAllocationHandle handle = 0;
      check(ready(where, devices_[r]), d.cuMemCreate(&handle, slot_, &prop, 0), "cuMemCreate", where);
      handles_.push_back(handle);
      check(d, d.cuMemMap(base + r * slot_, slot_, 0, handle, 0), "cuMemMap", where);
    }
    std::vector<CUmemAccessDesc> access;
    for (int device : distinct) access.push_back({{CU_MEM_LOCATION_TYPE_DEVICE, device}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE});
    check(d, d.cuMemSetAccess(base, total, access.data(), access.size()), "cuMemSetAccess", where);
  } catch (...) {
    release();
    throw;
  }
  std::lock_guard<std::mutex> lock(liveMutex);
  liveBuffers.push_back({address_, total, devices_});
}

SymmetricBuffer::~SymmetricBuffer() { release(); }

void SymmetricBuffer::release() noexcept {
  const Driver& d = Driver::get();
  if (!address_) return;
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    std::erase_if(liveBuffers, [&](const LiveBuffer& live) { return live.base == address_; });
  }
  if (emulated_) {
    d.cuMemFree(address_);
  } else {
    const std::size_t total = slot_ * devices_.size();
    for (std::size_t r = 0; r < handles_.size(); ++r) d.cuMemUnmap(address_ + r * slot_, slot_);
    for (CUmemGenericAllocationHandle h : handles_) d.cuMemRelease(h);
    d.cuMemAddressFree(address_, total);
  }
  address_ = 0;
  handles_.clear();
}

void SymmetricBuffer::copy_from_host(int rank, const void* src, std::size_t bytes, std::source_location where) {
  const Driver& d = ready(where, rankDevice(devices_, slot_, rank, bytes, where));
  check(d, d.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(slot(rank)), src, bytes), "cuMemcpyHtoD", where);
}

void SymmetricBuffer::copy_to_host(int rank, void* dst, std::size_t bytes, std::source_location where) const {
  const Driver& d = ready(where, rankDevice(devices_, slot_, rank, bytes, where));
  check(d, d.cuMemcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(slot(rank)), bytes), "cuMemcpyDtoH", where);
}

void SymmetricBuffer::fill_bytes(std::uint8_t value, std::source_location where) {
  for (int r = 0; r < ranks(); ++r) {
    const Driver& d = ready(where, devices_[static_cast<std::size_t>(r)]);
    check(d, d.cuMemsetD8(reinterpret_cast<CUdeviceptr>(slot(r)), value, slot_), "cuMemsetD8", where);
  }
}

}  // namespace wave::runtime
