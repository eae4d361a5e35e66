//===- LayoutBases.h - a layout as one step per index bit -------*- C++ -*-===//
//
// The layouts the hardware hands out are linear in the bits of the register, lane and
// wave indices: a point's position is the sum of one step per set bit (a wgmma
// accumulator's registers step one column, eight rows, then eight columns per tile; its
// lanes two and four columns, then one row each). Seen so, moving elements between the
// lanes of a wave is exchanging a lane bit's step with a register bit's, one shuffle per
// register pair, and lengthening a thread's run along a dim is choosing which steps to
// exchange.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_LAYOUTBASES_H
#define WAVE_JIT_ANALYSIS_LAYOUTBASES_H

#include "analysis/DistributedLayout.h"

#include <optional>

namespace wave::jit {

// Per bit of the flat register, lane and wave indices (lowest first), the step its
// setting adds to a point's position.
struct LayoutBases {
  using Step = llvm::SmallVector<int64_t, 4>;
  llvm::SmallVector<Step> registers, lanes, waves;
};

// The steps of `layout`, where its index counts are powers of two, the point (0, 0, 0)
// holds the tile's origin and every point is the sum of its bits' steps; none otherwise.
std::optional<LayoutBases> layoutBases(LayoutAttr layout);

// The layout whose points are the sums of `bases`'s steps: one register axis, and the
// lane and wave axes of `like` (whose flat indices the bits are of).
LayoutAttr layoutFromBases(LayoutAttr like, const LayoutBases& bases);

// A conversion that keeps every element in its wave: lane bit `laneBit` exchanges its
// step with register bit `registerBit`, one exchange after another, then the thread's
// registers are permuted (`gather[r]`: the register holding the result's register r).
struct LaneExchange {
  unsigned laneBit, registerBit;
};
struct WaveLocalConversion {
  llvm::SmallVector<LaneExchange> exchanges;
  llvm::SmallVector<int64_t> gather;
};
// The conversion from `from` to `to`, where both are linear, hold each element once and
// have the same waves' steps, and every lane step `to` needs is one `from` has in a
// register bit or in the lane bit itself; none otherwise.
std::optional<WaveLocalConversion> waveLocalConversion(LayoutAttr from, LayoutAttr to);

// `layout` with each thread's run along `dim` lengthened to `maxLength` elements (a power
// of two) where lane steps along `dim` can exchange with register steps further along it:
// a warp then moves the same elements in fewer, wider accesses, each row's part of an
// access longer. The run's registers come first; null where no run gets longer.
LayoutAttr widenRuns(LayoutAttr layout, unsigned dim, int64_t maxLength);

}  // namespace wave::jit

#endif
