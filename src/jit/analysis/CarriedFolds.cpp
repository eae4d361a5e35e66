//===- CarriedFolds.cpp - how an iterate's carried values fold over its dim -===//
//
// An abstract interpretation of the loop body: each value gets the role it plays in the
// folds (see CarriedFolds.h), computed from its operands' roles in one walk; a value the
// roles do not cover fails the analysis.
//
//===----------------------------------------------------------------------===//

#include "analysis/CarriedFolds.h"

#include "analysis/ScoreMasks.h"

#include "llvm/ADT/TypeSwitch.h"

namespace wave::jit {

using namespace mlir;
using namespace dialect;

namespace {

// What a value of the body is to the folds. `value` is a carried value's index, `max` the
// index of the running max a rescaled value follows (-1: none), `k` its exp2 scale.
struct Role {
  enum Tag {
    plain,          // depends on no carried value and no reduction over the loop's dim
    carried,        // carried value `value`, as it entered the trip
    newMax,         // the next value of running max `value`
    tileMax,        // reduce_max over the dim of a plain value
    shift,          // k (x - m'): a term's exponent, m' the next value of running max `max`
    shiftCarried,   // k (m - m'): the rescaling's exponent, m the carried value of `max`
    scale,          // exp2(k (m - m')): the factor that rescales sums following `max`
    term,           // proportional to exp2(-k m') (or to nothing, when `max` is -1)
    scaledCarried,  // carried value `value` times the factor of `max`
    tileSum,        // a sum over the dim of terms following `max` (or of plain ones)
    newSum,         // the next value of sum `value`, following `max` (or none)
  } tag = plain;
  int value = -1, max = -1;
  double k = 1;
  bool operator==(const Role&) const = default;
};

class FoldAnalysis {
 public:
  FoldAnalysis(IterateOp loop, std::string& why) : loop_(loop), dim_(loop.getDim()), why_(why) {}

  FailureOr<SmallVector<CarriedFold>> run();

 private:
  // Fails with the reason, at `op`.
  FailureOr<Role> unknown(Operation* op, const Twine& what) {
    why_ = (op->getName().getStringRef() + ": " + what).str();
    return failure();
  }
  Role roleOf(Value v) const {
    auto it = roles_.find(v);
    return it == roles_.end() ? Role() : it->second;
  }
  FailureOr<Role> visit(Operation* op);
  FailureOr<Role> visitReduction(Operation* op, bool isMax);
  FailureOr<Role> visitMma(MmaOp op);
  FailureOr<Role> visitBinary(Operation* op);
  // A carried value in role `tag` (its fold's kind) must be so everywhere it is used.
  bool uses(int value, FoldKind kind);

