#include "import/ImportKernel.h"

#include "dialect/WaveDialect.h"
#include "import/ExprToAffine.h"

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

  Type elementType(DataType t) {
    switch (t) {
      case DataType::f16: return builder_.getF16Type();
      case DataType::bf16: return builder_.getBF16Type();
      case DataType::f32: return builder_.getF32Type();
      case DataType::f64: return builder_.getF64Type();
      case DataType::f8e4m3: return builder_.getType<Float8E4M3FNType>();
      case DataType::f8e5m2: return builder_.getType<Float8E5M2Type>();
      case DataType::i1:
      case DataType::i8:
      case DataType::i32:
      case DataType::i64: return builder_.getIntegerType(bit_width(t));
    }
    llvm_unreachable("every DataType has an MLIR type");
  }

  static SmallVector<StringRef> refs(const std::vector<std::string>& names) {
    return SmallVector<StringRef>(names.begin(), names.end());
  }

  Type tensorType(const graph::TensorType& t) {
    return dialect::TensorType::get(&ctx_, refs(t.dims), elementType(t.dtype));
  }

  // An address-space symbol set in `subs` is resolved here.
  Type memoryType(const graph::MemoryType& t) {
    std::string space = t.address_space;
    for (const Sub& s : options_.subs)
      if (s.is_address_space && s.symbol == space)
        space = s.value == static_cast<std::int64_t>(AddressSpace::shared) ? "shared" : "global";
    return dialect::MemoryType::get(&ctx_, refs(t.dims), elementType(t.dtype), space);
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
    return dialect::WorkgroupConstraintAttr::get(
        &ctx_, builder_.getStringAttr(c.dim), expr(c.tile, 0, "WorkgroupConstraint", toLoc(c.where)),
        c.workgroup_dim);
  }
  Attribute constraintAttr(const WaveConstraint& c) {
    return dialect::WaveConstraintAttr::get(&ctx_, builder_.getStringAttr(c.dim),
                                            expr(c.tile, 0, "WaveConstraint", toLoc(c.where)));
  }
  Attribute constraintAttr(const TilingConstraint& c) {
    return dialect::TilingConstraintAttr::get(&ctx_, builder_.getStringAttr(c.dim),
                                              expr(c.tile, 0, "TilingConstraint", toLoc(c.where)));
  }
  Attribute constraintAttr(const HardwareConstraint& c) {
    SmallVector<int64_t> waves(c.waves_per_block.begin(), c.waves_per_block.end());
    const bool derived = llvm::all_of(waves, [](int64_t w) { return w == 0; });
    dialect::MMAKindAttr mma;
    if (c.mma) mma = dialect::MMAKindAttr::get(&ctx_, mmaKind(*c.mma));
    SmallVector<NamedAttribute> shapes;
    for (const VectorShape& s : c.vector_shapes)
      shapes.push_back(builder_.getNamedAttr(s.dim.name, builder_.getI64IntegerAttr(s.size)));
    return dialect::HardwareConstraintAttr::get(
        &ctx_, c.threads_per_wave, derived ? ArrayRef<int64_t>() : ArrayRef<int64_t>(waves), mma,
        shapes.empty() ? DictionaryAttr() : builder_.getDictionaryAttr(shapes));
  }
  Attribute constraintAttr(const Assumption& c) {
    return dialect::AssumptionAttr::get(&ctx_, expr(c.predicate, 0, "Assumption", toLoc(c.where)));
  }

  static dialect::MMAKind mmaKind(MMA kind) {
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
    return dialect::IndexMappingAttr::get(&ctx_, m.iterators, mappingSide(m.inputs, m.iterators, node),
                                          mappingSide(m.outputs, m.iterators, node));
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
        Type elt = elementType(node.result_types[0].dtype);
        Attribute value = isa<FloatType>(elt)
                              ? Attribute(builder_.getFloatAttr(elt, node.fill))
                              : Attribute(builder_.getIntegerAttr(elt, static_cast<int64_t>(node.fill)));
        state.addAttribute("value", value);
        break;
      }
      case graph::OpKind::Read:
      case graph::OpKind::Write:
        if (node.mapping) state.addAttribute("mapping", mapping(*node.mapping, node));
        if (node.elements_per_thread)
          state.addAttribute("elements_per_thread", builder_.getI64IntegerAttr(node.elements_per_thread));
        break;
      case graph::OpKind::Mma:
        if (node.mma) state.addAttribute("kind", dialect::MMAKindAttr::get(&ctx_, mmaKind(*node.mma)));
        break;
      case graph::OpKind::Iterate:
      case graph::OpKind::ReduceMax:
      case graph::OpKind::ReduceSum:
      case graph::OpKind::SelfIndex:
        state.addAttribute("dim", builder_.getStringAttr(node.dim));
        break;
      case graph::OpKind::ApplyExpr:
        state.addAttribute("expr", expr(*node.expr, 1, "apply_expr", node.loc));
        break;
      default: break;
    }
  }

  void importBlock(const graph::Block& block) {
    for (const graph::Node& node : block.nodes) importNode(node);
  }

  void importNode(const graph::Node& node) {
    OperationState state(location(node.loc), std::string("wave.") + graph::op_name(node.kind));
    for (graph::ValueId id : node.operands) state.addOperands(lookup(id, node));
    for (const graph::TensorType& t : node.result_types) state.addTypes(tensorType(t));
    addAttributes(node, state);
    for (const graph::Block& body : node.regions) {
      Region* region = state.addRegion();
      Block* entry = new Block();
      region->push_back(entry);
      for (auto [id, type] : llvm::zip(body.args, body.arg_types))
        values_[id] = entry->addArgument(tensorType(type), location(node.loc));
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
