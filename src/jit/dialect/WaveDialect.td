//===- WaveDialect.td - the wave dialect -------------------*- tablegen -*-===//
//
// Whole-tensor GPU kernels with symbolic shapes. Values are tensors named by symbolic
// dims (`!wave.tensor<[M, N] of f32>`); kernel arguments are tensors in memory
// (`!wave.memory<[M, K] of f16, global>`); how the work is distributed over the GPU is
// stated by constraint attributes on the kernel function, apart from its ops.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_DIALECT_TD
#define WAVE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Wave_Dialect : Dialect {
  let name = "wave";
  let cppNamespace = "::wave::dialect";
  let summary = "Whole-tensor GPU kernels with symbolic shapes and distribution constraints";
  let description = [{
    The middle end of wave-cpp. A kernel is a `func.func` whose arguments are
    `!wave.memory` tensors, with the attributes `wave.constraints` (how dims are tiled
    over workgroups, waves and loops) and `wave.hyperparameters` (symbol values). Its ops
    work on whole tensors; later passes expand them to per-thread code.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();

    // Data derived from an attribute (`kind` says which), computed once per context: an
    // attribute lives as long as its context, so the cache never outlives its keys. Passes
    // ask questions of one layout many times (analysis/DistributedLayout). Thread-safe.
    std::shared_ptr<const void> derived(::mlir::Attribute key, ::mlir::TypeID kind,
                                        ::llvm::function_ref<std::shared_ptr<const void>()> compute);

   private:
    std::mutex derivedMutex_;
    ::llvm::DenseMap<std::pair<::mlir::Attribute, ::mlir::TypeID>, std::shared_ptr<const void>> derived_;

   public:
  }];
}

class Wave_Op<string mnemonic, list<Trait> traits = []>
    : Op<Wave_Dialect, mnemonic, traits>;

#endif // WAVE_DIALECT_TD
