#include "import/ImportKernel.h"

#include "dialect/WaveDialect.h"
#include "import/ExprToAffine.h"

#include <cmath>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "wave/error.hpp"

namespace wave::jit {
namespace {

using namespace mlir;

class KernelImporter {
 public:
  KernelImporter(MLIRContext& ctx, const graph::KernelGraph& kernel, const CompileOptions& options)
      : ctx_(ctx), builder_(&ctx), kernel_(kernel), options_(options) {}

  OwningOpRef<ModuleOp> run() {
    OwningOpRef<ModuleOp> module = ModuleOp::create(location(kernel_.loc));
    builder_.setInsertionPointToEnd(module->getBody());

    SmallVector<Type> argTypes;
    for (const graph::Argument& arg : kernel_.args) argTypes.push_back(memoryType(arg.type));
    auto func = func::FuncOp::create(builder_, location(kernel_.loc), kernel_.name,
                                              builder_.getFunctionType(argTypes, {}));
    func->setAttr("wave.constraints", constraints());
    if (DictionaryAttr subs = hyperparameters(); !subs.empty())
      func->setAttr("wave.hyperparameters", subs);

    Block* entry = func.addEntryBlock();
    for (auto [arg, value] : llvm::zip(kernel_.args, entry->getArguments())) values_[arg.id] = value;
    builder_.setInsertionPointToEnd(entry);
    importBlock(kernel_.body);
    func::ReturnOp::create(builder_, location(kernel_.loc));
    return module;
  }

 private:
  [[noreturn]] void fail(const std::string& op, const graph::SourceLoc& loc, const std::string& msg) {
    throw Error(kernel_.name, op, loc.file, loc.line, msg);
  }

  Location location(const graph::SourceLoc& loc) {
    return FileLineColLoc::get(&ctx_, loc.file, loc.line, loc.column);
  }

  // T::get, for parameters its verifier may reject (a hand-built graph is not checked
  // like a traced one): the verifier's message becomes a wave::Error at `loc`.
  template <class T, class... Params>
  T checked(const std::string& op, const graph::SourceLoc& loc, Params&&... params) {
    std::string message;
    ScopedDiagnosticHandler capture(&ctx_, [&](Diagnostic& d) {
      if (message.empty()) message = d.str();
      return success();
    });
    auto emit = [&] { return emitError(location(loc)); };
    // A function_ref and exact parameter types pick the generated getChecked, which
    // sees the storage class, over the generic template.
    T result = T::getChecked(llvm::function_ref<InFlightDiagnostic()>(emit), &ctx_, std::forward<Params>(params)...);
    if (!result) fail(op, loc, message);
    return result;
  }

  Type elementType(DataType t, const std::string& op, const graph::SourceLoc& loc) {
    switch (t) {
      case DataType::f16: return builder_.getF16Type();
      case DataType::bf16: return builder_.getBF16Type();
      case DataType::f32: return builder_.getF32Type();
      case DataType::f64: return builder_.getF64Type();
      case DataType::f8e4m3: return builder_.getType<Float8E4M3FNType>();
      case DataType::f8e5m2: return builder_.getType<Float8E5M2Type>();
      case DataType::f8e4m3fnuz: return builder_.getType<Float8E4M3FNUZType>();
      case DataType::f8e5m2fnuz: return builder_.getType<Float8E5M2FNUZType>();
      case DataType::i1:
      case DataType::i8:
      case DataType::i32:
      case DataType::i64: return builder_.getIntegerType(bit_width(t));
    }
    fail(op, loc, expected_found("a DataType", "the value " + std::to_string(static_cast<int>(t))));
  }

  SmallVector<StringAttr> symbols(const std::vector<std::string>& names) {
    SmallVector<StringAttr> out;
    for (const std::string& n : names) out.push_back(builder_.getStringAttr(n));
    return out;
  }

  Type tensorType(const graph::TensorType& t, const std::string& op, const graph::SourceLoc& loc) {
    return checked<dialect::TensorType>(op, loc, ArrayRef<StringAttr>(symbols(t.dims)), elementType(t.dtype, op, loc),
                                        dialect::LayoutAttr());
  }

