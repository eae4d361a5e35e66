// Symbols and symbolic expressions as C++ expression templates.
//
//   WAVE_SYMBOL(M);  WAVE_SYMBOL(BLOCK_M);
//   constexpr auto wave_tile = BLOCK_M / 2;        // Binary<FloorDiv, Symbol<"BLOCK_M">, Constant>
//   Memory<dims<M, K>, f16> a;                     // symbols name tensor dimensions in types
//
// Every node is a literal, structural type, so expressions can be built in constant
// expressions and symbols can be template arguments. `to_expr()` turns any of them into the
// runtime `Expr` that can be printed, substituted and simplified.
//
// Dimensions and tile sizes are non-negative, so `/` is floor division and `%` the
// (non-negative) remainder, as for C++ unsigned integers; `ceildiv` rounds up.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "wave/expr.hpp"

namespace wave {

// A string usable as a template argument: the name inside Symbol<"M">.
template <std::size_t N>
struct FixedString {
  char chars[N]{};
  constexpr FixedString(const char (&s)[N]) { std::copy_n(s, N, chars); }
  constexpr std::string_view view() const { return {chars, N - 1}; }
};

// Marks the expression-template node types.
struct SymbolicTag {};

template <class T>
concept Symbolic = std::derived_from<T, SymbolicTag>;

// Symbolic operands: expression-template nodes and plain integers.
template <class T>
concept SymbolicOperand = Symbolic<T> || std::integral<T>;

// A named dimension or hyperparameter. Its identity is its name.
template <FixedString Name>
struct Symbol : SymbolicTag {
  static constexpr std::string_view name = Name.view();
  Expr to_expr() const { return Expr::symbol(std::string(name)); }
};

template <class T>
inline constexpr bool is_symbol_v = false;
template <FixedString Name>
inline constexpr bool is_symbol_v<Symbol<Name>> = true;

// The symbol type of a symbol object: SymbolOf<M>.
template <class T>
concept SymbolType = is_symbol_v<T>;

struct Constant : SymbolicTag {
  std::int64_t value = 0;
  constexpr explicit Constant(std::int64_t v) : value(v) {}
  Expr to_expr() const { return Expr(value); }
};

// A bound variable: index-mapping iterator k, or the operand of apply_expr.
struct Variable : SymbolicTag {
  int index = 0;
  constexpr explicit Variable(int i) : index(i) {}
  Expr to_expr() const { return Expr::variable(index); }
};

template <ExprOp Op, Symbolic L, Symbolic R>
struct Binary : SymbolicTag {
  L lhs;
  R rhs;
  constexpr Binary(L l, R r) : lhs(l), rhs(r) {}
  Expr to_expr() const { return Expr::binary(Op, lhs.to_expr(), rhs.to_expr()); }
};

// True for expression templates whose value is a comparison (for Assumption).
template <class T>
inline constexpr bool is_comparison_v = false;
template <ExprOp Op, class L, class R>
inline constexpr bool is_comparison_v<Binary<Op, L, R>> = is_comparison(Op);

// Lifts an operand into an expression-template node.
template <SymbolicOperand T>
constexpr auto lift(T v) {
  if constexpr (Symbolic<T>)
    return v;
  else
    return Constant(static_cast<std::int64_t>(v));
}

// The runtime form of any symbolic operand (or an Expr, unchanged).
template <class T>
Expr to_expr(const T& v) {
  if constexpr (std::is_same_v<T, Expr>)
    return v;
  else
    return lift(v).to_expr();
}

template <ExprOp Op, class L, class R>
constexpr auto make_binary(L l, R r) {
  return Binary<Op, decltype(lift(l)), decltype(lift(r))>(lift(l), lift(r));
}

// At least one side symbolic, so that int + int keeps its meaning.
template <class L, class R>
concept SymbolicPair = SymbolicOperand<L> && SymbolicOperand<R> && (Symbolic<L> || Symbolic<R>);

template <class L, class R> requires SymbolicPair<L, R>
constexpr auto operator+(L l, R r) { return make_binary<ExprOp::Add>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto operator-(L l, R r) { return make_binary<ExprOp::Sub>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto operator*(L l, R r) { return make_binary<ExprOp::Mul>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto operator/(L l, R r) { return make_binary<ExprOp::FloorDiv>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto operator%(L l, R r) { return make_binary<ExprOp::Mod>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto floordiv(L l, R r) { return make_binary<ExprOp::FloorDiv>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto ceildiv(L l, R r) { return make_binary<ExprOp::CeilDiv>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto min(L l, R r) { return make_binary<ExprOp::Min>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto max(L l, R r) { return make_binary<ExprOp::Max>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto operator<(L l, R r) { return make_binary<ExprOp::Lt>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto operator<=(L l, R r) { return make_binary<ExprOp::Le>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto operator>(L l, R r) { return make_binary<ExprOp::Gt>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto operator>=(L l, R r) { return make_binary<ExprOp::Ge>(l, r); }
// Equality is spelled as functions: operator== must keep meaning "same expression".
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto eq(L l, R r) { return make_binary<ExprOp::Eq>(l, r); }
template <class L, class R> requires SymbolicPair<L, R>
constexpr auto ne(L l, R r) { return make_binary<ExprOp::Ne>(l, r); }

template <Symbolic T>
constexpr auto operator-(T v) { return make_binary<ExprOp::Sub>(Constant(0), v); }

// A symbol name, from any symbol object: used where constraints and maps name a dim.
struct SymbolName {
  std::string name;
  template <FixedString N>
  SymbolName(Symbol<N>) : name(Symbol<N>::name) {}
  explicit SymbolName(std::string n) : name(std::move(n)) {}
  friend bool operator==(const SymbolName&, const SymbolName&) = default;
};

}  // namespace wave

// Declares a symbol `name` whose printed name is the same: WAVE_SYMBOL(M);
// Works at namespace, class and block scope (static, so that lambdas in a function use a
// symbol declared there without capturing it, which Clang requires); the type depends only
// on the name, so the same symbol declared in two translation units is the same symbol.
#define WAVE_SYMBOL(name) [[maybe_unused]] static constexpr ::wave::Symbol<#name> name {}
