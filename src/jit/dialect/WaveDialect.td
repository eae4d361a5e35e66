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
  }];
}

class Wave_Op<string mnemonic, list<Trait> traits = []>
    : Op<Wave_Dialect, mnemonic, traits>;

#endif // WAVE_DIALECT_TD