  // An address-space symbol set in `subs` is resolved here.
  Type memoryType(const graph::MemoryType& t) {
    std::string space = t.address_space;
    for (const Sub& s : options_.subs)
      if (s.is_address_space && s.symbol == space)
        space = s.value == static_cast<std::int64_t>(AddressSpace::shared) ? "shared" : "global";
    return checked<dialect::MemoryType>("kernel argument", kernel_.loc, ArrayRef<StringAttr>(symbols(t.dims)),
                                        elementType(t.dtype, "kernel argument", kernel_.loc),
                                        builder_.getStringAttr(space));
  }

  dialect::ExprAttr expr(const Expr& e, unsigned variables, const std::string& op,
                         const graph::SourceLoc& loc) {
    std::string error;
    auto attr = exprToAttr(&ctx_, e, variables, error);
    if (failed(attr)) fail(op, loc, "expression '" + e.str() + "': " + error);
    return *attr;
  }

  static graph::SourceLoc toLoc(const std::source_location& where) {
    return {where.file_name(), where.line(), where.column()};
  }

  Attribute constraint(const Constraint& c) {
    return std::visit([&](const auto& v) -> Attribute { return constraintAttr(v); }, c);
  }
  Attribute constraintAttr(const WorkgroupConstraint& c) {
    return checked<dialect::WorkgroupConstraintAttr>(
        "WorkgroupConstraint", toLoc(c.where), builder_.getStringAttr(c.dim),
        expr(c.tile, 0, "WorkgroupConstraint", toLoc(c.where)), static_cast<int64_t>(c.workgroup_dim));
  }
  Attribute constraintAttr(const WaveConstraint& c) {
    return checked<dialect::WaveConstraintAttr>("WaveConstraint", toLoc(c.where), builder_.getStringAttr(c.dim),
                                                expr(c.tile, 0, "WaveConstraint", toLoc(c.where)));
  }
  Attribute constraintAttr(const TilingConstraint& c) {
    return checked<dialect::TilingConstraintAttr>("TilingConstraint", toLoc(c.where), builder_.getStringAttr(c.dim),
                                                  expr(c.tile, 0, "TilingConstraint", toLoc(c.where)));
  }
  Attribute constraintAttr(const DeviceConstraint& c) {
    return checked<dialect::DeviceConstraintAttr>("DeviceConstraint", toLoc(c.where), builder_.getStringAttr(c.dim),
                                                  expr(c.tile, 0, "DeviceConstraint", toLoc(c.where)));
  }
  Attribute constraintAttr(const HardwareConstraint& c) {
    SmallVector<int64_t> waves(c.waves_per_block.begin(), c.waves_per_block.end());
    const bool derived = llvm::all_of(waves, [](int64_t w) { return w == 0; });
    dialect::MMAKindAttr mma;
    if (c.mma) mma = dialect::MMAKindAttr::get(&ctx_, mmaKind(*c.mma, "HardwareConstraint", toLoc(c.where)));
    SmallVector<NamedAttribute> shapes;
    for (const VectorShape& s : c.vector_shapes)
      shapes.push_back(builder_.getNamedAttr(s.dim.name, builder_.getI64IntegerAttr(s.size)));
    return checked<dialect::HardwareConstraintAttr>(
        "HardwareConstraint", toLoc(c.where), threadsPerWave(c),
        derived ? ArrayRef<int64_t>() : ArrayRef<int64_t>(waves), mma,
        shapes.empty() ? DictionaryAttr() : builder_.getDictionaryAttr(shapes));
  }
  // A wave's threads: as written, else the MMA kind's, else the target's (an unknown
  // target is rejected before any compile; here it reads as NVIDIA's).
  int64_t threadsPerWave(const HardwareConstraint& c) const {
    if (c.threads_per_wave) return c.threads_per_wave;
    if (c.mma) return info(*c.mma).threads;
    const TargetInfo* target = find_target(options_.target);
    return target ? target->threads_per_wave : 32;
  }
  // The target's kind for an mma on `operands` that names none, unless the hardware
  // constraint gives the kernel's.
  std::optional<MMA> defaultMma(ValueRange operands) {
    const HardwareConstraint* hw = kernel_.constraints.hardware();
    const TargetInfo* target = find_target(options_.target);
    // (A hand-built graph's mma may lack operands or take other values: the verifier says so.)
    auto lhs = operands.empty() ? nullptr : dyn_cast<dialect::TensorType>(operands.front().getType());
    if ((hw && hw->mma) || !target || !lhs) return std::nullopt;
    Type element = lhs.getElementType();
    for (DataType dtype : {DataType::f16, DataType::bf16, DataType::f8e4m3, DataType::f8e5m2, DataType::f8e4m3fnuz,
                           DataType::f8e5m2fnuz, DataType::i8})
      if (element == elementType(dtype, "mma", {})) return default_mma(target->vendor, dtype);
    return std::nullopt;
  }
  Attribute constraintAttr(const Assumption& c) {
    return checked<dialect::AssumptionAttr>("Assumption", toLoc(c.where),
                                            expr(c.predicate, 0, "Assumption", toLoc(c.where)));
  }

