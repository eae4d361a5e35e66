// CompiledKernel: argument checks, then a launch through the runtime.
#include <cstdint>
#include <mutex>

#include "wave/compile.hpp"
#include "wave/runtime.hpp"

namespace wave {

struct CompiledKernel::Loaded {
  std::once_flag once;
  std::unique_ptr<runtime::LoadedKernel> kernel;
};

CompiledKernel::CompiledKernel(jit::PtxKernel ptx, std::vector<graph::MemoryType> args,
                               std::vector<std::vector<std::int64_t>> sizes, std::string name,
                               std::source_location compiled_at)
    : ptx_(std::move(ptx)), args_(std::move(args)), sizes_(std::move(sizes)), name_(std::move(name)),
      compiled_at_(compiled_at), loaded_(std::make_shared<Loaded>()) {}

void CompiledKernel::launch(const std::vector<TensorArg>& tensors, std::source_location where) const {
  auto fail = [&](const std::string& message) { throw Error(name_, "launch", where, message); };
  if (tensors.size() != args_.size())
    fail(expected_found(std::to_string(args_.size()) + " tensors, one per kernel argument",
                        std::to_string(tensors.size())));
  std::vector<const void*> pointers;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const TensorArg& t = tensors[i];
    const graph::MemoryType& arg = args_[i];
    const std::string which = "argument " + std::to_string(i);
    if (t.dtype != arg.dtype)
      fail(which + ": " + expected_found(std::string(wave::name(arg.dtype)) + " elements",
                                         std::string(wave::name(t.dtype))));
    if (t.shape.size() != arg.dims.size())
      fail(which + ": " + expected_found(std::to_string(arg.dims.size()) + " dims", std::to_string(t.shape.size())));
    for (std::size_t d = 0; d < arg.dims.size(); ++d)
      if (sizes_[i][d] >= 0 && t.shape[d] != sizes_[i][d])
        fail(which + ", dim " + arg.dims[d] + ": " +
             expected_found(std::to_string(sizes_[i][d]) + " (its value in subs)", std::to_string(t.shape[d])));
    if (!t.strides.empty()) {
      std::int64_t expected = 1;
      for (std::size_t d = arg.dims.size(); d-- > 0;) {
        if (t.shape[d] != 1 && t.strides[d] != expected)
          fail(which + ", dim " + arg.dims[d] + ": " +
               expected_found("a contiguous row-major layout (stride " + std::to_string(expected) + ")",
                              "stride " + std::to_string(t.strides[d])));
        expected *= t.shape[d];
      }
    }
    pointers.push_back(t.data);
  }
  launch_pointers(pointers, where);
}

void CompiledKernel::launch(std::initializer_list<const void*> pointers, std::source_location where) const {
  launch_pointers(std::vector<const void*>(pointers), where);
}

void CompiledKernel::launch_pointers(const std::vector<const void*>& pointers, std::source_location where) const {
  auto fail = [&](const std::string& message) { throw Error(name_, "launch", where, message); };
  if (pointers.size() != args_.size())
    fail(expected_found(std::to_string(args_.size()) + " device pointers, one per kernel argument",
                        std::to_string(pointers.size())));
  std::vector<std::uint64_t> addresses;
  for (const void* p : pointers) {
    const std::size_t i = addresses.size();
    const std::string which = "argument " + std::to_string(i) + " (" + std::string(wave::name(args_[i].dtype)) +
                              " tensor)";
    if (!p) fail(which + ": " + expected_found("a device pointer", "null"));
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    if (address % 16 != 0)
      fail(which + ": " + expected_found("a pointer aligned to 16 bytes", "an address ending in " +
                                                                              std::to_string(address % 16)));
    addresses.push_back(address);
  }
  std::call_once(loaded_->once, [&] { loaded_->kernel = std::make_unique<runtime::LoadedKernel>(ptx_.ptx, ptx_.entry, where); });
  std::vector<void*> args;
  for (std::uint64_t& a : addresses) args.push_back(&a);
  const runtime::Dim3 grid{ptx_.grid[0], ptx_.grid[1], ptx_.grid[2]};
  const runtime::Dim3 block{ptx_.block[0], ptx_.block[1], ptx_.block[2]};
  loaded_->kernel->launch(grid, block, args, 0, where);
}

}  // namespace wave
