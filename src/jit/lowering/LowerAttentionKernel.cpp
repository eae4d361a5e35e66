//===- LowerAttentionKernel.cpp - two chained MMAs in one loop -> tensor cores ----===//
//
// A kernel whose loop over the keys (K2) computes scores = mma(q, k) over a head dim
// (K1), works on them elementwise and with reductions over K2 (an online softmax), and
// feeds the result to a second mma with v into a loop-carried accumulator over the query
// dim (M) and the value dim (N):
//
//   init registers
//   r... = iterate<K2>(init...) {
//     s = mma(read(k), read(q), zero)         # either operand order
//     ... elementwise, reduce_max/sum over K2, self_index, apply_expr, select, cast ...
//     o = mma(read(v), p, acc')               # p: [M, K2] in registers
//     yield ..., o
//   }
//   ... elementwise on the results ...
//   write(out_value, out)                     # [batch..., M, N]
//
// Each workgroup owns BLOCK_M queries of one batch element (leading dims with workgroup
// tile 1), each wave WAVE_M of them. Q's tile goes to shared memory once and into
// registers as MMA A operands; K and V tiles stream through two stages of shared memory
// by cp.async, the next tile in flight while one is used. Every value of the loop body
// lives in registers in the MMA accumulator's layout (RegisterTile below): the scores
// are computed as Q K^T, so a row of them belongs to one group of four lanes and a
// reduction over K2 is a reduction in the thread and two xor shuffles, and (as f16) they
// are the A operand of P V without leaving the thread. The shapes the user wrote (the
// seeds' K Q^T and V P with [N, M] accumulators) are matched by dim names, not by
// operand order.
//
//===----------------------------------------------------------------------===//

#include "lowering/LowerAttentionKernel.h"

#include "analysis/MMALayout.h"
#include "analysis/SizeFacts.h"
#include "analysis/ThreadLayout.h"
#include "lowering/CrossThreadReduction.h"
#include "lowering/ElementConversion.h"
#include "lowering/ExprToArith.h"
#include "lowering/KernelSignature.h"
#include "lowering/LoweringBuilder.h"
#include "lowering/MMAInstructions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

namespace wave::jit {
namespace {

using namespace mlir;

InFlightDiagnostic unsupported(Operation* op, const Twine& what) {
  return op->emitOpError("is not yet supported by the attention lowering: ") << what;
}

// The argument a read reads, looking through a shared tile wave-promote-shared staged it
// in (write(read(argument), tile); read(tile)); null if it reads something else.
dialect::ReadOp argumentRead(Value v) {
  auto read = v.getDefiningOp<dialect::ReadOp>();
  if (!read || read.getMapping()) return {};
  if (auto tile = read.getMemory().getDefiningOp<dialect::AllocateOp>()) {
    for (Operation* user : tile->getUsers())
      if (auto fill = dyn_cast<dialect::WriteOp>(user)) return argumentRead(fill.getValue());
    return {};
  }
  return isa<BlockArgument>(read.getMemory()) ? read : dialect::ReadOp();
}

SmallVector<StringRef> dimsOf(Type t) {
  if (auto tensor = dyn_cast<dialect::TensorType>(t)) return tensor.getDimNames();
  return cast<dialect::MemoryType>(t).getDimNames();
}

// The ops of an attention-shaped kernel and how its work is split.
struct AttentionKernel {
  dialect::IterateOp loop;
  dialect::MmaOp scores, output;  // the first mma (q with k) and the second (p with v)
  dialect::ReadOp q, k, v;        // the argument reads behind their operands
  dialect::WriteOp write;
  StringRef m, n, k1, k2;
  SmallVector<StringRef> batch;
  MMALayout mma;
  int64_t blockM = 0, waveM = 0, blockK2 = 0, waveK2 = 0, headDim = 0, valueDim = 0;
  llvm::StringMap<int64_t> gridAxis;
  // Where a causal mask hides every key past query + reach (see causalReach), and the
  // select that applies it.
  std::optional<int64_t> causalReach;
  dialect::SelectOp causalMask;
  // With keys split among waves: which carried value is the running max; the others are
  // rescaled by exp2(old max - new max) each step (an online softmax), so partial results
  // combine likewise.
  unsigned runningMax = 0;

