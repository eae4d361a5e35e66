#include "lowering/KernelSignature.h"

#include "analysis/KernelGrid.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace wave::jit {

using namespace mlir;

std::optional<int64_t> staticSize(func::FuncOp kernel, StringRef dim) {
  auto hyper = kernel->getAttrOfType<DictionaryAttr>("wave.hyperparameters");
  if (auto v = hyper ? hyper.getAs<IntegerAttr>(dim) : IntegerAttr()) return v.getInt();
  return std::nullopt;
}

SmallVector<Type> memrefArgumentTypes(func::FuncOp kernel) {
  SmallVector<Type> types;
  for (BlockArgument arg : kernel.getArguments()) {
    auto memory = cast<dialect::MemoryType>(arg.getType());
    SmallVector<int64_t> shape;
    for (StringRef d : memory.getDimNames()) shape.push_back(staticSize(kernel, d).value_or(ShapedType::kDynamic));
    types.push_back(MemRefType::get(shape, memory.getElementType()));
  }
  return types;
}

gpu::GPUFuncOp createKernelFunc(OpBuilder& b, func::FuncOp kernel, gpu::GPUModuleOp module, int64_t threads) {
  b.setInsertionPointToEnd(module.getBody());
  auto func =
      gpu::GPUFuncOp::create(b, kernel.getLoc(), kernel.getName(), b.getFunctionType(memrefArgumentTypes(kernel), {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  return func;
}

FailureOr<Value> dimSize(OpBuilder& b, func::FuncOp kernel, gpu::GPUFuncOp func, StringRef dim) {
  if (auto size = staticSize(kernel, dim)) return arith::ConstantIndexOp::create(b, kernel.getLoc(), *size).getResult();
  for (auto [arg, memref] : llvm::zip(kernel.getArguments(), func.getArguments())) {
    SmallVector<StringRef> dims = cast<dialect::MemoryType>(arg.getType()).getDimNames();
    if (auto it = llvm::find(dims, dim); it != dims.end())
      return memref::DimOp::create(b, kernel.getLoc(), memref, it - dims.begin()).getResult();
  }
  return kernel.emitError("expected a value in subs for ") << dim << ", but found none";
}

void setLaunchShape(OpBuilder& b, func::FuncOp kernel, gpu::GPUFuncOp func, dialect::ThreadLayoutAttr layout,
                    const llvm::StringMap<int64_t>& rankSlices) {
  func->setAttr("wave.thread_layout", layout);
  // A dim split over the GPUs: the grid covers the rank's slice.
  if (!rankSlices.empty()) {
    SmallVector<NamedAttribute> entries;
    for (const auto& [dim, size] : rankSlices) entries.push_back(b.getNamedAttr(dim, b.getI64IntegerAttr(size)));
    func->setAttr("wave.rank_slices", b.getDictionaryAttr(entries));
  }
  std::array<int32_t, 3> grid{1, 1, 1};
  for (auto [dim, tile, axis] :
       llvm::zip(layout.getDims(), layout.getBlockTile().asArrayRef(), layout.getGridAxis().asArrayRef())) {
    if (axis < 0) continue;
    StringRef name = cast<StringAttr>(dim).getValue();
    auto slice = rankSlices.find(name);
    auto size = slice != rankSlices.end() ? std::optional<int64_t>(slice->second) : staticSize(kernel, name);
    if (!size) return;
    grid[axis] = static_cast<int32_t>(llvm::divideCeil(*size, tile));
  }
  func.setKnownGridSizeAttr(b.getDenseI32ArrayAttr(grid));
}

dialect::ThreadLayoutAttr launchLayout(mlir::MLIRContext* ctx, llvm::ArrayRef<LaunchDim> dims, int64_t lanes,
                                       int64_t elementsPerThread, int64_t steps) {
  mlir::Builder b(ctx);
  llvm::SmallVector<mlir::Attribute> names;
  llvm::SmallVector<int64_t> blockTile, waveTile, gridAxis;
  for (const LaunchDim& d : dims) {
    names.push_back(b.getStringAttr(d.dim));
    blockTile.push_back(d.blockTile);
    waveTile.push_back(d.waveTile);
    gridAxis.push_back(d.gridAxis);
  }
  return dialect::ThreadLayoutAttr::get(ctx, b.getArrayAttr(names), b.getDenseI64ArrayAttr(blockTile),
                                        b.getDenseI64ArrayAttr(waveTile), b.getDenseI64ArrayAttr(gridAxis), lanes,
                                        elementsPerThread, steps);
}

}  // namespace wave::jit
