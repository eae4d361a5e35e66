// Kernels spread over the GPUs of one node (docs/distributed.md): one kernel, compiled per
// rank with RANK bound, launched on every rank's device; peers' data is reached through
// symmetric buffers (runtime::SymmetricBuffer), one tensor whose outermost dim is the rank.
//
//   Constraints{DeviceConstraint(N, N / RANKS), WorkgroupConstraint(N, BLOCK_N, 0), ...}
//   auto ranks = Ranks::on_devices(2);                     // or Ranks::emulated(2): one GPU
//   auto reduce = compile(reduce_scatter, {.subs = {...}}, ranks);
//   runtime::SymmetricBuffer partials(bytes, ranks.devices);
//   reduce.launch({{partials.slot(0), out0}, {partials.slot(1), out1}});   // a list per rank
//
// Link `wave::jit`.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "wave/compile.hpp"
#include "wave/runtime.hpp"
#include "wave/validate.hpp"

namespace wave {

namespace runtime {
// Empty when a kernel on `device` may access the `bytes` from `address`: they lie in one
// allocation of that device, or in a SymmetricBuffer mapped for it (memory the driver does
// not know, such as the host's, is not judged); otherwise what the memory is instead.
std::string unreachable_from(int device, const void* address, std::size_t bytes);
}  // namespace runtime

// Where each rank runs: rank r on device devices[r]. Ranks on one device are emulated:
// the kernels' logic runs on a single GPU, peers' memory being slots of the same device.
struct Ranks {
  std::vector<int> devices;

  // Ranks 0..count-1 on devices 0..count-1.
  static Ranks on_devices(int count) {
    Ranks r;
    for (int d = 0; d < count; ++d) r.devices.push_back(d);
    return r;
  }
  // `count` ranks, all on `device`.
  static Ranks emulated(int count, int device = 0) { return Ranks{std::vector<int>(static_cast<std::size_t>(count), device)}; }
  int count() const { return static_cast<int>(devices.size()); }
};

// A kernel compiled once per rank (RANK bound), each launched on its rank's device.
class DistributedKernel {
 public:
  // `argument_bytes`: each argument's extent where its sizes are compiled in.
  DistributedKernel(std::vector<CompiledKernel> per_rank, Ranks ranks,
                    std::vector<std::optional<std::size_t>> argument_bytes = {})
      : per_rank_(std::move(per_rank)), ranks_(std::move(ranks)), argument_bytes_(std::move(argument_bytes)) {}

  int ranks() const { return ranks_.count(); }
  const std::vector<int>& devices() const { return ranks_.devices; }
  const CompiledKernel& on_rank(int rank) const { return per_rank_.at(static_cast<std::size_t>(rank)); }

  // Queues every rank's kernel: rank r's with `pointers[r]` (one per kernel argument) on
  // `streams[r]` (a stream of the rank's device; none given: the device's default stream).
  // Ranks on different GPUs run at once; emulated ranks on one GPU's default stream run
  // one after another (kernels whose ranks wait for each other need a stream per rank,
  // StreamKind::independent). Each pointer must be memory its rank's GPU can address for the
  // whole tensor: its own device's, or a SymmetricBuffer's (checked before any launch).
  void launch(const std::vector<std::vector<const void*>>& pointers,
              const std::vector<const runtime::Stream*>& streams = {},
              std::source_location where = std::source_location::current()) const {
    const std::string name = per_rank_.empty() ? std::string("kernel") : per_rank_.front().name();
    if (pointers.size() != per_rank_.size())
      throw Error(name, "launch", where,
                  expected_found(std::to_string(per_rank_.size()) + " pointer lists, one per rank",
                                 std::to_string(pointers.size())));
    if (!streams.empty() && streams.size() != per_rank_.size())
      throw Error(name, "launch", where,
                  expected_found(std::to_string(per_rank_.size()) + " streams, one per rank (or none)",
                                 std::to_string(streams.size())));
    for (std::size_t r = 0; r < streams.size(); ++r)  // (all checked before any rank launches)
      if (streams[r] && streams[r]->device() != ranks_.devices[r])
        throw Error(name, "launch", where,
                    "rank " + std::to_string(r) + ": " +
                        expected_found("a stream of device " + std::to_string(ranks_.devices[r]),
                                       "one of device " + std::to_string(streams[r]->device())));
    for (std::size_t r = 0; r < per_rank_.size(); ++r)
      for (std::size_t i = 0; i < pointers[r].size() && i < argument_bytes_.size(); ++i) {
        const std::size_t bytes = argument_bytes_[i].value_or(1);
        const std::string found = pointers[r][i] ? runtime::unreachable_from(ranks_.devices[r], pointers[r][i], bytes) : "";
        if (!found.empty())
          throw Error(name, "launch", where,
                      "rank " + std::to_string(r) + ", argument " + std::to_string(i) + ": " +
                          expected_found(std::to_string(bytes) + " bytes device " + std::to_string(ranks_.devices[r]) +
                                             " can address (its own memory, or a SymmetricBuffer's for a tensor "
                                             "over the ranks' slots)",
                                         found));
      }
    // Every rank's module loaded before any rank's kernel runs: kernels that meet their
    // peers' (wait_and_take) would otherwise wait while a peer's module cannot load.
    for (std::size_t r = 0; r < per_rank_.size(); ++r) per_rank_[r].load(ranks_.devices[r], where);
    for (std::size_t r = 0; r < per_rank_.size(); ++r)
      per_rank_[r].launch(pointers[r], {.stream = streams.empty() ? nullptr : streams[r], .device = ranks_.devices[r]},
                          where);
  }