  int64_t wavesM() const { return blockM / waveM; }
  // Waves that split each key tile among them (a wave constraint on K2), each running the
  // online softmax over its slices; their results are combined after the loop.
  int64_t wavesK2() const { return blockK2 / waveK2; }
  int64_t waves() const { return wavesM() * wavesK2(); }
  int64_t threads() const { return waves() * mma.lanes; }
  int64_t tilesM() const { return waveM / mma.m; }
};

// The value behind casts and broadcasts.
Value throughShapes(Value v) {
  while (Operation* def = v.getDefiningOp()) {
    if (!isa<dialect::CastOp, dialect::BroadcastOp>(def)) break;
    v = def->getOperand(0);
  }
  return v;
}

std::optional<double> constantOf(Value v) {
  auto reg = v.getDefiningOp<dialect::RegisterOp>();
  auto value = reg ? dyn_cast<FloatAttr>(reg.getValue()) : FloatAttr();
  return value ? std::optional(value.getValueAsDouble()) : std::nullopt;
}

// A causal mask: scores + select(apply_expr(k2_index - m_index, $0 <= c), t, f) with f a
// bias that takes a score out of the softmax (exp2 of it is 0) and t one that does not.
// Every key past query + c is then masked, so a workgroup's key tiles past its last query
// + c contribute nothing and its loop can end before them. Returns c (for `$0 < c`, c - 1).
std::optional<int64_t> causalReach(dialect::IterateOp loop, StringRef m, StringRef k2, dialect::SelectOp& applied) {
  std::optional<int64_t> reach;
  loop.getBody().walk([&](dialect::SelectOp select) {
    auto hidden = constantOf(select.getIfFalse()), shown = constantOf(select.getIfTrue());
    if (!hidden || !shown || *hidden > -1e4 || *shown < -1e3) return;
    if (!llvm::all_of(select->getUsers(), [](Operation* user) { return isa<dialect::AddOp>(user); })) return;
    auto mask = throughShapes(select.getCond()).getDefiningOp<dialect::ApplyExprOp>();
    if (!mask) return;
    dialect::ExprAttr expr = mask.getExpr();
    auto bound = dyn_cast<AffineConstantExpr>(expr.getMap().getResult(expr.getMap().getNumResults() - 1));
    if (!expr.isComparison() || !bound || !isa<AffineDimExpr>(expr.getMap().getResult(0)) ||
        (expr.getKind() != dialect::ExprKind::le && expr.getKind() != dialect::ExprKind::lt))
      return;
    auto difference = throughShapes(mask.getInput()).getDefiningOp<dialect::SubOp>();
    if (!difference) return;
    auto key = throughShapes(difference.getLhs()).getDefiningOp<dialect::SelfIndexOp>();
    auto query = throughShapes(difference.getRhs()).getDefiningOp<dialect::SelfIndexOp>();
    if (!key || !query || key.getDim() != k2 || query.getDim() != m) return;
    const int64_t c = bound.getValue() - (expr.getKind() == dialect::ExprKind::lt ? 1 : 0);
    if (reach) return;  // the first such mask bounds the loop; others stay computed
    reach = c;
    applied = select;
  });
  return reach;
}

// The carried value that is the loop's running max, where every other carried value is
// rescaled by exp2(old max - new max) before it takes the step's contribution (the
// online softmax): reduce_sum(.., init = x * e) or mma(.., acc = x * e), e = exp2(m - m').
FailureOr<unsigned> onlineSoftmaxMax(dialect::IterateOp loop) {
  Block& body = loop.getBody().front();
  Operation* yield = body.getTerminator();
  std::optional<unsigned> maxArg;
  for (auto [i, v] : llvm::enumerate(yield->getOperands()))
    if (auto max = v.getDefiningOp<dialect::ReduceMaxOp>(); max && max.getInit() == body.getArgument(i)) maxArg = i;
  auto fail = [&] {
    return loop.emitOpError("is not yet supported by the attention lowering: keys split among waves (a wave "
                            "constraint on ")
           << loop.getDim()
           << ") with loop-carried values that are not an online softmax (a running max from reduce_max, the others "
              "rescaled by exp2(old max - new max) each step)";
  };
  if (!maxArg) return fail();
  Value oldMax = body.getArgument(*maxArg), newMax = yield->getOperand(*maxArg);
  auto isRescale = [&](Value e) {
    auto exp = throughShapes(e).getDefiningOp<dialect::Exp2Op>();
    auto sub = exp ? exp.getInput().getDefiningOp<dialect::SubOp>() : dialect::SubOp();
    return sub && sub.getLhs() == oldMax && sub.getRhs() == newMax;
  };
  for (auto [i, v] : llvm::enumerate(yield->getOperands())) {
    if (i == *maxArg) continue;
    Value previous;
    if (auto sum = v.getDefiningOp<dialect::ReduceSumOp>()) previous = sum.getInit();
    if (auto mma = v.getDefiningOp<dialect::MmaOp>()) previous = mma.getAcc();
    auto mul = previous ? previous.getDefiningOp<dialect::MulOp>() : dialect::MulOp();
    if (!mul) return fail();
    Value arg = body.getArgument(i);
    if (!((mul.getLhs() == arg && isRescale(mul.getRhs())) || (mul.getRhs() == arg && isRescale(mul.getLhs()))))
      return fail();
  }
  return *maxArg;
}

FailureOr<AttentionKernel> matchAttention(func::FuncOp kernel) {
  AttentionKernel a;
  for (Operation& op : kernel.getBody().front().without_terminator()) {
    if (auto loop = dyn_cast<dialect::IterateOp>(op)) {
      if (a.loop) return unsupported(&op, "a second iterate in an attention kernel");
      a.loop = loop;
    } else if (auto write = dyn_cast<dialect::WriteOp>(op); write && !write.getMemory().getDefiningOp()) {
      if (a.write) return unsupported(&op, "a second write to an argument in an attention kernel");
      a.write = write;
    } else if (isa<dialect::MmaOp>(op)) {
      return unsupported(&op, "an mma outside the loop of an attention kernel");
    }
  }
  if (!a.loop || !a.write) return kernel.emitError("expected an iterate and a write in an attention kernel");
  SmallVector<dialect::MmaOp> mmas;
  a.loop.getBody().walk([&](dialect::MmaOp mma) { mmas.push_back(mma); });
  if (mmas.size() != 2)
    return unsupported(a.loop, "expected two mma in the loop of an attention kernel, but found ") << mmas.size();
  a.scores = mmas[0];
  a.output = mmas[1];
  a.k2 = a.loop.getDim();

  // The scores' operands are reads of q and k: q's memory lacks K2, k's has it.
  dialect::ReadOp lhs = argumentRead(a.scores.getLhs()), rhs = argumentRead(a.scores.getRhs());
  if (!lhs || !rhs) return unsupported(a.scores, "expected the first mma to multiply two reads of kernel arguments");
  const bool kFirst = llvm::is_contained(dimsOf(lhs.getMemory().getType()), a.k2);
  a.k = kFirst ? lhs : rhs;
  a.q = kFirst ? rhs : lhs;
  if (!llvm::is_contained(dimsOf(a.k.getMemory().getType()), a.k2) ||
      llvm::is_contained(dimsOf(a.q.getMemory().getType()), a.k2))
    return unsupported(a.scores, "expected one operand with the loop's dim ")
           << a.k2 << " (the keys) and one without it (the queries)";
  // The output's operands: a read of v and the probabilities in registers.
  dialect::ReadOp outLhs = argumentRead(a.output.getLhs()), outRhs = argumentRead(a.output.getRhs());
  if (!outLhs == !outRhs)
    return unsupported(a.output, "expected the second mma to multiply one read of a kernel argument (v) by a value "
                                 "computed in the loop");
  a.v = outLhs ? outLhs : outRhs;

  // Dims: batch dims are those q, k and v share; K1 the contraction of the scores; M the
  // query dim; N the value dim.
  SmallVector<StringRef> qDims = dimsOf(a.q.getMemory().getType()), kDims = dimsOf(a.k.getMemory().getType()),
                         vDims = dimsOf(a.v.getMemory().getType());
  for (StringRef d : qDims)
    if (llvm::is_contained(kDims, d) && llvm::is_contained(vDims, d)) a.batch.push_back(d);
  auto notBatch = [&](ArrayRef<StringRef> dims, StringRef except) {
    SmallVector<StringRef> rest;
    for (StringRef d : dims)
      if (!llvm::is_contained(a.batch, d) && d != except) rest.push_back(d);
    return rest;
  };
  SmallVector<StringRef> kRest = notBatch(kDims, a.k2), vRest = notBatch(vDims, a.k2);
  if (kRest.size() != 1)
    return unsupported(a.k, "expected k's memory to have the batch dims, ") << a.k2 << " and one head dim";
  a.k1 = kRest[0];
  SmallVector<StringRef> qRest = notBatch(qDims, a.k1);
  if (qRest.size() != 1 || !llvm::is_contained(qDims, a.k1))
    return a.scores.emitOpError("expected q and k to share the head dim ")
           << a.k1 << " and q to have one query dim besides the batch dims, but q has dims ["
           << llvm::join(qDims, ", ") << "] and k [" << llvm::join(kDims, ", ") << "]";
  a.m = qRest[0];
  if (vRest.size() != 1)
    return unsupported(a.v, "expected v's memory to have the batch dims, ") << a.k2 << " and one value dim";
  a.n = vRest[0];
  // Row-major tiles, the head dims innermost: the layouts ldmatrix reads (the [B, H, S, D]
  // layout of attention's tensors).
  if (qDims.back() != a.k1 || kDims.back() != a.k1 || vDims.back() != a.n)
    return unsupported(a.scores, "q, k and v whose innermost dim is not the head dim (")
           << a.k1 << " for q and k, " << a.n << " for v)";
  SmallVector<StringRef> outDims = dimsOf(a.write.getMemory().getType());
  SmallVector<StringRef> expectedOut(a.batch);
  expectedOut.append({a.m, a.n});
  if (outDims != expectedOut)
    return unsupported(a.write, "an output with dims [")
           << llvm::join(outDims, ", ") << "] (expected [" << llvm::join(expectedOut, ", ") << "])";

  // Kind and layout.
  std::optional<dialect::MMAKind> kind;
  auto constraints = kernel->getAttrOfType<ArrayAttr>("wave.constraints");
  for (dialect::MmaOp mma : mmas)
    if (auto k = mma.getKindAttr()) kind = k.getValue();
  for (Attribute c : constraints.getValue())
    if (auto hw = dyn_cast<dialect::HardwareConstraintAttr>(c); hw && hw.getMma() && !kind) kind = hw.getMma().getValue();
  if (!kind)
    return a.scores.emitOpError("expected an MMA kind (on the op or the hardware constraint), but found none");
  auto layout = getMMALayout(kernel.getContext(), *kind);
  if (failed(layout) || layout->accType != Float32Type::get(kernel.getContext()))
    return a.scores.emitOpError("expected an MMA kind with an NVIDIA instruction and f32 accumulators, but found ")
           << dialect::stringifyMMAKind(*kind);
  a.mma = *layout;
  for (dialect::ReadOp read : {a.q, a.k, a.v})
    if (read.getMemory().getType().getElementType() != a.mma.inputType)
      return read.emitOpError("expected ") << a.mma.inputType << " elements for " << dialect::stringifyMMAKind(*kind)
                                           << ", but found " << read.getMemory().getType().getElementType();

  // Tiles.
  for (Attribute c : constraints.getValue()) {
    LogicalResult ok = success();
    auto setTile = [&](StringRef dim, dialect::ExprAttr tile, StringRef what, int64_t& into) {
      auto v = tileSize(kernel, tile, dim, what);
      if (failed(v)) return failure();
      into = *v;
      return success();
    };
    if (auto wg = dyn_cast<dialect::WorkgroupConstraintAttr>(c)) {
      StringRef d = wg.getDim().getValue();
      a.gridAxis[d] = static_cast<int>(wg.getWorkgroupDim());
      int64_t batchTile = 0;
      ok = setTile(d, wg.getTile(), "workgroup", d == a.m ? a.blockM : batchTile);
      if (succeeded(ok) && d != a.m && batchTile != 1)
        return kernel.emitError("expected a workgroup tile of 1 for ")
               << d << " (only the query dim " << a.m << " is split into larger tiles), but found " << batchTile;
    } else if (auto w = dyn_cast<dialect::WaveConstraintAttr>(c); w && w.getDim().getValue() == a.m) {
      ok = setTile(a.m, w.getTile(), "wave", a.waveM);
    } else if (auto w = dyn_cast<dialect::WaveConstraintAttr>(c); w && w.getDim().getValue() == a.k2) {
      ok = setTile(a.k2, w.getTile(), "wave", a.waveK2);
    } else if (auto t = dyn_cast<dialect::TilingConstraintAttr>(c); t && t.getDim().getValue() == a.k2) {
      ok = setTile(a.k2, t.getTile(), "tiling", a.blockK2);
    }
    if (failed(ok)) return failure();
  }
  for (StringRef d : a.batch)
    if (!a.gridAxis.count(d)) return kernel.emitError("expected a workgroup constraint on batch dim ") << d;
  if (!a.blockM || !a.blockK2)
    return kernel.emitError("expected a workgroup constraint on ")
           << a.m << " and a tiling constraint on " << a.k2 << " in an attention kernel";
  if (!a.waveM) a.waveM = a.blockM;
  if (!a.waveK2) a.waveK2 = a.blockK2;
  for (auto [dim, size] : {std::pair{a.k1, &a.headDim}, std::pair{a.n, &a.valueDim}}) {
    auto s = staticSize(kernel, dim);
    if (!s)
      return kernel.emitError("expected a size for head dim ")
             << dim << " in subs (the registers of an attention kernel are sized by it), but found none";
    *size = *s;
  }
  auto multiple = [&](int64_t whole, int64_t part, StringRef what) -> LogicalResult {
    if (whole % part == 0 && whole > 0) return success();
    return kernel.emitError("expected ") << what << " (" << whole << ") to be a multiple of " << part
                                         << " in an attention kernel, but it is not";
  };
  if (failed(multiple(a.blockM, a.waveM, "the workgroup tile of " + a.m.str())) ||
      failed(multiple(a.waveM, a.mma.m, "the wave tile of " + a.m.str())) ||
      failed(multiple(a.blockK2, a.waveK2, "the tiling tile of " + a.k2.str())) ||
      failed(multiple(a.waveK2, 2 * a.mma.n, "the wave tile of " + a.k2.str())) ||
      failed(multiple(a.headDim, a.mma.k, "the size of " + a.k1.str())) ||
      failed(multiple(a.valueDim, 2 * a.mma.n, "the size of " + a.n.str())))
    return failure();
  if (a.threads() > 1024)
    return kernel.emitError("expected at most 1024 threads per workgroup, but the constraints make ") << a.threads();
  a.causalReach = causalReach(a.loop, a.m, a.k2, a.causalMask);
  if (a.wavesK2() > 1) {
    auto runningMax = onlineSoftmaxMax(a.loop);
    if (failed(runningMax)) return failure();
    a.runningMax = *runningMax;
  }
  return a;
}

// A value of the kernel body, held in registers in the MMA accumulator's layout: over
// the wave's queries (M, in MMA tiles of 16 rows) and over one column dim (K2 or N, in
// MMA tiles of 8), four elements per lane and tile (analysis/MMALayout's C map). A value
// without M or without columns keeps one element per distinct row or column slot of the
// lane, and is broadcast where it meets a larger one.
struct RegisterTile {
  Type element;
  bool rows = false;
  StringRef cols;  // K2, N, or empty
  SmallVector<Value> values;
};

class AttentionEmitter : LoweringBuilder {
 public:
  AttentionEmitter(func::FuncOp kernel, AttentionKernel a)
      : LoweringBuilder(kernel), kernel_(kernel), a_(std::move(a)) {}

