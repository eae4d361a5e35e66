//===- Passes.td - passes that lower the wave dialect ------*- tablegen -*-===//

#ifndef WAVE_LOWERING_PASSES_TD
#define WAVE_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def WaveSelectLowering : Pass<"wave-select-lowering", "mlir::func::FuncOp"> {
  let summary = "Mark the kernels the shape-matching lowerings take, while the layout pipeline replaces them";
  let description = [{
    Marks a kernel `wave.shape_lowering` when it goes through the kernel-shaped
    lowerings (wave-infer-index with the iteration-space emitter, or the attention
    emitter) rather than wave-assign-layouts and the per-op distribution.
    `mode=automatic` marks the attention kernels the attention emitter matches whose
    key loop is split across waves (decode attention: the emitter combines the waves'
    online softmax once, after the loop, where the layout pipeline combines them in every
    key tile) and leaves every other kernel, flash attention and GEMMs included, to
    layouts; `mode=layouts` marks none; `mode=legacy` marks
    attention kernels and kernels without `wave.mma` (the GEMM emitter is gone: its
    schedule is wave-pipeline-shared-copies now).
  }];
  let options = [
    Option<"mode", "mode", "std::string", "\"automatic\"", "automatic, layouts or legacy">
  ];
}

def WaveLowerToGPU : Pass<"wave-lower-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower memory-bound wave kernels to a gpu.func of per-thread vector code";
  let description = [{
    Each kernel (a func.func with `wave.constraints`) becomes a `gpu.func` in a
    `gpu.module`. A kernel whose values carry layouts (wave-assign-layouts) is lowered op
    by op from them (lowering/DistributeKernel). The rest, annotated by
    `wave-infer-index`, take the kernel-shaped lowerings described below, each kernel with one memref argument per tensor: static
    sizes from `wave.hyperparameters`, dynamic (`?`) for dims left out of them. Each
    thread walks its steps in an `scf.for`, one vector of the layout's run per value;
    reads and writes address memory at their `wave.index` (as `affine.apply`). Runs that
    may cross a tensor's edge (a size that its tile does not divide, or a dynamic one)
    take a masked path; the rest use whole vector loads and stores, aligned to the run
    (up to 16 bytes) where rows are a multiple of a run, or checked to be at run time.

    Handles read, write, register, cast, elementwise math, select, broadcast, permute,
    self_index, apply_expr, and reductions (max, sum) over the innermost dim, which
    unroll the steps and combine across lanes (shuffles) and waves (a workgroup buffer).
    Attention-shaped kernels take the attention emitter (lowering/LowerAttentionKernel);
    any other kernel with `wave.mma` must carry layouts.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::nvgpu::NVGPUDialect", "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def WaveLowerExp2ToNVVM : Pass<"wave-lower-exp2-to-nvvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower f32 math.exp2 to NVVM's ex2.approx.ftz, one per element";
  let description = [{
    The language's `exp2` on f32 is the hardware approximation with subnormal results
    flushed to zero (`docs/language.md`). Left to the NVVM pipeline, `math.exp2` becomes
    libdevice's `__nv_exp2f`, whose non-flushing `ex2.approx.f32` costs three more
    instructions per element around the MUFU (a range check and two scalings): a
    softmax computes one per score. Vectors are unrolled into element calls of
    `llvm.nvvm.ex2.approx.ftz.f`; other element types are left to the pipeline.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::vector::VectorDialect"];
}

#endif
