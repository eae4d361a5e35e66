//===- LowerMMAKernel.cpp - GEMM-shaped wave kernels -> tensor cores -------===//
//
// A kernel of the form (its operands staged through shared memory by wave-promote-shared)
//
//   acc = register(init); sa = allocate(...); sb = allocate(...)
//   r = iterate<K>(acc) {
//     write(read(a), sa); write(read(b), sb)
//     yield mma(read(sa), read(sb), acc)
//   }
//   write(r or cast(r), c)
//
// becomes a gpu.func in which each workgroup computes a BLOCK_M x BLOCK_N tile of c, each
// wave a WAVE_M x WAVE_N part of it as a grid of MMA tiles. Per K tile, the workgroup
// copies its A and B tiles into the shared tiles (16-byte pieces, zero-filled past the
// tensors' edges, rows padded as the allocation says), and (past the barriers
// wave-insert-barriers places) each wave loads its MMA fragments at the places the MMA
// layout table gives (analysis/MMALayout: ldmatrix where the tile is K-contiguous) and
// issues nvgpu.mma.sync. Where rows are whole 16-byte pieces, copies are asynchronous
// (cp.async) into two or three stages of each shared tile, later K tiles' copies in
// flight while one is multiplied. The tiles live in dynamic shared memory (its size goes
// to the runtime), so stages may take more than the 48 KiB of static shared memory.
// Leading dims of c that A and B share are batch dims, one per workgroup along their grid
// axis.
//
//===----------------------------------------------------------------------===//

#include "analysis/SizeFacts.h"
#include "analysis/MMALayout.h"
#include "analysis/ThreadLayout.h"
#include "lowering/KernelSignature.h"
#include "lowering/LowerMMAKernel.h"
#include "lowering/LoweringBuilder.h"
#include "lowering/MMAInstructions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace wave::jit {
namespace {

using namespace mlir;

// The ops of a GEMM-shaped kernel and how its work is split.
struct GemmKernel {
  dialect::RegisterOp init;
  dialect::IterateOp loop;
  dialect::ReadOp readA, readB;          // the operands' tiles, from global memory
  dialect::AllocateOp tileA, tileB;      // the shared tiles they are staged through
  dialect::WriteOp write;
  StringRef m, n, k;
  SmallVector<StringRef> batch;  // leading dims of the accumulator
  MMALayout mma;
  int64_t blockM = 0, blockN = 0, blockK = 0, waveM = 0, waveN = 0;
  llvm::StringMap<int64_t> gridAxis;  // dim -> workgroup axis

