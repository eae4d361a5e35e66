// A symbolic expression made ready to evaluate many times: symbols replaced by their
// values, the tree flattened to postfix, so that per-element evaluation (index mappings,
// apply_expr) allocates nothing.
#pragma once

#include <cstdint>
#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "wave/expr.hpp"

namespace wave::interpreter {

class ExprProgram {
 public:
  ExprProgram() = default;
  // Fails (returns nullopt, the symbol's name in `missing`) when a symbol has no value.
  static std::optional<ExprProgram> compile(const Expr& e, const std::map<std::string, std::int64_t>& symbols,
                                            std::string* missing) {
    ExprProgram p;
    if (!p.append(e, symbols, missing)) return std::nullopt;
    return p;
  }

  // The value for the variables `$0, $1, ...`; nullopt on a division by zero or an overflow.
  std::optional<std::int64_t> operator()(std::span<const std::int64_t> variables) const {
    std::int64_t small[kSmallStack] = {};
    std::vector<std::int64_t> large(need_ > kSmallStack ? need_ : 0);
    std::int64_t* stack = need_ > kSmallStack ? large.data() : small;
    int top = 0;
    for (const Step& s : steps_) {
      switch (s.op) {
        case ExprOp::Constant: stack[top++] = s.value; break;
        case ExprOp::Variable:
          stack[top++] = static_cast<std::size_t>(s.value) < variables.size() ? variables[s.value] : 0;
          break;
        default: {
          const std::int64_t b = stack[--top], a = stack[--top];
          auto v = detail::fold(s.op, a, b);
          if (!v) return std::nullopt;
          stack[top++] = *v;
        }
      }
    }
    return stack[0];
  }

 private:
  static constexpr int kSmallStack = 32;
  struct Step {
    ExprOp op;
    std::int64_t value;
  };

  bool append(const Expr& e, const std::map<std::string, std::int64_t>& symbols, std::string* missing) {
    switch (e.op()) {
      case ExprOp::Constant: push({ExprOp::Constant, e.value()}); return true;
      case ExprOp::Variable: push({ExprOp::Variable, e.index()}); return true;
      case ExprOp::Symbol: {
        auto it = symbols.find(e.name());
        if (it == symbols.end()) {
          if (missing) *missing = e.name();
          return false;
        }
        push({ExprOp::Constant, it->second});
        return true;
      }
      default:
        if (!append(e.lhs(), symbols, missing) || !append(e.rhs(), symbols, missing)) return false;
        steps_.push_back({e.op(), 0});
        --height_;  // two operands become one result
        return true;
    }
  }

  void push(Step s) {
    steps_.push_back(s);
    need_ = std::max(need_, ++height_);
  }

  std::vector<Step> steps_;
  int height_ = 0;  // stack height after the steps so far
  int need_ = 0;    // the most it reaches
};

}  // namespace wave::interpreter