  IterateOp loop_;
  StringRef dim_;
  std::string& why_;
  DenseMap<Value, Role> roles_;
  DenseMap<int, FoldKind> usedAs_;
};

bool FoldAnalysis::uses(int value, FoldKind kind) {
  auto [it, inserted] = usedAs_.try_emplace(value, kind);
  return inserted || it->second == kind;
}

FailureOr<Role> FoldAnalysis::visitReduction(Operation* op, bool isMax) {
  Role in = roleOf(op->getOperand(0));
  Role init = op->getNumOperands() > 1 ? roleOf(op->getOperand(1)) : Role();
  const bool hasInit = op->getNumOperands() > 1;
  if (op->getAttrOfType<StringAttr>("dim").getValue() != dim_) {
    if (in.tag == Role::plain && init.tag == Role::plain) return Role();
    return unknown(op, "a reduction over another dim of a value a fold computes");
  }
  if (isMax) {
    if (in.tag != Role::plain) return unknown(op, "a maximum of values a fold computes");
    if (!hasInit) return Role{.tag = Role::tileMax};
    if (init.tag == Role::carried && uses(init.value, FoldKind::max))
      return Role{.tag = Role::newMax, .value = init.value};
    return unknown(op, "a maximum whose init is not a carried value");
  }
  if (in.tag != Role::plain && in.tag != Role::term) return unknown(op, "a sum of values that are not its terms");
  const int max = in.tag == Role::term ? in.max : -1;
  const double k = in.tag == Role::term ? in.k : 1;
  if (!hasInit) return Role{.tag = Role::tileSum, .max = max, .k = k};
  if (max < 0 && init.tag == Role::carried && uses(init.value, FoldKind::sum))
    return Role{.tag = Role::newSum, .value = init.value};
  if (max >= 0 && init.tag == Role::scaledCarried && init.max == max && init.k == k)
    return Role{.tag = Role::newSum, .value = init.value, .max = max, .k = k};
  return unknown(op, "a sum whose init is not its carried value rescaled as its terms are");
}

FailureOr<Role> FoldAnalysis::visitMma(MmaOp op) {
  Role lhs = roleOf(op.getLhs()), rhs = roleOf(op.getRhs()), acc = roleOf(op.getAcc());
  // The contraction dim: in both operands, not in the accumulator.
  auto accDims = cast<TensorType>(op.getAcc().getType()).getDimNames();
  auto rhsDims = cast<TensorType>(op.getRhs().getType()).getDimNames();
  bool contractsDim = false;
  for (StringRef d : cast<TensorType>(op.getLhs().getType()).getDimNames())
    contractsDim |= d == dim_ && llvm::is_contained(rhsDims, d) && !llvm::is_contained(accDims, d);
  if (!contractsDim) {
    if (lhs.tag == Role::plain && rhs.tag == Role::plain && acc.tag == Role::plain) return Role();
    return unknown(op, "an mma over another dim of values a fold computes");
  }
  // One operand may be terms following a max; the other must be plain.
  if ((lhs.tag != Role::plain && lhs.tag != Role::term) || (rhs.tag != Role::plain && rhs.tag != Role::term) ||
      (lhs.tag == Role::term && rhs.tag == Role::term))
    return unknown(op, "an mma whose operands are not one fold's terms and plain values");
  const Role in = lhs.tag == Role::term ? lhs : rhs;
  const int max = in.tag == Role::term ? in.max : -1;
  const double k = in.tag == Role::term ? in.k : 1;
  if (acc.tag == Role::plain) return Role{.tag = Role::tileSum, .max = max, .k = k};
  if (max < 0 && acc.tag == Role::carried && uses(acc.value, FoldKind::sum))
    return Role{.tag = Role::newSum, .value = acc.value};
  if (max >= 0 && acc.tag == Role::scaledCarried && acc.max == max && acc.k == k)
    return Role{.tag = Role::newSum, .value = acc.value, .max = max, .k = k};
  return unknown(op, "an mma whose accumulator is not its carried value rescaled as its terms are");
}

FailureOr<Role> FoldAnalysis::visitBinary(Operation* op) {
  Role a = roleOf(op->getOperand(0)), b = roleOf(op->getOperand(1));
  if (a.tag == Role::plain && b.tag == Role::plain) return Role();
  auto either = [&](Role::Tag x, Role::Tag y) -> std::optional<std::pair<Role, Role>> {
    if (a.tag == x && b.tag == y) return std::pair{a, b};
    if (a.tag == y && b.tag == x) return std::pair{b, a};
    return std::nullopt;
  };
  if (isa<MaximumOp>(op)) {
    // maximum(m, reduce_max x)
    if (auto p = either(Role::carried, Role::tileMax); p && uses(p->first.value, FoldKind::max))
      return Role{.tag = Role::newMax, .value = p->first.value};
  } else if (isa<SubOp>(op)) {
    if (b.tag == Role::newMax && a.tag == Role::plain) return Role{.tag = Role::shift, .max = b.value};
    if (b.tag == Role::newMax && a.tag == Role::carried && a.value == b.value && uses(a.value, FoldKind::max))
      return Role{.tag = Role::shiftCarried, .max = b.value};
  } else if (isa<MulOp>(op)) {
    // A shift times a constant scales its exponent; a term times a plain value stays one.
    for (auto [x, y] : {std::pair{a, op->getOperand(1)}, std::pair{b, op->getOperand(0)}}) {
      if (roleOf(y).tag != Role::plain) continue;
      if (x.tag == Role::shift || x.tag == Role::shiftCarried) {
        if (auto c = splatValue(y)) return Role{.tag = x.tag, .max = x.max, .k = x.k * *c};
      }
      if (x.tag == Role::term) return x;
    }
    if (auto p = either(Role::carried, Role::scale); p && uses(p->first.value, FoldKind::sum))
      return Role{.tag = Role::scaledCarried, .value = p->first.value, .max = p->second.max, .k = p->second.k};
  } else if (isa<AddOp>(op)) {
    // s + sum x, or s f + sum t
    if (auto p = either(Role::carried, Role::tileSum);
        p && p->second.max < 0 && uses(p->first.value, FoldKind::sum))
      return Role{.tag = Role::newSum, .value = p->first.value};
    if (auto p = either(Role::scaledCarried, Role::tileSum);
        p && p->second.max == p->first.max && p->second.k == p->first.k)
      return Role{.tag = Role::newSum, .value = p->first.value, .max = p->first.max, .k = p->first.k};
  }
  return unknown(op, "an elementwise op on values a fold computes, in no form of a fold");
}

FailureOr<Role> FoldAnalysis::visit(Operation* op) {
  const bool allPlain =
      llvm::all_of(op->getOperands(), [&](Value v) { return roleOf(v).tag == Role::plain; });
  if (op->getNumRegions() != 0) {
    if (allPlain && !op->walk([&](Operation* inner) {
                         if (isa<ReductionOpInterface, MmaOp>(inner)) return WalkResult::interrupt();
                         return WalkResult::advance();
                       }).wasInterrupted())
      return Role();
    return unknown(op, "a nested loop that reduces");
  }
  return TypeSwitch<Operation*, FailureOr<Role>>(op)
      .Case<ReduceMaxOp>([&](Operation* r) { return visitReduction(r, true); })
      .Case<ReduceSumOp>([&](Operation* r) { return visitReduction(r, false); })
      .Case<MmaOp>([&](MmaOp mma) { return visitMma(mma); })
      .Case<AddOp, SubOp, MulOp, MaximumOp>([&](Operation* b) { return visitBinary(b); })
      .Case<Exp2Op>([&](Exp2Op e) -> FailureOr<Role> {
        Role in = roleOf(e.getInput());
        if (in.tag == Role::plain) return Role();
        if (in.tag == Role::shift) return Role{.tag = Role::term, .max = in.max, .k = in.k};
        if (in.tag == Role::shiftCarried) return Role{.tag = Role::scale, .max = in.max, .k = in.k};
        return unknown(e, "an exponential of values a fold computes, in no form of a fold");
      })
      .Case<BroadcastOp, PermuteOp>([&](Operation* o) { return roleOf(o->getOperand(0)); })
      .Case<CastOp>([&](CastOp c) -> FailureOr<Role> {
        Role in = roleOf(c.getInput());
        // Terms stay terms in another float type.
        if (in.tag == Role::plain || (in.tag == Role::term && isa<FloatType>(cast<TensorType>(c.getType()).getElementType())))
          return in;
        return unknown(c, "a cast of values a fold computes");
      })
      .Default([&](Operation* o) -> FailureOr<Role> {
        if (allPlain) return Role();
        return unknown(o, "an op on values a fold computes, which no fold uses so");
      });
}

FailureOr<SmallVector<CarriedFold>> FoldAnalysis::run() {
  Block& body = loop_.getBody().front();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) roles_[arg] = Role{.tag = Role::carried, .value = int(i)};
  for (Operation& op : body.without_terminator()) {
    FailureOr<Role> role = visit(&op);
    if (failed(role)) return failure();
    for (Value r : op.getResults()) roles_[r] = *role;
  }
  SmallVector<CarriedFold> folds;
  for (auto [i, next] : llvm::enumerate(body.getTerminator()->getOperands())) {
    Role r = roleOf(next);
    if (r.tag == Role::newMax && r.value == int(i)) {
      folds.push_back({.kind = FoldKind::max});
    } else if (r.tag == Role::newSum && r.value == int(i)) {
      folds.push_back({.kind = FoldKind::sum, .rescaledBy = r.max, .log2Scale = r.k});
    } else {
      why_ = "carried value #" + std::to_string(i) + " is no running max or sum over " + dim_.str();
      return failure();
    }
  }
  // A rescaled sum follows a running max.
  for (const CarriedFold& f : folds)
    if (f.rescaledBy >= 0 && folds[f.rescaledBy].kind != FoldKind::max) {
      why_ = "a sum rescaled by a value that is no running max";
      return failure();
    }
  for (auto [i, f] : llvm::enumerate(folds))
    if (auto it = usedAs_.find(int(i)); it != usedAs_.end() && it->second != f.kind) {
      why_ = "carried value #" + std::to_string(i) + " is used both as a running max and as a sum";
      return failure();
    }
  return folds;
}

}  // namespace

FailureOr<SmallVector<CarriedFold>> carriedFolds(IterateOp loop, std::string& why) {
  return FoldAnalysis(loop, why).run();
}

}  // namespace wave::jit
