// Running a compiled kernel on host vectors, for the examples' checks and the GPU tests:
// each vector copied to the device (outputs poisoned beforehand by the caller), the kernel
// launched with them as its arguments in order, each non-const one copied back.
#pragma once

#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "wave/compile.hpp"
#include "wave/runtime.hpp"

namespace examples::host {

// n elements of all-ones bytes: NaN for floats, -1 for integers; what no kernel writes.
template <class T>
std::vector<T> poisoned(std::size_t n) {
  std::vector<T> v(n);
  std::memset(v.data(), 0xFF, n * sizeof(T));
  return v;
}

template <class... Buffers, std::size_t... I>
void run_on_device(const wave::CompiledKernel& kernel, const wave::LaunchOptions& how, std::index_sequence<I...>,
                   Buffers&... buffers) {
  namespace runtime = wave::runtime;
  std::vector<runtime::DeviceBuffer> device;
  (device.push_back(runtime::DeviceBuffer(buffers.size() * sizeof(buffers[0]))), ...);  // errors name this line
  (device[I].copy_from_host(buffers.data()), ...);
  kernel.launch({reinterpret_cast<const void*>(device[I].address())...}, how);
  if (how.stream) how.stream->synchronize();
  else runtime::synchronize();
  auto copy_back = [&](runtime::DeviceBuffer& from, auto& to) {
    if constexpr (!std::is_const_v<std::remove_reference_t<decltype(to)>>) from.copy_to_host(to.data());
  };
  (copy_back(device[I], buffers), ...);
}

template <class... Buffers>
void run_on_device(const wave::CompiledKernel& kernel, const wave::LaunchOptions& how, Buffers&... buffers) {
  run_on_device(kernel, how, std::index_sequence_for<Buffers...>{}, buffers...);
}

}  // namespace examples::host