  LogicalResult emit(gpu::GPUModuleOp module);

 private:
  // The accumulator layout's slots: which distinct row (col) of the lane element e is.
  void deriveSlots();
  int64_t colTiles(StringRef dim) const { return (dim == a_.k2 ? a_.waveK2 : a_.valueDim) / a_.mma.n; }
  int64_t slots(const RegisterTile& t) const {
    return (t.rows ? a_.tilesM() : 1) * (t.cols.empty() ? 1 : colTiles(t.cols)) *
           (t.rows && !t.cols.empty() ? 4
            : t.rows                  ? rowSlots_
            : !t.cols.empty()         ? colSlots_
                                      : 1);
  }
  int64_t slotIndex(const RegisterTile& t, int64_t i, int64_t j, int64_t e) const {
    if (!t.rows && t.cols.empty()) return 0;
    if (!t.cols.empty() && !t.rows) return j * colSlots_ + colSlot_[e];
    if (t.cols.empty()) return i * rowSlots_ + rowSlot_[e];
    return (i * colTiles(t.cols) + j) * 4 + e;
  }
  Value at(const RegisterTile& t, int64_t i, int64_t j, int64_t e) const { return t.values[slotIndex(t, i, j, e)]; }
  // The tile's shape from a wave tensor type (its batch dims are the workgroup's).
  FailureOr<RegisterTile> shapeOf(Operation* op, Type type);
  // `fn` over the elements of `operands`, broadcast to the union of their dims.
  FailureOr<RegisterTile> zip(Operation* op, Type resultType, ArrayRef<RegisterTile> operands,
                              function_ref<Value(ArrayRef<Value>)> fn);
  // `t` with an element for every slot of `type`'s shape.
  FailureOr<RegisterTile> expand(Operation* op, const RegisterTile& t, Type type);

  LogicalResult evaluate(Operation* op);
  // One scf.for over key tiles [lower, upper) continuing the carried values `inits`; with
  // `unmasked`, its tiles are known whole and visible, and the masks fold away.
  FailureOr<SmallVector<Value>> emitKeyLoop(Value lower, Value upper, ValueRange inits,
                                            ArrayRef<RegisterTile> carriedShapes, bool unmasked);
  // Whether `op` is `self_index(K2) < K2`: true on key tiles inside K2.
  bool isKeyBoundsMask(dialect::ApplyExprOp op) const;
  Value scalarOp(Operation* op, ArrayRef<Value> x, Type resultElement);
  Value convert(Value x, Type to);
  FailureOr<RegisterTile> reduce(Operation* op);
  FailureOr<RegisterTile> selfIndex(dialect::SelfIndexOp op);
  FailureOr<RegisterTile> scoresMma(dialect::MmaOp op);
  // A full tile as MMA accumulator registers, one vector per (row tile, column tile); and back.
  SmallVector<Value> accumulators(const RegisterTile& t);
  RegisterTile fromAccumulators(ArrayRef<Value> accs, StringRef cols);
  // Two B operands (column tiles j and j + 1) by one ldmatrix.x4 at (row, col) of `shared`,
  // each multiplied with every row tile's A operand into `accs` ([row tile][column tile]).
  void multiplyPair(Value shared, Value row, Value col, bool transpose, ArrayRef<Value> aOperands,
                    MutableArrayRef<Value> accs, int64_t tilesN, int64_t j);
  // The A operand of Q for this wave's row tile i and head-dim step kk, from shared memory.
  Value queryFragment(int64_t i, int64_t kk);
  FailureOr<RegisterTile> outputMma(dialect::MmaOp op);
  void writeOutput(const RegisterTile& t);
  // Carried tiles as the flat values of a loop's iter_args, and back into tiles of `shapes`.
  static SmallVector<Value> flatten(ArrayRef<RegisterTile> tiles) {
    SmallVector<Value> values;
    for (const RegisterTile& t : tiles) llvm::append_range(values, t.values);
    return values;
  }
  static SmallVector<RegisterTile> unflatten(ArrayRef<RegisterTile> shapes, ValueRange values) {
    SmallVector<RegisterTile> tiles(shapes.begin(), shapes.end());
    unsigned next = 0;
    for (RegisterTile& t : tiles)
      for (Value& v : t.values) v = values[next++];
    return tiles;
  }
  // The key-split waves' carried values combined (each wave ends with all of them).
  FailureOr<SmallVector<RegisterTile>> combineKeyWaves(ArrayRef<RegisterTile> carried);
  Value exp2(Value x) {
    return LLVM::CallIntrinsicOp::create(b_, loc_, x.getType(), b_.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"),
                                         ValueRange{x})
        .getResult(0);
  }

  // Shared memory: a tile of rows of `read`'s memory along `rowDim` (rows from
  // `rowStart`), the whole innermost dim, by cp.async in 16-byte pieces, zero past the
  // tensor's rows.
  void copyRows(dialect::ReadOp read, Value shared, Value stage, StringRef rowDim, Value rowStart, int64_t rows);
  // The copies issued since the last group, as one group; returns its token.
  Value commitCopies() {
    Value group =
        nvgpu::DeviceAsyncCreateGroupOp::create(b_, loc_, nvgpu::DeviceAsyncTokenType::get(b_.getContext()), copyTokens_);
    copyTokens_.clear();
    return group;
  }
  // K's and V's key tile `kTile` into `stage`, as one group of copies.
  Value copyKeyTile(Value stage, Value kTile) {
    Value k0 = arith::MulIOp::create(b_, loc_, kTile, index(a_.blockK2));
    copyRows(a_.k, kShared_, stage, a_.k2, k0, a_.blockK2);
    copyRows(a_.v, vShared_, stage, a_.k2, k0, a_.blockK2);
    return commitCopies();
  }
  MemRefType sharedType(int64_t stages, int64_t rows, int64_t cols);

