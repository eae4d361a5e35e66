// Fuzz target: the trace-graph importer and the CPU interpreter, fed random graphs: wrong
// arities, unknown dims, values used before they are defined or never, bad dtypes and op
// kinds, huge sizes, nested loops. Both must reject what they cannot take with a
// wave::Error.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "random_graph.hpp"
#include "wave/interpret.hpp"
#include "wave/jit.hpp"

namespace {

using namespace wave;

struct GraphBuilder {
  FuzzedDataProvider& in;
  std::vector<graph::ValueId> defined;
  graph::ValueId next = 0;

  graph::ValueId operand() {
    if (!defined.empty() && in.ConsumeIntegralInRange<int>(0, 9) > 0)
      return defined[in.ConsumeIntegralInRange<std::size_t>(0, defined.size() - 1)];
    return in.ConsumeIntegralInRange<int>(-2, next + 2);
  }

  graph::Block block(int depth, int args) {
    graph::Block b;
    for (int i = 0; i < args; ++i) {
      b.args.push_back(next);
      defined.push_back(next++);
      b.arg_types.push_back(fuzz::random_tensor_type(in));
    }
    for (int i = in.ConsumeIntegralInRange<int>(0, 10); i > 0 && in.remaining_bytes(); --i) b.nodes.push_back(node(depth));
    if (depth > 0) {  // a loop body ends in a yield, usually
      graph::Node yield;
      yield.kind = graph::OpKind::Yield;
      for (int i = in.ConsumeIntegralInRange<int>(0, 3); i > 0; --i) yield.operands.push_back(operand());
      if (in.ConsumeIntegralInRange<int>(0, 9) > 0) b.nodes.push_back(yield);
    }
    return b;
  }

  graph::Node node(int depth) {
    graph::Node n;
    n.kind = static_cast<graph::OpKind>(in.ConsumeIntegralInRange<int>(0, static_cast<int>(graph::kLastOpKind)));
    n.loc = {"fuzzed.cpp", in.ConsumeIntegralInRange<unsigned>(0, 99), 1};
    for (int i = in.ConsumeIntegralInRange<int>(0, 3); i > 0; --i) n.operands.push_back(operand());
    n.fill = in.ConsumeFloatingPoint<double>();
    n.dim = fuzz::random_name(in);
    if (in.ConsumeBool())
      n.mapping = Mapping{in.ConsumeIntegralInRange<int>(-1, 4), fuzz::random_dim_exprs(in), fuzz::random_dim_exprs(in),
                          in.ConsumeIntegralInRange<int>(-1, 2)};
    n.elements_per_thread = in.ConsumeIntegralInRange<int>(-1, 9);
    if (in.ConsumeBool()) n.mma = static_cast<MMA>(in.ConsumeIntegralInRange<int>(0, 5));
    if (in.ConsumeBool()) n.expr = fuzz::random_expr(in);
    if (n.kind == graph::OpKind::Print) {
      n.label = in.ConsumeRandomLengthString(8);
      n.limit = in.ConsumeIntegralInRange<std::int64_t>(-1, 70);
    }
    if (n.kind == graph::OpKind::Iterate && depth < 2) {
      const int carried = in.ConsumeIntegralInRange<int>(0, 3);
      n.regions.push_back(block(depth + 1, carried));
    }
    const int results = n.kind == graph::OpKind::Write || n.kind == graph::OpKind::AtomicAdd ? 0 : in.ConsumeIntegralInRange<int>(0, 2);
    for (int i = 0; i < results; ++i) {
      n.results.push_back(next);
      defined.push_back(next++);
      n.result_types.push_back(fuzz::random_tensor_type(in));
    }
    return n;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  graph::KernelGraph g;
  g.name = in.ConsumeBool() ? "fuzzed" : in.ConsumeRandomLengthString(12);
  GraphBuilder builder{in};
  for (int i = in.ConsumeIntegralInRange<int>(0, 4); i > 0; --i) {
    g.args.push_back({builder.next, fuzz::random_memory_type(in)});
    builder.defined.push_back(builder.next++);
  }
  for (int i = in.ConsumeIntegralInRange<int>(0, 5); i > 0; --i) {
    const std::string dim = fuzz::random_name(in);
    const Expr tile = fuzz::random_expr(in);
    switch (in.ConsumeIntegralInRange<int>(0, 4)) {
      case 0: {
        WorkgroupConstraint c(Symbol<"M">{}, 1, 0);
        c.dim = dim, c.tile = tile, c.workgroup_dim = in.ConsumeIntegralInRange<int>(-1, 3);
        g.constraints += c;
        break;
      }
      case 1: {
        WaveConstraint c(Symbol<"M">{}, 1);
        c.dim = dim, c.tile = tile;
        g.constraints += c;
        break;
      }
      case 2: {
        TilingConstraint c(Symbol<"M">{}, 1);
        c.dim = dim, c.tile = tile;
        g.constraints += c;
        break;
      }
      case 3: g.constraints += Assumption(tile, std::source_location::current()); break;
      default:
        g.constraints += HardwareConstraint{.threads_per_wave = in.ConsumeBool() ? 32 : in.ConsumeIntegral<int>(),
                                            .mma = in.ConsumeBool() ? std::optional(static_cast<MMA>(in.ConsumeIntegralInRange<int>(0, 5)))
                                                                    : std::nullopt};
    }
  }
  g.body = builder.block(0, 0);
  const Subs subs = fuzz::random_subs(in);

  try {
    (void)jit::import_to_mlir(g, CompileOptions{.subs = subs});
  } catch (const Error&) {
  }

  // The interpreter, on buffers of random bytes sized from subs where they are small.
  std::vector<std::vector<std::uint64_t>> buffers;
  std::vector<HostArg> args;
  for (const graph::Argument& a : g.args) {
    std::int64_t elements = 1;
    for (const std::string& d : a.type.dims) {
      std::int64_t size = 0;
      for (const Sub& s : subs)
        if (s.symbol == d && !s.is_address_space) size = s.value;
      elements = (size > 0 && size <= 64 && elements <= 4096) ? elements * size : 1 << 20;
    }
    if (elements > 4096) return 0;
    buffers.emplace_back(static_cast<std::size_t>(elements), in.ConsumeIntegral<std::uint64_t>());
    args.push_back(buffers.back().data());
  }
  try {
    interpret(g, subs, args);
  } catch (const Error&) {
  }
  return 0;
}
