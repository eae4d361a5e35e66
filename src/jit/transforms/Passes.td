//===- Passes.td - analyses and transforms on the wave dialect -*- tablegen -*-===//

#ifndef WAVE_TRANSFORMS_PASSES_TD
#define WAVE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WaveAssignLayouts : Pass<"wave-assign-layouts", "mlir::func::FuncOp"> {
  let summary = "Give every tensor value a distributed layout, converting where producers and consumers disagree";
  let description = [{
    After this pass every `!wave.tensor` value of a kernel carries a `#wave.layout`: which
    register of which lane of which wave holds each element of the workgroup's tile.
    Reads produce coalesced runs (up to 16 bytes along the memory's innermost dim, sized
    by the kernel's narrowest element type so that values of one shape share a layout);
    reductions slice their input's layout, permutes reorder it; elementwise ops take their
    operands' (implicit broadcasts become explicit `wave.broadcast` ops first). Constants,
    indices and broadcasts take the layout their consumer asks for. Where a value reaches
    a consumer in another layout than it needs (operands that disagree; a write whose
    value would scatter across memory, as in a transpose), a `wave.convert_layout` goes
    in front of the consumer.
  }];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

def WaveWidenStoreRuns : Pass<"wave-widen-store-runs", "mlir::func::FuncOp"> {
  let summary = "Lengthen the runs of global writes to 16 bytes by shuffles within the wave";
  let description = [{
    Each store instruction of a warp is one L2 request per row it touches: an mma
    accumulator's pairs (8 bytes in f32, 4 cast to 16 bits) write 8 rows of 32 or 16
    bytes per instruction, and the epilogue's requests, not its bytes, bound it. Where
    the written value's layout is linear (`analysis/LayoutBases.h`) and lanes step along
    the row where registers step further along it, a `wave.convert_layout` before the
    write exchanges those steps: each thread then holds runs of 16 bytes (fewer where the
    row's static length is not a multiple), half or a quarter of the instructions and
    requests, and the conversion lowers to xor shuffles within each wave. Runs after
    `wave-assign-layouts`, so the mmas' orientation is chosen without it.
  }];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

def WaveHoistInvariantReads : Pass<"wave-hoist-invariant-reads", "mlir::func::FuncOp"> {
  let summary = "Move reads that every iteration of a loop repeats to before the loop";
  let description = [{
    Inside `wave.iterate "K2"`, a value with the dim K2 is the current tile's; a read
    whose memory and value lack the loop's dim reads the same elements in every
    iteration (attention's queries, read beside each key tile). Such a read, taking
    nothing computed in the loop, of memory the loop does not write, moves to before the
    loop, so it is done once and, when its memory is in SHARED_ADDRESS_SPACE, not staged
    through shared memory in every iteration (wave-promote-shared runs after it and
    stages only reads inside loops). Inner loops go first, so a read can leave several.
    With `keepMmaOperandsShared` (warpgroup mmas on sm_90a), a read of shared-address-space
    memory that only mmas use stays: wgmma reads it from its shared tile, filled once
    before the loop, and no registers hold it.
  }];
  let options = [
    Option<"keepMmaOperandsShared", "keep-mma-operands-shared", "bool", /*default=*/"false",
           "leave in the loop the shared-memory reads only mmas use (wgmma reads them there)">
  ];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

def WaveSkipMaskedTiles : Pass<"wave-skip-masked-tiles", "mlir::func::FuncOp"> {
  let summary = "End loops before the tiles a causal mask hides whole";
  let description = [{
    Causal attention adds `select(k - m <= c, 0, -BIG)` (c >= 0, BIG >= 1e4) to the
    scores of each key tile. For a workgroup whose rows start at m0, every tile from key
    m0 + BLOCK_M + c on is masked whole; when the masked scores reach only the row max
    (carried through the loop), exp2 of the scores less that max, and sums or an mma
    contraction along the keys of that, such a tile changes no result (exp2 gives exact
    zeros, and the max is already above them after the first tile, whose key 0 every
    row sees). The pass sets the loop's `end` to `$0 + BLOCK_M + c` over the row dim,
    and the lowering runs `ceil(min(K2, end) / BLOCK_K2)` tiles. A loop that writes or
    prints, or whose masked scores reach anything else, keeps every tile.
  }];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

def WaveMaskPartialTiles : Pass<"wave-mask-partial-tiles", "mlir::func::FuncOp"> {
  let summary = "Compute score masks only in the loop tiles where they hide something";
  let description = [{
    Attention adds `select(visible, 0, -BIG)` to its scores: `visible = k < K2` for keys
    past the end, `k - m <= c` under a causal mask (c >= 0). In a tile whose keys all lie
    before K2 the first adds zeros; in one whose keys all lie at or before the
    workgroup's first row m0 + c, so does the second. The pass marks such adds
    `wave.hiding_mask` (the mask as rhs) and, for causal masks over one row dim, sets
    the loop's `unmasked_end` to `$0 + c + 1` over it (the smallest c). The distribution
    computes a marked add's mask, and whatever only it uses, under a branch that the
    tiles from `floor(min(K2, unmasked_end) / BLOCK_K2)` on take; the others pass the
    scores through (so a score of -0.0 stays -0.0 there instead of becoming +0.0).
  }];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

def WaveScaleAfterMasks : Pass<"wave-scale-after-masks", "mlir::func::FuncOp"> {
  let summary = "Add a marked mask to scaled scores before their positive scale";
  let description = [{
    Attention's logits are `s c + select(visible, 0, -BIG)` for a constant c > 0, and
    wave-mask-partial-tiles marks the add: its result leaves a branch that most tiles
    skip. Over a branch's result, wave-factor-positive-scales cannot take c out of the
    row max, and the multiply cannot fuse into `x - max` (an fma): each tile then pays a
    multiply and a subtraction per score instead of one fma, and the max its multiplies.
    This pass rewrites each marked add whose lhs is such a product (used only by it) and
    whose mask is a `select` of splats as `(s + select(visible, 0, -BIG / c)) c`, the add
    still marked; applied in order, a chain of masks ends in one scale. Where a mask is 0
    the logits are bit for bit the old ones (s + 0 = s but for -0, whose product is +0 in
    both); where it hides, `(s - BIG / c) c` is as far below every visible logit as
    `s c - BIG`, and exp2 of either less the max is 0.
  }];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

def WaveSelectWarpgroupMma : Pass<"wave-select-warpgroup-mma", "mlir::func::FuncOp"> {
  let summary = "Run the mmas that fit Hopper's warpgroup instructions (wgmma) on warpgroups";
  let description = [{
    A `wave.mma` gets `warpgroup` (wgmma m64nNk16 on warpgroups of 4 waves, operands read
    by the tensor cores from shared memory) where everything it needs holds:
    - its kind is an f16 or bf16 mma with f32 accumulators;
    - each operand is a plain read, used only by it, of a shared tile (wave-promote-shared's)
      whose innermost dim is the contraction dim, of rows that are 32, 64 or a multiple of
      128 bytes long; the tile is written only by its fill and read only there;
    - it is in no loop whose waves fold their parts apart (wave-split-loop-across-waves);
    - the kernel's waves are whole warpgroups that split the workgroup tile into 64-row
      strips, in the op's orientation or transposed (see analysis/MMAAnchors'
      warpgroupTiling; wave-assign-layouts picks the orientation, as for any mma).
    The accumulator and the product may be any values: a GEMM's loop-carried sums, or
    attention's scores from zeros, reduced and fed to a second mma in the loop.
    Its tiles then get `swizzle` (the widest of 128, 64, 32 bytes their rows fill) and no
    padding. Other mmas stay on mma.sync. `enabled=false` (CompileOptions::warpgroup_mma)
    keeps every mma on mma.sync.
  }];
  let options = [
    Option<"enabled", "enabled", "bool", /*default=*/"true", "select warpgroup mmas at all">
  ];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

def WaveSelectTensorCopies : Pass<"wave-select-tensor-copies", "mlir::func::FuncOp"> {
  let summary = "Fill swizzled shared tiles by Hopper's tensor memory accelerator (TMA)";
  let description = [{
    `wave.write (wave.read %a), %s` becomes `wave.tma_copy %a, %s` where:
    - %s is a tile swizzled by 128 bytes (wave-select-warpgroup-mma's, for wgmma) of
      %a's dims in %a's order, its innermost extent a multiple of 128 bytes and the
      others at most 256 (a box of the copy engine per 128-byte block);
    - %a is a kernel argument (global memory) of at most 5 dims, 8-, 16- or 32-bit
      elements, no mapping, its innermost dim a known multiple of 16 bytes (the tensor
      map's row strides must be);
    - the read is used only by the write, and at most one loop is around them;
    - every other fill of a shared tile in the same block qualifies too (a loop's fills
      are pipelined one way: TMA copies on mbarriers, or cp.async).
    The runtime encodes a tensor map per such argument and box at launch; the copy lands
    zeros where a dim ends inside the tile, as the masked fill did. `enabled=false`
    (CompileOptions::tma) keeps every fill on the threads (cp.async).
  }];
  let options = [
    Option<"enabled", "enabled", "bool", /*default=*/"true", "select TMA copies at all">
  ];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

def WaveSplitLoopAcrossWaves : Pass<"wave-split-loop-across-waves", "mlir::func::FuncOp"> {
  let summary = "Let the waves that split a loop's dim fold their parts apart, combined after the loop";
  let description = [{
    A WaveConstraint on the dim an iterate walks gives each wave part of every tile
    (decode attention's keys). Where each carried value is a fold with a combination
    (analysis/CarriedFolds: a running max, a running sum, or a sum rescaled by a running
    max as the online softmax's), each wave can fold its own parts as if it were a
    workgroup of its own, with no exchange between waves inside the loop, and the waves'
    partials combine once after it. The pass sets the loop's `wave_folds` and, after the
    loop, combines the results:

    ```
    %m = wave.combine_waves max %r#0 along "K2"
    %f = wave.exp2 (k * (%r#0 - %m))            // each wave's rescaling, for a sum
    %l = wave.combine_waves sum (%r#1 * %f) along "K2"   // rescaled by running max #0
    ```

    Every use of a loop result takes its combination. A loop whose carried values are not
    all such folds keeps its exchanges in every tile (each reduction over the dim
    combined across the waves), as it would without the pass.
  }];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

def WavePromoteShared : Pass<"wave-promote-shared", "mlir::func::FuncOp"> {
  let summary = "Stage reads of shared-address-space memory through a tile in shared memory";
  let description = [{
    A kernel argument in SHARED_ADDRESS_SPACE says its reads go through shared memory:
    inside an iterate, each such `wave.read %a` becomes

    ```
    %s = wave.allocate {tile = [...], padding = P} : !wave.memory<[...] of T, shared>  // at the top
    %g = wave.read %a        // the workgroup's tile, from global memory
    wave.write %g, %s        // into shared memory
    %r = wave.read %s        // what the read's users now take
    ```

    The tile of each dim is its workgroup constraint's (or, for the dim a loop walks, its
    tiling constraint's); rows are padded by 16 bytes so that reads of eight consecutive
    rows (ldmatrix) fall on distinct banks. Barriers between the write and the read are
    left to wave-insert-barriers, after lowering.

    With `contraction-innermost` (AMD CDNA3, whose MFMA operands hold each lane's
    contraction elements side by side and have no transposing LDS read), the tile of a
    read that feeds only mmas as an operand whose contraction dim is not the memory's
    innermost (attention's V in P V, a GEMM's B as [K, N]) holds that dim innermost:
    the fill then writes it transposed once per workgroup, and every wave reads each
    lane's elements in one vector instead of one 16-bit read each.
  }];
  let options = [
    Option<"contractionInnermost", "contraction-innermost", "bool", /*default=*/"false",
           "order an mma operand's tile with its contraction dim innermost">
  ];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

def WavePipelineSharedCopies : Pass<"wave-pipeline-shared-copies", "mlir::gpu::GPUFuncOp"> {
  let summary = "Multi-buffer the shared tiles a loop fills and fill them ahead (cp.async or TMA)";
  let description = [{
    A schedule on distributed code. In an `scf.for` whose body fills shared tiles from
    global memory (`vector.store` into a `memref.view` of the dynamic shared memory of a
    `vector.load` from global memory, 4, 8 or 16 bytes each, or at a masked edge of
    `scf.if %inside { vector.load } else { zeros }`) and otherwise only reads them:

    - each filled tile gets `stages` copies side by side (views after it move up; the
      function's `wave.shared_memory_bytes` grows), iteration i using copy i mod stages;
    - each fill becomes an `nvgpu.device_async_copy` (cp.async), one group per iteration;
      a masked one reads no bytes outside the edge (the copy zero-fills);
    - `scf::pipelineForLoop` runs the copies `stages - 1` iterations ahead, the last
      iterations' copies predicated off (zero bytes read), and each iteration waits for
      its own tile (`nvgpu.device_async_wait` leaving `stages - 2` groups in flight)
      before the rest of its body; the copies come after that wait, so
      wave-insert-barriers needs one barrier per iteration, before them;
    - where the body runs wgmma (reading tiles through addresses taken by
      `memref.extract_aligned_pointer_as_index`, which move to the iteration's copy), the
      landed copies are fenced for the async proxy after the wait, and with 3 or more
      stages each iteration's wgmma batch stays in flight through the next iteration (its
      `wgmma.wait_group` leaves 1; all are waited for after the loop): the copies then run
      `stages - 2` iterations ahead, so none refills a tile a batch may still read, and 3
      stages are taken where 2 would have been picked. Only batches whose results feed the
      next iteration's batches alone and that read A from shared memory stay in flight: a
      fragment of A in registers is loaded again by the next iteration before its wait.

    `stages` 0 picks the most stages (up to 4) whose tiles fit 113 KiB (two workgroups
    per SM), else 2; where some loop's carried registers (with a floor of 40 others per
    thread) already keep a second workgroup off the SM's 64K registers, the most that fit
    227 KiB. Only the shared memory live during the loop counts (SharedBlocks.h): the
    tiles of a loop before or after it are not, as wave-pack-shared-memory overlaps them
    with its own. 1 leaves loops alone. Loops that already hold async copies or
    barriers, write shared memory otherwise (a store under a condition, a partly masked
    run), or whose tiles are used after the loop are left alone, as are loops of fewer
    iterations than two stages.

    A loop whose shared-memory writes are all TMA copies (`nvgpu.tma.async.load` into
    boxes of tiles, each tile's copies armed by `nvgpu.mbarrier.arrive.expect_tx` on an
    mbarrier group of one made before the loop and waited on by
    `nvgpu.mbarrier.try_wait.parity` in the body) is pipelined the same way: the tiles
    get their copies, each group one mbarrier per stage (initialized beside the first),
    the arming and copies run ahead predicated past the end, and each iteration waits
    on its stage's mbarrier for the parity of its round (`(trip / stages) mod 2`). The
    mbarriers are static shared memory, before the dynamic: the stages leave 1 KiB.

    With `warp-specialize`, such a loop at the top level of the function, in a workgroup
    of whole warpgroups, is split between warps instead (SpecializeWarps.cpp): the
    function's rest from the loop on, with the ops before it that have effects, goes
    under `scf.if %tid < threads` (`wave.consumer_threads`), its barriers named ones of
    those threads (`nvvm.barrier id = 1`); the workgroup gains a warpgroup whose first
    thread runs the loop's copies alone in a loop of its own, waiting before each stage's
    refill on an "empty" mbarrier per stage that every computing thread (where wgmma
    alone reads the tiles, the first of each warpgroup) arrives on once its reads of the
    stage are done (after the iteration, or with a wgmma batch in flight, after the next
    one's wait). `nvvm.setmaxregister` gives the computing threads the registers the
    producer (40; 32 beside three computing warpgroups) does not need, never more than
    the workgroup holds at entry (an increase past it would wait for ever), which
    `nvvm.minctasm` caps so that ptxas honours it: at one computing warpgroup whose
    estimated registers (the larger of the loop's carried values and its wgmma batches'
    results, plus 40) fit 216, two workgroups per SM (128 at entry, 216 after; the stages
    leave room for the second); else one (at two warpgroups, 168 and 232; at three, 128
    and 160). Under a persistent grid's tile loop the producer also takes the TMA copies
    the tile's body makes once before the loop (attention's Q: an mbarrier of their own,
    into a tile only wgmma in the loop reads). The computing threads release them on an
    "empty" mbarrier of their own after the loop (and its last wgmma batch); the producer
    issues the next tile's at its trip min(stages - 1, trips - 1), after refilling the
    stages the last tile released earlier (after its loop where it has no trips), so that
    they land during the epilogue. The computing threads keep their waits, and no barrier
    guards the tile before its refill.
  }];
  let options = [
    Option<"stages", "stages", "int", /*default=*/"0",
           "copies of each filled tile; 0 = as many as fit (up to 4), 1 = no pipelining">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "run a loop's TMA copies on a producer warpgroup of their own">
  ];
  let dependentDialects = ["::mlir::nvgpu::NVGPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect", "::mlir::NVVM::NVVMDialect"];
}

def WavePackSharedMemory : Pass<"wave-pack-shared-memory", "mlir::gpu::GPUFuncOp"> {
  let summary = "Overlap the shared tiles that are never live at once";
  let description = [{
    Lays a gpu.func's dynamic shared memory out again: its blocks (maximal sets of
    `memref.view`s of `gpu.dynamic_shared_memory` at constant offsets whose bytes
    overlap, with the span of top-level ops using them; SharedBlocks.h), in their order,
    each at the lowest offset where it overlaps no block placed before it whose span
    meets its own, aligned as the views were (1024 bytes where wgmma takes tiles'
    addresses, else 128); where the result fits the room aimed at (one or two workgroups
    per SM), blocks first take bytes no block before them has while they fit there, as
    bytes reused cost a barrier. Two loops in a row thus share the bytes of their tiles and
    stages, and an operand staged for the second loop takes the first's. The views move
    by their block's shift and `wave.shared_memory_bytes` shrinks to the new end. Only
    where that matters: the function needs more than a workgroup may have (227 KiB) or
    fits two workgroups per SM (113 KiB) only so; elsewhere the layout is left alone, as
    bytes shared for nothing would cost barriers. Runs after the stages are made and
    before wave-insert-barriers, whose barriers then order the reuse (it orders accesses
    to views whose bytes overlap). The sizes are Hopper's by default; AMD CDNA3 gives a
    workgroup 64 KiB of LDS, two workgroups a compute unit 32 KiB each.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", "227 * 1024",
           "the shared memory one workgroup may have">,
    Option<"twoWorkgroupsBytes", "two-workgroups-bytes", "int64_t", "113 * 1024",
           "the most a workgroup may have for two to share a multiprocessor">
  ];
}

def WaveOverlapWarpgroupMma : Pass<"wave-overlap-warpgroup-mma", "mlir::gpu::GPUFuncOp"> {
  let summary = "Run a loop's last wgmma batch during the next iteration's work between batches";
  let description = [{
    A schedule on distributed code (FlashAttention-3's intra-warpgroup overlap). In an
    `scf.for` whose body runs two or more wgmma batches at its top level (each
    `wgmma.fence`, the batch, `wgmma.commit_group`, `wgmma.wait_group 0`), with no
    workgroup barrier, copy or nested loop beside them (the computing warps' loop of a
    warp-specialized kernel), the body is split in two stages:

    - stage 1: the last batch, from its fence to the end of the body (its wait, the
      release of the stages it read), and the effect-free ops before it that only stage
      1 uses (attention's rescaling of the output by the new maxima, the packing of P
      into the instruction's registers), narrowing casts excepted (P is carried as f16);
    - stage 0: the rest (attention's Q K^T batch and the softmax).

    The loop becomes: where it runs at all, stage 0 of the first iteration; a loop over
    the others whose iteration i runs stage 0 up to its last batch's wait, stage 1 of
    iteration i - 1 up to its wait (the later batch is issued behind the earlier one),
    the earlier batch's wait, now `wgmma.wait_group 1` (leaving the later batch on the
    tensor cores), the rest of stage 0 (the softmax, on the ALUs meanwhile), and the
    rest of stage 1; then stage 1 of the last iteration. What stage 1 reads from stage 0
    (P, the rescaling factors, the induction variable) is carried one iteration further.

    Loops whose stage 1 would hold an op with effects other than the batch's own and an
    mbarrier arrival (a store would move past the next iteration's loads), or whose stage
    0 reads an iteration argument stage 1 yields, are left alone, and
    so are loops where it does not pay: in a function that shares the SM with a second
    workgroup (`nvvm.minctasm` 2: the two already overlap each other's softmax and
    batches), or where the loop's carried values, the values carried further and the
    earlier batch's results (with 16 for the rest; 40 where masks are carried further)
    exceed the computing threads' registers (their `setmaxnreg`, else 255).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect", "::mlir::NVVM::NVVMDialect"];
}

def WaveScheduleTilesDynamically : Pass<"wave-schedule-tiles-dynamically", "mlir::gpu::GPUFuncOp"> {
  let summary = "Hand a persistent grid's tiles out at run time, where they differ in length";
  let description = [{
    Lowers each `wave.scheduled_tile` (a persistent grid's linear tile, from
    wave-lower-to-gpu). In a warp-specialized function (the `scf.if` marked
    `wave.consumer_threads`) whose tile loop's tile has a counter (wave-lower-to-gpu's
    `tile-counter`: a loop of the body ends by the tile's position, as causal
    attention's), the tiles are handed out at run time instead of in static rounds, so
    that the workgroups that ran short tiles take more of them:

    - the producer's first thread starts from the workgroup's own tile (its block index)
      and, as soon as a trip runs, takes the tile after it from the counter
      (`atomicrmw uinc_wrap` by the tile count less one, PTX's `atom.inc`: the launch's
      last fetch wraps the counter to zero again, so the runtime zeroes it only once),
      plus the number of workgroups;
    - it passes each tile to the computing threads through one of two i32 slots of shared
      memory (`wave_tile_slots`), each with a "full" mbarrier (its arrival after the
      store) and an "empty" one (each computing thread's arrival after its load), waiting
      for a slot to be empty before storing; it stores the first index past the tiles last;
    - both tile loops become `scf.while` loops over (tile, count, the loop's iteration
      arguments) that stop at that index; the count replaces the induction variable
      (the phases of mbarriers waited on once per tile go on from it as before).

    Every other `wave.scheduled_tile` becomes its static tile.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::nvgpu::NVGPUDialect", "::mlir::scf::SCFDialect"];
}

def WaveMulticastTensorCopies : Pass<"wave-multicast-tensor-copies", "mlir::gpu::GPUFuncOp"> {
  let summary = "Fill the tiles a cluster's workgroups share once, each issuing a part to all";
  let description = [{
    In a function launched in clusters of n workgroups (`nvvm.cluster_dim`, from
    wave-lower-to-gpu's cluster-size) and warp-specialized (the `scf.if` marked
    `wave.consumer_threads`), each TMA load the producer issues that is marked
    `wave.multicast` (its tile is the same in every workgroup of the cluster) is split
    along its box's outermost dim into n parts: the workgroup of rank r
    (`%cluster_ctarank`) issues part r, with a tensor map of the part's box (a new
    parameter and `wave.tensor_maps` entry) and the multicast mask of all n, so that
    each part lands in every workgroup's tile and completes on every workgroup's full
    mbarrier of the stage (which still expects the whole tile's bytes). A box is left
    whole where its parts would not start on the swizzle's 8-row period.

    A stage is then written by every producer of the cluster: the computing threads'
    release of a stage (each `nvgpu.mbarrier.arrive` on the empty mbarriers the producer
    waits on) becomes an arrival on that mbarrier in every workgroup of the cluster
    (`mapa`; a release at CTA scope, enough since the stage's readers are this
    workgroup's own wgmma, done at their wait: cluster scope fences all of memory before
    each arrival, which halved a GEMM's rate), and each empty mbarrier counts n times the
    arrivals. The
    mbarriers' initialization is fenced for the cluster and the cluster synchronizes
    before the split (no part lands in a workgroup not yet set up) and before the
    function returns (none exits while another may still arrive on its mbarriers).

    The marks are removed; a function without a producer or clusters is left as it is
    (its clusters then only group its workgroups).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::nvgpu::NVGPUDialect"];
}

def WaveAlternateWarpgroupMma : Pass<"wave-alternate-warpgroup-mma", "mlir::gpu::GPUFuncOp"> {
  let summary = "Computing warpgroups take turns at issuing an iteration's wgmma batches";
  let description = [{
    A schedule on distributed code (FlashAttention-3's ping-pong). In a warp-specialized
    function (the `scf.if` marked `wave.consumer_threads`) of W >= 2 computing
    warpgroups, each `scf.for` under the computing branch whose body runs two or more
    wgmma batches at its top level has its issue span (from the first `wgmma.fence` to
    the last commit before the first `wgmma.wait_group`; after
    wave-overlap-warpgroup-mma, both batches) taken in turns: warpgroup w syncs on
    named barrier 2 + w (of 256 threads) before it and arrives on barrier
    2 + (w + 1) mod W after it; the last warpgroup arrives on barrier 2 once at the start,
    so that warpgroup 0 goes first. One warpgroup's batches so run on the tensor cores
    while the others do the work between them. Every computing warpgroup must run the
    loops the same number of times (their bounds are the workgroup's).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::gpu::GPUDialect"];
}

def WaveFactorPositiveScales : Pass<"wave-factor-positive-scales", "mlir::gpu::GPUModuleOp"> {
  let summary = "Take a positive constant scale out of max and min: max(a c, b c) = max(a, b) c";
  let description = [{
    A softmax's logits are its scores times a constant (attention's 1/sqrt(d) log2(e)),
    and their row maximum is then a max over products: one multiply per element only for
    the max, beside the exponent's own (which LLVM contracts into an fma). For a finite
    constant c > 0, rounding x c is monotone in x, so max(a c, b c) = max(a, b) c and
    min likewise, exactly (NaN and signed zeros included) for `arith.maximumf`,
    `minimumf`, `maxnumf` and `minnumf`. This pass rewrites each such extremum of two
    operands scaled by the same c, an operand being `arith.mulf` by a constant (scalar or
    splat) or an element `vector.extract`ed from one; applied up a reduction's tree, a
    row's max costs one multiply instead of one per element. A select between such
    operands, or between one and a fill of 0 or an infinity (a reduction's identity for
    the elements past a dim's end, which c leaves as it is), takes the scale out too, so
    that a tile's masked max does as well. A product whose scale was taken out then moves
    next to the first of its remaining users (the exponent's subtraction) where they share
    its block: LLVM contracts a multiply and an add into an fma only within a block.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect"];
}

def WaveVectorSlicesToElements : Pass<"wave-vector-slices-to-elements", "mlir::gpu::GPUModuleOp"> {
  let summary = "Rewrite slices taken out of wide vectors as element extracts";
  let description = [{
    Distributed code holds each value as one vector of the thread's registers and takes
    the pieces an instruction needs (an mma fragment, a run to store) with
    `vector.extract_strided_slice`. Lowered as it is, each becomes a `shufflevector` of
    the whole wide vector, which LLVM's VectorCombine and InstCombine spend most of a
    compile on, while the NVPTX back end scalarizes the vectors anyway. This pass
    rewrites each as a chain of element `vector.extract`s and `vector.insert`s into the
    small result (n-D slices decomposed first), by MLIR's own patterns. Inserting slices
    back (`vector.insert_strided_slice`) is left as shuffles: as element chains into the
    wide vector they cost LLVM more, not less. The values computed are the same.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def WaveExpandStridedViews : Pass<"wave-expand-strided-views", "mlir::gpu::GPUModuleOp"> {
  let summary = "Take memref views apart into a base and index arithmetic, visiting the views alone";
  let description = [{
    The NVVM conversion wants each strided view (`memref.subview`, `reinterpret_cast`,
    `collapse_shape`, `cast`: a pipeline stage of a shared tile, a tensor flattened for a
    mapped access) as its base plus offsets and strides in index arithmetic. Upstream's
    `expand-strided-metadata` does this with a greedy driver over the whole module, which
    also folds every other op of the kernel: a tenth of a flash attention's conversion
    to NVVM for a dozen views. This pass applies the same patterns (MLIR's
    `populateExpandStridedMetadataPatterns`) to the memref ops that make or take apart
    views and to the ops the rewrites create, and nothing else. The IR computed is the
    same.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect", "::mlir::memref::MemRefDialect"];
}

def WaveInsertBarriers : Pass<"wave-insert-barriers", "mlir::gpu::GPUFuncOp"> {
  let summary = "Place the workgroup barriers that order shared-memory accesses";
  let description = [{
    Walks a gpu.func in program order and inserts `gpu.barrier` before an access to
    workgroup (shared) memory that may race with an access another thread made since
    the last barrier: a read after a write, or a write after a read. A read and a write
    are assumed to touch the same place, so each barrier is one that some pair of
    accesses needs. Writes are not ordered with writes: between two reads of it, a
    place in shared memory is written once (the lowerings fill a tile with one store
    per element), so no read depends on the order of two writes.

    - An op with regions other than `scf.for` (e.g. `scf.if`, whose threads may
      diverge) is one access, with the effects of every op inside it; its barrier goes
      before it, never inside it.
    - `scf.for` bodies run by every thread alike (uniform bounds). The state at the top
      of the body joins the state before the loop with the state at the end of the
      body, to a fixed point, so a body gets the barriers its back edge needs too.
    - `nvgpu.device_async_copy` into shared memory is a write that lands when a later
      `nvgpu.device_async_wait` returns: it must not start while other threads may
      still read or write (a barrier goes before it if they may), and it counts as a
      pending write only from the wait on; a barrier between the copy and its wait
      does not order it. A wait that leaves groups in flight lands all copies and leaves
      them in flight too (which copies its groups hold is not tracked). A pipeline that
      waits for one stage, then
      refills another, then reads the first thus needs one barrier per iteration,
      before the refill.
    - `nvgpu.tma.async.load` (a TMA copy) lands on an mbarrier that every thread waits
      on before it reads the tile (the mbarrier makes the bytes visible to each waiter):
      it must not start while other threads may still read the tile, and never needs a
      barrier after it.
    - Existing barriers (`gpu.barrier`, `nvvm.barrier`) are kept and reset the state.
    - Under a warp-specialized loop's split (`scf.if` with `wave.consumer_threads`), the
      computing threads' region is walked like the function, its barriers named ones of
      those threads alone (`nvvm.barrier id = 1, number_of_threads = n`); the producer's
      region, TMA copies ordered by mbarriers alone, gets none.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::NVVM::NVVMDialect"];
}

#endif
