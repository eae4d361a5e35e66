//===- WaveOps.h - wave dialect ops ---------------------------*- C++ -*-===//

#ifndef WAVE_JIT_DIALECT_WAVEOPS_H
#define WAVE_JIT_DIALECT_WAVEOPS_H

#include "dialect/WaveAttrs.h"
#include "dialect/WaveTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/WaveInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialect/WaveOps.h.inc"

#endif  // WAVE_JIT_DIALECT_WAVEOPS_H
