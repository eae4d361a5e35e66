//===- Passes.td - passes that lower the wave dialect ------*- tablegen -*-===//

#ifndef WAVE_LOWERING_PASSES_TD
#define WAVE_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def WaveLowerToGPU : Pass<"wave-lower-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower wave kernels with layouts to a gpu.func of per-thread vector code";
  let description = [{
    Each kernel (a func.func with `wave.constraints`) becomes a `gpu.func` in a
    `gpu.module`, with one memref argument per tensor: static sizes from
    `wave.hyperparameters`, dynamic (`?`) for dims left out of them. Every tensor value
    must carry the layout wave-assign-layouts gives it; each op is lowered on its own
    from its operands' and result's layouts (lowering/DistributeKernel).

    `persistent=true` makes the grid persistent: the body becomes a loop over the
    workgroup tiles (`scf.for` marked `wave.tile_loop`: rounds of one tile per workgroup,
    taken in the workgroups' order and the reverse by turns, so that tiles of differing
    lengths pair up), the tile's coordinates taken in the tile scheduler's order;
    the function gets `wave.persistent` and no known grid size, for the runtime launches
    only as many workgroups as fit on the GPU. Each loop of the body that waits on
    mbarriers counts its trips across tiles (`wave.trip_base`: the index of the tile
    loop's iteration argument holding the trips of earlier tiles), so that phases carry on.

    `stream-k=true` (with `persistent`), for a kernel whose one top-level loop sums (every
    carried value an mma's accumulator or a running sum) and writes nothing: where the
    tiles fill at most half the last round, the last two rounds' trips of that loop are
    shared out evenly among the workgroups, each walking a run of them across tile
    boundaries (fewer tiles than workgroups: equal parts of each tile)
    (lowering/DistributeStreamK.cpp). The function gets a workspace parameter (a global
    pointer after the tensors') and `wave.stream_k_slot_bytes`; a segment short of its
    tile adds its sums to the tile's slot there and counts its trips on the tile's
    counter, and the one that completes the count takes the slot's sums and runs the rest
    of the body.
    Other kernels keep the plain persistent grid.

    `tile-counter=true` (with `persistent`, no stream-K, no clusters), where a loop of
    the body ends by the tile's position (causal attention's): the function gets a tile
    counter parameter (a global pointer after the tensors' to an i32, zero at launch) and
    `wave.tile_counter`, and the tile loop's linear tile is a `wave.scheduled_tile` on it,
    which wave-schedule-tiles-dynamically may make a fetch. (Every persistent tile loop
    names its linear tile by `wave.scheduled_tile`; that pass lowers it.)

    `cluster-size=n` (1, 2 or 4) groups the workgroups in clusters of n along the grid
    axis whose neighbouring tiles share the most bytes of the loops' TMA-filled operands,
    among the axes whose static tile count n divides and whose loops' trips do not depend
    on the tile (`nvvm.cluster_dim`; a persistent grid's clusters are n workgroups along
    x that take one place in its rounds). The copies of the shared operands are marked
    `wave.multicast` for wave-multicast-tensor-copies. No axis qualifying: no clusters.

    `vector-atomics=true` (sm_90 and up) lets a write that adds to memory
    (`combine = #wave.combine<add>`) add a whole run of f32, f16 or bf16 registers with
    one `red.global.add` of up to 16 bytes; otherwise each element is its own atomic.

    `system-atomics=true` (NVIDIA) emits adds and integer min/max as PTX `red` at system
    scope, so that the adds of kernels on other GPUs of the node to the same peer memory
    (a symmetric buffer) land too; LLVM's NVPTX backend drops the scope of its
    `atomicrmw`. Float min/max stay compare-and-swap loops, already at system scope.

    `ptx-tanh=false` (targets without PTX) lowers `tanh_approx` to `math.tanh`, which
    the target's pipeline expands; otherwise it is PTX's `tanh.approx.f32`.

    `wave-priority=true` (AMDGPU) lowers `wave.set_wave_prio` to `rocdl.s.setprio`;
    otherwise it is dropped (NVIDIA GPUs have no issue priority to set).

    `overrun-branches=true` keeps the elements past a dim's end out of reductions and mma
    contractions under a branch that only the tiles reaching past the end take (a loop's
    last, where the dim is not a whole number of tiles); the others combine their
    elements with no select each. `false` selects in every tile: on gfx942 the branch's
    vector phis took causal D 128 attention at 1000 keys from 199 VGPRs to spills.

    An `apply_expr` comparing a sum of elements' positions (`self_index` along dims,
    through broadcasts, added and subtracted: a causal mask's `k - m <= 0`) with an
    expression of the symbols becomes a constant per register against one value per
    thread, where every register's position is this thread's part plus a constant;
    otherwise each register's position is computed and compared.

    `buffer-accesses=true` (AMDGPU) reads and writes global memory that a kernel argument
    of static shape holds (whose offsets, its dims rounded up to whole tiles, stay under
    2 GiB) through a buffer resource: an access masked
    only at the outermost dim's end needs no compare (the buffer's range check reads zero
    and drops writes there), and one masked otherwise moves its elements at an offset
    past the end where the mask is false, with no branch. Runs that may end partway stay
    a branch and a masked access; atomics, flags and signals stay as they are.
  }];
  let options = [
    Option<"persistent", "persistent", "bool", /*default=*/"false",
           "Loop each workgroup over the tiles of a grid sized to the GPU">,
    Option<"streamK", "stream-k", "bool", /*default=*/"false",
           "Under persistent: split the last two rounds' trips of the kernel's summing loop evenly (stream-K)">,
    Option<"clusterSize", "cluster-size", "int", /*default=*/"1",
           "Workgroups per cluster, along the axis whose tiles share loop copies">,
    Option<"tileCounter", "tile-counter", "bool", /*default=*/"false",
           "Under persistent, where the tiles' loops differ in length: a tile counter parameter to hand tiles out from">,
    Option<"vectorAtomics", "vector-atomics", "bool", /*default=*/"false",
           "Add runs of f32/f16/bf16 to memory with one vector red.global.add (sm_90+)">,
    Option<"systemAtomics", "system-atomics", "bool", /*default=*/"false",
           "Adds and integer min/max as PTX red at system scope (atomic across the node's GPUs)">,
    Option<"ptxTanh", "ptx-tanh", "bool", /*default=*/"true",
           "Lower tanh_approx to PTX's tanh.approx.f32 (false: math.tanh)">,
    Option<"wavePriority", "wave-priority", "bool", /*default=*/"false",
           "Lower set_wave_prio to AMDGPU's s_setprio (false: dropped)">,
    Option<"overrunBranches", "overrun-branches", "bool", /*default=*/"true",
           "Fill the elements past a dim's end only in the tiles that reach past it, under a branch">,
    Option<"bufferAccesses", "buffer-accesses", "bool", /*default=*/"false",
           "Masked global reads and writes through AMDGPU buffers (their range check masks)">,
    Option<"deviceScope", "device-scope", "std::string", /*default=*/"\"device\"",
           "LLVM sync scope of device-wide atomics and fences (NVPTX: device, AMDGPU: agent)">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::amdgpu::AMDGPUDialect", "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::nvgpu::NVGPUDialect", "::mlir::NVVM::NVVMDialect", "::mlir::ROCDL::ROCDLDialect", "::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
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

def WavePredicateAsyncCopies : Pass<"wave-predicate-async-copies", "mlir::gpu::GPUModuleOp"> {
  let summary = "Give cp.async copies that read all or nothing a predicate in place of a byte count";
  let description = [{
    A masked or pipelined `cp.async` (a tile's rows past a tensor's end, a gathered row
    that is padding, a fill past the loop's last trip) reads its whole size or nothing,
    but reaches the NVVM dialect with a byte count (`select(c, 16, 0)` scaled to bytes).
    ptxas cannot see that the count takes two values: for each such copy it emits the
    partial-copy form, five or six instructions that adjust the address by the bytes
    missing. Where a copy's count is `c1 && c2 ... ? its size : 0`, this pass issues it
    with PTX's `ignore-src` predicate (`!(c1 && c2 ...)`) instead, one predicate per
    copy; a count that is always the whole size is dropped. Other counts stay. Runs on
    the LLVM dialect, after the conversion from NVGPU; the copies become inline PTX.
  }];
}

def WaveLowerF8ToNVVM : Pass<"wave-lower-f8-to-nvvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "Compute f8 in f32 and convert to and from f8 with PTX's paired cvt";
  let description = [{
    The NVVM lowering holds f8E4M3FN and f8E5M2 values as i8: loads, stores, moves and
    the MMA instructions take them so, but nothing computes with them. Arithmetic on f8
    becomes f32 arithmetic between an `arith.extf` and an `arith.truncf` (MLIR's
    float emulation); every extension from f8 then becomes `nvvm.convert.f8x2.to.f16x2`
    (exact) per pair of elements, every truncation to f8
    `nvvm.convert.f32x2.to.f8x2` (or `.f16x2.to.f8x2`) rounding to nearest even and
    saturating to the largest finite value (`satfinite`), as the interpreter does;
    f8 constants become their bits. Needs sm_89 or later.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::vector::VectorDialect", "::mlir::arith::ArithDialect"];
}

def WaveExpandMathForAMDGPU : Pass<"wave-expand-math-for-amdgpu", "mlir::gpu::GPUModuleOp"> {
  let summary = "Rewrite math ops into the instructions AMDGPU has, linking no device library";
  let description = [{
    On AMD the kernel links no device library (ROCm's ocml): every math op must end as
    arithmetic or as an LLVM intrinsic the AMDGPU back end selects or expands inline.
    First tanh, atan, atan2, cbrt and erf become MLIR's polynomial approximations (f32;
    narrower floats through f32), sinh, cosh, tan and powf their expansions into exp
    and log, rsqrt 1 / sqrt, integer abs a select. Then every math op left (exp2, exp,
    log2, log, log10, sqrt, sin, cos, fabs, floor, ceil, trunc, round, roundeven, fma,
    copysign) becomes a call of its `llvm.*` intrinsic (`llvm.call_intrinsic`, which
    the ROCDL conversion leaves alone: it would turn math ops, and LLVM's own ops for
    these intrinsics, into device-library calls). A math op with none of these is an
    error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect", "::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def WaveLowerGridDimsForAMDGPU : Pass<"wave-lower-grid-dims-for-amdgpu", "mlir::gpu::GPUModuleOp"> {
  let summary = "Read the grid's size, and a block's of unknown size, from the implicit kernel arguments";
  let description = [{
    The ROCDL conversion lowers `gpu.grid_dim` (and `gpu.block_dim` where the function
    has no known block size) to calls into ROCm's device library (`__ockl_get_num_groups`,
    `__ockl_get_local_size`), which no kernel of ours links: a kernel with dynamic dims
    would not link. The dispatch's implicit kernel arguments (code object v5) hold the
    same numbers: this pass loads `hidden_block_count_{x,y,z}` (u32, from byte 0) and
    `hidden_group_size_{x,y,z}` (u16, from byte 12) through `llvm.amdgcn.implicitarg.ptr`,
    invariant loads the back end may hoist and merge.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect"];
}

#endif