  dialect::MMAKind mmaKind(MMA kind, const std::string& op, const graph::SourceLoc& loc) {
    if (static_cast<std::size_t>(kind) >= mma_kinds.size())
      fail(op, loc, expected_found("an MMA kind", "the value " + std::to_string(static_cast<int>(kind))));
    auto parsed = dialect::symbolizeMMAKind(std::string(info(kind).name));
    assert(parsed && "every front-end MMA kind has a dialect enumerator");
    return *parsed;
  }

  ArrayAttr constraints() {
    SmallVector<Attribute> attrs;
    for (const Constraint& c : kernel_.constraints) attrs.push_back(constraint(c));
    return builder_.getArrayAttr(attrs);
  }

  // Integer symbol values; address spaces went into the memory types.
  DictionaryAttr hyperparameters() {
    SmallVector<NamedAttribute> entries;
    for (const Sub& s : options_.subs)
      if (!s.is_address_space)
        entries.push_back(builder_.getNamedAttr(s.symbol, builder_.getI64IntegerAttr(s.value)));
    return builder_.getDictionaryAttr(entries);
  }

  DictionaryAttr mappingSide(const std::vector<DimExpr>& side, unsigned iterators,
                             const graph::Node& node) {
    SmallVector<NamedAttribute> entries;
    for (const DimExpr& e : side)
      entries.push_back(builder_.getNamedAttr(e.dim, expr(e.expr, iterators, graph::op_name(node.kind), node.loc)));
    return builder_.getDictionaryAttr(entries);
  }

  Attribute mapping(const Mapping& m, const graph::Node& node) {
    if (m.iterators < 0)
      fail(graph::op_name(node.kind), node.loc,
           "index mapping: " + expected_found("a count of iterators", std::to_string(m.iterators)));
    if (m.dynamic < 0)
      fail(graph::op_name(node.kind), node.loc,
           "index mapping: " + expected_found("a count of dynamic values", std::to_string(m.dynamic)));
    const unsigned variables = static_cast<unsigned>(m.iterators) + static_cast<unsigned>(m.dynamic);
    return checked<dialect::IndexMappingAttr>(graph::op_name(node.kind), node.loc, static_cast<unsigned>(m.iterators),
                                              mappingSide(m.inputs, variables, node),
                                              mappingSide(m.outputs, variables, node),
                                              static_cast<unsigned>(m.dynamic),
                                              m.out_of_bounds == OutOfBounds::zero);
  }

  Value lookup(graph::ValueId id, const graph::Node& node) {
    auto it = values_.find(id);
    if (it == values_.end())
      fail(graph::op_name(node.kind), node.loc, "operand %" + std::to_string(id) + " has no definition");
    return it->second;
  }