  func::FuncOp kernel_;
  AttentionKernel a_;
  gpu::GPUFuncOp func_;
  llvm::DenseMap<Value, RegisterTile> tiles_;
  SmallVector<int64_t, 4> rowSlot_, colSlot_;
  int64_t rowSlots_ = 0, colSlots_ = 0;
  SmallVector<int64_t, 4> rowSlotElement_;  // an element of each row slot
  int64_t rowLanes_ = 0;                                      // lanes sharing a row
  SmallVector<std::pair<int64_t, int64_t>, 8> aFromC_;        // A element -> (C tile, C element)
  Value tid_, lane_, waveRow_, waveKey_, stage_, firstKV_;
  bool unmasked_ = false;  // in the loop over tiles the masks do not touch
  // Float arithmetic may contract into FMAs (the scaled score minus the running max).
  arith::FastMathFlagsAttr contract_ = arith::FastMathFlagsAttr::get(b_.getContext(), arith::FastMathFlags::contract);
  Value dynamicShared_, qShared_, kShared_, vShared_;
  int64_t sharedBytes_ = 0;  // of dynamicShared_, as allocated so far
  Value writer_;  // whether this thread writes the output (the first of key-split waves)
  SmallVector<Value> qFragments_;  // [K1 / 16], where kept in registers
  SmallVector<Value> copyTokens_;
  llvm::StringMap<Value> sizes_, start_;  // per dim: its size; the workgroup's first index
};

// Evaluates `map` (lane, element) -> (row, col) at constants.
std::pair<int64_t, int64_t> evaluateAt(AffineMap map, int64_t lane, int64_t element) {
  MLIRContext* ctx = map.getContext();
  AffineMap at = map.replaceDimsAndSymbols(
      {getAffineConstantExpr(lane, ctx), getAffineConstantExpr(element, ctx)}, {}, 0, 0);
  return {cast<AffineConstantExpr>(at.getResult(0)).getValue(), cast<AffineConstantExpr>(at.getResult(1)).getValue()};
}

void AttentionEmitter::deriveSlots() {
  const MMAOperandLayout& c = a_.mma.c;
  const int64_t n = c.elementsPerLane(), lanes = a_.mma.lanes;
  auto sameFor = [&](int64_t e, int64_t f, int which) {
    for (int64_t l = 0; l < lanes; ++l) {
      auto x = evaluateAt(c.map, l, e), y = evaluateAt(c.map, l, f);
      if ((which == 0 ? x.first != y.first : x.second != y.second)) return false;
    }
    return true;
  };
  auto group = [&](int which, SmallVector<int64_t, 4>& slotOf, SmallVector<int64_t, 4>& element, int64_t& count) {
    for (int64_t e = 0; e < n; ++e) {
      int64_t s = 0;
      while (s < count && !sameFor(element[s], e, which)) ++s;
      if (s == count) {
        element.push_back(e);
        ++count;
      }
      slotOf.push_back(s);
    }
  };
  group(0, rowSlot_, rowSlotElement_, rowSlots_);
  SmallVector<int64_t, 4> colSlotElement;
  group(1, colSlot_, colSlotElement, colSlots_);
  // Lanes that differ only in low bits which leave every row in place share their rows.
  rowLanes_ = 1;
  while (rowLanes_ < lanes && llvm::all_of(llvm::seq<int64_t>(0, lanes), [&](int64_t l) {
           return evaluateAt(c.map, l, 0).first == evaluateAt(c.map, l ^ rowLanes_, 0).first;
         }))
    rowLanes_ *= 2;
  // The A operand of the second MMA from the first's accumulators: which accumulator tile
  // (of the two 8-column tiles a 16-deep A covers) and element each A element is.
  const MMAOperandLayout& aLayout = a_.mma.a;
  for (int64_t e = 0; e < aLayout.elementsPerLane(); ++e) {
    std::pair<int64_t, int64_t> found{-1, -1};
    for (int64_t tile = 0; tile < a_.mma.k / a_.mma.n && found.first < 0; ++tile)
      for (int64_t f = 0; f < n && found.first < 0; ++f)
        if (llvm::all_of(llvm::seq<int64_t>(0, lanes), [&](int64_t l) {
              auto x = evaluateAt(aLayout.map, l, e), y = evaluateAt(c.map, l, f);
              return x.first == y.first && x.second == y.second + tile * a_.mma.n;
            }))
          found = {tile, f};
    aFromC_.push_back(found);
  }
}

FailureOr<RegisterTile> AttentionEmitter::shapeOf(Operation* op, Type type) {
  RegisterTile t;
  auto tensor = cast<dialect::TensorType>(type);
  t.element = tensor.getElementType();
  for (StringRef d : tensor.getDimNames()) {
    if (llvm::is_contained(a_.batch, d)) continue;
    if (d == a_.m) {
      t.rows = true;
    } else if ((d == a_.k2 || d == a_.n) && t.cols.empty()) {
      t.cols = d;
    } else {
      return unsupported(op, "a value over [")
             << llvm::join(tensor.getDimNames(), ", ") << "] in registers (expected the batch dims, " << a_.m
             << " and one of " << a_.k2 << " or " << a_.n << ")";
    }
  }
  return t;
}

FailureOr<RegisterTile> AttentionEmitter::zip(Operation* op, Type resultType, ArrayRef<RegisterTile> operands,
                                              function_ref<Value(ArrayRef<Value>)> fn) {
  auto result = shapeOf(op, resultType);
  if (failed(result)) return failure();
  for (const RegisterTile& t : operands) {
    result->rows |= t.rows;
    if (result->cols.empty()) result->cols = t.cols;
    if (!t.cols.empty() && t.cols != result->cols)
      return unsupported(op, "operands over different column dims (") << t.cols << ", " << result->cols << ")";
  }
  result->values.assign(slots(*result), Value());
  for (int64_t i = 0; i < (result->rows ? a_.tilesM() : 1); ++i)
    for (int64_t j = 0; j < (result->cols.empty() ? 1 : colTiles(result->cols)); ++j)
      for (int64_t e = 0; e < a_.mma.c.elementsPerLane(); ++e) {
        Value& slot = result->values[slotIndex(*result, i, j, e)];
        if (slot) continue;
        SmallVector<Value> x;
        for (const RegisterTile& t : operands) x.push_back(at(t, i, j, e));
        slot = fn(x);
      }
  return result;
}

FailureOr<RegisterTile> AttentionEmitter::expand(Operation* op, const RegisterTile& t, Type type) {
  auto shape = shapeOf(op, type);
  if (failed(shape)) return failure();
  if (shape->rows == t.rows && shape->cols == t.cols) return t;
  RegisterTile wide = t;
  wide.rows = shape->rows;
  wide.cols = shape->cols;
  wide.values.assign(slots(wide), Value());
  for (int64_t i = 0; i < (wide.rows ? a_.tilesM() : 1); ++i)
    for (int64_t j = 0; j < (wide.cols.empty() ? 1 : colTiles(wide.cols)); ++j)
      for (int64_t e = 0; e < a_.mma.c.elementsPerLane(); ++e)
        wide.values[slotIndex(wide, i, j, e)] = at(t, i, j, e);
  return wide;
}

Value AttentionEmitter::convert(Value x, Type to) {
  Type from = x.getType();
  if (from == to) return x;
  IntegerAttr known;
  if (to.isInteger(1) && matchPattern(x, m_Constant(&known)))
    return arith::ConstantOp::create(b_, loc_, b_.getBoolAttr(!known.getValue().isZero()));
  return convertElements(b_, loc_, x, to);
}

// One element of an elementwise op. Masks known to hold fold here: a select on a constant
// condition is its choice, and a bias of zero added is no addition (up to the sign of a
// zero result, which exp2 does not see).
Value AttentionEmitter::scalarOp(Operation* op, ArrayRef<Value> x, Type resultElement) {
  BoolAttr cond;
  if (isa<dialect::SelectOp>(op) && matchPattern(x[0], m_Constant(&cond))) return cond.getValue() ? x[1] : x[2];
  if (isa<dialect::AddOp>(op)) {
    FloatAttr zero;
    for (int i : {0, 1})
      if (matchPattern(x[i], m_Constant(&zero)) && zero.getValue().isZero()) return x[1 - i];
  }
  const bool isFloat = isa<FloatType>(x[0].getType());
  auto floatOrInt = [&](auto makeFloat, auto makeInt) -> Value {
    return isFloat ? makeFloat().getResult() : makeInt().getResult();
  };
  return llvm::TypeSwitch<Operation*, Value>(op)
      .Case([&](dialect::AddOp) {
        return floatOrInt([&] { return arith::AddFOp::create(b_, loc_, x[0], x[1], contract_); },
                          [&] { return arith::AddIOp::create(b_, loc_, x[0], x[1]); });
      })
      .Case([&](dialect::SubOp) {
        return floatOrInt([&] { return arith::SubFOp::create(b_, loc_, x[0], x[1], contract_); },
                          [&] { return arith::SubIOp::create(b_, loc_, x[0], x[1]); });
      })
      .Case([&](dialect::MulOp) {
        return floatOrInt([&] { return arith::MulFOp::create(b_, loc_, x[0], x[1], contract_); },
                          [&] { return arith::MulIOp::create(b_, loc_, x[0], x[1]); });
      })
      .Case([&](dialect::DivOp) {
        return floatOrInt([&] { return arith::DivFOp::create(b_, loc_, x[0], x[1]); },
                          [&] { return arith::DivSIOp::create(b_, loc_, x[0], x[1]); });
      })
      .Case([&](dialect::MaximumOp) {
        return floatOrInt([&] { return arith::MaximumFOp::create(b_, loc_, x[0], x[1]); },
                          [&] { return arith::MaxSIOp::create(b_, loc_, x[0], x[1]); });
      })
      .Case([&](dialect::MinimumOp) {
        return floatOrInt([&] { return arith::MinimumFOp::create(b_, loc_, x[0], x[1]); },
                          [&] { return arith::MinSIOp::create(b_, loc_, x[0], x[1]); });
      })
      .Case([&](dialect::NegOp) {
        return floatOrInt([&] { return arith::NegFOp::create(b_, loc_, x[0]); },
                          [&] {
                            Value zero = arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(x[0].getType(), 0));
                            return arith::SubIOp::create(b_, loc_, zero, x[0]);
                          });
      })
      .Case([&](dialect::AbsOp) {
        return floatOrInt([&] { return math::AbsFOp::create(b_, loc_, x[0]); },
                          [&] { return math::AbsIOp::create(b_, loc_, x[0]); });
      })
      .Case([&](dialect::Exp2Op) {
        // The softmax's exponentials: ex2.approx.ftz (a result below the smallest normal
        // f32 is a probability of 0 either way); other widths through math.exp2.
        if (!x[0].getType().isF32()) return math::Exp2Op::create(b_, loc_, x[0]).getResult();
        return exp2(x[0]);
      })
      .Case([&](dialect::Log2Op) { return math::Log2Op::create(b_, loc_, x[0]).getResult(); })
      .Case([&](dialect::SqrtOp) { return math::SqrtOp::create(b_, loc_, x[0]).getResult(); })
      .Case([&](dialect::RsqrtOp) { return math::RsqrtOp::create(b_, loc_, x[0]).getResult(); })
      .Case([&](dialect::TanhOp) { return math::TanhOp::create(b_, loc_, x[0]).getResult(); })
      .Case([&](dialect::ReciprocalOp) {
        Value one = arith::ConstantOp::create(b_, loc_, b_.getFloatAttr(x[0].getType(), 1.0));
        return arith::DivFOp::create(b_, loc_, one, x[0]).getResult();
      })
      .Case([&](dialect::SelectOp) { return arith::SelectOp::create(b_, loc_, x[0], x[1], x[2]).getResult(); })
      .Case([&](dialect::CastOp) { return convert(x[0], resultElement); })
      .Default([](Operation*) { return Value(); });
}

FailureOr<RegisterTile> AttentionEmitter::reduce(Operation* op) {
  const ReductionKind kind = isa<dialect::ReduceMaxOp>(op) ? ReductionKind::max : ReductionKind::sum;
  StringRef dim = op->getAttrOfType<StringAttr>("dim").getValue();
  auto input = expand(op, tiles_.lookup(op->getOperand(0)), op->getOperand(0).getType());
  if (failed(input)) return failure();
  if (dim != input->cols || !input->rows)
    return unsupported(op, "a reduction over ") << dim << " of a value over " << a_.m << " and " << input->cols
                                                << " (expected one over the columns, " << a_.k2 << " or " << a_.n
                                                << ", of a value over the queries)";
  auto result = shapeOf(op, op->getResult(0).getType());
  if (failed(result)) return failure();
  result->values.assign(slots(*result), Value());
  for (int64_t i = 0; i < a_.tilesM(); ++i)
    for (int64_t s = 0; s < rowSlots_; ++s) {
      // In the thread, then across the lanes that share the row.
      Value acc;
      for (int64_t j = 0; j < colTiles(dim); ++j)
        for (int64_t e = 0; e < a_.mma.c.elementsPerLane(); ++e)
          if (rowSlot_[e] == s) acc = acc ? combine(b_, loc_, kind, acc, at(*input, i, j, e)) : at(*input, i, j, e);
      acc = reduceAcrossLanes(b_, loc_, kind, acc, rowLanes_, a_.mma.lanes);
      if (op->getNumOperands() > 1)
        acc = combine(b_, loc_, kind, acc, at(tiles_.lookup(op->getOperand(1)), i, 0, rowSlotElement_[s]));
      result->values[slotIndex(*result, i, 0, rowSlotElement_[s])] = acc;
    }
  return result;
}

FailureOr<RegisterTile> AttentionEmitter::selfIndex(dialect::SelfIndexOp op) {
  auto result = shapeOf(op, op.getResult().getType());
  if (failed(result)) return failure();
  Type element = result->element;
  StringRef dim = op.getDim();
  auto toElement = [&](Value index) { return arith::IndexCastOp::create(b_, loc_, element, index).getResult(); };
  if (llvm::is_contained(a_.batch, dim)) {
    result->values = {toElement(start_.lookup(dim))};
    return result;
  }
  if (dim != a_.m && dim != a_.k2 && dim != a_.n)
    return unsupported(op, "the index of ") << dim << ", which values in registers do not have";
  result->values.assign(slots(*result), Value());
  AffineExpr lane = getAffineDimExpr(0, b_.getContext()), base = getAffineDimExpr(1, b_.getContext());
  const MMAOperandLayout& c = a_.mma.c;
  for (int64_t i = 0; i < (result->rows ? a_.tilesM() : 1); ++i)
    for (int64_t j = 0; j < (result->cols.empty() ? 1 : colTiles(result->cols)); ++j)
      for (int64_t e = 0; e < c.elementsPerLane(); ++e) {
        Value& slot = result->values[slotIndex(*result, i, j, e)];
        if (slot) continue;
        AffineMap map = c.map.replaceDimsAndSymbols({lane, getAffineConstantExpr(e, b_.getContext())}, {}, 2, 0);
        if (dim == a_.m)
          slot = toElement(apply(map.getResult(0) + base + i * a_.mma.m,
                                 {lane_, arith::AddIOp::create(b_, loc_, start_.lookup(a_.m), waveRow_)}));
        else
          slot = toElement(apply(map.getResult(1) + base + j * a_.mma.n,
                                 {lane_, dim == a_.k2 ? arith::AddIOp::create(b_, loc_, start_.lookup(a_.k2), waveKey_).getResult()
                                                      : index(0)}));
      }
  return result;
}

Value AttentionEmitter::queryFragment(int64_t i, int64_t kk) {
  const MMAOperandLayout& al = a_.mma.a;
  AffineExpr base = getAffineDimExpr(1, b_.getContext());
  Value row = apply(al.ldmatrix.getResult(0) + base + i * a_.mma.m, {lane_, waveRow_});
  Value col = apply(al.ldmatrix.getResult(1) + kk * a_.mma.k, {lane_});
  return nvgpu::LdMatrixOp::create(b_, loc_, VectorType::get(al.registers, a_.mma.inputType), qShared_,
                                   ValueRange{index(0), row, col}, /*transpose=*/false,
                                   static_cast<uint32_t>(al.ldmatrixTiles));
}

SmallVector<Value> AttentionEmitter::accumulators(const RegisterTile& t) {
  const MMAOperandLayout& c = a_.mma.c;
  auto accType = VectorType::get(c.registers, a_.mma.accType);
  SmallVector<Value> accs;
  for (int64_t i = 0; i < a_.tilesM(); ++i)
    for (int64_t j = 0; j < colTiles(t.cols); ++j) {
      SmallVector<Value> elements;
      for (int64_t e = 0; e < c.elementsPerLane(); ++e) elements.push_back(at(t, i, j, e));
      accs.push_back(vector::FromElementsOp::create(b_, loc_, accType, elements));
    }
  return accs;
}

RegisterTile AttentionEmitter::fromAccumulators(ArrayRef<Value> accs, StringRef cols) {
  const MMAOperandLayout& c = a_.mma.c;
  RegisterTile t{a_.mma.accType, true, cols, {}};
  for (Value acc : accs)
    for (int64_t e = 0; e < c.elementsPerLane(); ++e)
      t.values.push_back(vector::ExtractOp::create(b_, loc_, acc, ArrayRef<int64_t>{e / c.registers[1], e % c.registers[1]}));
  return t;
}

void AttentionEmitter::multiplyPair(Value shared, Value row, Value col, bool transpose, ArrayRef<Value> aOperands,
                                    MutableArrayRef<Value> accs, int64_t tilesN, int64_t j) {
  const MMAOperandLayout& bl = a_.mma.b;
  auto pairType = VectorType::get({2 * bl.ldmatrixTiles, bl.registers[1]}, a_.mma.inputType);
  Value loaded = nvgpu::LdMatrixOp::create(b_, loc_, pairType, shared, ValueRange{stage_, row, col}, transpose,
                                          static_cast<uint32_t>(2 * bl.ldmatrixTiles));
  for (int64_t half = 0; half < 2; ++half) {
    Value frag = vector::ExtractStridedSliceOp::create(b_, loc_, loaded, ArrayRef<int64_t>{half * bl.ldmatrixTiles, 0},
                                                       ArrayRef<int64_t>{bl.ldmatrixTiles, bl.registers[1]},
                                                       ArrayRef<int64_t>{1, 1});
    for (int64_t i = 0; i < a_.tilesM(); ++i) {
      Value& acc = accs[i * tilesN + j + half];
      acc = mmaSync(b_, loc_, a_.mma, aOperands[i], frag, acc);
    }
  }
}

// S = Q K^T for this wave's queries and the K tile in shared memory: Q's fragments are in
// registers; K's come two 8-key tiles at a time by ldmatrix.x4.
FailureOr<RegisterTile> AttentionEmitter::scoresMma(dialect::MmaOp op) {
  auto init = expand(op, tiles_.lookup(op.getAcc()), op.getAcc().getType());
  if (failed(init)) return failure();
  const int64_t tilesN = colTiles(a_.k2);
  SmallVector<Value> accs = accumulators(*init);
  const MMAOperandLayout& bl = a_.mma.b;
  for (int64_t kk = 0; kk < a_.headDim / a_.mma.k; ++kk) {
    SmallVector<Value> q;
    for (int64_t i = 0; i < a_.tilesM(); ++i) q.push_back(qFragments_.empty() ? queryFragment(i, kk) : qFragments_[kk]);
    for (int64_t j = 0; j < tilesN; j += 2) {
      Value row = apply(bl.ldmatrixPair.getResult(0) + getAffineDimExpr(1, b_.getContext()) + j * a_.mma.n,
                        {lane_, waveKey_});
      Value col = apply(bl.ldmatrixPair.getResult(1) + kk * a_.mma.k, lane_);
      multiplyPair(kShared_, row, col, /*transpose=*/false, q, accs, tilesN, j);
    }
  }
  return fromAccumulators(accs, a_.k2);
}

// O += P V: P (the probabilities, in the first MMA's accumulator layout) is the A operand
// as it stands; V's tile is [K2][N] in shared memory, so its B operands come by
// transposing ldmatrix, two 8-column tiles at a time.
FailureOr<RegisterTile> AttentionEmitter::outputMma(dialect::MmaOp op) {
  Value pValue = argumentRead(op.getLhs()) ? op.getRhs() : op.getLhs();
  auto p = expand(op, tiles_.lookup(pValue), pValue.getType());
  auto acc = expand(op, tiles_.lookup(op.getAcc()), op.getAcc().getType());
  if (failed(p) || failed(acc)) return failure();
  if (!p->rows || p->cols != a_.k2 || p->element != a_.mma.inputType)
    return unsupported(op, "expected the probabilities over ")
           << a_.m << " and " << a_.k2 << " of " << a_.mma.inputType << " as an operand";
  if (!acc->rows || acc->cols != a_.n) return unsupported(op, "expected an accumulator over ") << a_.m << " and " << a_.n;
  for (auto [tile, element] : aFromC_)
    if (tile < 0)
      return unsupported(op, "an operand layout that needs an exchange between lanes (the A operand's elements are "
                             "not those of the accumulator)");
  const MMAOperandLayout& al = a_.mma.a;
  auto aType = VectorType::get(al.registers, a_.mma.inputType);
  const int64_t tilesN = colTiles(a_.n);
  SmallVector<Value> accs = accumulators(*acc);
  MLIRContext* ctx = b_.getContext();
  AffineExpr lane = getAffineDimExpr(0, ctx);
  // ldmatrix.x4.trans: lanes 8q..8q+7 address the rows (keys) of matrix q, which holds
  // keys (q % 2) * 8.. and columns (q / 2) * 8..; transposed, matrices 0-1 are the two
  // registers of one B operand, 2-3 those of the next 8 columns.
  AffineExpr transRow = lane % 8 + lane.floorDiv(8) % 2 * 8, transCol = lane.floorDiv(16) * 8;
  const int64_t perK = a_.mma.k / a_.mma.n;  // accumulator tiles per A operand
  for (int64_t kk = 0; kk < a_.waveK2 / a_.mma.k; ++kk) {
    SmallVector<Value> aOperands;
    for (int64_t i = 0; i < a_.tilesM(); ++i) {
      SmallVector<Value> elements;
      for (auto [tile, element] : aFromC_) elements.push_back(at(*p, i, kk * perK + tile, element));
      aOperands.push_back(vector::FromElementsOp::create(b_, loc_, aType, elements));
    }
    for (int64_t j = 0; j < tilesN; j += 2) {
      Value row = apply(transRow + getAffineDimExpr(1, ctx) + kk * a_.mma.k, {lane_, waveKey_});
      Value col = apply(transCol + j * a_.mma.n, lane_);
      multiplyPair(vShared_, row, col, /*transpose=*/true, aOperands, accs, tilesN, j);
    }
  }
  return fromAccumulators(accs, a_.n);
}

LogicalResult AttentionEmitter::evaluate(Operation* op) {
  auto set = [&](FailureOr<RegisterTile> t) -> LogicalResult {
    if (failed(t)) return failure();
    tiles_[op->getResult(0)] = std::move(*t);
    return success();
  };
  // Reads and the staging of q, k and v: the MMAs read their operands themselves.
  if (isa<dialect::ReadOp>(op) && (argumentRead(op->getResult(0)))) return success();
  if (auto write = dyn_cast<dialect::WriteOp>(op); write && write.getMemory().getDefiningOp<dialect::AllocateOp>())
    return success();
  if (isa<dialect::AllocateOp>(op)) return success();
  if (auto reg = dyn_cast<dialect::RegisterOp>(op)) {
    auto t = shapeOf(op, reg.getResult().getType());
    if (failed(t)) return failure();
    Value c = arith::ConstantOp::create(b_, loc_, cast<TypedAttr>(reg.getValue()));
    RegisterTile scalar{t->element, false, {}, {c}};
    return set(scalar);
  }
  if (auto mma = dyn_cast<dialect::MmaOp>(op)) return set(mma == a_.scores ? scoresMma(mma) : outputMma(mma));
  if (isa<dialect::ReduceMaxOp, dialect::ReduceSumOp>(op)) return set(reduce(op));
  if (auto index = dyn_cast<dialect::SelfIndexOp>(op)) return set(selfIndex(index));
  if (isa<dialect::PermuteOp, dialect::BroadcastOp>(op)) {
    // Registers are addressed by dim names: order is free, and broadcasting is implicit.
    tiles_[op->getResult(0)] = tiles_.lookup(op->getOperand(0));
    return success();
  }
  if (unmasked_ && op == a_.causalMask.getOperation()) {
    tiles_[op->getResult(0)] = tiles_.lookup(a_.causalMask.getIfTrue());
    return success();
  }
  if (auto applyExpr = dyn_cast<dialect::ApplyExprOp>(op); applyExpr && unmasked_ && isKeyBoundsMask(applyExpr)) {
    auto t = shapeOf(op, applyExpr.getResult().getType());
    if (failed(t)) return failure();
    return set(RegisterTile{t->element, false, {}, {arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(t->element, 1))}});
  }
  if (auto applyExpr = dyn_cast<dialect::ApplyExprOp>(op)) {
    const RegisterTile& input = tiles_.lookup(applyExpr.getInput());
    SmallVector<Value> symbols;
    for (StringAttr s : applyExpr.getExpr().getSymbols()) {
      auto size = dimSize(b_, kernel_, func_, s.getValue());
      if (failed(size)) return failure();
      symbols.push_back(arith::IndexCastOp::create(b_, loc_, input.element, *size));
    }
    return set(zip(op, op->getResult(0).getType(), {input},
                   [&](ArrayRef<Value> x) { return buildExpr(b_, loc_, applyExpr.getExpr(), x[0], symbols); }));
  }
  SmallVector<RegisterTile> operands;
  for (Value v : op->getOperands()) {
    auto it = tiles_.find(v);
    if (it == tiles_.end())
      return unsupported(op, "an operand the attention lowering does not hold in registers");
    operands.push_back(it->second);
  }
  if (op->getNumResults() != 1 || operands.empty()) return unsupported(op, "this op in an attention kernel");
  Type resultType = op->getResult(0).getType();
  Type element = cast<dialect::TensorType>(resultType).getElementType();
  // scalarOp's cases are the elementwise ops held in registers; it gives no value for others.
  auto result = zip(op, resultType, operands, [&](ArrayRef<Value> x) { return scalarOp(op, x, element); });
  if (succeeded(result) && !result->values.front()) return unsupported(op, "this op in an attention kernel");
  return set(result);
}

