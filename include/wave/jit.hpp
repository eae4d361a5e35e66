// The entry points of the JIT library (libwave-jit), declared in plain C++: a user's
// translation unit never sees MLIR or LLVM. Link `wave::jit` to use them.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "wave/graph.hpp"
#include "wave/options.hpp"

namespace wave::jit {

// Imports a traced kernel into the `wave` MLIR dialect, verifies it and returns it as MLIR
// text. `options.subs` are recorded as the kernel's hyperparameters. Throws wave::Error,
// naming the op and source line, if the IR does not verify.
std::string import_to_mlir(const graph::KernelGraph& kernel, const CompileOptions& options);

// A kernel compiled for a GPU (NVIDIA: PTX; AMD: a code object), with the launch shape
// its constraints give.
//
// Its parameters are one memref descriptor per tensor argument, in order: the base
// pointer twice, an offset (0), then each dim's size and stride (row-major) as 64-bit
// integers. CompiledKernel fills them.
struct PtxKernel {
  // A grid axis that splits a dim: ceil(size of `dim` / `tile`) workgroups, or of `extent`
  // where a DeviceConstraint splits the dim over the GPUs (the rank's slice).
  struct GridDim {
    std::string dim;  // empty: the axis has one workgroup
    unsigned tile = 1;
    std::int64_t extent = 0;
  };

  // A tensor map the kernel takes by value (a 128-byte `__grid_constant__` parameter, after
  // the tensors' descriptors, in this order): TMA copies of boxes of `box` elements (per
  // dim of the argument, outermost first) of argument `argument`, stored swizzled by
  // `swizzle` bytes. The runtime encodes it at launch from the tensor's address and sizes.
  struct TensorMap {
    unsigned argument = 0;
    std::vector<unsigned> box;
    unsigned swizzle = 0;
  };

  std::string entry;  // the kernel's name in the PTX
  std::string ptx;    // on an NVIDIA target
  std::string target = "sm_90a";  // what it was compiled for (CompileOptions::target)
  // On an AMD target: the code object (HSACO, what hipModuleLoadData takes) and the same
  // code as AMDGPU assembly, its metadata included; `ptx` stays empty.
  std::string hsaco;
  std::string amdgpu_assembly;
  std::array<unsigned, 3> grid{1, 1, 1};  // 0 on an axis over a dynamic dim
  std::array<unsigned, 3> block{1, 1, 1};
  std::array<GridDim, 3> grid_dims{};
  unsigned shared_bytes = 0;  // dynamic shared memory per workgroup
  std::vector<TensorMap> tensor_maps;
  // A persistent kernel (CompileOptions::persistent): `grid` counts its tiles, and the
  // launch runs min(tiles, SMs x resident workgroups) workgroups along x that loop over them.
  bool persistent = false;
  // Workgroups per cluster (CompileOptions::cluster_size, where an axis took it; the PTX's
  // .reqnctapercluster): a persistent kernel's workgroups come in whole clusters.
  unsigned cluster_size = 1;
  // Stream-K (CompileOptions::stream_k, where the kernel took it): the bytes of one slot of
  // the workspace the launch passes after the tensors' parameters (16 bytes of counters
  // per workgroup, then two slots per workgroup, counters zero); 0: none.
  unsigned stream_k_slot_bytes = 0;
  // A persistent kernel whose tiles its producer warpgroup hands out at run time
  // (wave-schedule-tiles-dynamically): the launch passes, after the tensors' parameters,
  // an i32 counter, zero before the first launch (each launch leaves it so).
  bool tile_counter = false;

  // The grid for these dim sizes (the dynamic ones at least).
  template <class Sizes>  // a map from dim name to size
  std::array<unsigned, 3> grid_for(const Sizes& sizes) const {
    std::array<unsigned, 3> g = grid;
    for (int axis = 0; axis < 3; ++axis)
      if (auto it = sizes.find(grid_dims[axis].dim); !grid_dims[axis].dim.empty() && it != sizes.end()) {
        const std::int64_t covered = grid_dims[axis].extent ? grid_dims[axis].extent : it->second;
        g[axis] = static_cast<unsigned>((covered + grid_dims[axis].tile - 1) / grid_dims[axis].tile);
      }
    return g;
  }
};

// Imports, lowers and compiles a traced kernel to PTX or HSACO for `options.target`, through the
// kernel cache unless `options.cache` is off. Throws wave::Error naming the op and source
// line a stage rejected. Dims left out of `subs` are dynamic (tile sizes must be set).
PtxKernel compile_to_ptx(const graph::KernelGraph& kernel, const CompileOptions& options);

// The kernel cache's folder when CompileOptions::cache_dir is empty: $WAVE_CACHE_DIR, else
// $XDG_CACHE_HOME/wave-cpp, else ~/.cache/wave-cpp.
std::string default_cache_dir();

// What compiled a kernel: wave-cpp's version, LLVM's, and a hash of the JIT's sources
// (keys of what is kept on disk, as the kernel cache and autotune keep).
std::string compiler_version();

// A value of a kernel and its layout drawn as SVG: the workgroup tile, each element's cell
// naming the thread and register that hold it (docs/pictures.md).
struct LayoutPicture {
  std::string value;  // the op that makes it, its source line and dims
  std::string svg;
};

// Imports `kernel` and runs the middle end up to layout assignment; a picture per value
// that gets a layout, in program order.
std::vector<LayoutPicture> layout_pictures(const graph::KernelGraph& kernel, const CompileOptions& options);

}  // namespace wave::jit
