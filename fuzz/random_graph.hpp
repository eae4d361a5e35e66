// Random trace-graph pieces drawn from a fuzzer's bytes: names from a small pool (so that
// ops meet each other's dims) with an occasional stranger, every dtype and op kind plus
// out-of-range enumerators, expressions of any depth and size.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "wave/graph.hpp"
#include "wave/options.hpp"

namespace wave::fuzz {

inline std::string random_name(FuzzedDataProvider& in) {
  static const char* pool[] = {"M", "N", "K", "B", "BLOCK_M", "BLOCK_N", "BLOCK_K", "S", "", "$0", "M N", "K"};
  return pool[in.ConsumeIntegralInRange<int>(0, sizeof pool / sizeof *pool - 1)];
}

inline std::vector<std::string> random_dims(FuzzedDataProvider& in) {
  std::vector<std::string> dims(in.ConsumeIntegralInRange<int>(0, 4));
  for (std::string& d : dims) d = random_name(in);
  return dims;
}

inline DataType random_dtype(FuzzedDataProvider& in) {
  return static_cast<DataType>(in.ConsumeIntegralInRange<int>(0, static_cast<int>(DataType::i64) + 1));
}

inline Expr random_expr(FuzzedDataProvider& in, int depth = 0) {
  switch (in.ConsumeIntegralInRange<int>(0, depth > 6 ? 2 : 4)) {
    case 0: return Expr(in.ConsumeBool() ? in.ConsumeIntegralInRange<std::int64_t>(-4, 64) : in.ConsumeIntegral<std::int64_t>());
    case 1: return Expr::symbol(random_name(in));
    case 2: return Expr::variable(in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(0, 3) : in.ConsumeIntegral<int>());
    default: {
      const auto op = static_cast<ExprOp>(in.ConsumeIntegralInRange<int>(static_cast<int>(ExprOp::Add), static_cast<int>(ExprOp::Ne)));
      Expr lhs = random_expr(in, depth + 1);
      return Expr::binary(op, lhs, random_expr(in, depth + 1));
    }
  }
}

inline std::vector<DimExpr> random_dim_exprs(FuzzedDataProvider& in) {
  std::vector<DimExpr> out;
  for (int i = in.ConsumeIntegralInRange<int>(0, 4); i > 0; --i) out.emplace_back(random_name(in), random_expr(in));
  return out;
}

inline graph::TensorType random_tensor_type(FuzzedDataProvider& in) { return {random_dims(in), random_dtype(in)}; }

inline graph::MemoryType random_memory_type(FuzzedDataProvider& in) {
  static const char* spaces[] = {"global", "shared", "BLOCK_M", "S", ""};
  return {random_dims(in), random_dtype(in), spaces[in.ConsumeIntegralInRange<int>(0, 4)]};
}

// Sizes for the pool's names: mostly small, sometimes zero, negative or huge.
inline Subs random_subs(FuzzedDataProvider& in) {
  Subs subs;
  for (int i = in.ConsumeIntegralInRange<int>(0, 8); i > 0; --i) {
    Sub s(Symbol<"M">{}, 1);
    s.symbol = random_name(in);
    s.value = in.ConsumeBool() ? in.ConsumeIntegralInRange<std::int64_t>(1, 9) : in.ConsumeIntegral<std::int64_t>();
    s.is_address_space = in.ConsumeIntegralInRange<int>(0, 7) == 0;
    subs.push_back(s);
  }
  return subs;
}

}  // namespace wave::fuzz
