// CompiledKernel: argument checks, then a launch through the runtime.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <mutex>

#include "runtime/HipRuntime.h"
#include "wave/compile.hpp"
#include "wave/runtime.hpp"

namespace wave {

namespace {

// The bytes of the workspace a launch of `k` passes after the tensors' parameters, for
// `workgroups` resident at once: stream-K's counters (16 bytes per workgroup) and two
// slots per workgroup, or the hand-out's i32 tile counter; 0 where it passes none.
std::size_t workspace_bytes(const jit::PtxKernel& k, unsigned workgroups) {
  if (k.stream_k_slot_bytes) return std::size_t(workgroups) * (16 + 2 * std::size_t(k.stream_k_slot_bytes));
  return k.tile_counter ? sizeof(std::uint32_t) : 0;
}

// The grid of a persistent kernel `k` whose plain grid is `tiles`, with `resident`
// workgroups at once on the GPU: its workgroups loop over the tiles (at least one: a grid
// of no tiles is launched as the plain kernel's would be). Its clusters are whole (the
// tiles come in whole clusters too: the cluster size divides their count along its
// axis). Under stream-K, all the GPU holds even for fewer tiles: the kernel shares their
// trips out (the workgroups it needs not return at once).
std::array<unsigned, 3> persistent_grid(const jit::PtxKernel& k, std::array<unsigned, 3> tiles, unsigned resident) {
  const std::uint64_t cluster = std::max(1u, k.cluster_size);
  const std::uint64_t wanted = k.stream_k_slot_bytes ? resident : std::uint64_t(tiles[0]) * tiles[1] * tiles[2];
  const std::uint64_t workgroups = std::clamp<std::uint64_t>(wanted, 1, resident);
  return {static_cast<unsigned>(std::max(cluster, workgroups / cluster * cluster)), 1, 1};
}

}  // namespace

// The module on a device it was launched on (kernels spread over several GPUs launch on
// each), loaded on the first launch there.
struct CompiledKernel::OnDevice {
  std::unique_ptr<runtime::LoadedKernel> kernel;
  // A persistent kernel's workgroups: as many as the GPU holds at once.
  unsigned resident = 0;
};

struct CompiledKernel::Loaded {
  std::mutex devices_mutex;
  std::map<int, std::unique_ptr<OnDevice>> devices;
  std::once_flag once;
  std::unique_ptr<jit::hip::Kernel> amd;  // a code object for an AMD target, in its place
  unsigned amd_resident = 0;               // its persistent grid's workgroups
  // Stream-K's workspace per HIP stream (null: the default one), zero between launches.
  std::map<void*, std::unique_ptr<jit::hip::ZeroedBuffer>> amd_workspaces;
  // Per tensor map, the last one encoded and what for: a launch on the same tensor and
  // sizes (a benchmark's, a loop's) reuses it instead of asking the driver again.
  struct EncodedMap {
    const void* address = nullptr;
    std::vector<std::int64_t> sizes;
    runtime::TensorMap map;
  };
  std::mutex mutex;
  std::vector<EncodedMap> maps;
  // Stream-K's workspace or the tile counter per device and stream (launches on one stream
  // run in turn; on two they would share counters), the workspace sized for the most
  // workgroups the GPU holds, counters zero (each launch leaves them so).
  std::mutex workspace_mutex;
  std::map<std::pair<int, const void*>, std::unique_ptr<runtime::DeviceBuffer>> workspaces;
};

CompiledKernel::CompiledKernel(jit::PtxKernel ptx, std::vector<graph::MemoryType> args,
                               std::vector<std::vector<std::int64_t>> sizes, std::vector<Assumption> assumptions,
                               std::string name, std::source_location compiled_at,
                               std::function<void(const std::map<std::string, std::int64_t>&)> check_sizes)
    : ptx_(std::move(ptx)), args_(std::move(args)), sizes_(std::move(sizes)), assumptions_(std::move(assumptions)),
      check_sizes_(std::move(check_sizes)), name_(std::move(name)),
      compiled_at_(compiled_at), loaded_(std::make_shared<Loaded>()) {
  for (std::size_t i = 0; i < args_.size(); ++i)
    for (std::size_t d = 0; d < args_[i].dims.size(); ++d) {
      const std::string& dim = args_[i].dims[d];
      if (sizes_[i][d] >= 0) compiled_sizes_[dim] = sizes_[i][d];
      else if (std::find(dynamic_.begin(), dynamic_.end(), dim) == dynamic_.end()) dynamic_.push_back(dim);
    }
}

CompiledKernel::DimSizes CompiledKernel::given_sizes(const Subs& given, std::source_location where) const {
  auto fail = [&](const std::string& message) { throw Error(name_, "launch", where, message); };
  const std::vector<std::string>& dynamic = dynamic_;
  auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? std::string("none: every dim was set in subs") : s;
  };
  DimSizes sizes;
  for (const Sub& s : given) {
    if (std::find(dynamic.begin(), dynamic.end(), s.symbol) == dynamic.end() || s.is_address_space)
      fail("sizes: " + expected_found("a dynamic dim of the kernel (" + list(dynamic) + ")", "'" + s.symbol + "'"));
    if (s.value <= 0) fail("sizes: " + s.symbol + ": " + expected_found("a positive size", std::to_string(s.value)));
    if (!sizes.emplace(s.symbol, s.value).second)
      fail("sizes: " + expected_found("one size per dim", "two for " + s.symbol));
  }
  return sizes;
}

