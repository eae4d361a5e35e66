// What a kernel is compiled with: the values of its symbols, and compiler settings.
//
//   CompileOptions options{.subs = {{M, 4096}, {BLOCK_M, 128}, {ADDRESS_SPACE, SHARED_ADDRESS_SPACE}}};
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "wave/target.hpp"
#include "wave/values.hpp"

namespace wave {

// One symbol's value: an integer, or an address space for a Memory's address-space symbol.
struct Sub {
  std::string symbol;
  std::int64_t value = 0;
  bool is_address_space = false;

  template <FixedString S, std::integral V>
  Sub(Symbol<S>, V v) : symbol(Symbol<S>::name), value(static_cast<std::int64_t>(v)) {}
  template <FixedString S>
  Sub(Symbol<S>, AddressSpace space)
      : symbol(Symbol<S>::name), value(static_cast<std::int64_t>(space)), is_address_space(true) {}
  // A symbol named at run time (a command line's, a tuner's); an unknown name is an error
  // at compile().
  Sub(std::string name, std::int64_t v) : symbol(std::move(name)), value(v) {}
};

using Subs = std::vector<Sub>;

struct CompileOptions {
  Subs subs;
  // Attach the user's source locations to the IR (printed with loc(...)).
  bool debug_locations = false;
  // The GPU to compile for, a name of wave/target.hpp's table: sm_80, sm_90, sm_90a (Hopper),
  // gfx942 (AMD CDNA3: an HSACO code object, see docs/language.md) or gfx950 (CDNA4). Empty
  // (the default): the GPU this process finds (runtime::default_target(): sm_90a where it
  // finds none).
  std::string target;
  // Keep compiled kernels in memory and on disk (KernelCache: $WAVE_CACHE_DIR, else
  // ~/.cache/wave-cpp); `cache_dir` overrides the folder.
  bool cache = true;
  std::string cache_dir;
  // Print the IR after every compiler stage to stderr (also: WAVE_DUMP_IR=1).
  bool dump_ir = false;
  // Print the time of each compiler stage and pass to stderr (also: WAVE_TIMING=1).
  bool timing = false;
  // Write the IR of every stage to files under <dump_dir>/<kernel>/: 0-wave.mlir, a file per
  // pass under lowering/ and codegen/, and <kernel>.ptx (also: WAVE_DUMP_DIR=folder).
  std::string dump_dir;
  // Compile from hand-edited stages (the IR round trip): <override_dir>/<kernel>/0-wave.mlir
  // replaces the traced kernel's IR, <override_dir>/<kernel>/<kernel>.ptx the generated PTX;
  // the names dump_dir writes (also: WAVE_OVERRIDE_DIR=folder).
  std::string override_dir;
  // Copies of each shared tile a loop fills, filled that many iterations ahead by cp.async
  // (layout pipeline): 0 lets the compiler pick (up to 4, as shared memory allows), 1 turns
  // the pipelining off.
  int pipeline_stages = 0;
  // On sm_90a, run the mmas that fit on Hopper's warpgroup tensor-core instructions (wgmma:
  // B, and A unless the loop computes it, read from swizzled shared tiles; whole
  // warpgroups of 4 waves splitting the workgroup tile into 64-row strips; see
  // docs/language.md); false keeps every mma on mma.sync.
  bool warpgroup_mma = true;
  // On sm_90a, fill the shared tiles wgmma reads by Hopper's tensor memory accelerator (TMA:
  // one thread issues a copy per tile, completing on an mbarrier; tensor maps encoded at
  // launch) where the tile and tensor allow (docs/language.md); false fills them by cp.async.
  bool tma = true;
  // On sm_90a, give a loop whose tiles TMA fills a producer warpgroup of its own: one thread
  // of it issues the copies, each stage's once the computing warps released it (an
  // mbarrier per stage), while the kernel's own warps only compute, with the registers the
  // producer gives up (setmaxnreg). The workgroup gains 128 threads. false software-pipelines
  // the copies on the computing warps instead (docs/language.md).
  bool warp_specialize = false;
  // A persistent grid: as many workgroups as fit on the GPU at once (SMs x workgroups per
  // SM), each looping over the kernel's workgroup tiles in the tile scheduler's order
  // (groups of 8 along x, for L2) instead of one workgroup per tile. Under warp
  // specialization the producer fills the next tile's stages while the computing warps
  // finish the last one's epilogue (docs/language.md).
  bool persistent = false;
  // With `persistent`: stream-K. Where the tiles fill at most half of the grid's last round,
  // the last two rounds' trips of the kernel's summing loop (a GEMM's or conv's over K) are
  // shared out evenly, each workgroup walking a run of them across tile boundaries; fewer
  // tiles than the GPU holds workgroups (a skinny GEMM) are split in equal parts (split-K).
  // A tile's parts meet through a workspace the runtime keeps, and the last to finish runs
  // the epilogue. Kernels it does not fit (a loop whose carried values are not all sums,
  // such as attention's, or more than one loop) keep the plain persistent grid;
  // `PtxKernel::stream_k_slot_bytes` says which it got. The sums of a split tile are added
  // in the order its parts finish (docs/language.md).
  bool stream_k = false;
  // On sm_90a, in a warp-specialized loop of two or more wgmma batches, issue an
  // iteration's last batch (attention's P V) in the next iteration behind its first (Q K^T)
  // and wait for it only after the work between them (the softmax), which then runs while
  // the tensor cores do: FlashAttention-3's intra-warpgroup overlap. What the later batch
  // reads (P, the rescaling) is held one iteration longer (docs/language.md).
  bool overlap_mma = true;
  // On sm_90a, launch the workgroups in clusters of this many (1, 2 or 4) along the grid
  // axis whose neighbouring tiles share the most of a loop's TMA-filled operands (a GEMM
  // of 128 x 256 tiles: B, along M), where the tile count along it is known and divisible;
  // under warp specialization each producer then copies its part of those tiles into
  // every workgroup of the cluster at once (TMA multicast), halving (quartering) their
  // reads from L2 (docs/language.md). 1: no clusters.
  int cluster_size = 1;
};

}  // namespace wave
