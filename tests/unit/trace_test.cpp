// Tracing: what the example kernels record.
#include <catch2/catch.hpp>

#include "kernels/conv2d.hpp"
#include "kernels/copy.hpp"
#include "kernels/flash_attention.hpp"
#include "kernels/gemm.hpp"
#include "kernels/varlen_attention.hpp"

using namespace wave;
using graph::OpKind;

namespace {
std::vector<OpKind> kinds(const graph::Block& b) {
  std::vector<OpKind> out;
  for (const auto& n : b.nodes) out.push_back(n.kind);
  return out;
}
using Names = std::vector<std::string>;

// C++ leaves the order of evaluating call arguments open (GCC goes right to left), so the
// tests find nodes by what they are, not by position.
const graph::Node& only(const graph::Block& b, OpKind kind) {
  const graph::Node* found = nullptr;
  for (const auto& n : b.nodes)
    if (n.kind == kind) {
      REQUIRE(found == nullptr);
      found = &n;
    }
  REQUIRE(found != nullptr);
  return *found;
}

const graph::Node& defining(const graph::Block& b, graph::ValueId id) {
  for (const auto& n : b.nodes)
    for (graph::ValueId r : n.results)
      if (r == id) return n;
  FAIL("no node defines value " << id);
  throw;
}
}  // namespace

TEST_CASE("copy traces to read then write", "[trace]") {
  const graph::KernelGraph g = examples::copy::make_kernel().trace();
  CHECK(g.name == "copy");
  REQUIRE(g.args.size() == 2);
  CHECK(g.args[0].type.dims == Names{"M", "N"});
  CHECK(g.args[0].type.dtype == DataType::f16);
  CHECK(g.args[0].type.address_space == "global");
  CHECK(kinds(g.body) == std::vector{OpKind::Read, OpKind::Write});
  const auto& read = g.body.nodes[0];
  CHECK(read.operands == std::vector{g.args[0].id});
  CHECK(g.body.nodes[1].operands == std::vector{read.results[0], g.args[1].id});
  CHECK(g.constraints.size() == 5);
}

TEST_CASE("gemm traces an iterate with one loop-carried accumulator", "[trace]") {
  const graph::KernelGraph g = examples::gemm::make_kernel().trace();
  CHECK(g.args[0].type.address_space == "ADDRESS_SPACE");
  REQUIRE(kinds(g.body) == std::vector{OpKind::Register, OpKind::Iterate, OpKind::Write});
  const graph::Node& loop = g.body.nodes[1];
  CHECK(loop.dim == "K");
  CHECK(loop.operands == g.body.nodes[0].results);
  REQUIRE(loop.regions.size() == 1);
  const graph::Block& body = loop.regions[0];
  CHECK(body.arg_types[0].dims == Names{"M", "N"});
  REQUIRE(body.nodes.size() == 4);
  CHECK(body.nodes.back().kind == OpKind::Yield);
  const graph::Node& mma = only(body, OpKind::Mma);
  REQUIRE(mma.operands.size() == 3);
  const graph::Node& read_a = defining(body, mma.operands[0]);
  const graph::Node& read_b = defining(body, mma.operands[1]);
  CHECK(read_a.kind == OpKind::Read);
  CHECK(read_a.operands == std::vector{g.args[0].id});
  CHECK(read_b.operands == std::vector{g.args[1].id});
  CHECK(mma.operands[2] == body.args[0]);
  CHECK(body.nodes.back().operands == mma.results);
  CHECK(g.body.nodes[2].operands[0] == loop.results[0]);
  // Source locations point into the kernel's header.
  CHECK(mma.loc.file.find("gemm.hpp") != std::string::npos);
  CHECK(mma.loc.line > 0);
}