  int64_t wavesM() const { return blockM / waveM; }
  int64_t threads() const { return wavesM() * (blockN / waveN) * mma.lanes; }
  int64_t tilesM() const { return waveM / mma.m; }
  int64_t tilesN() const { return waveN / mma.n; }
  // The workgroup's tile extent along M, N or K.
  int64_t tileExtent(StringRef dim) const { return dim == m ? blockM : dim == n ? blockN : blockK; }
};

InFlightDiagnostic unsupported(Operation* op, const Twine& what) {
  return op->emitOpError("is not yet supported by the MMA lowering: ") << what;
}

// Recognizes the GEMM form and reads its tiles from the constraints.
FailureOr<GemmKernel> matchGemm(func::FuncOp kernel) {
  GemmKernel g;
  for (Operation& op : kernel.getBody().front().without_terminator()) {
    if (auto reg = dyn_cast<dialect::RegisterOp>(op); reg && !g.init)
      g.init = reg;
    else if (auto loop = dyn_cast<dialect::IterateOp>(op); loop && !g.loop)
      g.loop = loop;
    else if (auto write = dyn_cast<dialect::WriteOp>(op); write && !g.write)
      g.write = write;
    else if (!isa<dialect::CastOp, dialect::AllocateOp>(op))
      return unsupported(&op, "expected only allocate, register, iterate, cast and write around the MMA loop");
  }
  if (!g.init || !g.loop || !g.write)
    return kernel.emitError("expected a register, an iterate and a write in an MMA kernel");
  if (g.loop.getIterArgs().size() != 1 || g.loop.getIterArgs()[0] != g.init.getResult())
    return unsupported(g.loop, "expected one carried value, the accumulator register");
  Value written = g.write.getValue();
  if (auto cast = written.getDefiningOp<dialect::CastOp>()) written = cast.getOperand();
  if (written != g.loop.getResult(0)) return unsupported(g.write, "expected to write the loop's result (or its cast)");

  Block& body = g.loop.getBody().front();
  auto yield = cast<dialect::YieldOp>(body.getTerminator());
  auto mma = yield->getOperand(0).getDefiningOp<dialect::MmaOp>();
  if (!mma || mma.getAcc() != body.getArgument(0))
    return unsupported(g.loop, "expected the loop to yield mma(..., acc)");
  // Each operand: read(tile) of a shared tile the loop fills by write(read(argument), tile)
  // (what wave-promote-shared makes of a read of SHARED_ADDRESS_SPACE memory).
  SmallVector<Operation*> staging{mma};
  auto staged = [&](Value operand, dialect::ReadOp& global, dialect::AllocateOp& tile) -> LogicalResult {
    auto fromShared = operand.getDefiningOp<dialect::ReadOp>();
    if (!fromShared || fromShared.getMapping())
      return unsupported(mma, "expected both operands to be reads without index mappings");
    tile = fromShared.getMemory().getDefiningOp<dialect::AllocateOp>();
    if (!tile && fromShared.getMemory().getType().getAddressSpace().getValue() != "shared")
      return unsupported(fromShared, "MMA operands in global memory (give the memory SHARED_ADDRESS_SPACE)");
    if (!tile) return unsupported(fromShared, "an operand not staged through shared memory (run wave-promote-shared)");
    dialect::WriteOp fill;
    for (Operation* user : tile->getUsers())
      if (auto write = dyn_cast<dialect::WriteOp>(user)) {
        if (fill) return unsupported(write, "a second write into a shared tile");
        fill = write;
      }
    global = fill ? fill.getValue().getDefiningOp<dialect::ReadOp>() : dialect::ReadOp();
    if (!fill || fill->getBlock() != &body || !global || global.getMapping() ||
        !isa<BlockArgument>(global.getMemory()))
      return unsupported(fromShared, "expected its shared tile filled in the loop by write(read(argument))");
    staging.append({fromShared, fill, global});
    return success();
  };
  if (failed(staged(mma.getLhs(), g.readA, g.tileA)) || failed(staged(mma.getRhs(), g.readB, g.tileB)))
    return failure();
  for (Operation& op : body.without_terminator())
    if (!llvm::is_contained(staging, &op))
      return unsupported(&op, "expected only the operands' staging through shared memory and the mma in the loop");

  // Kind and layout.
  std::optional<dialect::MMAKind> kind;
  if (auto k = mma.getKindAttr()) kind = k.getValue();
  auto constraints = kernel->getAttrOfType<ArrayAttr>("wave.constraints");
  for (Attribute c : constraints.getValue())
    if (auto hw = dyn_cast<dialect::HardwareConstraintAttr>(c); hw && hw.getMma() && !kind)
      kind = hw.getMma().getValue();
  if (!kind) return mma.emitOpError("expected an MMA kind (on the op or the hardware constraint), but found none");
  auto layout = getMMALayout(kernel.getContext(), *kind);
  if (failed(layout))
    return mma.emitOpError("expected an MMA kind with an NVIDIA instruction (mma.sync m16n8k16), but found ")
           << dialect::stringifyMMAKind(*kind);
  g.mma = *layout;
  auto lhsType = cast<dialect::TensorType>(mma.getLhs().getType());
  auto accType = cast<dialect::TensorType>(mma.getAcc().getType());
  if (lhsType.getElementType() != g.mma.inputType || accType.getElementType() != g.mma.accType)
    return mma.emitOpError("expected ") << g.mma.inputType << " operands and a " << g.mma.accType << " accumulator for "
                                        << dialect::stringifyMMAKind(*kind) << ", but found "
                                        << lhsType.getElementType() << " and " << accType.getElementType();

  // Dims: the accumulator's last two are M and N, the rest batch; K is the loop's.
  SmallVector<StringRef> accDims = accType.getDimNames();
  g.m = accDims[accDims.size() - 2];
  g.n = accDims.back();
  g.k = g.loop.getDim();
  g.batch.assign(accDims.begin(), accDims.end() - 2);
  // The contraction dim: the one lhs and rhs share that the accumulator lacks.
  SmallVector<StringRef> rhsDims = cast<dialect::TensorType>(mma.getRhs().getType()).getDimNames();
  for (StringRef d : lhsType.getDimNames())
    if (llvm::is_contained(rhsDims, d) && !llvm::is_contained(accDims, d) && d != g.k)
      return mma.emitOpError("expected its contraction dim ")
             << d << " to be the dim its iterate walks, but the iterate walks " << g.k;
  auto operandDims = [&](dialect::ReadOp read, StringRef row) -> LogicalResult {
    SmallVector<StringRef> dims = read.getMemory().getType().getDimNames();
    for (StringRef d : dims)
      if (d != row && d != g.k && !llvm::is_contained(g.batch, d))
        return unsupported(read, "expected memory dims among the batch dims, ")
               << row << " and " << g.k << ", but found " << d;
    if (!llvm::is_contained(dims, row) || !llvm::is_contained(dims, g.k))
      return unsupported(read, "expected memory with dims ") << row << " and " << g.k;
    if (read.getMemory().getType().getAddressSpace().getValue() != "shared")
      return unsupported(read, "MMA operands in global memory (give the memory SHARED_ADDRESS_SPACE)");
    return success();
  };
  if (failed(operandDims(g.readA, g.m)) || failed(operandDims(g.readB, g.n))) return failure();
  if (g.write.getMemory().getType().getDimNames().back() != g.n)
    return unsupported(g.write, "an output whose innermost dim is not ") << g.n;

  // Tiles.
  g.blockM = g.waveM = g.blockN = g.waveN = 0;
  for (Attribute c : constraints.getValue()) {
    auto setTile = [&](StringRef dim, dialect::ExprAttr tile, StringRef what, int64_t& into) -> LogicalResult {
      auto v = tileSize(kernel, tile, dim, what);
      if (failed(v)) return failure();
      into = *v;
      return success();
    };
    LogicalResult ok = success();
    if (auto wg = dyn_cast<dialect::WorkgroupConstraintAttr>(c)) {
      StringRef d = wg.getDim().getValue();
      g.gridAxis[d] = static_cast<int>(wg.getWorkgroupDim());
      int64_t batchTile = 0;
      ok = setTile(d, wg.getTile(), "workgroup", d == g.m ? g.blockM : d == g.n ? g.blockN : batchTile);
      if (succeeded(ok) && d != g.m && d != g.n && batchTile != 1)
        return kernel.emitError("expected a workgroup tile of 1 for batch dim ") << d << ", but found " << batchTile;
    } else if (auto w = dyn_cast<dialect::WaveConstraintAttr>(c)) {
      StringRef d = w.getDim().getValue();
      if (d == g.m || d == g.n) ok = setTile(d, w.getTile(), "wave", d == g.m ? g.waveM : g.waveN);
    } else if (auto t = dyn_cast<dialect::TilingConstraintAttr>(c); t && t.getDim().getValue() == g.k) {
      ok = setTile(g.k, t.getTile(), "tiling", g.blockK);
    }
    if (failed(ok)) return failure();
  }
  for (StringRef d : g.batch)
    if (!g.gridAxis.count(d)) return kernel.emitError("expected a workgroup constraint on batch dim ") << d;
  if (!g.blockM || !g.blockN || !g.blockK)
    return kernel.emitError("expected workgroup constraints on ")
           << g.m << " and " << g.n << " and a tiling constraint on " << g.k;
  if (!g.waveM) g.waveM = g.blockM;
  if (!g.waveN) g.waveN = g.blockN;
  auto divides = [&](int64_t part, int64_t whole, StringRef what, StringRef dim) -> LogicalResult {
    if (whole % part == 0) return success();
    return kernel.emitError("expected the ")
           << what << " of " << dim << " (" << whole << ") to be a multiple of " << part << ", but it is not";
  };
  if (failed(divides(g.waveM, g.blockM, "workgroup tile", g.m)) ||
      failed(divides(g.waveN, g.blockN, "workgroup tile", g.n)) ||
      failed(divides(g.mma.m, g.waveM, "wave tile", g.m)) || failed(divides(g.mma.n, g.waveN, "wave tile", g.n)) ||
      failed(divides(g.mma.k, g.blockK, "tiling tile", g.k)))
    return failure();
  if (g.threads() > 1024)
    return kernel.emitError("expected at most 1024 threads per workgroup, but the constraints make ") << g.threads();
  // The shared tiles hold one workgroup tile each, in rows of whole 16-byte pieces
  // (cp.async and ldmatrix address 16-byte aligned rows).
  for (dialect::AllocateOp tile : {g.tileA, g.tileB}) {
    SmallVector<StringRef> dims = tile.getResult().getType().getDimNames();
    for (auto [dim, extent] : llvm::zip(dims, tile.getTile())) {
      auto size = tileSize(kernel, cast<dialect::ExprAttr>(extent), dim, "shared tile");
      if (failed(size)) return failure();
      const int64_t expected = dim == g.m ? g.blockM : dim == g.n ? g.blockN : dim == g.k ? g.blockK : 1;
      if (*size != expected)
        return unsupported(tile, "a shared tile whose extent along ")
               << dim << " (" << *size << ") is not the workgroup's tile (" << expected << ")";
    }
    const int64_t rowBits = (g.tileExtent(dims.back()) + tile.getPadding()) * g.mma.inputType.getIntOrFloatBitWidth();
    if (rowBits % 128 != 0)
      return unsupported(tile, "shared tile rows of ") << rowBits / 8 << " bytes (expected a multiple of 16)";
  }
  return g;
}

class MMAKernelEmitter : LoweringBuilder {
 public:
  MMAKernelEmitter(func::FuncOp kernel, GemmKernel g) : LoweringBuilder(kernel), kernel_(kernel), g_(std::move(g)) {}

