//===- DistributeKernel.h - kernels with layouts -> gpu.func ---------*- C++ -*-===//
//
// The distribution of a kernel whose values carry #wave.layout (after
// wave-assign-layouts): one lowering per op, from its operands' and result's layouts, to
// per-thread vector code in a gpu.func.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_DISTRIBUTEKERNEL_H
#define WAVE_JIT_LOWERING_DISTRIBUTEKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <string>

namespace wave::jit {

// The first op of `kernel` with a tensor result that has no layout (none after
// wave-assign-layouts); null where there is none.
mlir::Operation* firstWithoutLayout(mlir::func::FuncOp kernel);

// What the target and the schedule ask of the distribution (see wave-lower-to-gpu).
struct DistributionOptions {
  bool persistent = false;    // loop each workgroup over the tiles of a grid sized to the GPU
  bool streamK = false;       // a persistent grid's last rounds split at trip boundaries (stream-K)
  int clusterSize = 1;        // workgroups per cluster, along the axis whose tiles share loop copies
  bool tileCounter = false;   // a persistent grid's uneven tiles: a counter to hand them out from
  bool vectorAtomics = false; // adds of register runs as one vector red.global.add (sm_90+)
  bool systemAtomics = false; // adds and integer min/max as PTX red at system scope (NVIDIA)
  bool ptxTanh = true;        // tanh_approx as PTX's tanh.approx.f32; false: math.tanh
  bool wavePriority = false;  // set_wave_prio as AMDGPU's s_setprio; false: dropped
  // The fills past a dim's end (reductions, mma operands) under a branch only the tiles
  // that reach past it take; false: a select per element in every tile.
  bool branchOnOverrunningTiles = true;
  // Masked global reads and writes through AMDGPU buffers, whose range check masks them.
  bool bufferAccesses = false;
  // The LLVM sync scope of the whole GPU for device-wide atomics and fences (stream-K's
  // counters): NVPTX's "device" (PTX .gpu), AMDGPU's "agent".
  std::string deviceScope = "device";
};

// Builds `kernel`'s gpu.func at the end of `module`; emits a diagnostic at the op it
// cannot lower and fails.
mlir::LogicalResult emitDistributedKernel(mlir::func::FuncOp kernel, mlir::gpu::GPUModuleOp module,
                                          const DistributionOptions& options = {});

}  // namespace wave::jit

#endif
