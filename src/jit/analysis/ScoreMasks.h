//===- ScoreMasks.h - the masks attention adds to its scores ---*- C++ -*-===//
//
// Attention hides scores by adding `select(visible, 0, -BIG)` to them: keys past the
// end of the key dim (`$0 < K2` over self_index<K2>), and under a causal mask keys
// after the query (`k - m <= c`). Schedules that know which tiles such a mask leaves
// whole (wave-skip-masked-tiles, wave-mask-partial-tiles) recognize them here.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_SCOREMASKS_H
#define WAVE_JIT_ANALYSIS_SCOREMASKS_H

#include "dialect/WaveDialect.h"

#include <optional>

namespace wave::jit {

// At or below this, exp2(score + mask - max) is 0 in f32 for any score the mask is
// meant for.
constexpr double kHidingMask = -1.0e4;

// `v` through broadcasts.
mlir::Value throughBroadcasts(mlir::Value v);
// The value of a splat register (through broadcasts), if `v` is one.
std::optional<double> splatValue(mlir::Value v);

// A mask `select(visible, 0, hidden)`: `hidden` is a splat at or below kHidingMask.
struct HidingMask {
  mlir::Value visible;  // the condition, through a cast to i1 and broadcasts
};
std::optional<HidingMask> hidingMask(mlir::Value mask);

// `visible = loopDim - rowDim <= slack` (self indices, slack >= 0): causal attention.
// Also spelled `< slack + 1`, or `rowDim - loopDim >= -slack` (or `>`); the slack may
// name symbols whose values `hyperparameters` holds (bottom-right causal: `K2 - M`).
struct CausalMask {
  llvm::StringRef rowDim;
  int64_t slack = 0;
};
// The condition `visible` (through a cast to i1 and broadcasts), if it is causal.
std::optional<CausalMask> causalCondition(mlir::Value visible, llvm::StringRef loopDim,
                                          mlir::DictionaryAttr hyperparameters);
// A hiding mask whose condition is causal.
std::optional<CausalMask> causalMask(mlir::Value mask, llvm::StringRef loopDim,
                                     mlir::DictionaryAttr hyperparameters);

// `visible = loopDim < size of loopDim` over self_index<loopDim>: keys past the end.
bool boundsMask(mlir::Value mask, llvm::StringRef loopDim);

}  // namespace wave::jit

#endif
