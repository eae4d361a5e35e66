//===- WaveExprText.cpp - the text form of #wave.expr ---------------------===//
//
// Grammar (inside the quotes of #wave.expr<"...">):
//   expr   := ('min' | 'max') '(' sum (',' sum)+ ')' | sum [cmp sum]
//   cmp    := '<' | '<=' | '>' | '>=' | '==' | '!='
//   sum    := term (('+' | '-') term)*
//   term   := unary (('*' | 'floordiv' | 'ceildiv' | 'mod') unary)*
//   unary  := '-' unary | atom
//   atom   := integer | symbol | '$' integer | '(' sum ')'
// Symbols are identifiers; `$k` is bound variable k (affine dim k).
//
//===----------------------------------------------------------------------===//

#include "dialect/WaveDialect.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace wave::dialect;

namespace {

constexpr unsigned kMaxVariables = 64;  // variables ($k) an expression may use

class ExprParser {
 public:
  ExprParser(MLIRContext* ctx, StringRef text, function_ref<InFlightDiagnostic()> emitError)
      : ctx_(ctx), text_(text), emitError_(emitError) {}

  FailureOr<ExprAttr> parse() {
    ExprKind kind = ExprKind::value;
    SmallVector<AffineExpr> results;
    skipSpace();
    if (peekWord("min") || peekWord("max")) {
      kind = peekWord("min") ? ExprKind::min : ExprKind::max;
      pos_ += 3;
      if (failed(expect("("))) return failure();
      do {
        auto operand = parseSum();
        if (failed(operand)) return failure();
        results.push_back(*operand);
      } while (consume(","));
      if (failed(expect(")"))) return failure();
      if (results.size() < 2) {
        (void)error("expected at least two operands of " + stringifyExprKind(kind).str());
        return failure();
      }
    } else {
      auto lhs = parseSum();
      if (failed(lhs)) return failure();
      results.push_back(*lhs);
      if (auto cmp = parseComparison()) {
        kind = *cmp;
        auto rhs = parseSum();
        if (failed(rhs)) return failure();
        results.push_back(*rhs);
      }
    }
    skipSpace();
    if (pos_ != text_.size()) {
      (void)error("expected the end of the expression");
      return failure();
    }
    auto map = AffineMap::get(numDims_, symbols_.size(), results, ctx_);
    return ExprAttr::get(ctx_, symbols_, map, kind);
  }

 private:
  FailureOr<AffineExpr> error(const std::string& message) {
    emitError_() << message << " at column " << (pos_ + 1) << " of \"" << text_ << "\"";
    return failure();
  }

  void skipSpace() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool consume(StringRef token) {
    skipSpace();
    if (!text_.substr(pos_).starts_with(token)) return false;
    pos_ += token.size();
    return true;
  }
  LogicalResult expect(StringRef token) {
    if (consume(token)) return success();
    (void)error(("expected '" + token + "'").str());
    return failure();
  }
  static bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }
  bool peekWord(StringRef word) {
    skipSpace();
    return text_.substr(pos_).starts_with(word) &&
           (pos_ + word.size() == text_.size() || !isIdentChar(text_[pos_ + word.size()]));
  }
  bool consumeWord(StringRef word) {
    if (!peekWord(word)) return false;
    pos_ += word.size();
    return true;
  }

  std::optional<ExprKind> parseComparison() {
    // Two-character operators first.
    if (consume("<=")) return ExprKind::le;
    if (consume(">=")) return ExprKind::ge;
    if (consume("==")) return ExprKind::eq;
    if (consume("!=")) return ExprKind::ne;
    if (consume("<")) return ExprKind::lt;
    if (consume(">")) return ExprKind::gt;
    return std::nullopt;
  }

  FailureOr<AffineExpr> parseSum() {
    auto lhs = parseTerm();
    while (succeeded(lhs)) {
      bool plus = consume("+");
      if (!plus && !consume("-")) break;
      auto rhs = parseTerm();
      if (failed(rhs)) return failure();
      lhs = plus ? *lhs + *rhs : *lhs - *rhs;
    }
    return lhs;
  }

