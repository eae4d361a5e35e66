//===- Passes.td - analyses and transforms on the wave dialect -*- tablegen -*-===//

#ifndef WAVE_TRANSFORMS_PASSES_TD
#define WAVE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WaveInferIndex : Pass<"wave-infer-index", "mlir::func::FuncOp"> {
  let summary = "Derive each thread's index sequence from a kernel's constraints";
  let description = [{
    For a memory-bound kernel (a func.func with `wave.constraints` whose ops share the
    iteration space of the tensors it writes), records:

    - on the kernel, `wave.thread_layout`: the workgroup and wave tile of each dim, the
      grid axis it is split over, and the run of contiguous elements (up to 16 bytes) a
      thread handles per step along the innermost dim;
    - on every read, write and elementwise op, `wave.index`: per dim of the op's value,
      the first element of the thread's run, over the symbols `_T0` (thread in the
      workgroup), `_WG0`.. `_WG2` (workgroup ids) and `_STEP`.

    Tile sizes must be known at compile time (`wave.hyperparameters`); dim sizes need
    not be: a dim left out is dynamic, its size known only at launch.
  }];
  let dependentDialects = ["::wave::dialect::WaveDialect"];
}

#endif
