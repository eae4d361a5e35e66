//===- WaveInterfaces.td - wave dialect op interfaces ------*- tablegen -*-===//
//
// What passes ask of a family of ops without naming each member.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_INTERFACES_TD
#define WAVE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Wave_ReductionOpInterface : OpInterface<"ReductionOpInterface"> {
  let cppNamespace = "::wave::dialect";
  let description = [{
    A reduction over one dim of its input (`wave.reduce_max`, `wave.reduce_min`,
    `wave.reduce_sum`): the result has the input's other dims, and an optional initial
    value of the result's type takes part as one more element.
  }];
  let methods = [
    InterfaceMethod<"the value reduced", "::mlir::Value", "getInput">,
    InterfaceMethod<"the initial value, or null", "::mlir::Value", "getInit">,
    InterfaceMethod<"the dim reduced over", "::llvm::StringRef", "getDim">,
    InterfaceMethod<"how two elements combine", "::wave::dialect::FoldKind", "getKind", (ins), [{}], [{
      return $_op.kKind;
    }]>,
  ];
}

#endif  // WAVE_INTERFACES_TD