  LogicalResult emit(gpu::GPUModuleOp module);

 private:
  int64_t extent(StringRef dim) const { return g_.tileExtent(dim); }
  // The two non-batch dims of an operand's memory, outer first.
  SmallVector<StringRef> tileDims(dialect::ReadOp read) const {
    SmallVector<StringRef> dims;
    for (StringRef d : read.getMemory().getType().getDimNames())
      if (!llvm::is_contained(g_.batch, d)) dims.push_back(d);
    return dims;
  }
  // An operand's shared tile, in stages: [stage][outer][inner + the tile's padding].
  MemRefType sharedTileType(dialect::ReadOp read) {
    SmallVector<StringRef> dims = tileDims(read);
    const int64_t padding = (read == g_.readA ? g_.tileA : g_.tileB).getPadding();
    return MemRefType::get({stages(), extent(dims[0]), extent(dims[1]) + padding}, g_.mma.inputType, AffineMap(),
                           gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup));
  }
  // Indices into an argument's memory: batch dims at this workgroup's, the others given.
  SmallVector<Value> memoryIndices(dialect::MemoryType type, const llvm::StringMap<Value>& at) {
    SmallVector<Value> indices;
    for (StringRef d : type.getDimNames()) indices.push_back(at.lookup(d));
    return indices;
  }