TEST_CASE("flash attention traces two mmas and online softmax in one loop", "[trace]") {
  const graph::KernelGraph g = examples::flash_attention::make_kernel().trace();
  const graph::Node* loop = nullptr;
  for (const auto& n : g.body.nodes)
    if (n.kind == OpKind::Iterate) loop = &n;
  REQUIRE(loop);
  CHECK(loop->operands.size() == 3);
  CHECK(loop->result_types[2].dims == Names{"B", "H", "N", "M"});
  const auto body = kinds(loop->regions[0]);
  auto count = [&](OpKind k) { return std::count(body.begin(), body.end(), k); };
  CHECK(count(OpKind::Mma) == 2);
  CHECK(count(OpKind::ReduceMax) == 1);
  CHECK(count(OpKind::ReduceSum) == 1);
  CHECK(count(OpKind::Exp2) == 2);
  CHECK(count(OpKind::SelfIndex) == 1);
  CHECK(count(OpKind::Select) == 1);
  for (const auto& n : loop->regions[0].nodes) {
    if (n.kind == OpKind::ReduceMax) {
      CHECK(n.dim == "K2");
      CHECK(n.result_types[0].dims == Names{"B", "H", "M"});
      CHECK(n.operands.size() == 2);  // with the running max as init
    }
    if (n.kind == OpKind::ApplyExpr) CHECK(n.expr->str() == "$0 < K2");
    if (n.kind == OpKind::Permute) CHECK(n.result_types[0].dims == Names{"B", "H", "M", "K2"});
  }
  // After the loop: reciprocal of the sum, broadcast multiply, write.
  const auto after = kinds(g.body);
  CHECK(std::vector(after.end() - 3, after.end()) ==
        std::vector{OpKind::Reciprocal, OpKind::Mul, OpKind::Write});
}

TEST_CASE("conv2d reads and writes through index mappings", "[trace]") {
  const graph::KernelGraph g = examples::conv2d::make_kernel(2).trace();
  const graph::Node& loop = only(g.body, OpKind::Iterate);
  const graph::Node& mma = only(loop.regions[0], OpKind::Mma);
  const graph::Node& read_x = defining(loop.regions[0], mma.operands[0]);
  REQUIRE(read_x.mapping);
  CHECK(read_x.mapping->iterators == 2);
  CHECK(read_x.result_types[0].dims == Names{"M", "K"});
  std::map<std::string, std::string> inputs;
  for (const auto& e : read_x.mapping->inputs) inputs[e.dim] = e.expr.str();
  CHECK(inputs["N"] == "$0 floordiv SZ_OUT");
  CHECK(inputs["H"] == "$0 mod SZ_OUT floordiv W_OUT * 2 + $1 floordiv C floordiv WF");
  CHECK(inputs["C"] == "$1 mod C");
  const graph::Node& write = g.body.nodes.back();
  REQUIRE(write.mapping);
  CHECK(write.mapping->outputs.size() == 4);
}

TEST_CASE("scalars and broadcasts get the larger operand's dims", "[trace]") {
  WAVE_SYMBOL(M);
  WAVE_SYMBOL(N);
  WAVE_SYMBOL(BM);
  auto k = kernel("scale_rows",
                  Constraints{WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM),
                              HardwareConstraint{}},
                  [](Memory<dims<M, N>, f32> x, Memory<dims<M>, f32> s, Memory<dims<M, N>, f32> y) {
                    auto r = 2.0 * read(x) - read(s);
                    write(-r, y);
                  });
  const graph::KernelGraph g = k.trace();
  CHECK(g.body.nodes.size() == 7);
  const graph::Node& scalar = only(g.body, OpKind::Register);
  CHECK(scalar.result_types[0].dims.empty());
  CHECK(scalar.fill == 2.0);
  // The scalar stays the left operand, as written.
  const graph::Node& mul = only(g.body, OpKind::Mul);
  CHECK(mul.operands[0] == scalar.results[0]);
  CHECK(mul.result_types[0].dims == Names{"M", "N"});
  const graph::Node& sub = only(g.body, OpKind::Sub);
  CHECK(sub.operands[0] == mul.results[0]);
  CHECK(defining(g.body, sub.operands[1]).result_types[0].dims == Names{"M"});
  CHECK(sub.result_types[0].dims == Names{"M", "N"});
  CHECK(only(g.body, OpKind::Neg).operands == sub.results);
}