CompiledKernel::DimSizes CompiledKernel::all_sizes(DimSizes sizes, std::source_location where) const {
  for (const std::string& dim : dynamic_)
    if (!sizes.count(dim))
      throw Error(name_, "launch", where, "dim " + dim + " is dynamic (left out of subs): " +
           expected_found("its size at launch (LaunchOptions::sizes, or a tensor's shape)", "none"));
  for (const auto& [dim, size] : compiled_sizes_) sizes[dim] = size;
  for (const Assumption& a : assumptions_)
    if (auto holds = a.predicate.evaluate(sizes); holds && !*holds) {
      std::map<std::string, Expr> values;
      for (const auto& [dim, size] : sizes) values.emplace(dim, Expr(size));
      throw Error(name_, "launch", where,
                  "the Assumption at " + std::string(a.where.file_name()) + ":" + std::to_string(a.where.line()) +
                      ": " + expected_found(a.predicate.str() + " to hold",
                                            a.predicate.substitute(values).str() + ", which is false"));
    }
  if (check_sizes_) try {
      check_sizes_(sizes);
    } catch (const Error& e) {  // an access at the launch's sizes: named, with its line
      throw Error(name_, "launch", where,
                  "at these sizes, the " + e.op() + " at " + e.file() + ":" + std::to_string(e.line()) + ": " +
                      e.message());
    }
  return sizes;
}

void CompiledKernel::launch(const std::vector<TensorArg>& tensors, const LaunchOptions& how,
                            std::source_location where) const {
  auto fail = [&](const std::string& message) { throw Error(name_, "launch", where, message); };
  if (tensors.size() != args_.size())
    fail(expected_found(std::to_string(args_.size()) + " tensors, one per kernel argument",
                        std::to_string(tensors.size())));
  DimSizes seen = given_sizes(how.sizes, where);
  std::map<std::string, std::string> source;  // dim -> where its size came from
  for (const auto& [dim, size] : seen) source[dim] = "its size in LaunchOptions::sizes";
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
    for (std::size_t d = 0; d < arg.dims.size(); ++d) {
      const std::string& dim = arg.dims[d];
      if (sizes_[i][d] >= 0) {
        if (t.shape[d] != sizes_[i][d])
          fail(which + ", dim " + dim + ": " +
               expected_found(std::to_string(sizes_[i][d]) + " (its value in subs)", std::to_string(t.shape[d])));
        continue;
      }
      auto [it, fresh] = seen.emplace(dim, t.shape[d]);
      if (fresh) source[dim] = "the size " + which + " has";
      else if (it->second != t.shape[d])
        fail(which + ", dim " + dim + ": " +
             expected_found(std::to_string(it->second) + " (" + source[dim] + ")", std::to_string(t.shape[d])));
    }
    if (!t.strides.empty()) {
      if (t.strides.size() != t.shape.size())
        fail(which + ": " + expected_found(std::to_string(t.shape.size()) + " strides (one per dim)",
                                           std::to_string(t.strides.size())));
      std::int64_t expected = 1;
      for (std::size_t d = arg.dims.size(); d-- > 0;) {
        if (t.shape[d] != 1 && t.strides[d] != expected)
          fail(which + ", dim " + arg.dims[d] + ": " +
               expected_found("a contiguous row-major layout (stride " + std::to_string(expected) + ")",
                              "stride " + std::to_string(t.strides[d])));
        if (__builtin_mul_overflow(expected, t.shape[d], &expected))
          fail(which + ": " + expected_found("a shape whose element count fits 64 bits", "a larger one"));
      }
    }
    pointers.push_back(t.data);
  }
  for (const auto& [dim, size] : seen)
    if (size <= 0) fail("dim " + dim + ": " + expected_found("a positive size", std::to_string(size)));
  launch_pointers(pointers, all_sizes(std::move(seen), where), how, where);
}