 private:
  std::vector<CompiledKernel> per_rank_;
  Ranks ranks_;
  std::vector<std::optional<std::size_t>> argument_bytes_;
};

// Compiles `kernel` for each rank of `ranks`: `options` with RANK bound to the rank. Each
// DeviceConstraint must split its dim into exactly that many slices.
template <class Fn>
DistributedKernel compile(const Kernel<Fn>& kernel, const CompileOptions& options, const Ranks& ranks,
                          std::source_location where = std::source_location::current()) {
  if (ranks.devices.empty())
    throw Error(kernel.name(), "compile", where, expected_found("one device per rank", "no ranks"));
  for (const Sub& s : options.subs)
    if (s.symbol == RANK.name)
      throw Error(kernel.name(), "compile", where,
                  "subs: " + expected_found("no value for RANK (compiling for ranks binds it per rank)",
                                            std::to_string(s.value)));
  const bool usesRank = kernel_symbols(kernel.trace()).count(std::string(RANK.name)) > 0;
  std::vector<CompiledKernel> per_rank;
  std::vector<std::optional<std::size_t>> argument_bytes;
  for (int r = 0; r < ranks.count(); ++r) {
    CompileOptions mine = options;
    if (usesRank) mine.subs.push_back(Sub(std::string(RANK.name), r));
    graph::KernelGraph traced = kernel.trace(mine, where);
    for (const DeviceConstraint* c : traced.constraints.template all<DeviceConstraint>()) {
      std::map<std::string, std::int64_t> values;
      for (const Sub& s : mine.subs) values[s.symbol] = s.value;
      auto size = values.find(c->dim);
      auto tile = c->tile.evaluate(values);
      if (size != values.end() && tile && *tile > 0 && size->second / *tile != ranks.count())
        throw Error(kernel.name(), "DeviceConstraint", c->where,
                    expected_found(c->dim + " / tile = " + std::to_string(ranks.count()) + " slices, one per rank",
                                   std::to_string(size->second / *tile) + " (" + c->dim + " = " +
                                       std::to_string(size->second) + ", tile " + std::to_string(*tile) + ")"));
    }
    per_rank.push_back(compile(traced, mine, where));
    if (r == 0)
      for (const graph::Argument& arg : traced.args) {  // (the same on every rank: no dim is RANK's)
        std::optional<std::size_t> elements = 1;
        for (const std::string& dim : arg.type.dims) {
          auto size = std::find_if(mine.subs.begin(), mine.subs.end(), [&](const Sub& s) { return s.symbol == dim; });
          if (size == mine.subs.end()) elements.reset();
          else if (elements) *elements *= static_cast<std::size_t>(size->value);
        }
        if (elements) *elements = (*elements * static_cast<std::size_t>(bit_width(arg.type.dtype)) + 7) / 8;
        argument_bytes.push_back(elements);
      }
  }
  return DistributedKernel(std::move(per_rank), ranks, std::move(argument_bytes));
}

}  // namespace wave
