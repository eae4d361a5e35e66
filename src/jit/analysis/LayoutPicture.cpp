#include "analysis/LayoutPicture.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace wave::jit {

using namespace mlir;

namespace {

// XML text: the few characters that would end an attribute or element.
std::string escaped(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string layoutSvg(LayoutAttr layout, ArrayRef<StringRef> dims, StringRef title) {
  const SmallVector<int64_t> extent = layoutExtent(layout);
  const size_t rank = extent.size();
  const int64_t rows = rank >= 2 ? extent[rank - 2] : 1, cols = rank >= 1 ? extent[rank - 1] : 1;
  const int64_t shownRows = std::min<int64_t>(rows, 128), shownCols = std::min<int64_t>(cols, 128);
  const int64_t lanes = layout.getNumLanes();
  // Per drawn cell: the first point holding it, and how many do (count 0: none).
  std::vector<PositionHolders> cells(shownRows * shownCols);
  for (const auto& [p, holder] : positionHolders(layout)) {
    if (rank > 2 && llvm::any_of(ArrayRef<int64_t>(p).drop_back(2), [](int64_t x) { return x != 0; })) continue;
    const int64_t row = rank >= 2 ? p[rank - 2] : 0, col = rank >= 1 ? p[rank - 1] : 0;
    if (row < shownRows && col < shownCols) cells[row * shownCols + col] = holder;
  }
  constexpr int cellW = 44, cellH = 26, margin = 40;
  std::string svg;
  llvm::raw_string_ostream os(svg);
  const int64_t width = margin + shownCols * cellW + 10, height = margin + shownRows * cellH + 10;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
     << "\" font-family=\"monospace\" font-size=\"9\">\n";
  os << "<text x=\"4\" y=\"14\" font-size=\"12\">" << escaped(title);
  if (rows != shownRows || cols != shownCols) os << " (the first 128 x 128 of " << rows << " x " << cols << ")";
  os << "</text>\n";
  const std::string rowDim = rank >= 2 ? dims[rank - 2].str() : "", colDim = rank >= 1 ? dims[rank - 1].str() : "";
  os << "<text x=\"" << margin << "\" y=\"30\">" << escaped(colDim) << " &#8594;</text>\n";
  os << "<text x=\"4\" y=\"" << margin + 12 << "\">" << escaped(rowDim) << " &#8595;</text>\n";
  for (int64_t row = 0; row < shownRows; ++row)
    for (int64_t col = 0; col < shownCols; ++col) {
      const PositionHolders& h = cells[row * shownCols + col];
      const int64_t x = margin + col * cellW, y = margin + row * cellH;
      os << "<g data-pos=\"" << row << "," << col << "\">";
      if (h.count == 0) {
        os << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cellW << "\" height=\"" << cellH
           << "\" fill=\"#ffffff\" stroke=\"#999\"/></g>\n";
        continue;
      }
      const int64_t lane = h.thread % lanes, wave = h.thread / lanes;
      const int hue = static_cast<int>(lane * 360 / std::max<int64_t>(lanes, 1));
      const int light = 88 - static_cast<int>(wave % 4) * 12;
      os << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cellW << "\" height=\"" << cellH
         << "\" fill=\"hsl(" << hue << ",70%," << light << "%)\" stroke=\"#666\"/>";
      os << "<text x=\"" << x + 3 << "\" y=\"" << y + 11 << "\">t" << h.thread << "</text>";
      os << "<text x=\"" << x + 3 << "\" y=\"" << y + 22 << "\">r" << h.reg;
      if (h.count > 1) os << " +" << h.count - 1;
      os << "</text></g>\n";
    }
  os << "</svg>\n";
  return svg;
}

}  // namespace wave::jit
