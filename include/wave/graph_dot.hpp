// The trace graph as Graphviz text: what a kernel body recorded, drawn.
//
//   std::ofstream("gemm.dot") << gemm.graph_dot();   // then: dot -Tsvg gemm.dot -o gemm.svg
//
// One node per kernel argument (its dims, dtype and address space) and per op (its name,
// the dims and dtype of its result, attributes such as the reduced dim or an index
// mapping, and the user's source line); an edge per operand, labelled with its position
// when an op takes several. An `iterate` is a cluster holding its body; its loop-carried
// values enter as the body's arguments and leave through its `yield`.
#pragma once

#include <sstream>
#include <string>

#include "wave/graph.hpp"

namespace wave::graph {
namespace detail {

inline std::string dot_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

inline std::string dims_text(const std::vector<std::string>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i];
  return s + "]";
}

inline std::string type_text(const TensorType& t) {
  return dims_text(t.dims) + " " + std::string(wave::name(t.dtype));
}

inline std::string file_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Writes the nodes and edges of `block`; `cluster` numbers the iterate and conditional clusters and
// `unnamed` the ops without results.
inline void write_block(std::ostream& os, const Block& block, int& cluster, int& unnamed, const std::string& indent) {
  for (std::size_t i = 0; i < block.args.size(); ++i)
    os << indent << "v" << block.args[i] << " [shape=ellipse, label=\"carried "
       << dot_escape(type_text(block.arg_types[i])) << "\"];\n";
  for (const Node& n : block.nodes) {
    // The node of an op is named by its first result, or numbered when it has none.
    const std::string id = n.results.empty() ? "op" + std::to_string(unnamed++) : "v" + std::to_string(n.results[0]);
    // The label's lines, escaped one by one and joined by dot's line break.
    std::vector<std::string> lines{op_name(n.kind)};
    if (!n.dim.empty()) lines[0] += " " + n.dim;
    if (n.kind == OpKind::Register) {
      std::ostringstream fill;
      fill << n.fill;  // shortest form: 0, -1e+06
      lines[0] += " " + fill.str();
    }
    if (n.mma) lines[0] += " " + std::string(info(*n.mma).name);
    if (n.expr) lines[0] += " " + n.expr->str();
    if (n.mapping) {
      lines.push_back("mapping:");
      for (const DimExpr& e : n.mapping->inputs) lines.back() += " " + e.dim + "=" + e.expr.str();
      if (n.mapping->out_of_bounds == OutOfBounds::zero) lines.back() += " (0 outside)";
    }
    for (const TensorType& t : n.result_types) lines.push_back(type_text(t));
    lines.push_back(file_name(n.loc.file) + ":" + std::to_string(n.loc.line));
    std::string label;
    for (std::size_t i = 0; i < lines.size(); ++i) label += (i ? "\\n" : "") + dot_escape(lines[i]);
    if (n.kind == OpKind::Iterate || n.kind == OpKind::Conditional) {
      os << indent << "subgraph cluster_" << cluster++ << " {\n"
         << indent << "  label=\"" << label << "\";\n";
      for (const Block& body : n.regions) write_block(os, body, cluster, unnamed, indent + "  ");
      os << indent << "}\n";
      // The loop's (conditional's) results come out of its yield.
      os << indent << id << " [shape=box, style=rounded, label=\"" << label << "\"];\n";
      for (const Block& body : n.regions)
        if (!body.nodes.empty())
          for (ValueId v : body.nodes.back().operands) os << indent << "v" << v << " -> " << id << ";\n";
      for (ValueId v : n.operands) os << indent << "v" << v << " -> " << id << " [style=dashed];\n";
      continue;
    }
    if (n.kind == OpKind::Yield) continue;  // drawn as the edges into its iterate or conditional
    os << indent << id << " [shape=box, label=\"" << label << "\"];\n";
    for (std::size_t i = 0; i < n.operands.size(); ++i) {
      os << indent << "v" << n.operands[i] << " -> " << id;
      if (n.operands.size() > 1) os << " [label=\"" << i << "\"]";
      os << ";\n";
    }
  }
}

}  // namespace detail

// `g` in the Graphviz dot language.
inline std::string to_dot(const KernelGraph& g) {
  std::ostringstream os;
  os << "digraph \"" << detail::dot_escape(g.name) << "\" {\n"
     << "  label=\"kernel " << detail::dot_escape(g.name) << " (" << detail::file_name(g.loc.file) << ":"
     << g.loc.line << ")\";\n  node [fontname=\"monospace\"];\n";
  for (const Argument& a : g.args)
    os << "  v" << a.id << " [shape=cylinder, label=\"argument " << a.id << "\\n"
       << detail::dot_escape(detail::dims_text(a.type.dims) + " " + std::string(wave::name(a.type.dtype)) + ", " +
                             a.type.address_space)
       << "\"];\n";
  int cluster = 0, unnamed = 0;
  detail::write_block(os, g.body, cluster, unnamed, "  ");
  os << "}\n";
  return os.str();
}

}  // namespace wave::graph
