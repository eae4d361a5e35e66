// Runtime symbolic integer expressions.
//
// `Expr` is the form every symbolic expression takes once it leaves C++ types: constraint
// tiles, index mappings, assumptions. It can be printed, substituted and simplified. The
// printed syntax is the one the `wave` dialect's `#wave.expr<"...">` attribute parses:
// `BLOCK_M floordiv 2`, `$0 mod C`, `max(M, 16)`, `K > BLOCK_K * 4`.
//
// Semantics: integers, with floor division and a non-negative modulo for positive divisors
// (the only kind index arithmetic needs). Comparisons yield 0 or 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace wave {

enum class ExprOp : std::uint8_t {
  Constant,
  Symbol,    // a named dimension or hyperparameter, e.g. M or BLOCK_M
  Variable,  // a bound variable: an index-mapping iterator or an apply_expr operand ($0, $1..)
  Add, Sub, Mul, FloorDiv, CeilDiv, Mod, Min, Max,
  Lt, Le, Gt, Ge, Eq, Ne,
};

// True for the six comparison operators.
constexpr bool is_comparison(ExprOp op) { return op >= ExprOp::Lt; }

class Expr {
 public:
  // An integer literal; implicit so that `Expr e = 4;` and `expr + 1` read naturally.
  Expr(std::int64_t value = 0);
  Expr(int value) : Expr(static_cast<std::int64_t>(value)) {}

  static Expr symbol(std::string name);
  static Expr variable(int index);
  static Expr binary(ExprOp op, Expr lhs, Expr rhs);

  ExprOp op() const;
  bool is_constant() const { return op() == ExprOp::Constant; }
  std::int64_t value() const;        // Constant only
  const std::string& name() const;   // Symbol only
  int index() const;                 // Variable only
  const Expr& lhs() const;           // binary operators only
  const Expr& rhs() const;

  // Infix text, parenthesized only where precedence needs it.
  std::string str() const;

  // Replaces symbols (and variables, by index) with the given expressions.
  Expr substitute(const std::map<std::string, Expr>& symbols,
                  const std::map<int, Expr>& variables = {}) const;

  // Folds constants and applies the algebraic identities of floor division and modulo
  // by positive constants: (a*c) floordiv c -> a, (a*c + b) mod c -> b mod c,
  // (a floordiv b) floordiv c -> a floordiv (b*c), (a mod c) mod d -> a mod d if d | c, ...
  Expr simplify() const;

  // The value when every symbol is known, after simplification.
  std::optional<std::int64_t> evaluate(const std::map<std::string, std::int64_t>& symbols = {}) const;

  // Every symbol name the expression mentions.
  std::set<std::string> symbols() const;
  // One more than the largest variable index (0 if none).
  int num_variables() const;

  friend bool operator==(const Expr& a, const Expr& b);

 private:
  struct Node;
  explicit Expr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
};

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr floordiv(const Expr& a, const Expr& b);
Expr ceildiv(const Expr& a, const Expr& b);
Expr operator%(const Expr& a, const Expr& b);

// ---------------------------------------------------------------------------------------
// Implementation (header-only).

struct Expr::Node {
  ExprOp op;
  std::int64_t value = 0;  // Constant; Variable index
  std::string name;        // Symbol
  std::vector<Expr> operands;  // binary: lhs, rhs
};

inline Expr::Expr(std::int64_t value)
    : node_(std::make_shared<const Node>(Node{ExprOp::Constant, value, {}, {}})) {}

inline Expr Expr::symbol(std::string name) {
  return Expr(std::make_shared<const Node>(Node{ExprOp::Symbol, 0, std::move(name), {}}));
}
inline Expr Expr::variable(int index) {
  return Expr(std::make_shared<const Node>(Node{ExprOp::Variable, index, {}, {}}));
}
inline Expr Expr::binary(ExprOp op, Expr lhs, Expr rhs) {
  return Expr(std::make_shared<const Node>(
      Node{op, 0, {}, {std::move(lhs), std::move(rhs)}}));
}

inline ExprOp Expr::op() const { return node_->op; }
inline std::int64_t Expr::value() const { return node_->value; }
inline const std::string& Expr::name() const { return node_->name; }
inline int Expr::index() const { return static_cast<int>(node_->value); }
inline const Expr& Expr::lhs() const { return node_->operands[0]; }
inline const Expr& Expr::rhs() const { return node_->operands[1]; }

