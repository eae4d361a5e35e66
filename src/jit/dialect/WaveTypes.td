//===- WaveTypes.td - wave dialect types -------------------*- tablegen -*-===//

#ifndef WAVE_TYPES_TD
#define WAVE_TYPES_TD

include "WaveDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Wave_Type<string name, string typeMnemonic> : TypeDef<Wave_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Wave_TensorType : Wave_Type<"Tensor", "tensor"> {
  let summary = "a whole-tensor register value with symbolic dims";
  let description = [{
    `!wave.tensor<[M, N] of f32>`: a value the kernel computes, named by the symbols of
    its dims (none for a scalar). Dims are matched by name, not position. After layout
    assignment it also says how the value is spread over the threads:
    `!wave.tensor<[M, N] of f32, #wave.layout<...>>` (the layout's map has one result
    per dim, in the order of `dims`).
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::StringAttr", "dim symbols">:$dims,
                        "::mlir::Type":$elementType,
                        OptionalParameter<"::wave::dialect::LayoutAttr", "distributed layout">:$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<::llvm::StringRef>":$dimNames, "::mlir::Type":$elementType)>,
    TypeBuilder<(ins "::llvm::ArrayRef<::mlir::StringAttr>":$dims, "::mlir::Type":$elementType), [{
      return $_get($_ctxt, dims, elementType, ::wave::dialect::LayoutAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::llvm::StringRef> getDimNames() const;
    // The same tensor with another layout (null: none).
    TensorType withLayout(::wave::dialect::LayoutAttr layout) const {
      return get(getContext(), getDims(), getElementType(), layout);
    }
  }];
}

def Wave_MemoryType : Wave_Type<"Memory", "memory"> {
  let summary = "a tensor in device memory with symbolic dims";
  let description = [{
    `!wave.memory<[M, K] of f16, global>`: a kernel argument. The address space is
    `global`, `shared` (promote tiles to shared memory), or the name of a symbol that is
    set at compile time.
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::StringAttr", "dim symbols">:$dims,
                        "::mlir::Type":$elementType,
                        "::mlir::StringAttr":$addressSpace);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<::llvm::StringRef>":$dimNames, "::mlir::Type":$elementType,
                     "::llvm::StringRef":$space)>
  ];
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::llvm::StringRef> getDimNames() const;
  }];
}

#endif // WAVE_TYPES_TD