  // Elements per 16-byte piece of a tile row.
  int64_t pieceElements() const { return 128 / g_.mma.inputType.getIntOrFloatBitWidth(); }
  int64_t stages() const { return stages_; }
  // Whether `dim` is known to be a whole number of its tiles (no masks needed).
  bool exactTiles(StringRef dim) const { return isKnownMultiple(kernel_, dim, extent(dim)); }
  void copyToShared(dialect::ReadOp read, Value shared, Value stage, Value k0, Value tileInside);
  std::pair<Value, Value> loadFragmentPair(const MMAOperandLayout& layout, Value shared, Value stage, Value rowBase,
                                           int64_t colBase);
  Value loadFragment(const MMAOperandLayout& layout, dialect::ReadOp read, Value shared, Value stage, StringRef rowDim,
                     Value rowBase, int64_t colBase);
  void multiplyTile(Value stage, MutableArrayRef<Value> accs);
  void writeResult(ValueRange accs);

  func::FuncOp kernel_;
  GemmKernel g_;
  gpu::GPUFuncOp func_;
  bool async_ = false;  // cp.async into stages_ stages
  int64_t stages_ = 1;
  Value tileA_, tileB_;            // the shared tiles: [stage][outer][inner + pad]
  SmallVector<Value> copyTokens_;  // the cp.async copies of the K tile being issued
  Value tid_, lane_, waveRow_, waveCol_;
  llvm::StringMap<Value> sizes_, tileStart_;  // per dim: its size; the workgroup's first index
};

// The workgroup copies its BLOCK x BLOCK_K tile of an operand into shared memory (at
// `stage`), 16 bytes per thread and step, zero past the tensor's edges. `tileInside`
// says whether the K tile exists (prefetches run past the last one).
void MMAKernelEmitter::copyToShared(dialect::ReadOp read, Value shared, Value stage, Value k0, Value tileInside) {
  dialect::MemoryType type = read.getMemory().getType();
  Value memref = func_.getArgument(cast<BlockArgument>(read.getMemory()).getArgNumber());
  SmallVector<StringRef> dims = tileDims(read);
  const StringRef outer = dims[0], inner = dims[1];
  const int64_t vec = pieceElements();
  const int64_t perRow = extent(inner) / vec, chunks = extent(outer) * perRow, threads = g_.threads();
  auto vecType = VectorType::get({vec}, g_.mma.inputType);
  auto start = [&](StringRef d) { return d == g_.k ? k0 : tileStart_.lookup(d); };
  // Whether rows are whole 16-byte pieces: known, known not to be, or checked at run time.
  const bool alignedRows = isKnownMultiple(kernel_, inner, vec);
  Value innerAligned =
      alignedRows || staticSize(kernel_, inner)
          ? Value()
          : arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq,
                                  arith::RemUIOp::create(b_, loc_, sizes_.lookup(inner), index(vec)), index(0));
  for (int64_t step = 0; step * threads < chunks; ++step) {
    Value chunk = add(tid_, step * threads);
    auto body = [&] {
      AffineExpr c = getAffineDimExpr(0, b_.getContext());
      Value row = apply(c.floorDiv(perRow), chunk), col = apply(c % perRow * vec, chunk);
      llvm::StringMap<Value> at;
      for (StringRef d : g_.batch) at[d] = tileStart_.lookup(d);
      at[outer] = arith::AddIOp::create(b_, loc_, start(outer), row);
      at[inner] = arith::AddIOp::create(b_, loc_, start(inner), col);
      SmallVector<Value> indices = memoryIndices(type, at);
      if (async_ && exactTiles(outer) && exactTiles(inner)) {
        // Whole tiles: only a K tile past the end is masked, and its reads moved to the
        // first K tile (in bounds, never read).
        Value valid = arith::SelectOp::create(b_, loc_, tileInside, index(vec), index(0));
        for (auto [i, d] : llvm::enumerate(type.getDimNames()))
          if (d == g_.k) indices[i] = arith::SelectOp::create(b_, loc_, tileInside, indices[i], index(0));
        copyTokens_.push_back(nvgpu::DeviceAsyncCopyOp::create(
            b_, loc_, nvgpu::DeviceAsyncTokenType::get(b_.getContext()), shared, ValueRange{stage, row, col}, memref,
            indices, b_.getIndexAttr(vec), valid, b_.getUnitAttr()));
        return;
      }
      Value rowInside = lessThan(at[outer], sizes_.lookup(outer));
      Value left = arith::SubIOp::create(b_, loc_, sizes_.lookup(inner), at[inner]);
      Value count = arith::MinSIOp::create(b_, loc_, arith::MaxSIOp::create(b_, loc_, left, index(0)), index(vec));
      Value valid = arith::SelectOp::create(b_, loc_, rowInside, count, index(0));
      if (async_) {
        // Reads `valid` elements and zero-fills the rest; with none to read, the source
        // address moves to the tensor's first element (never read, but kept in bounds).
        Value any = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ugt, valid, index(0));
        for (Value& i : indices) i = arith::SelectOp::create(b_, loc_, any, i, index(0));
        copyTokens_.push_back(nvgpu::DeviceAsyncCopyOp::create(
            b_, loc_, nvgpu::DeviceAsyncTokenType::get(b_.getContext()), shared, ValueRange{stage, row, col}, memref,
            indices, b_.getIndexAttr(vec), valid, b_.getUnitAttr()));
        return;
      }
      Value whole = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, valid, index(vec));
      if (innerAligned)
        whole = both(whole, innerAligned);
      else if (!alignedRows)
        whole = arith::ConstantIntOp::create(b_, loc_, 0, 1);
      auto branch = scf::IfOp::create(b_, loc_, TypeRange{vecType}, whole, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard guard(b_);
        b_.setInsertionPointToStart(branch.thenBlock());
        Value v = vector::LoadOp::create(b_, loc_, vecType, memref, indices, /*nontemporal=*/false, llvm::Align(16));
        scf::YieldOp::create(b_, loc_, v);
        b_.setInsertionPointToStart(branch.elseBlock());
        Value mask = vector::CreateMaskOp::create(b_, loc_, VectorType::get({vec}, b_.getI1Type()), ValueRange{valid});
        Value zero = arith::ConstantOp::create(b_, loc_, vecType, b_.getZeroAttr(vecType));
        scf::YieldOp::create(b_, loc_,
                             vector::MaskedLoadOp::create(b_, loc_, vecType, memref, indices, mask, zero).getResult());
      }
      vector::StoreOp::create(b_, loc_, branch.getResult(0), shared, ValueRange{stage, row, col}, /*nontemporal=*/false,
                              llvm::Align(16));
    };
    if ((step + 1) * threads > chunks)
      ifThen(lessThan(chunk, index(chunks)), body);
    else
      body();
  }
}