MemRefType AttentionEmitter::sharedType(int64_t stages, int64_t rows, int64_t cols) {
  // Rows padded by 16 bytes: ldmatrix's eight row addresses fall in different banks.
  const int64_t pad = 128 / a_.mma.inputType.getIntOrFloatBitWidth();
  return MemRefType::get({stages, rows, cols + pad}, a_.mma.inputType, AffineMap(),
                         gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup));
}

void AttentionEmitter::copyRows(dialect::ReadOp read, Value shared, Value stage, StringRef rowDim, Value rowStart,
                                int64_t rows) {
  dialect::MemoryType type = read.getMemory().getType();
  Value memref = func_.getArgument(cast<BlockArgument>(read.getMemory()).getArgNumber());
  const int64_t vec = 128 / a_.mma.inputType.getIntOrFloatBitWidth();
  const int64_t cols = read == a_.v ? a_.valueDim : a_.headDim;
  const int64_t perRow = cols / vec, chunks = rows * perRow, threads = a_.threads();
  AffineExpr c = getAffineDimExpr(0, b_.getContext());
  for (int64_t step = 0; step * threads < chunks; ++step) {
    Value chunk = add(tid_, step * threads);
    auto body = [&] {
      Value row = apply(c.floorDiv(perRow), chunk), col = apply(c % perRow * vec, chunk);
      Value at = arith::AddIOp::create(b_, loc_, rowStart, row);
      Value inside = lessThan(at, sizes_.lookup(rowDim));
      Value valid = arith::SelectOp::create(b_, loc_, inside, index(vec), index(0));
      SmallVector<Value> indices;
      for (StringRef d : type.getDimNames())
        indices.push_back(d == rowDim ? arith::SelectOp::create(b_, loc_, inside, at, index(0)).getResult()
                          : d == type.getDimNames().back() ? col
                                                           : start_.lookup(d));
      copyTokens_.push_back(nvgpu::DeviceAsyncCopyOp::create(
          b_, loc_, nvgpu::DeviceAsyncTokenType::get(b_.getContext()), shared, ValueRange{stage, row, col}, memref,
          indices, b_.getIndexAttr(vec), valid, b_.getUnitAttr()));
    };
    if ((step + 1) * threads > chunks)
      ifThen(lessThan(chunk, index(chunks)), body);
    else
      body();
  }
}