  // A node's attributes, under the names the dialect's ops declare.
  void addAttributes(const graph::Node& node, OperationState& state) {
    switch (node.kind) {
      case graph::OpKind::Register: {
        if (node.result_types.size() != 1)
          fail("register", node.loc, expected_found("one result", std::to_string(node.result_types.size())));
        Type elt = elementType(node.result_types[0].dtype, "register", node.loc);
        Attribute value;
        if (isa<FloatType>(elt)) {
          value = builder_.getFloatAttr(elt, node.fill);
        } else {
          // An integer fill must be a whole number the dtype holds (i1: 0 or 1).
          const unsigned width = elt.getIntOrFloatBitWidth();
          const APInt lo = width == 1 ? APInt(1, 0) : APInt::getSignedMinValue(width);
          const APInt hi = width == 1 ? APInt(1, 1) : APInt::getSignedMaxValue(width);
          const double bound = std::ldexp(1.0, width == 1 ? 1 : width - 1);  // hi + 1, exactly
          const bool fits = std::trunc(node.fill) == node.fill &&
                            (width == 1 ? node.fill >= 0 && node.fill <= 1 : node.fill >= -bound && node.fill < bound);
          if (!fits)
            fail("register", node.loc,
                 expected_found("a whole number in [" + std::to_string(width == 1 ? 0 : lo.getSExtValue()) + ", " +
                                    std::to_string(width == 1 ? 1 : hi.getSExtValue()) + "] to fill an i" +
                                    std::to_string(width),
                                std::to_string(node.fill)));
          value = builder_.getIntegerAttr(elt, APInt(width, static_cast<uint64_t>(static_cast<int64_t>(node.fill)),
                                                     /*isSigned=*/width > 1));
        }
        state.addAttribute("value", value);
        break;
      }
      case graph::OpKind::AtomicAdd:
      case graph::OpKind::AtomicMin:
      case graph::OpKind::AtomicMax:
      case graph::OpKind::WaitAtLeast:
      case graph::OpKind::Signal:
        if (std::optional<dialect::WriteCombine> combine = writeCombine(node.kind))
          state.addAttribute("combine", dialect::WriteCombineAttr::get(&ctx_, *combine));
        if (node.kind == graph::OpKind::WaitAtLeast) {
          state.addAttribute("wait_at_least", expr(node.expr.value_or(Expr(1)), 0, "wait_at_least", node.loc));
          if (node.take) state.addAttribute("take", builder_.getUnitAttr());
        }
        if (node.kind == graph::OpKind::Signal) state.addAttribute("release", builder_.getUnitAttr());
        [[fallthrough]];
      case graph::OpKind::Read:
      case graph::OpKind::Write:
        if (node.mapping) state.addAttribute("mapping", mapping(*node.mapping, node));
        if (node.elements_per_thread)
          state.addAttribute("elements_per_thread", builder_.getI64IntegerAttr(node.elements_per_thread));
        break;
      case graph::OpKind::Mma:
        if (std::optional<MMA> kind = node.mma ? node.mma : defaultMma(state.operands))
          state.addAttribute("kind", dialect::MMAKindAttr::get(&ctx_, mmaKind(*kind, "mma", node.loc)));
        break;
      case graph::OpKind::Iterate:
      case graph::OpKind::ReduceMax:
      case graph::OpKind::ReduceSum:
      case graph::OpKind::ReduceMin:
      case graph::OpKind::Cumsum:
      case graph::OpKind::Extract:
      case graph::OpKind::SelfIndex:
      case graph::OpKind::SetSymbol:
        state.addAttribute("dim", builder_.getStringAttr(node.dim));
        break;
      case graph::OpKind::ApplyExpr:
        if (!node.expr) fail("apply_expr", node.loc, expected_found("an expression", "none"));
        state.addAttribute("expr", expr(*node.expr, 1, "apply_expr", node.loc));
        break;
      case graph::OpKind::Shuffle:
        state.addAttribute("dim", builder_.getStringAttr(node.dim));
        state.addAttribute("mask", builder_.getI64IntegerAttr(node.limit));
        break;
      case graph::OpKind::ExtractSlice:
        state.addAttribute("dim", builder_.getStringAttr(node.dim));
        state.addAttribute("step", builder_.getI64IntegerAttr(node.limit));
        break;
      case graph::OpKind::SetWavePrio:
        state.addAttribute("priority", builder_.getI64IntegerAttr(node.limit));
        break;
      case graph::OpKind::Print:
        state.addAttribute("label", builder_.getStringAttr(node.label));
        state.addAttribute("limit", builder_.getI64IntegerAttr(node.limit));
        break;
      default: break;
    }
  }