  FailureOr<AffineExpr> parseTerm() {
    auto lhs = parseUnary();
    while (succeeded(lhs)) {
      AffineExprKind op;
      if (consume("*")) op = AffineExprKind::Mul;
      else if (consumeWord("floordiv")) op = AffineExprKind::FloorDiv;
      else if (consumeWord("ceildiv")) op = AffineExprKind::CeilDiv;
      else if (consumeWord("mod")) op = AffineExprKind::Mod;
      else break;
      auto rhs = parseUnary();
      if (failed(rhs)) return failure();
      // Keep to semi-affine forms: a product needs a constant or symbolic side, a
      // divisor must be constant or symbolic.
      if (op == AffineExprKind::Mul ? !lhs->isSymbolicOrConstant() && !rhs->isSymbolicOrConstant()
                                    : !rhs->isSymbolicOrConstant())
        return error("expected a constant or symbolic operand (no product or division of "
                     "two bound variables)");
      switch (op) {
        case AffineExprKind::Mul: lhs = *lhs * *rhs; break;
        case AffineExprKind::FloorDiv: lhs = lhs->floorDiv(*rhs); break;
        case AffineExprKind::CeilDiv: lhs = lhs->ceilDiv(*rhs); break;
        default: lhs = *lhs % *rhs; break;
      }
    }
    return lhs;
  }

  FailureOr<AffineExpr> parseUnary() {
    if (consume("-")) {
      auto operand = parseUnary();
      if (failed(operand)) return failure();
      return -*operand;
    }
    return parseAtom();
  }

  FailureOr<AffineExpr> parseAtom() {
    skipSpace();
    if (consume("(")) {
      auto inner = parseSum();
      if (failed(inner) || failed(expect(")"))) return failure();
      return inner;
    }
    if (consume("$")) {
      size_t start = pos_;
      while (pos_ < text_.size() && llvm::isDigit(text_[pos_])) ++pos_;
      unsigned index;
      if (text_.substr(start, pos_ - start).getAsInteger(10, index))
        return error("expected a variable number after '$'");
      // A mapping has one variable per register dim; a huge number would size every
      // affine map built from the expression by it.
      if (index >= kMaxVariables)
        return error("expected a variable number below " + std::to_string(kMaxVariables) + ", but found $" +
                     std::to_string(index));
      numDims_ = std::max(numDims_, index + 1);
      return getAffineDimExpr(index, ctx_);
    }
    size_t start = pos_;
    if (pos_ < text_.size() && llvm::isDigit(text_[pos_])) {
      while (pos_ < text_.size() && llvm::isDigit(text_[pos_])) ++pos_;
      int64_t value;
      if (text_.substr(start, pos_ - start).getAsInteger(10, value)) return error("integer too large");
      return getAffineConstantExpr(value, ctx_);
    }
    while (pos_ < text_.size() && isIdentChar(text_[pos_])) ++pos_;
    StringRef name = text_.substr(start, pos_ - start);
    if (name.empty()) return error("expected an integer, a symbol, '$k', '-' or '('");
    if (name == "min" || name == "max" || name == "floordiv" || name == "ceildiv" || name == "mod") {
      pos_ = start;
      return error(name == "min" || name == "max"
                       ? "min and max may appear only at the top of an expression"
                       : "expected an operand before '" + name.str() + "'");
    }
    auto [it, fresh] = symbolIndex_.try_emplace(name, symbols_.size());
    if (fresh) symbols_.push_back(StringAttr::get(ctx_, name));
    return getAffineSymbolExpr(it->second, ctx_);
  }

  MLIRContext* ctx_;
  StringRef text_;
  function_ref<InFlightDiagnostic()> emitError_;
  size_t pos_ = 0;
  unsigned numDims_ = 0;
  SmallVector<StringAttr> symbols_;
  llvm::StringMap<unsigned> symbolIndex_;
};

// -v for a negative v, as text (the lowest int64 has no positive counterpart).
std::string negatedText(int64_t v) { return std::to_string(0 - static_cast<uint64_t>(v)); }

// `x * c` with a negative constant c: printed as a negation or a subtraction.
std::optional<int64_t> negativeFactor(AffineExpr e) {
  if (e.getKind() != AffineExprKind::Mul) return std::nullopt;
  auto c = dyn_cast<AffineConstantExpr>(cast<AffineBinaryOpExpr>(e).getRHS());
  if (!c || c.getValue() >= 0) return std::nullopt;
  return c.getValue();
}