void CompiledKernel::launch(std::initializer_list<const void*> pointers, const LaunchOptions& how,
                            std::source_location where) const {
  launch(std::vector<const void*>(pointers), how, where);
}

void CompiledKernel::launch(const std::vector<const void*>& pointers, const LaunchOptions& how,
                            std::source_location where) const {
  launch_pointers(pointers, all_sizes(given_sizes(how.sizes, where), where), how, where);
}

CompiledKernel::OnDevice& CompiledKernel::loaded_on(int device, std::source_location where) const {
  const runtime::Dim3 block{ptx_.block[0], ptx_.block[1], ptx_.block[2]};
  std::lock_guard lock(loaded_->devices_mutex);
  std::unique_ptr<OnDevice>& slot = loaded_->devices[device];
  if (!slot) {
    auto fresh = std::make_unique<OnDevice>();
    fresh->kernel = std::make_unique<runtime::LoadedKernel>(ptx_.ptx, ptx_.entry, device, where);
    if (ptx_.persistent) {
      fresh->resident = static_cast<unsigned>(std::max(1, fresh->kernel->resident_per_sm(block, ptx_.shared_bytes, where)) *
                                              runtime::device_info(device, where).multiprocessors);
      // In clusters, as many as fit at once (a cluster keeps to one GPC: clusters of 4
      // leave SMs of some idle), so that no cluster waits for another's tiles.
      if (ptx_.cluster_size > 1)
        if (const int clusters = fresh->kernel->resident_clusters(block, ptx_.shared_bytes, ptx_.cluster_size, where))
          fresh->resident = std::min(fresh->resident, static_cast<unsigned>(clusters) * ptx_.cluster_size);
    }
    slot = std::move(fresh);
  }
  return *slot;
}

void CompiledKernel::load(int device, std::source_location where) const {
  if (ptx_.hsaco.empty()) loaded_on(device, where);
}

void CompiledKernel::launch_pointers(const std::vector<const void*>& pointers, const DimSizes& sizes,
                                     const LaunchOptions& how, std::source_location where) const {
  const runtime::Stream* stream = how.stream;
  const int on_device = how.device;
  auto fail = [&](const std::string& message) { throw Error(name_, "launch", where, message); };
  if (pointers.size() != args_.size())
    fail(expected_found(std::to_string(args_.size()) + " device pointers, one per kernel argument",
                        std::to_string(pointers.size())));
  // One memref descriptor per argument: pointer, pointer, offset, sizes, strides.
  std::vector<std::int64_t> words;
  for (std::size_t i = 0; i < pointers.size(); ++i) {
    const void* p = pointers[i];
    const std::string which = "argument " + std::to_string(i) + " (" + std::string(wave::name(args_[i].dtype)) +
                              " tensor)";
    if (!p) fail(which + ": " + expected_found("a device pointer", "null"));
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    if (address % 16 != 0)
      fail(which + ": " + expected_found("a pointer aligned to 16 bytes", "an address ending in " +
                                                                              std::to_string(address % 16)));
    words.push_back(static_cast<std::int64_t>(address));
    words.push_back(static_cast<std::int64_t>(address));
    words.push_back(0);
    const std::vector<std::string>& dims = args_[i].dims;
    std::vector<std::int64_t> strides(dims.size(), 1);
    for (std::size_t d = dims.size(); d-- > 1;)
      if (__builtin_mul_overflow(strides[d], sizes.at(dims[d]), &strides[d - 1]))
        fail(which + ": " + expected_found("dims whose sizes multiply to fewer than 2^63 elements",
                                           "a stride past 2^63 at dim " + dims[d - 1]));
    for (const std::string& dim : dims) words.push_back(sizes.at(dim));
    words.insert(words.end(), strides.begin(), strides.end());
  }
  if (!ptx_.hsaco.empty()) {
    if (on_device != 0)
      fail("LaunchOptions::device: " + expected_found("0 for a kernel compiled for " + ptx_.target +
                                                          " (one AMD GPU so far)",
                                                      std::to_string(on_device)));
    return launch_on_amd(words, sizes, how, fail);
  }
  if (how.hip_stream)
    fail("LaunchOptions::hip_stream: " + expected_found("none for a kernel compiled for " + ptx_.target +
                                                            " (LaunchOptions::stream)",
                                                        "a HIP stream"));
  if (stream && on_device != 0 && on_device != stream->device())
    fail("LaunchOptions: " + expected_found("device " + std::to_string(on_device) + "'s stream",
                                            "one of device " + std::to_string(stream->device())));
  const runtime::Dim3 block{ptx_.block[0], ptx_.block[1], ptx_.block[2]};
  const int device = stream ? stream->device() : on_device;
  OnDevice* loaded = &loaded_on(device, where);
  std::vector<void*> args;
  for (std::int64_t& w : words) args.push_back(&w);
  // Stream-K's workspace or the tile counter, after the descriptors.
  std::uint64_t workspace = 0;
  if (const std::size_t bytes = workspace_bytes(ptx_, loaded->resident)) {
    std::lock_guard lock(loaded_->workspace_mutex);
    std::unique_ptr<runtime::DeviceBuffer>& slot = loaded_->workspaces[{device, stream ? stream->handle() : nullptr}];
    if (!slot) {
      slot = std::make_unique<runtime::DeviceBuffer>(bytes, device, where);
      slot->fill_bytes(0, where);
      runtime::synchronize(device, where);  // zero before any stream's launch reads it
    }
    workspace = slot->address();
    args.push_back(&workspace);
  }
  // The tensor maps, by value after the descriptors (the driver copies the parameters at
  // launch, so the encoded maps may change for the next one).
  std::vector<runtime::TensorMap> maps;
  maps.reserve(ptx_.tensor_maps.size());
  {
    std::lock_guard lock(loaded_->mutex);
    loaded_->maps.resize(ptx_.tensor_maps.size());
    for (std::size_t m = 0; m < ptx_.tensor_maps.size(); ++m) {
      const jit::PtxKernel::TensorMap& spec = ptx_.tensor_maps[m];
      std::vector<std::int64_t> dims;
      for (const std::string& dim : args_[spec.argument].dims) dims.push_back(sizes.at(dim));
      Loaded::EncodedMap& cached = loaded_->maps[m];
      if (cached.address != pointers[spec.argument] || cached.sizes != dims) {
        try {
          cached.map = runtime::encode_tensor_map(pointers[spec.argument], args_[spec.argument].dtype, dims,
                                                  spec.box, spec.swizzle, where);
        } catch (const Error& e) {
          fail("argument " + std::to_string(spec.argument) + ": " + e.message());
        }
        cached.address = pointers[spec.argument];
        cached.sizes = dims;
      }
      maps.push_back(cached.map);
    }
  }
  for (runtime::TensorMap& m : maps) args.push_back(&m);
  const std::array<unsigned, 3> g = ptx_.grid_for(sizes);
  runtime::Dim3 grid{g[0], g[1], g[2]};
  if (ptx_.persistent) {
    const std::array<unsigned, 3> p = persistent_grid(ptx_, g, loaded->resident);
    grid = {p[0], p[1], p[2]};
  }
  loaded->kernel->launch(grid, block, args, ptx_.shared_bytes, stream, where);
}

