//===- MulticastTensorCopies.cpp - a cluster's shared tiles filled once ------===//
//
// In a warp-specialized function launched in clusters (analysis/Cluster.h), the producer
// of each workgroup issues only its part of each copy marked `wave.multicast` (the tiles
// every workgroup of the cluster fills alike: a GEMM's B among workgroups along M), and
// the TMA engine writes that part into the tiles of all of them. A stage may then be
// refilled only once every workgroup of the cluster released it: the computing warps
// release each stage on every workgroup's empty mbarrier (mapa), which counts the
// cluster's arrivals. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "transforms/ConsumerThreads.h"
#include "transforms/Passes.h"

#include "analysis/Cluster.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace wave::jit {

#define GEN_PASS_DEF_WAVEMULTICASTTENSORCOPIES
#include "transforms/Passes.h.inc"

using namespace mlir;

namespace {

Value index(OpBuilder& b, Location loc, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

// The smallest run of a swizzled tile that its pattern repeats over: 8 rows of `swizzle`
// bytes. A part of a tile must start at a multiple of it to be swizzled as the whole is.
constexpr int64_t kSwizzleRows = 8;

class Multicaster {
 public:
  Multicaster(gpu::GPUFuncOp func, int64_t size) : func_(func), size_(size) {}

  // Issues, of each marked copy of `producer`, this workgroup's part to every workgroup
  // of the cluster. Returns whether any copy was split.
  bool splitCopies(Region& producer) {
    SmallVector<nvgpu::TmaAsyncLoadOp> loads;
    producer.walk([&](nvgpu::TmaAsyncLoadOp load) {
      if (load->hasAttr(kMulticastAttr)) loads.push_back(load);
    });
    bool split = false;
    for (nvgpu::TmaAsyncLoadOp load : loads) split |= succeeded(splitCopy(load, producer));
    return split;
  }

 private:
  // The workgroup's rank in its cluster, read once at the start of the producer's region.
  Value rank(Region& producer, Location loc) {
    if (!rank_) {
      OpBuilder b = OpBuilder::atBlockBegin(&producer.front());
      Value rank32 = NVVM::ClusterId::create(b, loc, b.getI32Type());
      rank_ = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), rank32);
    }
    return rank_;
  }

  // The kernel parameter `map` is cast from and its `wave.tensor_maps` entry (argument,
  // box, swizzle); null where `map` is not one of them.
  std::pair<BlockArgument, DictionaryAttr> entryOf(Value map) {
    auto described = map.getDefiningOp<UnrealizedConversionCastOp>();
    auto parameter = described ? dyn_cast<BlockArgument>(described.getOperand(0)) : BlockArgument();
    auto maps = func_->getAttrOfType<ArrayAttr>("wave.tensor_maps");
    if (!parameter || !maps) return {};
    const int64_t first = static_cast<int64_t>(func_.getNumArguments()) - static_cast<int64_t>(maps.size());
    const int64_t which = static_cast<int64_t>(parameter.getArgNumber()) - first;
    if (which < 0) return {};
    return {parameter, dyn_cast<DictionaryAttr>(maps[which])};
  }

  // The tensor map of boxes of `box` over the argument `map` (whose parameter and entry
  // are `whole`) describes, a parameter after the others (with its entry in
  // `wave.tensor_maps`), once per map.
  Value partMap(Value map, std::pair<BlockArgument, DictionaryAttr> whole, ArrayRef<int64_t> box) {
    Value& part = partMaps_[map];
    if (part) return part;
    auto [parameter, entry] = whole;
    OpBuilder b(func_.getContext());
    const unsigned position = func_.getNumArguments();
    if (failed(func_.insertArgument(position, parameter.getType(), DictionaryAttr(), func_.getLoc()))) return {};
    auto maps = func_->getAttrOfType<ArrayAttr>("wave.tensor_maps");
    SmallVector<Attribute> all(maps.begin(), maps.end());
    all.push_back(b.getDictionaryAttr({b.getNamedAttr("argument", entry.get("argument")),
                                       b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
                                       b.getNamedAttr("swizzle", entry.get("swizzle"))}));
    func_->setAttr("wave.tensor_maps", b.getArrayAttr(all));
    auto descriptor = cast<nvgpu::TensorMapDescriptorType>(map.getType());
    MemRefType tensor = descriptor.getTensor();
    auto type = nvgpu::TensorMapDescriptorType::get(
        b.getContext(), MemRefType::get(box, tensor.getElementType(), AffineMap(), tensor.getMemorySpace()),
        descriptor.getSwizzle(), descriptor.getL2promo(), descriptor.getOob(), descriptor.getInterleave());
    auto described = map.getDefiningOp<UnrealizedConversionCastOp>();
    b.setInsertionPointAfter(described);
    part = UnrealizedConversionCastOp::create(b, described.getLoc(), type, func_.getArgument(position)).getResult(0);
    return part;
  }