TEST_CASE("subs are checked against the kernel", "[trace]") {
  auto gemm = examples::gemm::make_kernel();
  CHECK_NOTHROW(gemm.trace(examples::gemm::default_options()));
  CHECK(kernel_symbols(gemm.trace()) ==
        std::set<std::string>{"ADDRESS_SPACE", "BLOCK_K", "BLOCK_M", "BLOCK_N", "K", "M", "N"});
}

TEST_CASE("print traces its label, limit and mask, a mask of fewer dims broadcast first", "[trace][print]") {
  WAVE_SYMBOL(M);
  WAVE_SYMBOL(N);
  WAVE_SYMBOL(BLOCK_N);
  auto k = kernel("printing", {WorkgroupConstraint(N, BLOCK_N, 0), HardwareConstraint{.threads_per_wave = 32}},
                  [](Memory<dims<M, N>, f32> x) {
                    auto v = read(x);
                    auto odd = cast<i1>(apply_expr(self_index<N, i64>(), [](auto n) { return n % 2 > 0; }));
                    print(v, odd, "odd", {.limit = 7});
                  });
  const graph::KernelGraph g = k.trace();
  const graph::Node& p = only(g.body, OpKind::Print);
  CHECK(p.label == "odd");
  CHECK(p.limit == 7);
  REQUIRE(p.operands.size() == 2);
  CHECK(p.results.empty());
  const graph::Node& mask = defining(g.body, p.operands[1]);
  CHECK(mask.kind == OpKind::Broadcast);
  CHECK(mask.result_types[0] == graph::TensorType{Names{"M", "N"}, DataType::i1});
  // An empty label or a limit below one is the user's mistake, at their line.
  auto empty = kernel("empty_label", {HardwareConstraint{}}, [](Memory<dims<M>, f32> x) { print(read(x), ""); });
  CHECK_THROWS_WITH(empty.trace(), Catch::Contains("op 'print'") && Catch::Contains("expected a label"));
}

TEST_CASE("set_symbol traces a node with the dim and the size, and no result", "[trace][set_symbol]") {
  const graph::KernelGraph g = examples::varlen_attention::make_kernel().trace();
  std::vector<const graph::Node*> sets;
  for (const auto& n : g.body.nodes)
    if (n.kind == OpKind::SetSymbol) sets.push_back(&n);
  REQUIRE(sets.size() == 2);
  CHECK(sets[0]->dim == "M");
  CHECK(sets[1]->dim == "K2");
  for (const graph::Node* s : sets) {
    CHECK(s->results.empty());
    REQUIRE(s->operands.size() == 1);
    // The size: the sequence's length, over B (one per workgroup).
    const graph::Node& length = defining(g.body, s->operands[0]);
    CHECK(length.kind == OpKind::Sub);
    CHECK(length.result_types[0].dims == Names{"B"});
    CHECK(length.result_types[0].dtype == DataType::i32);
  }
  CHECK(std::string(graph::op_name(OpKind::SetSymbol)) == "set_symbol");
}