// The output's elements, two adjacent columns at a time, on the rows inside M.
void AttentionEmitter::writeOutput(const RegisterTile& t) {
  dialect::MemoryType type = a_.write.getMemory().getType();
  Value memref = func_.getArgument(cast<BlockArgument>(a_.write.getMemory()).getArgNumber());
  Type out = type.getElementType();
  const MMAOperandLayout& c = a_.mma.c;
  MLIRContext* ctx = b_.getContext();
  AffineExpr lane = getAffineDimExpr(0, ctx), base = getAffineDimExpr(1, ctx);
  const int64_t pair = c.registers[1];
  auto pairType = VectorType::get({pair}, out);
  Value rowBase0 = arith::AddIOp::create(b_, loc_, start_.lookup(a_.m), waveRow_);
  const bool wholeRows = isKnownMultiple(kernel_, a_.m, a_.blockM);
  for (int64_t i = 0; i < a_.tilesM(); ++i)
    for (int64_t j = 0; j < colTiles(a_.n); ++j)
      for (int64_t r = 0; r < c.registers[0]; ++r) {
        AffineMap map = c.map.replaceDimsAndSymbols({lane, getAffineConstantExpr(r * pair, ctx)}, {}, 2, 0);
        Value row = apply(map.getResult(0) + base + i * a_.mma.m, {lane_, rowBase0});
        Value col = apply(map.getResult(1) + j * a_.mma.n, {lane_});
        SmallVector<Value> elements;
        for (int64_t e = 0; e < pair; ++e) elements.push_back(convert(at(t, i, j, r * pair + e), out));
        Value v = vector::FromElementsOp::create(b_, loc_, pairType, elements);
        SmallVector<Value> indices;
        for (StringRef d : type.getDimNames())
          indices.push_back(d == a_.m ? row : d == a_.n ? col : start_.lookup(d));
        auto store = [&] {
          vector::StoreOp::create(b_, loc_, v, memref, indices, /*nontemporal=*/false,
                                  llvm::Align(pair * out.getIntOrFloatBitWidth() / 8));
        };
        Value cond = wholeRows ? Value() : lessThan(row, sizes_.lookup(a_.m));
        if (writer_) cond = cond ? both(cond, writer_) : writer_;
        if (cond)
          ifThen(cond, store);
        else
          store();
      }
}