// One MMA operand's registers for this lane, read from the shared tile at the places
// the layout gives, offset by (rowBase, colBase) along (rowDim, K).
Value MMAKernelEmitter::loadFragment(const MMAOperandLayout& layout, dialect::ReadOp read, Value shared, Value stage,
                                     StringRef rowDim, Value rowBase, int64_t colBase) {
  const bool rowOuter = tileDims(read)[0] == rowDim;  // else the tile is K-major
  Type element = g_.mma.inputType;
  auto fragType = VectorType::get(layout.registers, element);
  auto pairType = VectorType::get({2}, element);
  MLIRContext* ctx = b_.getContext();
  AffineExpr lane = getAffineDimExpr(0, ctx), base = getAffineDimExpr(1, ctx);
  if (rowOuter && layout.ldmatrixTiles) {
    Value row = apply(layout.ldmatrix.getResult(0) + base, {lane_, rowBase});
    Value col = apply(layout.ldmatrix.getResult(1) + colBase, {lane_});
    return nvgpu::LdMatrixOp::create(b_, loc_, fragType, shared, ValueRange{stage, row, col}, /*transpose=*/false,
                                     static_cast<uint32_t>(layout.ldmatrixTiles));
  }
  Value frag = arith::ConstantOp::create(b_, loc_, fragType, b_.getZeroAttr(fragType));
  for (int64_t r = 0; r < layout.registers[0]; ++r) {
    // The register's first element; the second is the next along K.
    AffineMap at = layout.map.replaceDimsAndSymbols({lane, getAffineConstantExpr(r * 2, ctx)}, {}, 2, 0);
    Value row = apply(at.getResult(0) + base, {lane_, rowBase});
    Value col = apply(at.getResult(1) + colBase, {lane_});
    Value pair;
    if (rowOuter) {
      pair = vector::LoadOp::create(b_, loc_, pairType, shared, ValueRange{stage, row, col}, /*nontemporal=*/false,
                                    llvm::Align(element.getIntOrFloatBitWidth() / 4));
    } else {
      Value first = memref::LoadOp::create(b_, loc_, shared, ValueRange{stage, col, row});
      Value second = memref::LoadOp::create(b_, loc_, shared, ValueRange{stage, add(col, 1), row});
      pair = vector::FromElementsOp::create(b_, loc_, pairType, ValueRange{first, second});
    }
    frag = vector::InsertOp::create(b_, loc_, pair, frag, ArrayRef<int64_t>{r});
  }
  return frag;
}

