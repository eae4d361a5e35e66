//===- Passes.td - passes that lower the wave dialect ------*- tablegen -*-===//

#ifndef WAVE_LOWERING_PASSES_TD
#define WAVE_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def WaveLowerToGPU : Pass<"wave-lower-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower memory-bound wave kernels to a gpu.func of per-thread vector code";
  let description = [{
    Each kernel (a func.func with `wave.constraints`) becomes a `gpu.func` in a
    `gpu.module`, with one static memref argument per tensor (sizes from
    `wave.hyperparameters`). The work is split as the constraints say: workgroup tiles
    over the grid, wave tiles over the waves of a block, and within a wave, runs of
    contiguous elements along the innermost dim, one vector per thread and step. Accesses
    that may cross a tensor's edge take a masked path; the rest use whole vector loads
    and stores.

    Handles read, write, register, cast and elementwise math. Kernels with loops, MMAs,
    reductions or layout changes are rejected with a diagnostic (later stages).
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

#endif
