//===- KernelSignature.h - a wave kernel's arguments as a gpu.func's --*- C++ -*-===//
//
// What every lowering of a kernel shares: one memref per tensor argument (static sizes
// from wave.hyperparameters, dynamic where a dim has none), and each dim's size as a
// value inside the gpu.func.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_LOWERING_KERNELSIGNATURE_H
#define WAVE_JIT_LOWERING_KERNELSIGNATURE_H

#include "dialect/WaveDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace wave::jit {

// `dim`'s value in the kernel's wave.hyperparameters, if it has one.
std::optional<int64_t> staticSize(mlir::func::FuncOp kernel, llvm::StringRef dim);

// The memref type of each kernel argument.
llvm::SmallVector<mlir::Type> memrefArgumentTypes(mlir::func::FuncOp kernel);

// Creates the gpu.func for `kernel` at the end of `module`, its arguments the memrefs of
// memrefArgumentTypes; marks it a kernel of `threads` threads.
mlir::gpu::GPUFuncOp createKernelFunc(mlir::OpBuilder& b, mlir::func::FuncOp kernel, mlir::gpu::GPUModuleOp module,
                                      int64_t threads);

// The size of `dim` inside `func`: a constant, or for a dynamic dim, read from the
// descriptor of the first argument that has it. Fails (with a diagnostic) when no
// argument has the dim.
mlir::FailureOr<mlir::Value> dimSize(mlir::OpBuilder& b, mlir::func::FuncOp kernel, mlir::gpu::GPUFuncOp func,
                                     llvm::StringRef dim);

// One dim of an MMA kernel's launch: its workgroup and wave tiles and its grid axis.
struct LaunchDim {
  llvm::StringRef dim;
  int64_t blockTile, waveTile, gridAxis;
};

// The thread layout of a kernel whose workgroups split `dims` (what setLaunchShape takes).
dialect::ThreadLayoutAttr launchLayout(mlir::MLIRContext* ctx, llvm::ArrayRef<LaunchDim> dims, int64_t lanes,
                                       int64_t elementsPerThread, int64_t steps);

// Sets known_grid_size when every dim split over the grid has a static size, and records
// `layout` for the runtime, which computes the grid of the others at launch. `rankSlices`:
// per dim a DeviceConstraint splits over the GPUs, the elements of this rank's slice,
// which the grid covers (recorded as `wave.rank_slices` for the runtime).
void setLaunchShape(mlir::OpBuilder& b, mlir::func::FuncOp kernel, mlir::gpu::GPUFuncOp func,
                    dialect::ThreadLayoutAttr layout, const llvm::StringMap<int64_t>& rankSlices);

}  // namespace wave::jit

#endif
