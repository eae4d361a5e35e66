// The trace graph drawn for Graphviz: every argument and op a node, every operand an edge,
// an iterate a cluster around its body, the user's source lines in the labels.
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "kernels/conv2d.hpp"
#include "kernels/gemm.hpp"

using namespace wave;
using Catch::Matchers::Contains;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The names of the nodes that edges leave from and arrive at, and of those declared.
struct Shape {
  std::set<std::string> declared, used;
};
Shape shape_of(const std::string& dot) {
  Shape s;
  const std::regex node(R"(^\s*(\w+) \[shape=)"), edge(R"(^\s*(\w+) -> (\w+))");
  std::istringstream lines(dot);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, node)) s.declared.insert(m[1]);
    if (std::regex_search(line, m, edge)) s.used.insert({m[1], m[2]});
  }
  return s;
}

}  // namespace

TEST_CASE("the GEMM example's graph: arguments, a loop cluster, the mma inside it", "[trace][dot]") {
  const std::string dot = examples::gemm::make_kernel().graph_dot();
  CHECK_THAT(dot, Contains("digraph \"gemm\" {"));
  CHECK(count(dot, "shape=cylinder") == 3);  // a, b, c
  CHECK_THAT(dot, Contains("[M, K] f16, ADDRESS_SPACE"));
  CHECK(count(dot, "subgraph cluster_") == 1);
  CHECK_THAT(dot, Contains("label=\"iterate K"));
  CHECK_THAT(dot, Contains("mma\\n[M, N] f32\\ngemm.hpp:"));
  CHECK_THAT(dot, Contains("carried [M, N] f32"));
  // Every edge joins declared nodes; the mma takes three operands, labelled by position.
  const Shape s = shape_of(dot);
  for (const std::string& n : s.used) CHECK(s.declared.count(n) == 1);
  CHECK(count(dot, "[label=\"2\"]") >= 1);
  CHECK(dot.back() == '\n');
}

TEST_CASE("index mappings and their expressions appear in the labels", "[trace][dot]") {
  const std::string dot = examples::conv2d::make_kernel().graph_dot();
  CHECK_THAT(dot, Contains("mapping:"));
  CHECK_THAT(dot, Contains("C=$1 mod C"));
  CHECK_THAT(dot, Contains("conv2d.hpp:"));
}
