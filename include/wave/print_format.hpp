// The line print() writes per element, as a printf format: the GPU's printf and the
// interpreter both format with it, so their lines are the same text.
//
//   print_format("acc", {"M", "N"}, true)  ->  "acc[M=%lld, N=%lld] = %.6g\n"
//
// Arguments: each index as a long long, then the element, a double for float dtypes and a
// long long for integers (i1 as 0 or 1). A '%' in the label is escaped. print_mistake is the
// check of a print's label and limit that tracing and the interpreter share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wave {

inline std::string print_format(const std::string& label, const std::vector<std::string>& dims, bool is_float) {
  auto escaped = [](const std::string& text) {
    std::string out;
    for (char c : text) out += c == '%' ? std::string("%%") : std::string(1, c);
    return out;
  };
  std::string f = escaped(label);
  if (!dims.empty()) {
    f += '[';
    for (std::size_t k = 0; k < dims.size(); ++k) f += (k ? ", " : "") + escaped(dims[k]) + "=%lld";
    f += ']';
  }
  f += is_float ? " = %.6g\n" : " = %lld\n";
  return f;
}

// What is wrong with a print's label and limit ("expected ..., but found ..."), or "".
inline std::string print_mistake(const std::string& label, std::int64_t limit) {
  if (label.empty()) return "expected a label to start each line, but found an empty one";
  if (limit < 1) return "expected a limit of at least one element, but found limit = " + std::to_string(limit);
  return "";
}

// The literal text around a format's conversions ("%%" unescaped): one more piece than
// conversions, so that a host can build the line without a non-literal format.
inline std::vector<std::string> split_format(const std::string& format) {
  std::vector<std::string> pieces(1);
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      pieces.back() += format[i];
    } else if (i + 1 < format.size() && format[i + 1] == '%') {
      pieces.back() += '%';
      ++i;
    } else {
      while (i < format.size() && format[i] != 'd' && format[i] != 'g') ++i;  // %lld, %.6g
      pieces.emplace_back();
    }
  }
  return pieces;
}

}  // namespace wave
