//===- Cluster.h - workgroups in clusters sharing loop copies -------*- C++ -*-===//
//
// Under CompileOptions::cluster_size the distribution launches the workgroups in clusters
// (`nvvm.cluster_dim` on the function) whose members take neighbouring tiles along one
// grid axis, and marks the TMA loads of the tiles they all fill alike (no dim along that
// axis) `wave.multicast`; wave-multicast-tensor-copies then splits each such copy among
// them, every part landing in all of their tiles.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_CLUSTER_H
#define WAVE_JIT_ANALYSIS_CLUSTER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace wave::jit {

inline constexpr llvm::StringLiteral kMulticastAttr = "wave.multicast";

// The workgroups in each of `func`'s clusters (1: no clusters).
inline int64_t clusterSize(mlir::gpu::GPUFuncOp func) {
  auto dims = func->getAttrOfType<mlir::DenseI32ArrayAttr>(mlir::NVVM::NVVMDialect::getClusterDimAttrName());
  int64_t size = 1;
  for (int32_t d : dims ? dims.asArrayRef() : llvm::ArrayRef<int32_t>()) size *= d;
  return size;
}

}  // namespace wave::jit

#endif
