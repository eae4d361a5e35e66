//===- WaveOps.td - wave dialect ops -----------------------*- tablegen -*-===//
//
// One op per DSL op. Shapes are symbolic dim names; the verifiers restate the front
// end's shape rules so that hand-written IR gets the same checks.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_OPS_TD
#define WAVE_OPS_TD

include "WaveAttrs.td"
include "WaveInterfaces.td"
include "WaveTypes.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Values and memory
//===----------------------------------------------------------------------===//

def Wave_RegisterOp : Wave_Op<"register", [Pure]> {
  let summary = "a tensor filled with one constant";
  let description = [{
    `%acc = wave.register 0.000000e+00 : !wave.tensor<[M, N] of f32>`. The constant's
    type is the element type; a tensor with no dims is a scalar.
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs Wave_TensorType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Wave_ReadOp : Wave_Op<"read", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "reads a whole tensor from memory";
  let description = [{
    `%r = wave.read %a {elements_per_thread = 8 : i64} : !wave.memory<[M, K] of f16, global>
    -> !wave.tensor<[M, K] of f16>`. Without a mapping the result has the memory's dims,
    in order; with one, the mapping's register-side (`outputs`) dims, and its `inputs` are
    the memory's. `elements_per_thread` is a hint for expansion. A mapping with dynamic
    values takes them as operands: `wave.read %k dynamic(%pages : !wave.tensor<[N] of i32>)
    {mapping = #wave.index_mapping<iterators = 2, ..., dynamic = 1>}`.

    With `wait_at_least = #wave.expr<"n">` (the DSL's `wait_at_least`; n a number or an
    expression of the kernel's symbols, such as a launch count) the memory holds flags
    (i32 or i64, global): each element is read with acquire semantics at system scope
    until it is at least n, then the workgroup meets at a barrier. With `take` (the DSL's
    `wait_and_take`) each workgroup then subtracts n from each flag it waited for, once,
    atomically, so that flags count signals not yet waited for. It writes memory as far
    as passes can tell, so no access moves across it and it is never removed.
  }];
  let arguments = (ins Wave_MemoryType:$memory,
                       Variadic<Wave_TensorType>:$dynamic,
                       OptionalAttr<Wave_IndexMappingAttr>:$mapping,
                       OptionalAttr<I64Attr>:$elements_per_thread,
                       OptionalAttr<Wave_ExprAttr>:$wait_at_least,
                       UnitAttr:$take);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = [{
    $memory (`dynamic` `(` $dynamic^ `:` qualified(type($dynamic)) `)`)? attr-dict `:` qualified(type($memory))
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Wave_WriteOp : Wave_Op<"write"> {
  let summary = "writes a whole tensor to memory";
  let description = [{
    `wave.write %v, %c : !wave.tensor<[M, N] of f32>, !wave.memory<[M, N] of f32, global>`.
    Without a mapping the value's dims are the memory's, in any order; with one, the
    mapping's `inputs` are the value's dims and its `outputs` the memory's. With
    `combine = #wave.combine<add>` (the DSL's `atomic_add`) each element is added to the
    one in memory, atomically and relaxed, once however many threads hold it; global
    memory only. `min` and `max` (`atomic_min`, `atomic_max`) keep the smaller or larger
    of the two, as `wave.minimum`/`wave.maximum` (integers signed; f32, f64, i32, i64).
    With `release` (the DSL's `signal`) the workgroup first meets at a barrier, then each
    element is stored once with release semantics at system scope (i32 or i64 flags in
    global memory). Dynamic values as for wave.read.
  }];
  let arguments = (ins Wave_TensorType:$value,
                       Arg<Wave_MemoryType, "destination", [MemWrite]>:$memory,
                       Variadic<Wave_TensorType>:$dynamic,
                       OptionalAttr<Wave_IndexMappingAttr>:$mapping,
                       OptionalAttr<I64Attr>:$elements_per_thread,
                       OptionalAttr<Wave_WriteCombineAttr>:$combine,
                       UnitAttr:$release);
  let assemblyFormat = [{
    $value `,` $memory (`dynamic` `(` $dynamic^ `:` qualified(type($dynamic)) `)`)? attr-dict `:`
    qualified(type($value)) `,` qualified(type($memory))
  }];
  let hasVerifier = 1;
}

def Wave_PrintOp : Wave_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "prints a tensor's elements when the kernel runs";
  let description = [{
    `wave.print %v where %m "acc" {limit = 64 : i64} : !wave.tensor<[M, N] of f32>,
    !wave.tensor<[M, N] of i1>`: one line per element, `acc[M=3, N=17] = 1.5`, with the
    element's index in the whole tensor along each dim. Only elements whose row-major
    position over the value's dims is below `limit`, and where the optional i1 `mask`
    (of the value's dims, in its order) holds, are printed; each once, in no particular
    order on the GPU. The write effect keeps it from being removed or moved.
  }];
  let arguments = (ins Wave_TensorType:$value, Optional<Wave_TensorType>:$mask, StrAttr:$label, I64Attr:$limit);
  let assemblyFormat = [{
    $value (`where` $mask^)? $label attr-dict `:` qualified(type($value)) (`,` qualified(type($mask))^)?
  }];
  let hasVerifier = 1;
}

def Wave_AllocateOp : Wave_Op<"allocate", [MemoryEffects<[MemAlloc]>]> {
  let summary = "a workgroup's tile of a tensor, in shared memory";
  let description = [{
    `%s = wave.allocate {tile = [#wave.expr<"BLOCK_M">, #wave.expr<"BLOCK_K">], padding = 8}
    : !wave.memory<[M, K] of f16, shared>`: one buffer per workgroup holding a tile of
    the result's dims, `tile` giving each dim's extent; each row of the innermost dim is
    `padding` elements longer than the tile, which spreads consecutive rows over the
    shared-memory banks. Reads and writes of it address the tile at the workgroup's (and
    loop's) tile start. wave-promote-shared creates these; a lowering may keep several
    copies of one (stages) to overlap filling one with reading another.

    `swizzle = 32 | 64 | 128` (bytes, padding 0) stores the tile as Hopper's tensor cores
    read it from shared memory (wgmma): the innermost dim cut into blocks of that many
    bytes, each block a [rows, block] array, and within each 8-row group the 16-byte
    chunks of a row permuted by the row (the address's chunk bits XOR its row bits).
    wave-select-warpgroup-mma sets it on the tiles a warpgroup mma reads.
  }];
  let arguments = (ins TypedArrayAttrBase<Wave_ExprAttr, "tile extents">:$tile, I64Attr:$padding,
                       OptionalAttr<I64Attr>:$swizzle);
  let results = (outs Wave_MemoryType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Wave_TmaCopyOp : Wave_Op<"tma_copy"> {
  let summary = "fills a swizzled shared tile from global memory by Hopper's tensor memory accelerator";
  let description = [{
    `wave.tma_copy %a, %s : !wave.memory<[M, K] of f16, shared>,
    !wave.memory<[M, K] of f16, shared>` (%a a kernel argument) does what `wave.write (wave.read %a), %s` does:
    the workgroup's (and loop's) tile of %a lands in %s, zeros where a dim ends inside
    the tile. One thread issues the copies (a box per swizzle-wide block of the
    innermost dim) and every thread waits on an mbarrier for them to land before going
    on. %s is a swizzled `wave.allocate` of %a's dims in %a's order.
    wave-select-tensor-copies creates these.
  }];
  let arguments = (ins Arg<Wave_MemoryType, "source", [MemRead]>:$source,
                       Arg<Wave_MemoryType, "destination", [MemWrite]>:$tile);
  let assemblyFormat = "$source `,` $tile attr-dict `:` qualified(type($source)) `,` qualified(type($tile))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

def Wave_IterateOp : Wave_Op<"iterate", [
    RecursiveMemoryEffects, SingleBlock,
    DeclareOpInterfaceMethods<RegionBranchOpInterface, ["getEntrySuccessorOperands"]>]> {
  let summary = "a loop over the tiles of a dim, with loop-carried values";
  let description = [{
    ```
    %r = wave.iterate "K" iter_args(%acc0) : (!wave.tensor<[M, N] of f32>)
                                          -> !wave.tensor<[M, N] of f32> {
    ^bb0(%acc: !wave.tensor<[M, N] of f32>):
      ...
      wave.yield %next : !wave.tensor<[M, N] of f32>
    }
    ```
    The body runs once per tile of `dim` (its TilingConstraint's size); its block
    arguments are the carried values, and `wave.yield` gives their next values. The
    results are the values after the last tile.

    `end` (with `end_dims`), a schedule that wave-skip-masked-tiles sets: the loop stops
    after the tile holding position `end - 1` of `dim` (or at the dim's end, if sooner),
    because the tiles after it cannot change the results. `end` is an expression whose
    `$i` is the workgroup's first position along `end_dims[i]`, e.g. causal attention's
    `#wave.expr<"$0 + 128">` over `["M"]`: keys past the workgroup's last query.

    `wave.add`s of the body marked `wave.hiding_mask` (by wave-mask-partial-tiles) add
    zeros (their rhs, a mask) in every tile that ends at or before the dim's end and,
    if the loop has one, `unmasked_end` (with `unmasked_end_dims`, in `end`'s form);
    the lowering computes those masks only in the other tiles.

    `wave_folds` (set by wave-split-loop-across-waves): the waves that a WaveConstraint
    on `dim` splits each fold their own part of every tile, apart, as if each were a
    workgroup of its own: a reduction over `dim` and an mma contracting it stay within
    the wave. Entry i says how carried value i's per-wave partials combine, "max" or
    "sum"; the results are those partials, for `wave.combine_waves` after the loop. The
    initial value of a "sum" counts once: the first wave along `dim` starts from it, the
    others from zero.
  }];
  let arguments = (ins StrAttr:$dim, Variadic<Wave_TensorType>:$iter_args,
                       OptionalAttr<Wave_ExprAttr>:$end, OptionalAttr<StrArrayAttr>:$end_dims,
                       OptionalAttr<Wave_ExprAttr>:$unmasked_end, OptionalAttr<StrArrayAttr>:$unmasked_end_dims,
                       OptionalAttr<StrArrayAttr>:$wave_folds);
  let results = (outs Variadic<Wave_TensorType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $dim `iter_args` `(` $iter_args `)` attr-dict `:` functional-type($iter_args, $results) $body
  }];
  let hasVerifier = 1;
}

def Wave_ConditionalOp : Wave_Op<"conditional", [
    RecursiveMemoryEffects, SingleBlock,
    DeclareOpInterfaceMethods<RegionBranchOpInterface, ["getEntrySuccessorOperands"]>]> {
  let summary = "ops that run only in the workgroups where a condition holds";
  let description = [{
    ```
    %r = wave.conditional %ok else(%x0) : (!wave.tensor<[B] of i1>, !wave.tensor<[B, N] of f32>)
                                         -> !wave.tensor<[B, N] of f32> {
      ...
      wave.yield %x1 : !wave.tensor<[B, N] of f32>
    }
    ```
    The body runs where `condition` (i1, one element per workgroup: no dims, or dims a
    workgroup holds one position of, checked when distributed) holds; its `wave.yield`
    gives the results there. Elsewhere the body does nothing and the results are the
    `otherwise` values, of the results' types.
  }];
  let arguments = (ins Wave_TensorType:$condition, Variadic<Wave_TensorType>:$otherwise);
  let results = (outs Variadic<Wave_TensorType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $condition `else` `(` $otherwise `)` attr-dict `:` functional-type(operands, $results) $body
  }];
  let hasVerifier = 1;
}

def Wave_SetSymbolOp : Wave_Op<"set_symbol", [MemoryEffects<[MemWrite]>]> {
  let summary = "a dim's size in this workgroup, read at run time";
  let description = [{
    `wave.set_symbol "N" = %length : !wave.tensor<[B] of i32>`: from this op on, `dim`
    ends at `size` in the workgroup (at most the size the kernel was launched with; a
    negative size ends it at 0). Accesses, reductions and prints leave out positions at
    or past it, and a `wave.iterate` over `dim` stops after the tile holding its last
    position; the grid keeps the launch size. `size` is an integer tensor of which each
    workgroup holds one element (each of its dims a workgroup tile of 1, checked when the
    kernel is distributed). In the kernel's body itself, not a loop's; once per dim, and
    before every op over `dim`. The write effect keeps it from being removed or moved.
  }];
  let arguments = (ins StrAttr:$dim, Wave_TensorType:$size);
  let assemblyFormat = "$dim `=` $size attr-dict `:` qualified(type($size))";
  let hasVerifier = 1;
}

def Wave_WorkgroupBarrierOp : Wave_Op<"workgroup_barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "every thread of the workgroup waits here; memory accesses before it are seen after it";
  let description = [{
    `wave.workgroup_barrier`: each thread waits until every thread of the workgroup has
    arrived, and their reads and writes of global and shared memory before it are seen by
    all of them after it. Its effects keep reads and writes from moving across it.
  }];
  let assemblyFormat = "attr-dict";
}

def Wave_SetWavePrioOp : Wave_Op<"set_wave_prio", [MemoryEffects<[MemWrite]>]> {
  let summary = "the calling wave's issue priority (AMDGPU's s_setprio)";
  let description = [{
    `wave.set_wave_prio 3`: from here on the wave's instructions issue at `priority`
    (0, the default, to 3) among the waves sharing its SIMD, on AMD GPUs; nothing on NVIDIA
    GPUs, which have no such setting. The write effect keeps it in its place.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<3>]>:$priority);
  let assemblyFormat = "$priority attr-dict";
}

def Wave_ScheduledTileOp : Wave_Op<"scheduled_tile", [Pure]> {
  let summary = "the linear index of the workgroup tile a persistent grid's workgroup runs next";
  let description = [{
    `%tile = wave.scheduled_tile %static of %tiles counter %counter : !llvm.ptr<1>`, in a
    persistent grid's loop over the tiles (`wave.tile_loop`): the linear index (of `%tiles`)
    of the tile this trip runs. It is `%static`, the static schedule's tile, unless
    wave-schedule-tiles-dynamically hands the tiles out from `%counter` (an i32 in global
    memory, zero at launch) instead: each tile once, to the workgroup that asks first.
    Kept apart from `%static` until that pass has decided.
  }];
  let arguments = (ins Index:$static_tile, Index:$tiles, Optional<AnyType>:$counter);
  let results = (outs Index:$result);
  let assemblyFormat = "$static_tile `of` $tiles (`counter` $counter^ `:` type($counter))? attr-dict";
}

def Wave_YieldOp : Wave_Op<"yield", [Pure, Terminator, ReturnLike, ParentOneOf<["IterateOp", "ConditionalOp"]>]> {
  let summary = "the next values of an iterate's loop-carried values, or a conditional's results";
  let description = [{
    `wave.yield %a2, %b2 : !wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>` ends an
    iterate's body (the types are the iter_args') or a conditional's (its results').
  }];
  let arguments = (ins Variadic<Wave_TensorType>:$values);
  let assemblyFormat = "($values^ `:` qualified(type($values)))? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix multiply-accumulate
//===----------------------------------------------------------------------===//

def Wave_MmaOp : Wave_Op<"mma", [Pure]> {
  let summary = "matrix multiply-accumulate on whole tensors";
  let description = [{
    `%d = wave.mma %a, %b, %c {kind = #wave.mma_kind<f32_16x8x16_f16>} : (!wave.tensor<[M, K]
    of f16>, !wave.tensor<[N, K] of f16>, !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N]
    of f32>` computes
    `acc[..., M, N] + lhs[.., M, .., K] * rhs[.., N, .., K]`: the accumulator's last two
    dims are the output rows (held by lhs) and columns (held by rhs), leading dims are
    batch dims, and the contraction dim is the one dim lhs and rhs share that the
    accumulator lacks. `kind` picks the hardware instruction.

    `transposed` is a schedule choice that wave-assign-layouts makes, not a change of
    meaning: the instruction computes the transposed product, `acc^T + rhs lhs^T`, with
    rhs in its A registers and lhs in its B registers, so that the accumulator's rows
    are the instruction's columns. Attention's scores, computed so, reach the second
    mma as its A registers without leaving their threads.

    `warpgroup` is the other schedule choice, wave-select-warpgroup-mma's: on Hopper the
    product runs as wgmma on warpgroups (4 waves each) reading both operands from their
    shared tiles, the warpgroups splitting the workgroup's tile (by rows where they
    divide it, else by columns), each warp holding 16 rows of every 64-row strip.
  }];
  let arguments = (ins Wave_TensorType:$lhs, Wave_TensorType:$rhs, Wave_TensorType:$acc,
                       OptionalAttr<Wave_MMAKindAttr>:$kind, UnitAttr:$transposed, UnitAttr:$warpgroup);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs `,` $acc attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Wave_BinaryOp<string mnemonic, string what> : Wave_Op<mnemonic, [Pure]> {
  let summary = "elementwise " # what # ", broadcasting the operand with fewer dims";
  let description = [{
    `%r = wave.add %x, %y : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>)
    -> !wave.tensor<[M, N] of f32>`. Both operands have one element type; one's dims are
    a subset of the other's (a scalar's are a subset of any), and it is broadcast along
    the rest. The result has the larger operand's type (the lhs's when the sets are equal).
  }];
  let arguments = (ins Wave_TensorType:$lhs, Wave_TensorType:$rhs);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Wave_AddOp : Wave_BinaryOp<"add", "addition">;
def Wave_SubOp : Wave_BinaryOp<"sub", "subtraction">;
def Wave_MulOp : Wave_BinaryOp<"mul", "multiplication">;
def Wave_DivOp : Wave_BinaryOp<"div", "division">;
def Wave_MaximumOp : Wave_BinaryOp<"maximum", "maximum">;
def Wave_MinimumOp : Wave_BinaryOp<"minimum", "minimum">;
def Wave_Atan2Op : Wave_BinaryOp<"atan2", "arc tangent of lhs / rhs in the quadrant of (rhs, lhs)">;
def Wave_PowfOp : Wave_BinaryOp<"powf", "power (lhs to the rhs)">;

class Wave_CompareOp<string mnemonic, string what> : Wave_Op<mnemonic, [Pure]> {
  let summary = "elementwise comparison: " # what # ", with i1 results";
  let description = [{
    `%r = wave.gt %x, %y : (!wave.tensor<[M, N] of f32>, !wave.tensor<[M] of f32>)
    -> !wave.tensor<[M, N] of i1>`. The operands as for the binary ops (one element type,
    one's dims a subset of the other's); the result has the larger operand's dims and i1
    elements. Floats compare ordered (NaN: false), but for `ne` (NaN: true); integers signed.
  }];
  let arguments = (ins Wave_TensorType:$lhs, Wave_TensorType:$rhs);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Wave_GtOp : Wave_CompareOp<"gt", "greater than">;
def Wave_GeOp : Wave_CompareOp<"ge", "greater than or equal">;
def Wave_LtOp : Wave_CompareOp<"lt", "less than">;
def Wave_LeOp : Wave_CompareOp<"le", "less than or equal">;
def Wave_EqOp : Wave_CompareOp<"eq", "equal">;
def Wave_NeOp : Wave_CompareOp<"ne", "not equal">;

class Wave_UnaryOp<string mnemonic, string what, bit floatOnly = 1>
    : Wave_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise " # what;
  let description = [{
    `%r = wave.exp2 %x : !wave.tensor<[M, N] of f32>`: one type for operand and result.
    Float elements only, but for `neg` and `abs`, which take integers too.
  }];
  let arguments = (ins Wave_TensorType:$input);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
  let hasVerifier = floatOnly;
}

def Wave_NegOp : Wave_UnaryOp<"neg", "negation", 0>;
def Wave_AbsOp : Wave_UnaryOp<"abs", "absolute value", 0>;
def Wave_Exp2Op : Wave_UnaryOp<"exp2", "base-2 exponential">;
def Wave_Log2Op : Wave_UnaryOp<"log2", "base-2 logarithm">;
def Wave_ReciprocalOp : Wave_UnaryOp<"reciprocal", "reciprocal (1 / x)">;
def Wave_SqrtOp : Wave_UnaryOp<"sqrt", "square root">;
def Wave_RsqrtOp : Wave_UnaryOp<"rsqrt", "reciprocal square root">;
def Wave_TanhOp : Wave_UnaryOp<"tanh", "hyperbolic tangent">;
def Wave_TanhApproxOp : Wave_UnaryOp<"tanh_approx", "hyperbolic tangent, the hardware's approximation (2^-11 relative)">;
def Wave_SinOp : Wave_UnaryOp<"sin", "sine">;
def Wave_CosOp : Wave_UnaryOp<"cos", "cosine">;
def Wave_SinhOp : Wave_UnaryOp<"sinh", "hyperbolic sine">;
def Wave_CbrtOp : Wave_UnaryOp<"cbrt", "cube root">;
def Wave_RoundEvenOp : Wave_UnaryOp<"roundeven", "rounding to the nearest integer, ties to even">;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Wave_ReduceOp<string mnemonic, string what, string kind>
    : Wave_Op<mnemonic, [Pure, Wave_ReductionOpInterface]> {
  let summary = what # " over one dim";
  let description = [{
    `%m = wave.reduce_max %x init(%m0) along "K2" : (!wave.tensor<[M, K2] of f32>,
    !wave.tensor<[M] of f32>) -> !wave.tensor<[M] of f32>`.
    The result has the input's dims without `dim`, in order. The optional `init` (of the
    result's type) takes part in the reduction, as a running value does across tiles.
  }];
  let arguments = (ins Wave_TensorType:$input, Optional<Wave_TensorType>:$init, StrAttr:$dim);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = [{
    $input (`init` `(` $init^ `)`)? `along` $dim attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static constexpr FoldKind kKind = FoldKind::}] # kind # [{;
  }];
}

def Wave_ReduceMaxOp : Wave_ReduceOp<"reduce_max", "maximum", "max">;
def Wave_ReduceMinOp : Wave_ReduceOp<"reduce_min", "minimum", "min">;
def Wave_ReduceSumOp : Wave_ReduceOp<"reduce_sum", "sum", "sum">;

def Wave_CumsumOp : Wave_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "inclusive prefix sums along one dim";
  let description = [{
    `%s = wave.cumsum %x along "E" : !wave.tensor<[T, E] of i32>`: element i along `dim`
    is the sum of the input's elements 0 to i along it, at the same positions of the other
    dims. Integers wrap; f16 and bf16 sum in f32, rounded once at the end.
  }];
  let arguments = (ins Wave_TensorType:$input, StrAttr:$dim);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$input `along` $dim attr-dict `:` qualified(type($input))";
  let hasVerifier = 1;
}

def Wave_ExtractOp : Wave_Op<"extract", [Pure, Wave_ReductionOpInterface]> {
  let summary = "the element at a position along one dim";
  let description = [{
    `%e = wave.extract %x at %i along "N" : (!wave.tensor<[M, N] of f32>,
    !wave.tensor<[M] of i32>) -> !wave.tensor<[M] of f32>`: per position of the result,
    the input's element at `position`'s value along `dim` (the result has the input's
    dims without `dim`, in order; `position` is an integer tensor of the result's dims),
    and 0 where that lies outside the positions of `dim` the input holds. It is the sum
    along `dim` of the input where the index equals the position: a reduction of kind
    sum, without an initial value.
  }];
  let arguments = (ins Wave_TensorType:$input, Wave_TensorType:$position, StrAttr:$dim);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = [{
    $input `at` $position `along` $dim attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static constexpr FoldKind kKind = FoldKind::sum;
    ::mlir::Value getInit() { return {}; }
  }];
}

def Wave_CombineWavesOp : Wave_Op<"combine_waves", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "the per-wave partials of a fold over a dim, combined across the waves";
  let description = [{
    `%m = wave.combine_waves max %partial along "K2" : !wave.tensor<[M] of f32>`: each
    wave that a WaveConstraint on `dim` splits holds its own partial of the value (the
    results of an iterate with `wave_folds`, or values computed from them); the result
    is the maximum or the sum of the partials of the waves that differ only along `dim`,
    in every one of them.
  }];
  let arguments = (ins Wave_FoldKind:$kind, Wave_TensorType:$input, StrAttr:$dim);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$kind $input `along` $dim attr-dict `:` qualified(type($input))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape and type changes
//===----------------------------------------------------------------------===//

def Wave_CastOp : Wave_Op<"cast", [Pure]> {
  let summary = "converts every element to another type";
  let description = [{
    `%h = wave.cast %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of f16>`:
    same dims, any numeric element types (float rounding, integer truncation or
    extension, float <-> integer).
  }];
  let arguments = (ins Wave_TensorType:$input);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `to` qualified(type($result))";
  let hasVerifier = 1;
}

def Wave_BitcastOp : Wave_Op<"bitcast", [Pure]> {
  let summary = "reads every element's bits as another type of the same width";
  let description = [{
    `%i = wave.bitcast %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[M, N] of i32>`:
    same dims, element types of the same width (not i1).
  }];
  let arguments = (ins Wave_TensorType:$input);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `to` qualified(type($result))";
  let hasVerifier = 1;
}

def Wave_ShuffleOp : Wave_Op<"shuffle", [Pure, SameOperandsAndResultType]> {
  let summary = "elements trade places in pairs along one dim";
  let description = [{
    `%y = wave.shuffle %x xor 1 along "D" : !wave.tensor<[S, D] of f16>`: element k along
    `dim` takes the input's element k xor `mask` (mask >= 1), at the same positions of the
    other dims; 0 where that position lies at or past the dim's end. Pairs form within
    aligned groups of the power of two above `mask`, which a workgroup's tile of `dim`
    must be a multiple of.
  }];
  let arguments = (ins Wave_TensorType:$input, I64Attr:$mask, StrAttr:$dim);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$input `xor` $mask `along` $dim attr-dict `:` qualified(type($input))";
  let hasVerifier = 1;
}

def Wave_ExtractSliceOp : Wave_Op<"extract_slice", [Pure]> {
  let summary = "elements of one dim at an offset and step, under a dim of their own";
  let description = [{
    `%y = wave.extract_slice %x at %offset along "K" step 2 : (!wave.tensor<[M, K] of f32>,
    !wave.tensor<[M, W] of i32>) -> !wave.tensor<[M, W] of f32>`: the result has the
    input's dims with `dim` replaced, in its place, by a dim of its own (or by `dim`
    itself); its element s there is the input's element offset + s * step along `dim`
    (`offset` an integer tensor of the result's dims), and 0 where that lies outside
    [0, the dim's end).
  }];
  let arguments = (ins Wave_TensorType:$input, Wave_TensorType:$offset, StrAttr:$dim,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$step);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = [{
    $input `at` $offset `along` $dim `step` $step attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Wave_ReshapeOp : Wave_Op<"reshape", [Pure]> {
  let summary = "the same elements in row-major order under other dims";
  let description = [{
    `%y = wave.reshape %x : !wave.tensor<[T, HD] of f16> -> !wave.tensor<[T, H, D] of f16>`:
    the dims the input and result share at their start and at their end (same name, same
    place) keep their positions; the dims between are regrouped, element i of the input's
    counted in row-major order over them being element i of the result's. Their sizes'
    products must be equal (checked where sizes are known).
  }];
  let arguments = (ins Wave_TensorType:$input);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Wave_PermuteOp : Wave_Op<"permute", [Pure]> {
  let summary = "reorders the dims of a tensor";
  let description = [{
    `%t = wave.permute %x : !wave.tensor<[M, N] of f32> to !wave.tensor<[N, M] of f32>`:
    the result's dims are the input's in another order; values follow their indices.
  }];
  let arguments = (ins Wave_TensorType:$input);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `to` qualified(type($result))";
  let hasVerifier = 1;
}

def Wave_BroadcastOp : Wave_Op<"broadcast", [Pure]> {
  let summary = "adds dims to a tensor; its values repeat along them";
  let description = [{
    `%b = wave.broadcast %x : !wave.tensor<[N] of f32> to !wave.tensor<[M, N] of f32>`:
    the result's dims include the input's, in any order.
  }];
  let arguments = (ins Wave_TensorType:$input);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `to` qualified(type($result))";
  let hasVerifier = 1;
}

def Wave_SelectOp : Wave_Op<"select", [Pure]> {
  let summary = "elementwise choice: cond ? if_true : if_false";
  let description = [{
    `%r = wave.select %c, %t, %f : (!wave.tensor<[N] of i1>, !wave.tensor<[M, N] of f32>,
    !wave.tensor<[M, N] of f32>) -> !wave.tensor<[M, N] of f32>`: an i1 condition,
    broadcast along the choices' other dims; the choices and result have one type.
  }];
  let arguments = (ins Wave_TensorType:$cond, Wave_TensorType:$if_true, Wave_TensorType:$if_false);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = [{
    $cond `,` $if_true `,` $if_false attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

def Wave_SelfIndexOp : Wave_Op<"self_index", [Pure]> {
  let summary = "the index along a dim: element k holds k";
  let description = [{
    `%i = wave.self_index "K2" : !wave.tensor<[K2] of i64>`: a one-dim integer tensor
    over `dim`, used to build masks with wave.apply_expr.
  }];
  let arguments = (ins StrAttr:$dim);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$dim attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Wave_ApplyExprOp : Wave_Op<"apply_expr", [Pure]> {
  let summary = "a symbolic function of each integer element";
  let description = [{
    `%lt = wave.apply_expr %i {expr = #wave.expr<"$0 < N">} : !wave.tensor<[N] of i64>
    -> !wave.tensor<[N] of i1>`. `expr` is over one bound variable, `$0`, the element,
    and the kernel's symbols; a comparison yields 0 or 1. Integer elements; the result
    has the input's dims.
  }];
  let arguments = (ins Wave_TensorType:$input, Wave_ExprAttr:$expr);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

def Wave_ConvertLayoutOp : Wave_Op<"convert_layout", [Pure]> {
  let summary = "moves a value's elements to the threads another layout puts them in";
  let description = [{
    `%y = wave.convert_layout %x : !wave.tensor<[M, N] of f32, #wave.layout<...>> to
    !wave.tensor<[M, N] of f32, #wave.layout<...>>`: the same dims and elements, in
    another distributed layout. Layout assignment places these where a value's producer
    and consumer want different layouts; distribution lowers each in the cheapest way the
    two layouts allow (nothing, a permutation of the thread's registers, or a round trip
    through shared memory).
  }];
  let arguments = (ins Wave_TensorType:$input);
  let results = (outs Wave_TensorType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `to` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // WAVE_OPS_TD