LogicalResult AttentionEmitter::emit(gpu::GPUModuleOp module) {
  deriveSlots();
  func_ = createKernelFunc(b_, kernel_, module, a_.threads());
  // Shared memory: Q's tile, then two stages each of K's and V's.
  MemRefType qType = sharedType(1, a_.blockM, a_.headDim), kType = sharedType(2, a_.blockK2, a_.headDim),
             vType = sharedType(2, a_.blockK2, a_.valueDim);
  const int64_t elementBytes = a_.mma.inputType.getIntOrFloatBitWidth() / 8;
  const int64_t qBytes = qType.getNumElements() * elementBytes, kBytes = kType.getNumElements() * elementBytes;
  const int64_t vBytes = vType.getNumElements() * elementBytes;
  auto workgroup = gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup);
  dynamicShared_ = gpu::DynamicSharedMemoryOp::create(
      b_, loc_, MemRefType::get({ShapedType::kDynamic}, b_.getI8Type(), AffineMap(), workgroup));
  qShared_ = memref::ViewOp::create(b_, loc_, qType, dynamicShared_, index(0), ValueRange{});
  kShared_ = memref::ViewOp::create(b_, loc_, kType, dynamicShared_, index(qBytes), ValueRange{});
  vShared_ = memref::ViewOp::create(b_, loc_, vType, dynamicShared_, index(qBytes + kBytes), ValueRange{});
  sharedBytes_ = qBytes + kBytes + vBytes;

  // The launch: batch dims and M over the grid.
  SmallVector<LaunchDim> launch;
  for (StringRef d : a_.batch) launch.push_back({d, 1, 1, a_.gridAxis.lookup(d)});
  launch.push_back({a_.m, a_.blockM, a_.waveM, a_.gridAxis.lookup(a_.m)});
  setLaunchShape(b_, kernel_, func_,
                 launchLayout(b_.getContext(), launch, a_.mma.lanes, a_.mma.c.elementsPerLane(),
                              a_.tilesM() * colTiles(a_.n)));
  for (StringRef d : {a_.m, a_.k2}) {
    auto size = dimSize(b_, kernel_, func_, d);
    if (failed(size)) return failure();
    sizes_[d] = *size;
  }
  const gpu::Dimension axes[] = {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
  for (StringRef d : a_.batch) start_[d] = gpu::BlockIdOp::create(b_, loc_, axes[a_.gridAxis.lookup(d)]);
  {
    const gpu::Dimension axis = axes[a_.gridAxis.lookup(a_.m)];
    Value tile = gpu::BlockIdOp::create(b_, loc_, axis);
    // Under a causal mask later query tiles see more keys: they go first, so the last
    // workgroups to run are short ones.
    if (a_.causalReach)
      tile = arith::SubIOp::create(b_, loc_, add(gpu::GridDimOp::create(b_, loc_, axis), -1), tile);
    start_[a_.m] = arith::MulIOp::create(b_, loc_, tile, index(a_.blockM));
  }
  tid_ = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
  AffineExpr t = getAffineDimExpr(0, b_.getContext());
  lane_ = apply(t % a_.mma.lanes, tid_);
  waveRow_ = apply(t.floorDiv(a_.mma.lanes) % a_.wavesM() * a_.waveM, tid_);
  waveKey_ = apply(t.floorDiv(a_.mma.lanes).floorDiv(a_.wavesM()) * a_.waveK2, tid_);

  // Before the loop: Q's tile and the first K and V tiles in flight; Q into registers.
  copyRows(a_.q, qShared_, index(0), a_.m, start_[a_.m], a_.blockM);
  Value qGroup = commitCopies();
  firstKV_ = copyKeyTile(index(0), index(0));
  nvgpu::DeviceAsyncWaitOp::create(b_, loc_, qGroup, b_.getI32IntegerAttr(1));
  // A wave of one MMA row tile keeps Q's fragments in registers across the loop; larger
  // wave tiles would run out of registers, and read them from shared memory per step.
  if (a_.tilesM() == 1)
    for (int64_t kk = 0; kk < a_.headDim / a_.mma.k; ++kk) qFragments_.push_back(queryFragment(0, kk));

  // Values computed before the loop (its initial values).
  Block& top = kernel_.getBody().front();
  for (Operation& op : top.without_terminator()) {
    if (&op == a_.loop.getOperation()) break;
    if (failed(evaluate(&op))) return failure();
  }
  // The loop: carried values flattened into the scf.for's iter_args.
  SmallVector<RegisterTile> carriedShapes;
  for (auto [init, arg] : llvm::zip(a_.loop.getIterArgs(), a_.loop.getBody().front().getArguments())) {
    auto wide = expand(a_.loop, tiles_.lookup(init), arg.getType());
    if (failed(wide)) return failure();
    carriedShapes.push_back(*wide);
  }
  const SmallVector<Value> inits = flatten(carriedShapes);
  // Key tiles: up to the last one a query of this workgroup sees; those before `safe`
  // are whole and wholly visible to every query of the workgroup, and go through a loop
  // without the masks.
  MLIRContext* ctx = b_.getContext();
  AffineExpr m0 = getAffineDimExpr(0, ctx), zero = getAffineConstantExpr(0, ctx);
  Value kTiles = apply(t.ceilDiv(a_.blockK2), sizes_[a_.k2]);
  Value safe = apply(t.floorDiv(a_.blockK2), sizes_[a_.k2]);
  if (a_.causalReach) {
    const int64_t reach = *a_.causalReach;
    Value reachTiles = affine::AffineMaxOp::create(
        b_, loc_, AffineMap::get(1, 0, {(m0 + a_.blockM + reach).ceilDiv(a_.blockK2), zero}, ctx),
        ValueRange{start_[a_.m]});
    Value visibleTiles = affine::AffineMaxOp::create(
        b_, loc_, AffineMap::get(1, 0, {(m0 + reach + 1).floorDiv(a_.blockK2), zero}, ctx), ValueRange{start_[a_.m]});
    kTiles = arith::MinSIOp::create(b_, loc_, kTiles, reachTiles);
    safe = arith::MinSIOp::create(b_, loc_, safe, visibleTiles);
  }
  safe = arith::MinSIOp::create(b_, loc_, safe, kTiles);
  const bool wholeKeyTiles = isKnownMultiple(kernel_, a_.k2, a_.blockK2);
  auto results = emitKeyLoop(index(0), wholeKeyTiles && !a_.causalReach ? kTiles : safe, inits, carriedShapes,
                             /*unmasked=*/true);
  if (failed(results)) return failure();
  if (!wholeKeyTiles || a_.causalReach) {
    results = emitKeyLoop(safe, kTiles, *results, carriedShapes, /*unmasked=*/false);
    if (failed(results)) return failure();
  }
  SmallVector<RegisterTile> carried = unflatten(carriedShapes, *results);
  if (a_.wavesK2() > 1) {
    auto combined = combineKeyWaves(carried);
    if (failed(combined)) return failure();
    carried = *combined;
    writer_ = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, waveKey_, index(0));
  }
  for (auto [result, tile] : llvm::zip(a_.loop.getResults(), carried)) tiles_[result] = tile;
  // After the loop, up to the write.
  for (Operation* op = a_.loop->getNextNode(); op && op != top.getTerminator(); op = op->getNextNode()) {
    if (op == a_.write.getOperation()) {
      auto out = expand(op, tiles_.lookup(a_.write.getValue()), a_.write.getValue().getType());
      if (failed(out)) return failure();
      if (!out->rows || out->cols != a_.n)
        return unsupported(op, "an output over other dims than ") << a_.m << " and " << a_.n;
      writeOutput(*out);
      continue;
    }
    if (failed(evaluate(op))) return failure();
  }
  func_->setAttr("wave.shared_memory_bytes", b_.getI64IntegerAttr(sharedBytes_));
  gpu::ReturnOp::create(b_, loc_);
  return success();
}