inline bool operator==(const Expr& a, const Expr& b) {
  if (a.node_ == b.node_) return true;
  if (a.op() != b.op()) return false;
  switch (a.op()) {
    case ExprOp::Constant:
    case ExprOp::Variable: return a.node_->value == b.node_->value;
    case ExprOp::Symbol: return a.name() == b.name();
    default: return a.lhs() == b.lhs() && a.rhs() == b.rhs();
  }
}

namespace detail {

// Binding strength for printing; comparisons bind loosest.
inline int precedence(ExprOp op) {
  switch (op) {
    case ExprOp::Add:
    case ExprOp::Sub: return 1;
    case ExprOp::Mul:
    case ExprOp::FloorDiv:
    case ExprOp::CeilDiv:
    case ExprOp::Mod: return 2;
    case ExprOp::Constant:
    case ExprOp::Symbol:
    case ExprOp::Variable:
    case ExprOp::Min:
    case ExprOp::Max: return 3;
    default: return 0;
  }
}

inline const char* spelling(ExprOp op) {
  switch (op) {
    case ExprOp::Add: return " + ";
    case ExprOp::Sub: return " - ";
    case ExprOp::Mul: return " * ";
    case ExprOp::FloorDiv: return " floordiv ";
    case ExprOp::CeilDiv: return " ceildiv ";
    case ExprOp::Mod: return " mod ";
    case ExprOp::Lt: return " < ";
    case ExprOp::Le: return " <= ";
    case ExprOp::Gt: return " > ";
    case ExprOp::Ge: return " >= ";
    case ExprOp::Eq: return " == ";
    case ExprOp::Ne: return " != ";
    default: return "?";
  }
}

// Floor division and modulo of integers, for positive and negative operands alike.
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  const std::int64_t r = a % b;  // b != -1 (checked by fold): no overflow
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

// The value of `a op b`; nullopt where it is undefined (division by zero) or overflows
// 64 bits, so that such an expression stays unevaluated rather than wrong.
inline std::optional<std::int64_t> fold(ExprOp op, std::int64_t a, std::int64_t b) {
  std::int64_t r;
  constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  switch (op) {
    case ExprOp::Add: return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional(r);
    case ExprOp::Sub: return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional(r);
    case ExprOp::Mul: return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional(r);
    case ExprOp::FloorDiv:
      return b == 0 || (a == lowest && b == -1) ? std::nullopt : std::optional(floor_div(a, b));
    case ExprOp::CeilDiv: return b == 0 || a == lowest ? std::nullopt : std::optional(ceil_div(a, b));
    case ExprOp::Mod: return b == 0 ? std::nullopt : b == -1 ? std::optional<std::int64_t>(0) : std::optional(floor_mod(a, b));
    case ExprOp::Min: return a < b ? a : b;
    case ExprOp::Max: return a < b ? b : a;
    case ExprOp::Lt: return a < b;
    case ExprOp::Le: return a <= b;
    case ExprOp::Gt: return a > b;
    case ExprOp::Ge: return a >= b;
    case ExprOp::Eq: return a == b;
    case ExprOp::Ne: return a != b;
    default: return std::nullopt;
  }
}

// A sum split into its terms: e == sum(terms) + constant.
struct LinearSum {
  std::vector<Expr> terms;
  std::int64_t constant = 0;
  bool overflow = false;  // the constants' sum does not fit: no identity applies
};

inline void collect_terms(const Expr& e, bool negate, LinearSum& out) {
  if (e.is_constant()) {
    auto sum = fold(negate ? ExprOp::Sub : ExprOp::Add, out.constant, e.value());
    if (sum) out.constant = *sum;
    else out.overflow = true;
  } else if (e.op() == ExprOp::Add || e.op() == ExprOp::Sub) {
    collect_terms(e.lhs(), negate, out);
    collect_terms(e.rhs(), e.op() == ExprOp::Sub ? !negate : negate, out);
  } else {
    out.terms.push_back(negate ? Expr::binary(ExprOp::Mul, e, Expr(-1)) : e);
  }
}

// The constant factor c of a term written `x * c` (or a constant), 1 otherwise.
inline std::int64_t constant_factor(const Expr& term) {
  if (term.is_constant()) return term.value();
  if (term.op() == ExprOp::Mul && term.rhs().is_constant()) return term.rhs().value();
  return 1;
}

// term / d for a term whose constant factor d divides.
inline Expr divide_term(const Expr& term, std::int64_t d) {
  if (term.is_constant()) return Expr(term.value() / d);
  return Expr::binary(ExprOp::Mul, term.lhs(), Expr(term.rhs().value() / d)).simplify();
}

inline Expr sum_of(const std::vector<Expr>& terms, std::int64_t constant) {
  std::optional<Expr> acc;
  for (const Expr& t : terms) acc = acc ? Expr::binary(ExprOp::Add, *acc, t) : t;
  if (!acc) return Expr(constant);
  if (constant > 0) return Expr::binary(ExprOp::Add, *acc, Expr(constant));
  if (constant < 0 && constant != std::numeric_limits<std::int64_t>::min())
    return Expr::binary(ExprOp::Sub, *acc, Expr(-constant));
  if (constant < 0) return Expr::binary(ExprOp::Add, *acc, Expr(constant));
  return *acc;
}

// (sum of multiples of d) + rest: floordiv d -> multiples/d + rest floordiv d;
// mod d -> rest mod d. Valid for any integer rest under floor semantics.
inline std::optional<Expr> split_by_divisor(const Expr& dividend, ExprOp op, std::int64_t d) {
  LinearSum sum;
  collect_terms(dividend, false, sum);
  std::vector<Expr> multiples, rest;
  for (const Expr& t : sum.terms) (constant_factor(t) % d == 0 ? multiples : rest).push_back(t);
  if (sum.overflow) return std::nullopt;
  const auto rounded = fold(ExprOp::Sub, sum.constant, floor_mod(sum.constant, d));
  if (!rounded) return std::nullopt;
  const std::int64_t whole = *rounded;
  if (multiples.empty() && whole == 0) return std::nullopt;
  Expr remainder = sum_of(rest, sum.constant - whole);
  if (op == ExprOp::Mod) return Expr::binary(ExprOp::Mod, remainder, Expr(d)).simplify();
  std::vector<Expr> quotients;
  for (const Expr& t : multiples) quotients.push_back(divide_term(t, d));
  Expr q = sum_of(quotients, whole / d);
  if (rest.empty() && sum.constant - whole == 0) return q.simplify();
  return Expr::binary(ExprOp::Add, q, Expr::binary(ExprOp::FloorDiv, remainder, Expr(d)))
      .simplify();
}

inline Expr simplify_binary(ExprOp op, const Expr& a, const Expr& b) {
  if (a.is_constant() && b.is_constant())
    if (auto v = fold(op, a.value(), b.value())) return Expr(*v);
  const bool bc = b.is_constant();
  const std::int64_t bv = bc ? b.value() : 0;
  switch (op) {
    case ExprOp::Add:
      if (a.is_constant() && !bc) return simplify_binary(ExprOp::Add, b, a);  // constants go right
      if (bc && bv == 0) return a;
      if (bc && a.op() == ExprOp::Add && a.rhs().is_constant())
        if (auto c = fold(ExprOp::Add, a.rhs().value(), bv)) return simplify_binary(ExprOp::Add, a.lhs(), Expr(*c));
      if (bc && bv < 0 && bv != std::numeric_limits<std::int64_t>::min()) return Expr::binary(ExprOp::Sub, a, Expr(-bv));
      break;
    case ExprOp::Sub:
      if (bc && bv == 0) return a;
      if (a == b) return Expr(0);
      if (bc && bv != std::numeric_limits<std::int64_t>::min()) return simplify_binary(ExprOp::Add, a, Expr(-bv));
      break;
    case ExprOp::Mul:
      if (a.is_constant() && !bc) return simplify_binary(ExprOp::Mul, b, a);
      if (bc && bv == 0) return Expr(0);
      if (bc && bv == 1) return a;
      if (bc && a.op() == ExprOp::Mul && a.rhs().is_constant())
        if (auto c = fold(ExprOp::Mul, a.rhs().value(), bv)) return simplify_binary(ExprOp::Mul, a.lhs(), Expr(*c));
      break;
    case ExprOp::FloorDiv:
      if (bc && bv == 1) return a;
      if (a.is_constant() && a.value() == 0) return Expr(0);
      if (bc && bv > 0) {
        if (a.op() == ExprOp::FloorDiv && a.rhs().is_constant() && a.rhs().value() > 0)
          if (auto c = fold(ExprOp::Mul, a.rhs().value(), bv)) return simplify_binary(ExprOp::FloorDiv, a.lhs(), Expr(*c));
        if (auto split = split_by_divisor(a, op, bv)) return *split;
      }
      break;
    case ExprOp::CeilDiv:
      if (bc && bv == 1) return a;
      if (bc && bv > 0 && constant_factor(a) % bv == 0 && a.op() == ExprOp::Mul)
        return divide_term(a, bv);
      break;
    case ExprOp::Mod:
      if (bc && bv == 1) return Expr(0);
      if (bc && bv > 0) {
        if (a.op() == ExprOp::Mod && a.rhs().is_constant() && a.rhs().value() % bv == 0)
          return simplify_binary(ExprOp::Mod, a.lhs(), b);
        if (auto split = split_by_divisor(a, op, bv)) return *split;
      }
      break;
    case ExprOp::Min:
    case ExprOp::Max:
      if (a == b) return a;
      break;
    default:
      if (a == b) return Expr(op == ExprOp::Le || op == ExprOp::Ge || op == ExprOp::Eq);
      break;
  }
  return Expr::binary(op, a, b);
}

}  // namespace detail