// Two operands, rows `rowBase` and `rowBase` + layout.rows of a row-major tile, from one
// ldmatrix.x4 at the places the layout's paired addressing gives.
std::pair<Value, Value> MMAKernelEmitter::loadFragmentPair(const MMAOperandLayout& layout, Value shared, Value stage,
                                                           Value rowBase, int64_t colBase) {
  MLIRContext* ctx = b_.getContext();
  AffineExpr lane = getAffineDimExpr(0, ctx), base = getAffineDimExpr(1, ctx);
  Value row = apply(layout.ldmatrixPair.getResult(0) + base, {lane_, rowBase});
  Value col = apply(layout.ldmatrixPair.getResult(1) + colBase, {lane_});
  const int64_t tiles = 2 * layout.ldmatrixTiles;
  Value loaded = nvgpu::LdMatrixOp::create(b_, loc_, VectorType::get({tiles, layout.registers[1]}, g_.mma.inputType),
                                          shared, ValueRange{stage, row, col}, /*transpose=*/false,
                                          static_cast<uint32_t>(tiles));
  auto half = [&](int64_t first) -> Value {
    return vector::ExtractStridedSliceOp::create(b_, loc_, loaded, ArrayRef<int64_t>{first, 0},
                                                 ArrayRef<int64_t>{layout.ldmatrixTiles, layout.registers[1]},
                                                 ArrayRef<int64_t>{1, 1});
  };
  return {half(0), half(layout.ldmatrixTiles)};
}

// Each lane's accumulator elements to the output, cast to its type, inside its bounds.
void MMAKernelEmitter::writeResult(ValueRange accs) {
  dialect::MemoryType type = g_.write.getMemory().getType();
  Value memref = func_.getArgument(cast<BlockArgument>(g_.write.getMemory()).getArgNumber());
  Type out = type.getElementType();
  auto pairType = VectorType::get({2}, out);
  const bool knownEvenN = isKnownMultiple(kernel_, g_.n, 2);
  Value evenN = knownEvenN || staticSize(kernel_, g_.n)
                    ? arith::ConstantIntOp::create(b_, loc_, knownEvenN, 1).getResult()
                    : arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq,
                                            arith::RemUIOp::create(b_, loc_, sizes_.lookup(g_.n), index(2)), index(0))
                          .getResult();
  MLIRContext* ctx = b_.getContext();
  AffineExpr lane = getAffineDimExpr(0, ctx), base = getAffineDimExpr(1, ctx);
  const MMAOperandLayout& c = g_.mma.c;
  for (int64_t i = 0; i < g_.tilesM(); ++i)
    for (int64_t j = 0; j < g_.tilesN(); ++j) {
      Value acc = accs[i * g_.tilesN() + j];
      Value rowBase = add(arith::AddIOp::create(b_, loc_, tileStart_.lookup(g_.m), waveRow_), i * g_.mma.m);
      Value colBase = add(arith::AddIOp::create(b_, loc_, tileStart_.lookup(g_.n), waveCol_), j * g_.mma.n);
      for (int64_t r = 0; r < c.registers[0]; ++r) {
        AffineMap at = c.map.replaceDimsAndSymbols({lane, getAffineConstantExpr(r * 2, ctx)}, {}, 2, 0);
        llvm::StringMap<Value> where;
        for (StringRef d : g_.batch) where[d] = tileStart_.lookup(d);
        where[g_.m] = apply(at.getResult(0) + base, {lane_, rowBase});
        where[g_.n] = apply(at.getResult(1) + base, {lane_, colBase});
        Value pair = vector::ExtractOp::create(b_, loc_, acc, ArrayRef<int64_t>{r});
        if (out != g_.mma.accType) pair = arith::TruncFOp::create(b_, loc_, pairType, pair);
        const int64_t bytes = out.getIntOrFloatBitWidth() / 8;
        if (exactTiles(g_.m) && exactTiles(g_.n) && knownEvenN) {
          // Whole tiles of rows that hold whole pairs: every pair is inside.
          vector::StoreOp::create(b_, loc_, pair, memref, memoryIndices(type, where), /*nontemporal=*/false,
                                  llvm::Align(2 * bytes));
          continue;
        }
        Value rowInside = lessThan(where[g_.m], sizes_.lookup(g_.m));
        Value pairInside = lessThan(add(where[g_.n], 1), sizes_.lookup(g_.n));
        auto branch = scf::IfOp::create(b_, loc_, TypeRange{}, both(both(rowInside, pairInside), evenN), true);
        OpBuilder::InsertionGuard guard(b_);
        b_.setInsertionPointToStart(branch.thenBlock());
        vector::StoreOp::create(b_, loc_, pair, memref, memoryIndices(type, where), /*nontemporal=*/false,
                                llvm::Align(2 * bytes));
        b_.setInsertionPointToStart(branch.elseBlock());
        for (int64_t e = 0; e < 2; ++e) {
          llvm::StringMap<Value> elementAt = where;
          elementAt[g_.n] = add(where[g_.n], e);
          ifThen(both(rowInside, lessThan(elementAt[g_.n], sizes_.lookup(g_.n))), [&] {
            Value x = vector::ExtractOp::create(b_, loc_, pair, ArrayRef<int64_t>{e});
            memref::StoreOp::create(b_, loc_, x, memref, memoryIndices(type, elementAt));
          });
        }
      }
    }
}