bool AttentionEmitter::isKeyBoundsMask(dialect::ApplyExprOp op) const {
  auto index = op.getInput().getDefiningOp<dialect::SelfIndexOp>();
  dialect::ExprAttr expr = op.getExpr();
  if (!index || index.getDim() != a_.k2 || expr.getKind() != dialect::ExprKind::lt || expr.getSymbols().size() != 1 ||
      expr.getSymbols()[0].getValue() != a_.k2)
    return false;
  AffineMap map = expr.getMap();
  return map.getResult(0) == getAffineDimExpr(0, map.getContext()) &&
         map.getResult(1) == getAffineSymbolExpr(0, map.getContext());
}

FailureOr<SmallVector<Value>> AttentionEmitter::emitKeyLoop(Value lower, Value upper, ValueRange inits,
                                                            ArrayRef<RegisterTile> carriedShapes, bool unmasked) {
  unmasked_ = unmasked;
  AffineExpr t = getAffineDimExpr(0, b_.getContext());
  auto loop = scf::ForOp::create(b_, loc_, lower, upper, index(1), inits);
  OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToStart(loop.getBody());
  Value kTile = loop.getInductionVar();
  stage_ = apply(t % 2, kTile);
  start_[a_.k2] = arith::MulIOp::create(b_, loc_, kTile, index(a_.blockK2));
  // This K tile's copies land; the next tile's go in flight into the other stage (past
  // the last tile they read nothing and fill zeros). wave-insert-barriers adds the
  // barrier between the landing and the reads, and before the refill.
  nvgpu::DeviceAsyncWaitOp::create(b_, loc_, firstKV_, b_.getI32IntegerAttr(0));
  copyKeyTile(apply((t + 1) % 2, kTile), add(kTile, 1));
  Block& body = a_.loop.getBody().front();
  for (auto [arg, tile] : llvm::zip(body.getArguments(), unflatten(carriedShapes, loop.getRegionIterArgs())))
    tiles_[arg] = tile;
  for (Operation& op : body.without_terminator())
    if (failed(evaluate(&op))) return failure();
  SmallVector<RegisterTile> yielded;
  for (auto [value, arg] : llvm::zip(body.getTerminator()->getOperands(), body.getArguments())) {
    auto wide = expand(body.getTerminator(), tiles_.lookup(value), arg.getType());
    if (failed(wide)) return failure();
    yielded.push_back(*wide);
  }
  scf::YieldOp::create(b_, loc_, flatten(yielded));
  unmasked_ = false;
  return SmallVector<Value>(loop.getResults());
}

FailureOr<SmallVector<RegisterTile>> AttentionEmitter::combineKeyWaves(ArrayRef<RegisterTile> carried) {
  // A workgroup buffer after the tiles, [wave][value][lane] f32: every wave stores its
  // values, then reads those of the waves that share its queries.
  const SmallVector<Value> mine = flatten(carried);
  const int64_t perLane = mine.size();
  auto exchangeType = MemRefType::get({a_.waves(), perLane, a_.mma.lanes}, b_.getF32Type(), AffineMap(),
                                      gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup));
  Value exchange = memref::ViewOp::create(b_, loc_, exchangeType, dynamicShared_, index(sharedBytes_), ValueRange{});
  sharedBytes_ += exchangeType.getNumElements() * 4;
  Value wave = apply(getAffineDimExpr(0, b_.getContext()).floorDiv(a_.mma.lanes), tid_);
  Value waveM = apply(getAffineDimExpr(0, b_.getContext()).floorDiv(a_.mma.lanes) % a_.wavesM(), tid_);
  for (int64_t v = 0; v < perLane; ++v)
    memref::StoreOp::create(b_, loc_, mine[v], exchange, ValueRange{wave, index(v), lane_});
  SmallVector<SmallVector<RegisterTile>> partials;
  for (int64_t k = 0; k < a_.wavesK2(); ++k) {
    Value other = add(waveM, k * a_.wavesM());
    SmallVector<Value> theirs;
    for (int64_t v = 0; v < perLane; ++v)
      theirs.push_back(memref::LoadOp::create(b_, loc_, exchange, ValueRange{other, index(v), lane_}));
    partials.push_back(unflatten(carried, theirs));
  }
  // The overall max, each partial's scale exp2(its max - the max), and the scaled sums.
  Operation* at = a_.loop;
  const unsigned m = a_.runningMax;
  Type maxType = a_.loop.getResult(m).getType();
  RegisterTile top = partials[0][m];
  for (int64_t k = 1; k < a_.wavesK2(); ++k) {
    auto next = zip(at, maxType, {top, partials[k][m]},
                    [&](ArrayRef<Value> x) { return arith::MaximumFOp::create(b_, loc_, x[0], x[1]).getResult(); });
    if (failed(next)) return failure();
    top = *next;
  }
  SmallVector<RegisterTile> result(carried.begin(), carried.end());
  result[m] = top;
  for (unsigned i = 0; i < carried.size(); ++i) {
    if (i == m) continue;
    Type type = a_.loop.getResult(i).getType();
    std::optional<RegisterTile> total;
    for (int64_t k = 0; k < a_.wavesK2(); ++k) {
      auto scaled = zip(at, type, {partials[k][i], partials[k][m], top}, [&](ArrayRef<Value> x) {
        Value scale = exp2(arith::SubFOp::create(b_, loc_, x[1], x[2], contract_));
        return arith::MulFOp::create(b_, loc_, x[0], scale, contract_).getResult();
      });
      if (failed(scaled)) return failure();
      if (!total) {
        total = *scaled;
        continue;
      }
      auto sum = zip(at, type, {*total, *scaled},
                     [&](ArrayRef<Value> x) { return arith::AddFOp::create(b_, loc_, x[0], x[1], contract_).getResult(); });
      if (failed(sum)) return failure();
      total = *sum;
    }
    result[i] = *total;
  }
  return result;
}

}  // namespace

bool isAttentionKernel(func::FuncOp kernel) {
  bool chained = false;
  kernel.walk([&](dialect::IterateOp loop) {
    int mmas = 0;
    loop.getBody().walk([&](dialect::MmaOp) { ++mmas; });
    chained |= mmas > 1;
  });
  return chained;
}

bool matchesAttentionShape(func::FuncOp kernel) {
  ScopedDiagnosticHandler quiet(kernel.getContext(), [](Diagnostic&) { return success(); });
  if (!isAttentionKernel(kernel)) return false;
  auto attention = matchAttention(kernel);
  if (failed(attention)) return false;
  // The emitter rejects some ops the matcher lets through: emit into a scratch module.
  OpBuilder b(kernel.getContext());
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(kernel.getLoc());
  b.setInsertionPointToEnd(scratch->getBody());
  auto module = gpu::GPUModuleOp::create(b, kernel.getLoc(), "scratch");
  return succeeded(AttentionEmitter(kernel, *attention).emit(module));
}

LogicalResult emitAttentionKernel(func::FuncOp kernel, gpu::GPUModuleOp module) {
  auto attention = matchAttention(kernel);
  if (failed(attention)) return failure();
  return AttentionEmitter(kernel, *attention).emit(module);
}

}  // namespace wave::jit