  // The load's box split along its outermost dim of several elements: part `rank` of
  // `size_`, issued to every workgroup of the cluster. Left whole where the box does not
  // split into parts the swizzle repeats over.
  LogicalResult splitCopy(nvgpu::TmaAsyncLoadOp load, Region& producer) {
    load->removeAttr(kMulticastAttr);
    const auto whole = entryOf(load.getTensorMapDescriptor());
    auto swizzleAttr = whole.second ? whole.second.getAs<IntegerAttr>("swizzle") : IntegerAttr();
    const int64_t swizzle = swizzleAttr ? swizzleAttr.getInt() : 0;
    MemRefType boxType = load.getDst().getType();
    if (swizzle == 0 || !boxType.hasStaticShape()) return failure();
    // The outermost dim of more than one element (those outside it are single: its parts
    // are contiguous), not the innermost (a swizzled row).
    ArrayRef<int64_t> shape = boxType.getShape();
    const int64_t split = std::find_if(shape.begin(), shape.end(), [](int64_t e) { return e > 1; }) - shape.begin();
    if (split + 1 >= boxType.getRank() || shape[split] % size_ != 0) return failure();
    SmallVector<int64_t> partShape(shape);
    partShape[split] /= size_;
    const int64_t partBytes = boxType.getNumElements() / size_ * boxType.getElementTypeBitWidth() / 8;
    if (partBytes % (kSwizzleRows * swizzle) != 0) return failure();
    Value map = partMap(load.getTensorMapDescriptor(), whole, partShape);
    if (!map) return failure();

    const Location loc = load.getLoc();
    Value rank = this->rank(producer, loc);
    OpBuilder b(load);
    // This workgroup's part: rows [rank * part, (rank + 1) * part) of the box along `split`.
    Value firstRow = arith::MulIOp::create(b, loc, rank, index(b, loc, partShape[split]));
    SmallVector<OpFoldResult> offsets(boxType.getRank(), b.getIndexAttr(0)), sizes,
        strides(boxType.getRank(), b.getIndexAttr(1));
    offsets[split] = firstRow;
    for (int64_t extent : partShape) sizes.push_back(b.getIndexAttr(extent));
    Value dst = memref::SubViewOp::create(b, loc, load.getDst(), offsets, sizes, strides);
    // (Coordinates run innermost first.)
    SmallVector<Value> coordinates(load.getCoordinates());
    Value& along = coordinates[boxType.getRank() - 1 - split];
    along = arith::AddIOp::create(b, loc, along, firstRow);
    Value everyone = arith::ConstantIntOp::create(b, loc, b.getI16Type(), (int64_t{1} << size_) - 1);
    nvgpu::TmaAsyncLoadOp::create(b, loc, dst, load.getBarriers(), map, coordinates, load.getMbarId(), everyone,
                                  load.getPredicate());
    load.erase();
    return success();
  }

  gpu::GPUFuncOp func_;
  int64_t size_;
  Value rank_;
  DenseMap<Value, Value> partMaps_;
};

// Each arrival on `empty` becomes one on every workgroup's of the cluster (a stage is free
// once all of them read it), and each of its mbarriers counts the cluster's arrivals.
void releaseAcrossCluster(Value empty, int64_t size) {
  for (Operation* user : llvm::make_early_inc_range(empty.getUsers())) {
    OpBuilder b(user);
    const Location loc = user->getLoc();
    if (auto init = dyn_cast<nvgpu::MBarrierInitOp>(user)) {
      init.getCountMutable().assign(arith::MulIOp::create(b, loc, init.getCount(), index(b, loc, size)));
      continue;
    }
    auto arrive = dyn_cast<nvgpu::MBarrierArriveOp>(user);
    if (!arrive || !arrive.use_empty()) continue;
    Value address = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(), empty, arrive.getMbarId());
    Value local = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared)),
        address);
    auto clusterPointer =
        LLVM::LLVMPointerType::get(b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
    // (At CTA scope: the stage's readers are this workgroup's wgmma, done at their wait.
    // A cluster-scope release puts MEMBAR.ALL.GPU before each arrival: bench/RESULTS.md,
    // run 135.)
    for (int64_t r = 0; r < size; ++r) {
      Value remote = NVVM::MapaOp::create(b, loc, clusterPointer, local,
                                          arith::ConstantIntOp::create(b, loc, b.getI32Type(), r));
      NVVM::MBarrierArriveOp::create(b, loc, Type(), remote, Value(), NVVM::MemScopeKind::CTA);
    }
    arrive.erase();
  }
}

// The barrier every thread of the cluster passes: `arrive` then `wait` (release, acquire).
void syncCluster(OpBuilder& b, Location loc) {
  NVVM::ClusterArriveOp::create(b, loc, /*aligned=*/UnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, /*aligned=*/UnitAttr());
}

struct MulticastTensorCopies : impl::WaveMulticastTensorCopiesBase<MulticastTensorCopies> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    const int64_t size = clusterSize(func);
    scf::IfOp roles;
    func.walk([&](scf::IfOp op) {
      if (op->hasAttr(kConsumerThreadsAttr)) roles = op;
    });
    // The producer's waits for a free stage name the empty mbarriers (every group it waits
    // on: a release must reach each one's members).
    llvm::SetVector<Value> empties;
    if (roles)
      roles.getElseRegion().walk([&](nvgpu::MBarrierTryWaitParityOp wait) { empties.insert(wait.getBarriers()); });
    if (size > 1 && roles && !empties.empty() && roles->getBlock() == &func.getBody().front() &&
        Multicaster(func, size).splitCopies(roles.getElseRegion())) {
      for (Value empty : empties) releaseAcrossCluster(empty, size);
      // Every workgroup's mbarriers are set up before a part lands in its tiles or an
      // arrival on them, and none exits while another may still write to it.
      OpBuilder b(roles);
      NVVM::FenceMbarrierInitOp::create(b, roles.getLoc());
      syncCluster(b, roles.getLoc());
      b.setInsertionPoint(func.getBody().front().getTerminator());
      syncCluster(b, roles.getLoc());
    }
    func.walk([](nvgpu::TmaAsyncLoadOp load) { load->removeAttr(kMulticastAttr); });
  }
};

}  // namespace

}  // namespace wave::jit
