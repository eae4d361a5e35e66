// The trace graph: what tracing a kernel body records, in plain C++.
//
// It is the hand-off from the header-only front end to the JIT library, which imports it
// into the `wave` MLIR dialect. Values are SSA: each node defines `results` and uses
// `operands` by id; `iterate` owns one nested block whose arguments are its loop-carried
// values and whose last node is a `yield`; `conditional` (operands: the condition, then
// the values it gives where the condition fails) one without arguments, ending likewise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wave/constraints.hpp"
#include "wave/dtype.hpp"
#include "wave/index_mapping.hpp"
#include "wave/mma.hpp"

namespace wave::graph {

using ValueId = int;

struct SourceLoc {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
};

// A register value: a tensor of `dtype` with symbolic `dims` (empty for a scalar).
struct TensorType {
  std::vector<std::string> dims;
  DataType dtype{};
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

// A kernel argument: a tensor in memory. `address_space` is "global", "shared", or the
// name of a symbol set at compile time.
struct MemoryType {
  std::vector<std::string> dims;
  DataType dtype{};
  std::string address_space;
};

enum class OpKind : std::uint8_t {
  Register, Read, Write, Iterate, Yield, Mma,
  Add, Sub, Mul, Div, Maximum, Minimum,
  Neg, Exp2, Log2, Reciprocal, Abs, Sqrt, Rsqrt, Tanh,
  ReduceMax, ReduceSum,
  Cast, Permute, Broadcast, Select, SelfIndex, ApplyExpr,
  Print, AtomicAdd,
  Gt, Ge, Lt, Le, Eq, Ne,
  Sin, Cos, Sinh, Cbrt, RoundEven, Atan2, Powf,
  ReduceMin, AtomicMin, AtomicMax, Cumsum, Bitcast, TanhApprox,
  SetSymbol, WaitAtLeast, Signal,
  Shuffle, Extract, WorkgroupBarrier, SetWavePrio, Conditional,
  ExtractSlice, Reshape,
};
inline constexpr OpKind kLastOpKind = OpKind::Reshape;

// The op's name as users write it (and as `wave.<name>` in the IR).
inline const char* op_name(OpKind k) {
  static constexpr const char* names[] = {
      "register", "read", "write", "iterate", "yield", "mma",
      "add", "sub", "mul", "div", "maximum", "minimum",
      "neg", "exp2", "log2", "reciprocal", "abs", "sqrt", "rsqrt", "tanh",
      "reduce_max", "reduce_sum",
      "cast", "permute", "broadcast", "select", "self_index", "apply_expr",
      "print", "atomic_add",
      "gt", "ge", "lt", "le", "eq", "ne",
      "sin", "cos", "sinh", "cbrt", "roundeven", "atan2", "powf",
      "reduce_min", "atomic_min", "atomic_max", "cumsum", "bitcast", "tanh_approx",
      "set_symbol", "wait_at_least", "signal",
      "shuffle", "extract", "workgroup_barrier", "set_wave_prio", "conditional",
      "extract_slice", "reshape"};
  const auto i = static_cast<std::size_t>(k);
  return i < sizeof names / sizeof *names ? names[i] : "?";  // "?": a hand-built graph's bad kind
}

struct Block;

struct Node {
  OpKind kind{};
  std::vector<ValueId> operands;
  std::vector<ValueId> results;
  std::vector<TensorType> result_types;
  SourceLoc loc;

  // Attributes; each op uses the ones it needs.
  double fill = 0;                 // register: the constant
  std::string dim;                 // iterate, reductions, extract, extract_slice, shuffle, self_index,
                                   // set_symbol
  std::optional<Mapping> mapping;  // read, write
  int elements_per_thread = 0;     // read, write (0: chosen by the compiler)
  std::optional<MMA> mma;          // mma: an explicit kind
  std::optional<Expr> expr;        // apply_expr, in terms of $0; wait_at_least: the least value
  std::string label;               // print: the name each line starts with
  std::int64_t limit = 0;          // print: elements printed, the first in row-major order;
                                   // shuffle: the xor mask (k takes k ^ limit);
                                   // extract_slice: the step between taken elements;
                                   // set_wave_prio: the priority (0 to 3)
  bool take = false;               // wait_at_least: the value taken from each flag once seen
  std::vector<Block> regions;      // iterate, conditional: its body
};

struct Block {
  std::vector<ValueId> args;
  std::vector<TensorType> arg_types;
  std::vector<Node> nodes;
};

struct Argument {
  ValueId id;
  MemoryType type;
};

struct KernelGraph {
  std::string name;
  SourceLoc loc;
  std::vector<Argument> args;
  Constraints constraints;
  Block body;
};

}  // namespace wave::graph
