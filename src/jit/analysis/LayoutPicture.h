//===- LayoutPicture.h - a #wave.layout drawn as an SVG --------*- C++ -*-===//
//
// The workgroup tile of a value as a grid of cells, each naming the thread (wave * lanes
// + lane) and register that hold the element first and how many others hold it too;
// cells are coloured by lane, darker for later waves. As CuTe's print_latex does for its
// layouts: the picture answers "who holds what" at a glance.
//
//===----------------------------------------------------------------------===//

#ifndef WAVE_JIT_ANALYSIS_LAYOUTPICTURE_H
#define WAVE_JIT_ANALYSIS_LAYOUTPICTURE_H

#include "analysis/DistributedLayout.h"

#include <string>

namespace wave::jit {

// The tile of the last two dims (earlier dims at position 0), at most 128 x 128 cells;
// `dims` names the layout's results, `title` heads the picture. Each cell is a
// `<g data-pos="ROW,COL">` with a rect and two texts, "tT" and "rR" (then " +N" where N
// more points hold the element).
std::string layoutSvg(LayoutAttr layout, llvm::ArrayRef<llvm::StringRef> dims, llvm::StringRef title);

}  // namespace wave::jit

#endif  // WAVE_JIT_ANALYSIS_LAYOUTPICTURE_H
