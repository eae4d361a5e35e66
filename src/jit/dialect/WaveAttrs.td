//===- WaveAttrs.td - wave dialect attributes --------------*- tablegen -*-===//

#ifndef WAVE_ATTRS_TD
#define WAVE_ATTRS_TD

include "WaveDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Wave_ExprKind : I32Enum<"ExprKind", "what a symbolic expression's results mean", [
    I32EnumCase<"value", 0>, I32EnumCase<"min", 1>, I32EnumCase<"max", 2>,
    I32EnumCase<"lt", 3>, I32EnumCase<"le", 4>, I32EnumCase<"gt", 5>,
    I32EnumCase<"ge", 6>, I32EnumCase<"eq", 7>, I32EnumCase<"ne", 8>]> {
  let cppNamespace = "::wave::dialect";
}

def Wave_MMAKind : I32EnumAttr<"MMAKind", "a hardware matrix multiply-accumulate instruction", [
    I32EnumAttrCase<"f32_16x8x16_f16", 0>,   // NVIDIA mma.sync
    I32EnumAttrCase<"f32_16x8x16_bf16", 1>,
    I32EnumAttrCase<"f16_16x8x16_f16", 2>,
    I32EnumAttrCase<"f32_16x16x16_f16", 3>,  // AMD MFMA
    I32EnumAttrCase<"f32_32x32x8_f16", 4>,
    I32EnumAttrCase<"f32_16x8x32_f8e4m3", 5>,  // NVIDIA f8: mma.sync (sm_89+), wgmma k32
    I32EnumAttrCase<"f32_16x8x32_f8e5m2", 6>,
    I32EnumAttrCase<"f32_16x16x16_bf16", 7>,  // AMD MFMA (CDNA3's bf16_1k forms)
    I32EnumAttrCase<"f32_32x32x8_bf16", 8>,
    I32EnumAttrCase<"i32_16x8x32_i8", 9>,     // NVIDIA s8: mma.sync m16n8k32, wgmma k32
    I32EnumAttrCase<"i32_16x16x32_i8", 10>,   // AMD MFMA on i8 (CDNA3)
    I32EnumAttrCase<"i32_32x32x16_i8", 11>,
    I32EnumAttrCase<"f32_16x16x32_f8e4m3fnuz", 12>,  // AMD MFMA on CDNA3's FNUZ f8
    I32EnumAttrCase<"f32_32x32x16_f8e4m3fnuz", 13>,
    I32EnumAttrCase<"f32_16x16x32_f8e5m2fnuz", 14>,
    I32EnumAttrCase<"f32_32x32x16_f8e5m2fnuz", 15>,
    I32EnumAttrCase<"f32_16x16x32_f8e4m3", 16>,  // AMD MFMA on CDNA4's OCP f8
    I32EnumAttrCase<"f32_32x32x16_f8e4m3", 17>,
    I32EnumAttrCase<"f32_16x16x32_f8e5m2", 18>,
    I32EnumAttrCase<"f32_32x32x16_f8e5m2", 19>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::wave::dialect";
}

def Wave_MMAKindAttr : EnumAttr<Wave_Dialect, Wave_MMAKind, "mma_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def Wave_WriteCombine : I32EnumAttr<"WriteCombine", "how a write combines with the element in memory", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"min", 1>, I32EnumAttrCase<"max", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::wave::dialect";
}

def Wave_WriteCombineAttr : EnumAttr<Wave_Dialect, Wave_WriteCombine, "combine"> {
  let assemblyFormat = "`<` $value `>`";
}

def Wave_FoldKind : I32EnumAttr<"FoldKind", "how partial results of a fold combine", [
    I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"sum", 1>, I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::wave::dialect";
}

//===----------------------------------------------------------------------===//
// Symbolic expressions
//===----------------------------------------------------------------------===//

def Wave_ExprAttr : AttrDef<Wave_Dialect, "Expr"> {
  let mnemonic = "expr";
  let summary = "a symbolic integer expression over named symbols";
  let description = [{
    `#wave.expr<"BLOCK_M floordiv 2">`, `#wave.expr<"$0 mod C">`,
    `#wave.expr<"K > BLOCK_K * 4">`, `#wave.expr<"max(M, 16)">`.

    Backed by an affine map: symbol s_i is `symbols[i]` (only used symbols, sorted by
    name), dim d_i is the bound variable `$i` (an index-mapping iterator or an
    apply_expr operand). `kind` says what the map's results are: one value, the min or
    max of several, or the two sides of a comparison.
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::StringAttr", "symbol names">:$symbols,
                        "::mlir::AffineMap":$map,
                        "::wave::dialect::ExprKind":$kind);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Canonicalizes: keeps only the symbols the map uses, sorted by name.
    AttrBuilder<(ins "::llvm::ArrayRef<::mlir::StringAttr>":$symbols, "::mlir::AffineMap":$map,
                     "::wave::dialect::ExprKind":$kind)>
  ];
  let extraClassDeclaration = [{
    // The expression in the text form of the attribute (without quotes).
    std::string str() const;
    // Parses the text form (without quotes); `emitError` reports what was expected
    // where.
    static ::mlir::FailureOr<ExprAttr> parse(
        ::mlir::MLIRContext *ctx, ::llvm::StringRef text,
        ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError);
    bool isComparison() const { return getKind() >= ExprKind::lt; }
  }];
}