// Every MMA of this wave for one K tile (in shared memory at `stage`), into `accs`.
void MMAKernelEmitter::multiplyTile(Value stage, MutableArrayRef<Value> accs) {
  for (int64_t kk = 0; kk < g_.blockK; kk += g_.mma.k) {
    SmallVector<Value> a, bs;
    for (int64_t i = 0; i < g_.tilesM(); ++i)
      a.push_back(loadFragment(g_.mma.a, g_.readA, tileA_, stage, g_.m, add(waveRow_, i * g_.mma.m), kk));
    for (int64_t j = 0; j < g_.tilesN(); ++j) {
      Value colBase = add(waveCol_, j * g_.mma.n);
      if (j + 1 < g_.tilesN() && g_.mma.b.ldmatrixPair && tileDims(g_.readB)[0] == g_.n) {
        // Two B operands from one ldmatrix.x4.
        auto [first, second] = loadFragmentPair(g_.mma.b, tileB_, stage, colBase, kk);
        bs.append({first, second});
        ++j;
        continue;
      }
      bs.push_back(loadFragment(g_.mma.b, g_.readB, tileB_, stage, g_.n, colBase, kk));
    }
    for (int64_t i = 0; i < g_.tilesM(); ++i)
      for (int64_t j = 0; j < g_.tilesN(); ++j) {
        Value& acc = accs[i * g_.tilesN() + j];
        acc = mmaSync(b_, loc_, g_.mma, a[i], bs[j], acc);
      }
  }
}