  // How an atomic write combines with memory; none for other ops.
  static std::optional<dialect::WriteCombine> writeCombine(graph::OpKind kind) {
    switch (kind) {
      case graph::OpKind::AtomicAdd: return dialect::WriteCombine::add;
      case graph::OpKind::AtomicMin: return dialect::WriteCombine::min;
      case graph::OpKind::AtomicMax: return dialect::WriteCombine::max;
      default: return std::nullopt;
    }
  }

  void importBlock(const graph::Block& block) {
    for (const graph::Node& node : block.nodes) importNode(node);
  }

  void importNode(const graph::Node& node) {
    const std::string name = graph::op_name(node.kind);
    if (name == "?") fail(name, node.loc, expected_found("an op kind", "the value " + std::to_string(static_cast<int>(node.kind))));
    if (node.results.size() != node.result_types.size())
      fail(name, node.loc, expected_found(std::to_string(node.result_types.size()) + " result ids (one per result type)",
                                        std::to_string(node.results.size())));
    // atomic_add, atomic_min and atomic_max are writes that combine (their `combine`);
    // signal a write that releases, wait_at_least a read that waits.
    const bool writes = writeCombine(node.kind) || node.kind == graph::OpKind::Signal;
    OperationState state(location(node.loc), writes ? "wave.write"
                                             : node.kind == graph::OpKind::WaitAtLeast ? "wave.read"
                                                                                      : "wave." + name);
    for (graph::ValueId id : node.operands) state.addOperands(lookup(id, node));
    for (const graph::TensorType& t : node.result_types) state.addTypes(tensorType(t, name, node.loc));
    addAttributes(node, state);
    for (const graph::Block& body : node.regions) {
      Region* region = state.addRegion();
      Block* entry = new Block();
      region->push_back(entry);
      if (body.args.size() != body.arg_types.size())
        fail(name, node.loc, expected_found(std::to_string(body.arg_types.size()) + " block argument ids",
                                          std::to_string(body.args.size())));
      for (auto [id, type] : llvm::zip(body.args, body.arg_types))
        values_[id] = entry->addArgument(tensorType(type, name, node.loc), location(node.loc));
      OpBuilder::InsertionGuard guard(builder_);
      builder_.setInsertionPointToEnd(entry);
      importBlock(body);
    }
    Operation* op = builder_.create(state);
    for (auto [id, result] : llvm::zip(node.results, op->getResults())) values_[id] = result;
  }

  MLIRContext& ctx_;
  OpBuilder builder_;
  const graph::KernelGraph& kernel_;
  const CompileOptions& options_;
  llvm::DenseMap<graph::ValueId, Value> values_;
};

}  // namespace

OwningOpRef<ModuleOp> importKernel(MLIRContext& ctx, const graph::KernelGraph& kernel,
                                   const CompileOptions& options) {
  return KernelImporter(ctx, kernel, options).run();
}

OwningOpRef<ModuleOp> importVerified(MLIRContext& ctx, const graph::KernelGraph& kernel,
                                     const CompileOptions& options, const FirstError& first) {
  ctx.loadDialect<dialect::WaveDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = importKernel(ctx, kernel, options);
  if (failed(verify(*module))) throw first.error(kernel.name, "import", "the traced kernel does not verify");
  return module;
}

}  // namespace wave::jit