// An attribute parameter printed and parsed in full (`#wave.expr<...>`), not stripped.
class Wave_FullAttrParameter<string cppType, string desc>
    : AttrParameter<cppType, desc> {
  let printer = "$_printer.printAttribute($_self)";
  let parser = "::wave::dialect::parseFullAttr<" # cppType # ">($_parser)";
}

class Wave_OptionalFullAttrParameter<string cppType, string desc>
    : Wave_FullAttrParameter<cppType, desc> {
  let defaultValue = cppType # "()";
}

// `[2, 2, 1]`: an optional list of integers, in brackets.
class Wave_OptionalIntListParameter<string desc> : OptionalArrayRefParameter<"int64_t", desc> {
  let printer = "::wave::dialect::printIntList($_printer, $_self)";
  let parser = "::wave::dialect::parseIntList($_parser)";
}

def Wave_IndexMappingAttr : AttrDef<Wave_Dialect, "IndexMapping"> {
  let mnemonic = "index_mapping";
  let summary = "how a read or write walks memory, as functions of iterators";
  let description = [{
    One iterator ($0, $1, ...) per dim of the register side. `inputs` and `outputs` map
    dim names to expressions over the iterators: for a read, `inputs` are the memory
    dims and `outputs` the register dims; for a write, the other way round. With
    `dynamic = n`, the variables after the iterators ($iterators .. $iterators + n - 1)
    are the access's dynamic values: at each point, the element of its n tensor operands
    after the memory (indices read at run time); only the memory side uses them.
    With `masked = true` (the DSL's `OutOfBounds::zero`) a point whose memory index
    leaves the memory is masked: a read gives 0 there, a write skips it; without it no
    such point may occur (a padded convolution's taps at the border, for one).
  }];
  let parameters = (ins "unsigned":$iterators, "::mlir::DictionaryAttr":$inputs,
                        "::mlir::DictionaryAttr":$outputs,
                        DefaultValuedParameter<"unsigned", "0">:$dynamic,
                        DefaultValuedParameter<"bool", "false">:$masked);
  let builders = [
    AttrBuilder<(ins "unsigned":$iterators, "::mlir::DictionaryAttr":$inputs,
                     "::mlir::DictionaryAttr":$outputs), [{
      return $_get($_ctxt, iterators, inputs, outputs, 0, false);
    }]>
  ];
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Constraints
//===----------------------------------------------------------------------===//

def Wave_WorkgroupConstraintAttr : AttrDef<Wave_Dialect, "WorkgroupConstraint"> {
  let mnemonic = "workgroup_constraint";
  let summary = "distributes a dim over the workgroups of one grid axis";
  let parameters = (ins "::mlir::StringAttr":$dim,
                        Wave_FullAttrParameter<"::wave::dialect::ExprAttr", "tile size">:$tile,
                        "int64_t":$workgroup_dim);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Wave_WaveConstraintAttr : AttrDef<Wave_Dialect, "WaveConstraint"> {
  let mnemonic = "wave_constraint";
  let summary = "distributes a workgroup's tile of a dim over waves";
  let parameters = (ins "::mlir::StringAttr":$dim,
                        Wave_FullAttrParameter<"::wave::dialect::ExprAttr", "tile size">:$tile);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Wave_TilingConstraintAttr : AttrDef<Wave_Dialect, "TilingConstraint"> {
  let mnemonic = "tiling_constraint";
  let summary = "walks a dim sequentially (wave.iterate) in tiles";
  let parameters = (ins "::mlir::StringAttr":$dim,
                        Wave_FullAttrParameter<"::wave::dialect::ExprAttr", "tile size">:$tile);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Wave_DeviceConstraintAttr : AttrDef<Wave_Dialect, "DeviceConstraint"> {
  let mnemonic = "device_constraint";
  let summary = "distributes a dim over the GPUs of a node, a slice of `tile` per rank";
  let description = [{
    Rank RANK (a hyperparameter, 0 or more) takes the dim's elements from RANK * tile
    on; its workgroups split that slice as if it were the whole dim.
  }];
  let parameters = (ins "::mlir::StringAttr":$dim,
                        Wave_FullAttrParameter<"::wave::dialect::ExprAttr", "tile size">:$tile);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Wave_HardwareConstraintAttr : AttrDef<Wave_Dialect, "HardwareConstraint"> {
  let mnemonic = "hardware_constraint";
  let summary = "the machine a kernel is written for";
  let description = [{
    Threads per wave (32 on NVIDIA, 64 on AMD CDNA), waves per block (derived from the
    wave constraints when absent), the default MMA kind, and per-dim vector shapes.
  }];
  let parameters = (ins "int64_t":$threads_per_wave,
                        Wave_OptionalIntListParameter<"waves per block">:$waves_per_block,
                        Wave_OptionalFullAttrParameter<"::wave::dialect::MMAKindAttr", "MMA kind">:$mma,
                        OptionalParameter<"::mlir::DictionaryAttr">:$vector_shapes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Wave_AssumptionAttr : AttrDef<Wave_Dialect, "Assumption"> {
  let mnemonic = "assumption";
  let summary = "a fact about symbols the compiler may rely on";
  let parameters = (ins Wave_FullAttrParameter<"::wave::dialect::ExprAttr", "comparison">:$predicate);
  let assemblyFormat = "`<` $predicate `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Thread layout (the result of index analysis)
//===----------------------------------------------------------------------===//

def Wave_ThreadLayoutAttr : AttrDef<Wave_Dialect, "ThreadLayout"> {
  let mnemonic = "thread_layout";
  let summary = "how a kernel's iteration space is split over workgroups, waves and threads";
  let description = [{
    Set on a kernel by `wave-infer-index`. `dims` is the iteration space, outermost
    first; per dim, `block_tile` elements go to a workgroup (over grid axis `grid_axis`,
    or -1 for none) and `wave_tile` to a wave. Within a wave, each thread handles
    `elements_per_thread` contiguous elements along the innermost dim per step, for
    `steps` steps. The block has (block_tile / wave_tile) waves of `threads_per_wave`.
  }];
  let parameters = (ins "::mlir::ArrayAttr":$dims,
                        "::mlir::DenseI64ArrayAttr":$block_tile,
                        "::mlir::DenseI64ArrayAttr":$wave_tile,
                        "::mlir::DenseI64ArrayAttr":$grid_axis,
                        "int64_t":$threads_per_wave,
                        "int64_t":$elements_per_thread,
                        "int64_t":$steps);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getWavesPerBlock() const;
    int64_t getThreadsPerBlock() const { return getWavesPerBlock() * getThreadsPerWave(); }
  }];
}

//===----------------------------------------------------------------------===//
// Distributed layouts (the result of layout assignment)
//===----------------------------------------------------------------------===//

// `[4, 2]`: a list of integers, in brackets.
class Wave_IntListParameter<string desc> : ArrayRefParameter<"int64_t", desc> {
  let printer = "::wave::dialect::printIntList($_printer, $_self)";
  let parser = "::wave::dialect::parseIntList($_parser)";
}

def Wave_LayoutAttr : AttrDef<Wave_Dialect, "Layout"> {
  let mnemonic = "layout";
  let summary = "which thread holds which element of a tensor value's workgroup tile";
  let description = [{
    `#wave.layout<registers = [2, 4], lanes = [32], waves = [2, 1],
    map = affine_map<(r0, r1, l, w0, w1) -> (r0 * 64 + l * 2 + w0 * 128, r1)>>`.

    The map takes a register index per `registers` axis, a lane index per `lanes` axis
    and a wave index per `waves` axis (each in [0, extent)), and gives the element's
    position in the workgroup's tile of the tensor, one result per dim of the tensor type
    it is attached to, in that type's order. A thread's registers are the points of the
    `registers` axes, row-major. Lane axes split the thread's lane in the wave row-major
    (their product is the wave's size); wave axes split the wave in the workgroup likewise,
    and are the same for every value of a kernel. An element may be held by several
    threads or registers (a value broadcast along a dim, a reduction's result); a thread
    may hold positions past the tile (then they are masked out).
  }];
  let parameters = (ins Wave_IntListParameter<"register axes">:$registers,
                        Wave_IntListParameter<"lane axes">:$lanes,
                        Wave_IntListParameter<"wave axes">:$waves,
                        "::mlir::AffineMap":$map);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumRegisters() const;
    int64_t getNumLanes() const;
    int64_t getNumWaves() const;
  }];
}

#endif