LogicalResult MMAKernelEmitter::emit(gpu::GPUModuleOp module) {
  // cp.async needs every 16-byte piece of a tile row to be 16-byte aligned in memory.
  async_ = llvm::all_of(SmallVector<dialect::ReadOp>{g_.readA, g_.readB}, [&](dialect::ReadOp read) {
    return isKnownMultiple(kernel_, tileDims(read)[1], pieceElements());
  });
  // Three stages where two workgroups still fit an SM's 228 KiB, else two, else one.
  const int64_t elementBytes = g_.mma.inputType.getIntOrFloatBitWidth() / 8;
  stages_ = 1;
  const int64_t stageBytes =
      (sharedTileType(g_.readA).getNumElements() + sharedTileType(g_.readB).getNumElements()) * elementBytes;
  if (async_) stages_ = 3 * stageBytes <= 113 * 1024 ? 3 : 2 * stageBytes <= 227 * 1024 ? 2 : 1;
  async_ = stages_ > 1;
  func_ = createKernelFunc(b_, kernel_, module, g_.threads());
  func_->setAttr("wave.shared_memory_bytes", b_.getI64IntegerAttr(stages_ * stageBytes));
  auto workgroup = gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup);
  Value dynamic = gpu::DynamicSharedMemoryOp::create(
      b_, loc_, MemRefType::get({ShapedType::kDynamic}, b_.getI8Type(), AffineMap(), workgroup));
  MemRefType sharedA = sharedTileType(g_.readA), sharedB = sharedTileType(g_.readB);
  tileA_ = memref::ViewOp::create(b_, loc_, sharedA, dynamic, index(0), ValueRange{});
  const int64_t offsetB = sharedA.getNumElements() * elementBytes;
  tileB_ = memref::ViewOp::create(b_, loc_, sharedB, dynamic, index(offsetB), ValueRange{});

  // The launch: batch dims, M and N over the grid; what the runtime needs to size it.
  SmallVector<LaunchDim> launch;
  for (StringRef d : g_.batch) launch.push_back({d, 1, 1, g_.gridAxis.lookup(d)});
  launch.push_back({g_.m, g_.blockM, g_.waveM, g_.gridAxis.lookup(g_.m)});
  launch.push_back({g_.n, g_.blockN, g_.waveN, g_.gridAxis.lookup(g_.n)});
  setLaunchShape(b_, kernel_, func_,
                 launchLayout(b_.getContext(), launch, g_.mma.lanes, g_.mma.c.elementsPerLane(),
                              g_.tilesM() * g_.tilesN()));

  for (StringRef d : {g_.m, g_.n, g_.k}) {
    auto size = dimSize(b_, kernel_, func_, d);
    if (failed(size)) return failure();
    sizes_[d] = *size;
  }
  const gpu::Dimension axes[] = {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
  // Workgroups in launch order take their tiles in groups of kGroupM rows of tiles, down
  // the rows of a group before across its columns, so the workgroups running at once
  // share A and B tiles in L2.
  {
    const gpu::Dimension axisM = axes[g_.gridAxis.lookup(g_.m)], axisN = axes[g_.gridAxis.lookup(g_.n)];
    Value bm = gpu::BlockIdOp::create(b_, loc_, axisM), bn = gpu::BlockIdOp::create(b_, loc_, axisN);
    Value tilesM = gpu::GridDimOp::create(b_, loc_, axisM), tilesN = gpu::GridDimOp::create(b_, loc_, axisN);
    Value tileM = bm, tileN = bn;
    if (axisM == gpu::Dimension::x && axisN == gpu::Dimension::y) {
      constexpr int64_t kGroupM = 8;
      std::tie(tileM, tileN) = groupedTileOrder(bm, bn, tilesM, tilesN, kGroupM);
    }
    tileStart_[g_.m] = arith::MulIOp::create(b_, loc_, tileM, index(g_.blockM));
    tileStart_[g_.n] = arith::MulIOp::create(b_, loc_, tileN, index(g_.blockN));
  }
  for (StringRef d : g_.batch) tileStart_[d] = gpu::BlockIdOp::create(b_, loc_, axes[g_.gridAxis.lookup(d)]);
  tid_ = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
  AffineExpr t = getAffineDimExpr(0, b_.getContext());
  lane_ = apply(t % g_.mma.lanes, tid_);
  waveRow_ = apply(t.floorDiv(g_.mma.lanes) % g_.wavesM() * g_.waveM, tid_);
  waveCol_ = apply(t.floorDiv(g_.mma.lanes).floorDiv(g_.wavesM()) * g_.waveN, tid_);

  // The accumulators: one MMA tile each, loop-carried over the K tiles.
  auto accType = VectorType::get(g_.mma.c.registers, g_.mma.accType);
  auto initValue = cast<TypedAttr>(g_.init.getValue());
  Value init = arith::ConstantOp::create(b_, loc_, accType, DenseElementsAttr::get(accType, initValue));
  SmallVector<Value> inits(g_.tilesM() * g_.tilesN(), init);
  Value kTiles = apply(t.ceilDiv(g_.blockK), sizes_[g_.k]);
  Value lastGroup;  // the newest group of async copies before the loop
  auto copyTile = [&](Value stage, Value kTile) {
    Value k0 = arith::MulIOp::create(b_, loc_, kTile, index(g_.blockK));
    Value inside = lessThan(kTile, kTiles);
    copyToShared(g_.readA, tileA_, stage, k0, inside);
    copyToShared(g_.readB, tileB_, stage, k0, inside);
    if (!async_) return;
    auto tokenType = nvgpu::DeviceAsyncTokenType::get(b_.getContext());
    lastGroup = nvgpu::DeviceAsyncCreateGroupOp::create(b_, loc_, tokenType, copyTokens_);
    copyTokens_.clear();
  };
  // The first stages_ - 1 K tiles are in flight before the loop.
  for (int64_t s = 0; async_ && s + 1 < stages_; ++s) copyTile(index(s), index(s));
  // Barriers are not placed here: wave-insert-barriers adds those the shared accesses
  // need (one per K tile when pipelined, before the refill; two otherwise).
  auto loop = scf::ForOp::create(b_, loc_, index(0), kTiles, index(1), inits);
  {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value stage = index(0);
    if (async_) {
      // Wait for this K tile's copies (the newer stages_ - 2 groups may stay in flight),
      // then refill the stage the previous K tile used with the tile stages_ - 1 ahead
      // (past the last tile it reads nothing and fills zeros), then multiply.
      stage = apply(t % stages_, kt);
      nvgpu::DeviceAsyncWaitOp::create(b_, loc_, lastGroup, b_.getI32IntegerAttr(stages_ - 2));
      copyTile(apply((t + stages_ - 1) % stages_, kt), add(kt, stages_ - 1));
    } else {
      copyTile(stage, kt);
    }
    SmallVector<Value> accs(loop.getRegionIterArgs());
    multiplyTile(stage, accs);
    scf::YieldOp::create(b_, loc_, accs);
  }
  writeResult(loop.getResults());
  gpu::ReturnOp::create(b_, loc_);
  return success();
}

}  // namespace

bool isMMAKernel(func::FuncOp kernel) {
  return kernel.walk([](dialect::MmaOp) { return WalkResult::interrupt(); }).wasInterrupted();
}

bool matchesGemmShape(func::FuncOp kernel) {
  ScopedDiagnosticHandler quiet(kernel.getContext(), [](Diagnostic&) { return success(); });
  return isMMAKernel(kernel) && succeeded(matchGemm(kernel));
}

LogicalResult emitMMAKernel(func::FuncOp kernel, gpu::GPUModuleOp module) {
  auto gemm = matchGemm(kernel);
  if (failed(gemm)) return failure();
  return MMAKernelEmitter(kernel, *gemm).emit(module);
}

}  // namespace wave::jit
