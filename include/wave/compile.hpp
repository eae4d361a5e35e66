// compile(): a kernel and its symbol values, compiled for the GPU and ready to launch.
//
//   auto copy = compile(copy_kernel, {.subs = {{M, 4096}, {N, 4096}, {BLOCK_M, 1}, {BLOCK_N, 1024}}});
//   copy(a_device, b_device);               // one device pointer per kernel argument
//   copy.launch({a_device, b_device});      // the same, with errors naming this line
//
// A dim left out of `subs` is dynamic: one compiled kernel serves every size, given at
// launch (tile sizes must be in `subs`):
//
//   auto copy = compile(copy_kernel, {.subs = {{BLOCK_M, 1}, {BLOCK_N, 1024}}});
//   copy.launch({a_device, b_device}, {.sizes = {{M, rows}, {N, cols}}, .stream = &stream});
//   copy.launch({from_dlpack(a), from_dlpack(b)});   // sizes from the tensors' shapes
//
// Compiled kernels are cached in memory and on disk (see CompileOptions). Link `wave::jit`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "wave/jit.hpp"
#include "wave/kernel.hpp"
#include "wave/mapping_bounds.hpp"

namespace wave {

// A tensor argument as a launch can check it: where its data is, its element type, shape
// and strides (in elements; empty: contiguous, row-major). wave/dlpack.hpp makes one from
// a DLPack tensor.
struct TensorArg {
  const void* data = nullptr;
  DataType dtype{};
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
};

namespace runtime {
class Stream;
}

// How a launch runs: the sizes of the kernel's dynamic dims (those left out of `subs`;
// tensors with shapes give them too), the stream to queue on (null: the default one) and
// the GPU (a stream's own; without one, `device`). A kernel compiled for an AMD target
// queues on `hip_stream`, a hipStream_t (ROCm PyTorch's
// `torch.cuda.current_stream().cuda_stream`; null: the default stream).
struct LaunchOptions {
  Subs sizes;
  const runtime::Stream* stream = nullptr;
  int device = 0;
  void* hip_stream = nullptr;
};

class CompiledKernel {
 public:
  // `sizes` holds each argument's dim sizes as compiled (-1: set at launch);
  // `assumptions` those Assumptions the compiler relied on that only launch sizes decide.
  // `check_sizes`, if set, checks each launch's sizes further (throwing a wave::Error):
  // compile() gives the index mappings' bounds check for sizes it did not know.
  CompiledKernel(jit::PtxKernel ptx, std::vector<graph::MemoryType> args,
                 std::vector<std::vector<std::int64_t>> sizes, std::vector<Assumption> assumptions,
                 std::string name, std::source_location compiled_at,
                 std::function<void(const std::map<std::string, std::int64_t>&)> check_sizes = {});

  const std::string& name() const { return name_; }
  const jit::PtxKernel& ptx() const { return ptx_; }

  // The dims left out of `subs`, whose sizes each launch gives.
  const std::vector<std::string>& dynamic_dims() const { return dynamic_; }

  // Queues the kernel (on device 0 unless LaunchOptions say). Checks first: one pointer per argument, none null, each
  // aligned to 16 bytes (device allocations are); a size for every dynamic dim, and that
  // the sizes satisfy the kernel's Assumptions (the code may rely on them).
  void launch(std::initializer_list<const void*> pointers, const LaunchOptions& how = {},
              std::source_location where = std::source_location::current()) const;
  // The same, for pointers gathered at run time.
  void launch(const std::vector<const void*>& pointers, const LaunchOptions& how = {},
              std::source_location where = std::source_location::current()) const;

  // The same, for tensors whose dtype, shape and layout are checked against the kernel's
  // arguments and the sizes it was compiled for; their shapes give the dynamic dims.
  void launch(const std::vector<TensorArg>& tensors, const LaunchOptions& how = {},
              std::source_location where = std::source_location::current()) const;

  // Loads the module on `device` now (the first launch there does otherwise): kernels
  // that wait for each other must all be loaded before any of them runs, since the driver
  // may load a module only once the kernels running beside it have ended.
  void load(int device = 0, std::source_location where = std::source_location::current()) const;