inline std::string Expr::str() const {
  switch (op()) {
    case ExprOp::Constant: return std::to_string(value());
    case ExprOp::Symbol: return name();
    case ExprOp::Variable: return "$" + std::to_string(index());
    case ExprOp::Min:
    case ExprOp::Max:
      return std::string(op() == ExprOp::Min ? "min(" : "max(") + lhs().str() + ", " +
             rhs().str() + ")";
    default: break;
  }
  // Left-associative: the rhs needs parentheses at equal precedence, the lhs only below.
  const int p = detail::precedence(op());
  auto side = [&](const Expr& e, bool right) {
    const int q = detail::precedence(e.op());
    const bool negative = e.is_constant() && e.value() < 0 && right;
    return (q < p || (right && q == p) || negative) ? "(" + e.str() + ")" : e.str();
  };
  return side(lhs(), false) + detail::spelling(op()) + side(rhs(), true);
}

inline Expr Expr::substitute(const std::map<std::string, Expr>& symbols,
                             const std::map<int, Expr>& variables) const {
  switch (op()) {
    case ExprOp::Constant: return *this;
    case ExprOp::Symbol: {
      auto it = symbols.find(name());
      return it == symbols.end() ? *this : it->second;
    }
    case ExprOp::Variable: {
      auto it = variables.find(index());
      return it == variables.end() ? *this : it->second;
    }
    default:
      return binary(op(), lhs().substitute(symbols, variables), rhs().substitute(symbols, variables));
  }
}