// Binding strength, for parentheses: sums bind loosest, atoms tightest.
int precedence(AffineExpr e) {
  switch (e.getKind()) {
    case AffineExprKind::Add: return 1;
    case AffineExprKind::Mul:
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
    case AffineExprKind::Mod: return 2;
    default: return 3;
  }
}

class ExprPrinter {
 public:
  explicit ExprPrinter(ArrayRef<StringAttr> symbols) : symbols_(symbols) {}

  std::string print(AffineExpr e) {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) return std::to_string(c.getValue());
    if (auto d = dyn_cast<AffineDimExpr>(e)) return std::string("$").append(std::to_string(d.getPosition()));
    if (auto s = dyn_cast<AffineSymbolExpr>(e)) return symbols_[s.getPosition()].str();
    auto bin = cast<AffineBinaryOpExpr>(e);
    AffineExpr lhs = bin.getLHS(), rhs = bin.getRHS();
    const char* op = nullptr;
    switch (e.getKind()) {
      case AffineExprKind::Add: {
        // Affine maps store a - b as a + b * -1 (and a - 3 as a + -3); print what was
        // written.
        if (auto c = dyn_cast<AffineConstantExpr>(rhs); c && c.getValue() < 0)
          return side(lhs, 1, false) + " - " + negatedText(c.getValue());
        if (auto factor = negativeFactor(rhs)) {
          AffineExpr negated = cast<AffineBinaryOpExpr>(rhs).getLHS();
          if (*factor == -1) return side(lhs, 1, false) + " - " + side(negated, 1, true);
          return side(lhs, 1, false) + " - " + side(negated, 2, false) + " * " + negatedText(*factor);
        }
        op = " + ";
        break;
      }
      case AffineExprKind::Mul:
        // x * -1 is -x.
        if (negativeFactor(e) == -1) return "-" + side(lhs, 3, false);
        op = " * ";
        break;
      case AffineExprKind::FloorDiv: op = " floordiv "; break;
      case AffineExprKind::CeilDiv: op = " ceildiv "; break;
      case AffineExprKind::Mod: op = " mod "; break;
      default: break;
    }
    const int p = precedence(e);
    return side(lhs, p, false) + op + side(rhs, p, true);
  }

 private:
  // Operators are left-associative: the right side needs parentheses at equal strength.
  // A negative number or negation on the right is parenthesized too (`a * (-2)`), and
  // a negation anywhere inside another operator, so it reads as one operand.
  std::string side(AffineExpr e, int parent, bool right) {
    std::string text = print(e);
    const int p = precedence(e);
    const bool negative = isa<AffineConstantExpr>(e) && cast<AffineConstantExpr>(e).getValue() < 0;
    const bool negation = negativeFactor(e) == -1;
    const bool parenthesize =
        p < parent || (right && p == parent) || (right && negative) || (negation && parent > 1) ||
        (negation && right);
    return parenthesize ? "(" + text + ")" : text;
  }

  ArrayRef<StringAttr> symbols_;
};

}  // namespace

FailureOr<ExprAttr> ExprAttr::parse(MLIRContext* ctx, StringRef text,
                                        function_ref<InFlightDiagnostic()> emitError) {
  return ExprParser(ctx, text, emitError).parse();
}

std::string ExprAttr::str() const {
  ExprPrinter printer(getSymbols());
  auto results = getMap().getResults();
  auto join = [&](StringRef separator) {
    std::string out;
    for (auto [i, r] : llvm::enumerate(results)) out += (i ? separator.str() : "") + printer.print(r);
    return out;
  };
  switch (getKind()) {
    case ExprKind::value: return printer.print(results[0]);
    case ExprKind::min: return "min(" + join(", ") + ")";
    case ExprKind::max: return "max(" + join(", ") + ")";
    case ExprKind::lt: return join(" < ");
    case ExprKind::le: return join(" <= ");
    case ExprKind::gt: return join(" > ");
    case ExprKind::ge: return join(" >= ");
    case ExprKind::eq: return join(" == ");
    case ExprKind::ne: return join(" != ");
  }
  llvm_unreachable("every ExprKind prints");
}