// A code object compiled for an AMD target, through the HIP runtime (loaded on first
// use): on LaunchOptions::hip_stream (or the default one), the same parameters as on
// NVIDIA (stream-K's workspace, one per stream, after the descriptors).
void CompiledKernel::launch_on_amd(std::vector<std::int64_t>& words, const DimSizes& sizes, const LaunchOptions& how,
                                   const std::function<void(const std::string&)>& fail) const {
  if (how.stream)
    fail("LaunchOptions::stream: " + expected_found("none for a kernel compiled for " + ptx_.target +
                                                        " (a HIP stream goes in LaunchOptions::hip_stream)",
                                                    "a CUDA stream"));
  std::call_once(loaded_->once, [&] {
    loaded_->amd = std::make_unique<jit::hip::Kernel>(ptx_.hsaco, ptx_.entry, fail);
    if (ptx_.persistent) loaded_->amd_resident = loaded_->amd->resident(ptx_.block, ptx_.shared_bytes, fail);
  });
  std::vector<void*> args;
  for (std::int64_t& w : words) args.push_back(&w);
  void* workspace = nullptr;
  if (const std::size_t bytes = workspace_bytes(ptx_, loaded_->amd_resident)) {
    std::lock_guard lock(loaded_->workspace_mutex);
    std::unique_ptr<jit::hip::ZeroedBuffer>& slot = loaded_->amd_workspaces[how.hip_stream];
    if (!slot) slot = std::make_unique<jit::hip::ZeroedBuffer>(bytes, fail);
    workspace = slot->address();
    args.push_back(&workspace);
  }
  std::array<unsigned, 3> grid = ptx_.grid_for(sizes);
  if (ptx_.persistent) grid = persistent_grid(ptx_, grid, loaded_->amd_resident);
  loaded_->amd->launch(grid, ptx_.block, args, ptx_.shared_bytes, static_cast<jit::hip::hipStream_t>(how.hip_stream),
                       fail);
}

}  // namespace wave