inline Expr Expr::simplify() const {
  if (op() == ExprOp::Constant || op() == ExprOp::Symbol || op() == ExprOp::Variable) return *this;
  return detail::simplify_binary(op(), lhs().simplify(), rhs().simplify());
}

inline std::optional<std::int64_t> Expr::evaluate(
    const std::map<std::string, std::int64_t>& values) const {
  std::map<std::string, Expr> subs;
  for (const auto& [name, v] : values) subs.emplace(name, Expr(v));
  Expr e = substitute(subs).simplify();
  if (!e.is_constant()) return std::nullopt;
  return e.value();
}

inline std::set<std::string> Expr::symbols() const {
  std::set<std::string> out;
  if (op() == ExprOp::Symbol) out.insert(name());
  if (node_->operands.size() == 2) {
    out.merge(lhs().symbols());
    out.merge(rhs().symbols());
  }
  return out;
}

inline int Expr::num_variables() const {
  if (op() == ExprOp::Variable) return index() + 1;
  if (node_->operands.size() != 2) return 0;
  return std::max(lhs().num_variables(), rhs().num_variables());
}

inline Expr operator+(const Expr& a, const Expr& b) { return Expr::binary(ExprOp::Add, a, b); }
inline Expr operator-(const Expr& a, const Expr& b) { return Expr::binary(ExprOp::Sub, a, b); }
inline Expr operator*(const Expr& a, const Expr& b) { return Expr::binary(ExprOp::Mul, a, b); }
inline Expr floordiv(const Expr& a, const Expr& b) { return Expr::binary(ExprOp::FloorDiv, a, b); }
inline Expr ceildiv(const Expr& a, const Expr& b) { return Expr::binary(ExprOp::CeilDiv, a, b); }
inline Expr operator%(const Expr& a, const Expr& b) { return Expr::binary(ExprOp::Mod, a, b); }

}  // namespace wave