TEST_CASE("shuffle, extract, workgroup_barrier and set_wave_prio trace their dims, masks and positions", "[trace][shuffle]") {
  WAVE_SYMBOL(M);
  WAVE_SYMBOL(N);
  WAVE_SYMBOL(BM);
  auto k = kernel("picks", Constraints{WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}},
                  [](Memory<dims<M, N>, f32> x, Memory<dims<M, N>, f32> y, Memory<dims<M>, f32> last) {
                    auto v = read(x);
                    write(shuffle<N>(v, 5), y);
                    workgroup_barrier();
                    set_wave_prio(2);
                    write(extract<N>(v, N - 1), last);
                  });
  const graph::KernelGraph g = k.trace();
  const graph::Node *pairs = nullptr, *pick = nullptr;
  int barriers = 0, priorities = 0;
  for (const auto& n : g.body.nodes) {
    if (n.kind == OpKind::Shuffle) pairs = &n;
    if (n.kind == OpKind::Extract) pick = &n;
    if (n.kind == OpKind::WorkgroupBarrier) ++barriers;
    if (n.kind == OpKind::SetWavePrio) priorities += n.limit == 2;
  }
  REQUIRE(pairs);
  CHECK(pairs->dim == "N");
  CHECK(pairs->limit == 5);
  CHECK(pairs->result_types[0].dims == Names{"M", "N"});
  REQUIRE(pick);
  CHECK(pick->dim == "N");
  CHECK(pick->result_types[0].dims == Names{"M"});
  // The position N - 1, a scalar broadcast over the result's dims.
  REQUIRE(pick->operands.size() == 2);
  const graph::Node& position = defining(g.body, pick->operands[1]);
  CHECK(position.kind == OpKind::Broadcast);
  CHECK(position.result_types[0] == graph::TensorType{{"M"}, DataType::i32});
  CHECK(barriers == 1);
  CHECK(priorities == 1);
  // Bad masks and priorities stop at the user's line.
  auto bad_mask = kernel("bad_mask", Constraints{WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}},
                         [](Memory<dims<M, N>, f32> x, Memory<dims<M, N>, f32> y) { write(shuffle<N>(read(x), 0), y); });
  CHECK_THROWS_WITH(bad_mask.trace(), Catch::Matchers::Contains("expected an xor mask of at least 1, but found 0"));
  auto bad_priority = kernel("bad_priority", Constraints{WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}},
                             [](Memory<dims<M, N>, f32> x) {
                               set_wave_prio(7);
                               write(read(x), x);
                             });
  CHECK_THROWS_WITH(bad_priority.trace(), Catch::Matchers::Contains("expected a priority from 0 to 3, but found 7"));
}

TEST_CASE("extract_slice and reshape trace their dims, offsets and steps", "[trace][slice]") {
  WAVE_SYMBOL(M);
  WAVE_SYMBOL(N);
  WAVE_SYMBOL(W);
  WAVE_SYMBOL(H);
  WAVE_SYMBOL(D);
  WAVE_SYMBOL(BM);
  auto rows = Constraints{WorkgroupConstraint(M, BM, 0), WaveConstraint(M, BM), HardwareConstraint{}};
  auto k = kernel("windows", rows,
                  [](Memory<dims<M, N>, f32> x, Memory<dims<M, W>, f32> y, Memory<dims<M, H, D>, f32> z) {
                    auto v = read(x);
                    write(extract_slice<N, W>(v, N - W, 2), y);
                    write(reshape<dims<M, H, D>>(v), z);
                  });
  const graph::KernelGraph g = k.trace();
  const graph::Node *window = nullptr, *regrouped = nullptr;
  for (const auto& n : g.body.nodes) {
    if (n.kind == OpKind::ExtractSlice) window = &n;
    if (n.kind == OpKind::Reshape) regrouped = &n;
  }
  REQUIRE(window);
  CHECK(window->dim == "N");
  CHECK(window->limit == 2);
  CHECK(window->result_types[0].dims == Names{"M", "W"});
  // The offset N - W, a scalar broadcast over the result's dims.
  REQUIRE(window->operands.size() == 2);
  const graph::Node& offset = defining(g.body, window->operands[1]);
  CHECK(offset.kind == OpKind::Broadcast);
  CHECK(offset.result_types[0] == graph::TensorType{{"M", "W"}, DataType::i32});
  REQUIRE(regrouped);
  CHECK(regrouped->result_types[0].dims == Names{"M", "H", "D"});
  CHECK(regrouped->operands.size() == 1);
  CHECK(std::string(graph::op_name(OpKind::ExtractSlice)) == "extract_slice");
  CHECK(std::string(graph::op_name(OpKind::Reshape)) == "reshape");
  // A step below 1 stops at the user's line.
  auto bad_step = kernel("bad_step", rows, [](Memory<dims<M, N>, f32> x, Memory<dims<M, W>, f32> y) {
    write(extract_slice<N, W>(read(x), 0, 0), y);
  });
  CHECK_THROWS_WITH(bad_step.trace(), Catch::Matchers::Contains("expected a step of at least 1, but found 0") &&
                                          Catch::Matchers::Contains("trace_test.cpp"));
}