  template <class... Pointers>
  void operator()(Pointers*... pointers) const {
    launch({static_cast<const void*>(pointers)...}, {}, compiled_at_);
  }

 private:
  using DimSizes = std::map<std::string, std::int64_t>;
  // LaunchOptions::sizes, checked to name dynamic dims with positive sizes.
  DimSizes given_sizes(const Subs& given, std::source_location where) const;
  // Every dim's size: the compiled ones and the dynamic `sizes`, which must cover them all
  // and satisfy the assumptions.
  DimSizes all_sizes(DimSizes sizes, std::source_location where) const;
  void launch_pointers(const std::vector<const void*>& pointers, const DimSizes& sizes, const LaunchOptions& how,
                       std::source_location where) const;
  // The parameters `words` for a code object of an AMD target, through the HIP runtime.
  void launch_on_amd(std::vector<std::int64_t>& words, const DimSizes& sizes, const LaunchOptions& how,
                     const std::function<void(const std::string&)>& fail) const;

  struct Loaded;
  struct OnDevice;
  // The module on `device`, loaded on the first call there.
  OnDevice& loaded_on(int device, std::source_location where) const;
  jit::PtxKernel ptx_;
  std::vector<graph::MemoryType> args_;
  std::vector<std::vector<std::int64_t>> sizes_;
  std::vector<Assumption> assumptions_;  // over dynamic dims, the rest of subs substituted
  std::function<void(const std::map<std::string, std::int64_t>&)> check_sizes_;
  // Derived from sizes_ once, since every launch reads them.
  std::vector<std::string> dynamic_;  // dims without a compiled size, first use first
  DimSizes compiled_sizes_;           // dims with one
  std::string name_;
  std::source_location compiled_at_;
  std::shared_ptr<Loaded> loaded_;  // the module, loaded on the first launch on each device
};

// A traced (or hand-built) kernel graph, compiled with `options`.
inline CompiledKernel compile(const graph::KernelGraph& graph, const CompileOptions& options,
                              std::source_location where = std::source_location::current()) {
  std::vector<graph::MemoryType> args;
  std::vector<std::vector<std::int64_t>> sizes;
  for (const graph::Argument& a : graph.args) {
    args.push_back(a.type);
    sizes.emplace_back();
    for (const std::string& dim : a.type.dims) {
      std::int64_t size = -1;
      for (const Sub& s : options.subs)
        if (s.symbol == dim && !s.is_address_space) size = s.value;
      sizes.back().push_back(size);
    }
  }
  // Assumptions over dynamic dims hold or not only at launch; the others were checked.
  std::map<std::string, Expr> known;
  for (const Sub& s : options.subs)
    if (!s.is_address_space) known.emplace(s.symbol, Expr(s.value));
  std::vector<Assumption> assumptions;
  for (const Assumption* a : graph.constraints.template all<Assumption>())
    if (Expr open = a->predicate.substitute(known).simplify(); !open.is_constant())
      assumptions.push_back(Assumption(open, a->where));
  // Index mappings over sizes known only at launch: their bounds checked there.
  std::function<void(const std::map<std::string, std::int64_t>&)> check_sizes;
  const bool dynamic = std::any_of(sizes.begin(), sizes.end(), [](const std::vector<std::int64_t>& dims) {
    return std::find(dims.begin(), dims.end(), -1) != dims.end();
  });
  if (dynamic && has_static_mappings(graph.body))
    check_sizes = [check = std::make_shared<const MappingBoundsAtLaunch>(graph, options.subs)](
                      const std::map<std::string, std::int64_t>& at) { (*check)(at); };
  return CompiledKernel(jit::compile_to_ptx(graph, options), std::move(args), std::move(sizes),
                        std::move(assumptions), graph.name, where, std::move(check_sizes));
}

template <class Fn>
CompiledKernel compile(const Kernel<Fn>& kernel, const CompileOptions& options = {},
                       std::source_location where = std::source_location::current()) {
  return compile(kernel.trace(options, where), options, where);
}

}  // namespace wave
