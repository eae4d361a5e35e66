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

CompiledKernel::CompiledKernel(jit::PtxKernel ptx, std::vector<graph::MemoryType> args, std::string name,
                               std::source_location compiled_at)
    : ptx_(std::move(ptx)), args_(std::move(args)), name_(std::move(name)), compiled_at_(compiled_at),
      loaded_(std::make_shared<Loaded>()) {}

void CompiledKernel::launch(std::initializer_list<const void*> pointers, std::source_location where) const {
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
