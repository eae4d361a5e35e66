// wave::jit::compile_to_ptx: trace graph -> wave IR -> upstream GPU IR -> PTX, through the
// kernel cache.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>

#include "dialect/WaveDialect.h"
#include "import/FirstError.h"
#include "import/ImportKernel.h"
#include "CompilerFingerprint.h"
#include "lowering/ElementConversion.h"
#include "lowering/Passes.h"
#include "transforms/Passes.h"
#include "analysis/Cluster.h"
#include "runtime/KernelCache.h"
#include "runtime/TargetOfOptions.h"
#include "target/AmdgpuTarget.h"
#include "target/CompileModule.h"
#include "target/LlvmToPtx.h"
#include "target/TargetKernelChecks.h"
#include "target/NvptxTarget.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"
#include "wave/jit.hpp"
#include "wave/mapping_bounds.hpp"

namespace wave::jit {
namespace {

// The PTX ISA version each target needs at least: on sm_90, 8.0, or what the kernel's
// instructions need (`sm90Version`: 84 where it computes with f8, as mma.sync m16n8k32 on
// e4m3/e5m2 needs; 81 for a vector red.global.add).
std::string ptxFeatures(const std::string& chip, int sm90Version = 80) {
  return chip == "sm_80" ? "+ptx70" : "+ptx" + std::to_string(sm90Version);
}

// Where a compile's IR goes: CompileOptions::dump_dir, else $WAVE_DUMP_DIR, each kernel in
// a folder of its name; empty for nowhere.
std::string dumpDirFor(const CompileOptions& options, const std::string& kernel) {
  std::string dir = options.dump_dir;
  if (const char* v = std::getenv("WAVE_DUMP_DIR"); dir.empty() && v) dir = v;
  return dir.empty() ? dir : dir + "/" + kernel;
}

// A hand-edited stage of `kernel` under CompileOptions::override_dir or $WAVE_OVERRIDE_DIR:
// its path, if that file exists.
std::optional<std::filesystem::path> overrideFor(const CompileOptions& options, const std::string& kernel,
                                                 const std::string& file) {
  std::string dir = options.override_dir;
  if (const char* v = std::getenv("WAVE_OVERRIDE_DIR"); dir.empty() && v) dir = v;
  if (dir.empty()) return std::nullopt;
  std::filesystem::path path = std::filesystem::path(dir) / kernel / file;
  if (!std::filesystem::is_regular_file(path)) return std::nullopt;
  return path;
}

std::string fileText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string mlirText(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

// The LLVM passes before PTX code generation: $WAVE_LLVM_PASSES (an `opt -passes=` pipeline,
// for experiments), else the default.
std::string llvmPasses() {
  const char* v = std::getenv("WAVE_LLVM_PASSES");
  return v && *v ? std::string(v) : defaultLlvmPasses();
}

// WAVE_VERIFY_EACH_PASS=1: the verifier after every pass (the tests run so), to find the
// pass that broke the IR; otherwise after each stage only (a sixth of a compile's time).
bool verifyEachPass() {
  const char* v = std::getenv("WAVE_VERIFY_EACH_PASS");
  return v && *v && std::string(v) != "0";
}

// CompileOptions::warp_specialize, or WAVE_WARP_SPECIALIZE=1 (a whole test run under it).
bool warpSpecializeRequested(const CompileOptions& options) {
  const char* v = std::getenv("WAVE_WARP_SPECIALIZE");
  return options.warp_specialize || (v && *v && std::string(v) != "0");
}

// A persistent grid's tiles of differing lengths handed out at run time by the producer
// warpgroup (wave-schedule-tiles-dynamically): on NVIDIA GPUs under warp specialization,
// unless WAVE_STATIC_TILES=1 keeps the static rounds (to measure one against the other).
bool dynamicTilesRequested(const CompileOptions& options, bool amd) {
  const char* v = std::getenv("WAVE_STATIC_TILES");
  return !amd && warpSpecializeRequested(options) && !(v && *v && std::string(v) != "0");
}

// CompileOptions::persistent, or WAVE_PERSISTENT=1 (a whole test run under it).
bool persistentRequested(const CompileOptions& options) {
  const char* v = std::getenv("WAVE_PERSISTENT");
  return options.persistent || (v && *v && std::string(v) != "0");
}

// CompileOptions::stream_k, or WAVE_STREAM_K=1 (a whole test run under it).
bool streamKRequested(const CompileOptions& options) {
  const char* v = std::getenv("WAVE_STREAM_K");
  return options.stream_k || (v && *v && std::string(v) != "0");
}

// CompileOptions::cluster_size, or WAVE_CLUSTER_SIZE=n (a whole test run under it).
int clusterSizeRequested(const CompileOptions& options) {
  const char* v = std::getenv("WAVE_CLUSTER_SIZE");
  return v && *v ? std::atoi(v) : options.cluster_size;
}

// CompileOptions::overlap_mma, unless WAVE_OVERLAP_MMA=0 (a whole run without it).
bool overlapMmaRequested(const CompileOptions& options) {
  const char* v = std::getenv("WAVE_OVERLAP_MMA");
  return options.overlap_mma && !(v && std::string(v) == "0");
}

// Computing warpgroups taking turns at wgmma (wave-alternate-warpgroup-mma): on with
// WAVE_ALTERNATE_WARPGROUPS=1 while it is measured.
bool alternateWarpgroupsRequested() {
  const char* v = std::getenv("WAVE_ALTERNATE_WARPGROUPS");
  return v && *v && std::string(v) != "0";
}

// CompileOptions::timing, or WAVE_TIMING=1.
bool timingRequested(const CompileOptions& options) {
  const char* v = std::getenv("WAVE_TIMING");
  return options.timing || (v && *v && std::string(v) != "0");
}


// One cache per folder, for the whole process.
KernelCache& cacheFor(const std::string& dir) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<KernelCache>> caches;
  std::lock_guard lock(mutex);
  auto& cache = caches[dir];
  if (!cache)
    cache = std::make_unique<KernelCache>(
        KernelCache::Options{.dir = dir.empty() ? KernelCache::default_dir() : std::filesystem::path(dir)});
  return *cache;
}

// The kernel ABI and cache payload layout: a change to either must not serve old entries
// (2: memref-descriptor parameters, grid dims and dynamic shared memory in the payload;
// 3: tensor maps after them; 4: the persistent flag; 5: the cluster size; 6: the target,
// and AMD's code object and assembly; 8: stream-K's slot bytes; 9: the tile counter).
constexpr int kCacheFormat = 9;

// Everything the PTX depends on: the kernel's IR, the target, the compiler's versions and
// sources (any change to the JIT invalidates what it cached).
std::string cacheKey(mlir::ModuleOp module, const CompileOptions& options) {
  std::string key;
  llvm::raw_string_ostream os(key);
  module.print(os, mlir::OpPrintingFlags().enableDebugInfo(false));
  os << "\ntarget=" << options.target << "\nwave-cpp " << WAVE_CPP_VERSION << ", LLVM " << LLVM_VERSION_STRING
     << ", format " << kCacheFormat << ", stages "
     << options.pipeline_stages << ", warpgroup mma " << options.warpgroup_mma << ", tma " << options.tma << ", warp specialize " << warpSpecializeRequested(options) << ", persistent " << persistentRequested(options) << ", stream-K " << streamKRequested(options) << ", overlap mma " << overlapMmaRequested(options) << ", cluster " << clusterSizeRequested(options) << ", alternate warpgroups " << alternateWarpgroupsRequested() << ", dynamic tiles " << dynamicTilesRequested(options, false) << ", LLVM passes " << llvmPasses() << ", sources " << WAVE_COMPILER_FINGERPRINT;
  return key;
}

std::string serialize(const PtxKernel& k) {
  std::ostringstream os;
  os << k.entry << '\n' << k.grid[0] << ' ' << k.grid[1] << ' ' << k.grid[2] << '\n'
     << k.block[0] << ' ' << k.block[1] << ' ' << k.block[2] << '\n';
  for (const PtxKernel::GridDim& g : k.grid_dims)
    os << (g.dim.empty() ? "-" : g.dim) << ' ' << g.tile << ' ' << g.extent << ' ';
  os << k.shared_bytes << ' ' << k.persistent << ' ' << k.cluster_size << ' ' << k.stream_k_slot_bytes << ' '
     << k.tile_counter << ' ' << k.tensor_maps.size() << '\n';
  for (const PtxKernel::TensorMap& m : k.tensor_maps) {
    os << m.argument << ' ' << m.swizzle << ' ' << m.box.size();
    for (unsigned extent : m.box) os << ' ' << extent;
    os << '\n';
  }
  os << k.target << ' ' << k.hsaco.size() << ' ' << k.amdgpu_assembly.size() << '\n'
     << k.hsaco << k.amdgpu_assembly << k.ptx;
  return os.str();
}

PtxKernel deserialize(const std::string& payload) {
  std::istringstream is(payload);
  PtxKernel k;
  std::getline(is, k.entry);
  is >> k.grid[0] >> k.grid[1] >> k.grid[2] >> k.block[0] >> k.block[1] >> k.block[2];
  for (PtxKernel::GridDim& g : k.grid_dims) {
    is >> g.dim >> g.tile >> g.extent;
    if (g.dim == "-") g.dim.clear();
  }
  std::size_t maps = 0;
  is >> k.shared_bytes >> k.persistent >> k.cluster_size >> k.stream_k_slot_bytes >> k.tile_counter >> maps;
  k.tensor_maps.resize(maps);
  for (PtxKernel::TensorMap& m : k.tensor_maps) {
    std::size_t rank = 0;
    is >> m.argument >> m.swizzle >> rank;
    m.box.resize(rank);
    for (unsigned& extent : m.box) is >> extent;
  }
  std::size_t hsacoBytes = 0, assemblyBytes = 0;
  is >> k.target >> hsacoBytes >> assemblyBytes;
  is.ignore(1);  // the newline
  k.hsaco.resize(hsacoBytes);
  is.read(k.hsaco.data(), static_cast<std::streamsize>(hsacoBytes));
  k.amdgpu_assembly.resize(assemblyBytes);
  is.read(k.amdgpu_assembly.data(), static_cast<std::streamsize>(assemblyBytes));
  k.ptx.assign(std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>());
  return k;
}

}  // namespace

std::string default_cache_dir() { return KernelCache::default_dir().string(); }

std::string compiler_version() {
  return std::string("wave-cpp ") + WAVE_CPP_VERSION + ", LLVM " + LLVM_VERSION_STRING + ", sources " +
         WAVE_COMPILER_FINGERPRINT;
}

namespace {

// Whether any value of the lowered module holds f8 (as its arguments' memrefs do).
bool usesF8(mlir::ModuleOp module) {
  return module
      ->walk([&](mlir::Operation* op) {
        for (mlir::Region& region : op->getRegions())
          for (mlir::Block& block : region)
            if (llvm::any_of(block.getArgumentTypes(), isF8)) return mlir::WalkResult::interrupt();
        return llvm::any_of(op->getResultTypes(), isF8) ? mlir::WalkResult::interrupt() : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

// The dynamic shared memory one workgroup may have: on NVIDIA cuFuncSetAttribute's bound, on
// AMD the LDS (a compute unit's whole, a workgroup may take it all).
int64_t sharedBytes(const TargetInfo& target) { return int64_t{target.shared_memory_kib} * 1024; }

// Whether the lowered module adds a vector to memory with one red (red.global.add.v4.f32,
// red.relaxed.sys.global.add.noftz.v2.bf16x2, ...): PTX 8.1.
bool usesVectorRed(mlir::ModuleOp module) {
  return module
      ->walk([&](mlir::LLVM::InlineAsmOp op) {
        llvm::StringRef ptx = op.getAsmString();
        return ptx.starts_with("red.") && ptx.contains(".global.add") && ptx.contains(".v")
                   ? mlir::WalkResult::interrupt()
                   : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

}  // namespace

PtxKernel compileWaveModule(mlir::ModuleOp module, const std::string& kernelName, const CompileOptions& options,
                            const FirstError& first, mlir::TimingScope* timing) {
  const TargetInfo& target = targetNamed(options.target, kernelName);
  const bool amd = target.vendor == Vendor::amd;
  if (amd && clusterSizeRequested(options) != 1)
    throw Error(kernelName, "compile", "", 0,
                "cluster_size: " + expected_found("1 on " + options.target + " (AMD GPUs have no workgroup clusters)",
                                                  std::to_string(clusterSizeRequested(options))));
  mlir::MLIRContext& ctx = *module.getContext();
  mlir::DialectRegistry registry;
  registerNvptxTarget(registry);
  ctx.appendDialectRegistry(registry);

  mlir::PassManager lowering(&ctx);
  const char* dump = std::getenv("WAVE_DUMP_IR");
  if (options.dump_ir || (dump && *dump && std::string(dump) != "0")) {
    ctx.disableMultithreading();  // IR printing needs one thread
    lowering.enableIRPrinting();
  }
  // The IR of every stage as files: <dump dir>/<kernel>/0-wave.mlir, lowering/ and codegen/
  // (a file per pass that changed the IR, MLIR's file tree), and <kernel>.ptx.
  const std::string dumpDir = dumpDirFor(options, kernelName);
  if (!dumpDir.empty()) {
    ctx.disableMultithreading();  // IR printing needs one thread
    std::filesystem::create_directories(dumpDir);
    std::ofstream(dumpDir + "/0-wave.mlir") << mlirText(module);
    lowering.enableIRPrintingToFileTree([](mlir::Pass*, mlir::Operation*) { return false; },
                                        [](mlir::Pass*, mlir::Operation*) { return true; },
                                        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/true,
                                        /*printAfterOnlyOnFailure=*/false, dumpDir + "/lowering");
  }
  mlir::TimingScope loweringTiming = timing ? timing->nest("lowering (wave IR -> GPU IR)") : mlir::TimingScope();
  if (timing) lowering.enableTiming(loweringTiming);
  const bool verifyEach = verifyEachPass();
  lowering.enableVerifier(verifyEach);
  const bool warpgroupMma = options.warpgroup_mma && target.warpgroup_mma;
  lowering.addNestedPass<mlir::func::FuncOp>(createWaveHoistInvariantReads({.keepMmaOperandsShared = warpgroupMma}));
  lowering.addNestedPass<mlir::func::FuncOp>(createWaveSkipMaskedTiles());
  lowering.addNestedPass<mlir::func::FuncOp>(createWaveMaskPartialTiles());
  lowering.addNestedPass<mlir::func::FuncOp>(createWaveScaleAfterMasks());
  lowering.addNestedPass<mlir::func::FuncOp>(createWavePromoteShared({.contractionInnermost = amd}));
  lowering.addNestedPass<mlir::func::FuncOp>(createWaveSplitLoopAcrossWaves());
  lowering.addNestedPass<mlir::func::FuncOp>(
      createWaveSelectWarpgroupMma({.enabled = warpgroupMma}));
  lowering.addNestedPass<mlir::func::FuncOp>(createWaveSelectTensorCopies({.enabled = warpgroupMma && options.tma}));
  lowering.addNestedPass<mlir::func::FuncOp>(createWaveAssignLayouts());
  lowering.addNestedPass<mlir::func::FuncOp>(createWaveWidenStoreRuns());
  lowering.addPass(
      createWaveLowerToGPU({.persistent = persistentRequested(options),
                            .streamK = streamKRequested(options),
                            .clusterSize = clusterSizeRequested(options),
                            .tileCounter = dynamicTilesRequested(options, amd),
                            .vectorAtomics = target.vector_atomics,
                            .systemAtomics = !amd,
                            .ptxTanh = !amd,
                            .wavePriority = amd,
                            .overrunBranches = !amd,
                            .bufferAccesses = amd,
                            .deviceScope = amd ? "agent" : "device"}));
  mlir::OpPassManager& gpuFunc = lowering.nest<mlir::gpu::GPUModuleOp>().nest<mlir::gpu::GPUFuncOp>();
  // Folded first, so that fills are plain load -> store pairs the pipelining recognizes.
  // The kernels are structured (scf) with few blocks: region simplification finds nothing
  // to merge and costs a tenth of the folding.
  mlir::GreedyRewriteConfig folding;
  folding.setRegionSimplificationLevel(mlir::GreedySimplifyRegionLevel::Disabled);
  gpuFunc.addPass(mlir::createCanonicalizerPass(folding));
  gpuFunc.addPass(mlir::createCSEPass());
  // The copies ahead are cp.async or TMA, NVIDIA's: AMD's tiles are filled in place for now.
  gpuFunc.addPass(createWavePipelineSharedCopies({.stages = amd ? 1 : options.pipeline_stages,
                                                  .warpSpecialize = !amd && warpSpecializeRequested(options)}));
  if (amd)  // an AMD compute unit's LDS: one workgroup may have all of it
    gpuFunc.addPass(createWavePackSharedMemory(
        {.maxBytes = sharedBytes(target), .twoWorkgroupsBytes = sharedBytes(target) / 2}));
  else
    gpuFunc.addPass(createWavePackSharedMemory());
  gpuFunc.addPass(createWaveInsertBarriers());
  if (overlapMmaRequested(options)) gpuFunc.addPass(createWaveOverlapWarpgroupMma());
  if (alternateWarpgroupsRequested()) gpuFunc.addPass(createWaveAlternateWarpgroupMma());
  gpuFunc.addPass(createWaveMulticastTensorCopies());
  gpuFunc.addPass(createWaveScheduleTilesDynamically());
  lowering.addPass(mlir::createCanonicalizerPass(folding));
  lowering.addPass(mlir::createCSEPass());
  lowering.addPass(mlir::createLowerAffinePass());
  // Index arithmetic of thread ids, loop counters and tile offsets is never negative: with
  // the ranges proven, floordiv and mod lose their sign fix-ups and become unsigned. (What
  // arith-int-range-optimizations folded, the lowering now writes folded: the grid's size
  // where it is static, lane and wave digits by their ranges. It took a tenth of a compile.)
  lowering.addNestedPass<mlir::gpu::GPUModuleOp>(mlir::arith::createArithUnsignedWhenEquivalentPass());
  // Addresses from lane and wave ids (fragments, tile offsets) out of the K loop: LLVM no
  // longer runs its LICM, and ptxas left them in the loop (a 64x64 GEMM 14% slower).
  lowering.addNestedPass<mlir::gpu::GPUModuleOp>(mlir::createLoopInvariantCodeMotionPass());
  lowering.addNestedPass<mlir::gpu::GPUModuleOp>(createWaveFactorPositiveScales());
  lowering.addNestedPass<mlir::gpu::GPUModuleOp>(createWaveVectorSlicesToElements());
  if (!amd) {
    lowering.addNestedPass<mlir::gpu::GPUModuleOp>(createWaveLowerExp2ToNVVM());  // NVVM from here on
    lowering.addNestedPass<mlir::gpu::GPUModuleOp>(createWaveLowerF8ToNVVM());
  }
  if (mlir::failed(lowering.run(module)) || (!verifyEach && mlir::failed(mlir::verify(module))))
    throw first.error(kernelName, "lowering", "cannot lower the kernel to GPU code");
  loweringTiming.stop();

  PtxKernel result;
  module->walk([&](mlir::gpu::GPUFuncOp f) {
    result.entry = f.getName().str();
    if (auto layout = f->getAttrOfType<dialect::ThreadLayoutAttr>("wave.thread_layout")) {
      f->removeAttr("wave.thread_layout");  // read here; LLVM IR has no place for it
      for (auto [dim, tile, axis] : llvm::zip(layout.getDims(), layout.getBlockTile().asArrayRef(),
                                              layout.getGridAxis().asArrayRef()))
        if (axis >= 0)
          result.grid_dims[axis] = {llvm::cast<mlir::StringAttr>(dim).getValue().str(), static_cast<unsigned>(tile)};
    }
    if (auto slices = f->getAttrOfType<mlir::DictionaryAttr>("wave.rank_slices")) {
      f->removeAttr("wave.rank_slices");
      for (PtxKernel::GridDim& g : result.grid_dims)
        if (auto slice = slices.getAs<mlir::IntegerAttr>(g.dim)) g.extent = slice.getInt();
    }
    // Axes over a dim set in subs have a fixed size; those over a dynamic dim wait (0).
    std::map<std::string, std::int64_t> known;
    for (const Sub& s : options.subs)
      if (!s.is_address_space) known[s.symbol] = s.value;
    result.grid = result.grid_for(known);
    for (int i = 0; i < 3; ++i)
      if (!result.grid_dims[i].dim.empty() && !known.count(result.grid_dims[i].dim)) result.grid[i] = 0;
    if (auto shared = f->getAttrOfType<mlir::IntegerAttr>("wave.shared_memory_bytes")) {
      result.shared_bytes = static_cast<unsigned>(shared.getInt());
      f->removeAttr("wave.shared_memory_bytes");
    }
    // Kept on the function: the codegen passes the maps by value (tensorMapParameters).
    if (auto maps = f->getAttrOfType<mlir::ArrayAttr>("wave.tensor_maps"))
      for (auto map : maps.getAsRange<mlir::DictionaryAttr>()) {
        PtxKernel::TensorMap& m = result.tensor_maps.emplace_back();
        m.argument = static_cast<unsigned>(map.getAs<mlir::IntegerAttr>("argument").getInt());
        m.swizzle = static_cast<unsigned>(map.getAs<mlir::IntegerAttr>("swizzle").getInt());
        for (int64_t extent : map.getAs<mlir::DenseI64ArrayAttr>("box").asArrayRef())
          m.box.push_back(static_cast<unsigned>(extent));
      }
    if (f->hasAttr("wave.persistent")) {
      result.persistent = true;
      f->removeAttr("wave.persistent");
    }
    if (f->hasAttr("wave.tile_counter")) {
      result.tile_counter = true;
      f->removeAttr("wave.tile_counter");
    }
    if (auto slot = f->getAttrOfType<mlir::IntegerAttr>("wave.stream_k_slot_bytes")) {
      result.stream_k_slot_bytes = static_cast<unsigned>(slot.getInt());
      f->removeAttr("wave.stream_k_slot_bytes");
    }
    result.cluster_size = static_cast<unsigned>(clusterSize(f));
    if (auto block = f.getKnownBlockSizeAttr())
      for (int i = 0; i < 3; ++i) result.block[i] = static_cast<unsigned>(block[i]);
  });
  result.target = options.target;
  // What one workgroup may have (past it the launch would fail with no word of why).
  const int64_t maxShared = sharedBytes(target);
  if (result.shared_bytes > maxShared)
    throw Error(kernelName, "compile", "", 0,
                "shared memory: " +
                    expected_found("at most " + std::to_string(maxShared) + " bytes per workgroup on " + options.target +
                                       (amd ? " (LDS)" : ""),
                                   std::to_string(result.shared_bytes) +
                                       (amd ? " bytes: smaller tiles (AMD tiles are not multi-buffered)"
                                            : " bytes: smaller tiles or fewer pipeline_stages")));
  if (amd) {
    mlir::TimingScope codegenTiming = timing ? timing->nest("codegen (ROCDL pipeline, LLVM, HSACO)") : mlir::TimingScope();
    auto hsaco = compileToHsaco(module, {.chip = options.target,
                                         .verifyEachPass = verifyEach,
                                         .timing = timing ? &codegenTiming : nullptr,
                                         .dumpDir = dumpDir.empty() ? std::string() : dumpDir + "/codegen"});
    if (mlir::failed(hsaco)) throw first.error(kernelName, "codegen", "cannot compile the GPU code to HSACO");
    result.hsaco = std::move(hsaco->object);
    result.amdgpu_assembly = std::move(hsaco->assembly);
    if (!dumpDir.empty()) {
      std::ofstream(dumpDir + "/" + kernelName + ".s") << result.amdgpu_assembly;
      std::ofstream(dumpDir + "/" + kernelName + ".hsaco", std::ios::binary) << result.hsaco;
    }
    return result;
  }
  mlir::TimingScope codegenTiming = timing ? timing->nest("codegen (NVVM pipeline, LLVM, PTX)") : mlir::TimingScope();
  const NvptxOptions nvptx{.chip = options.target,
                           .features = ptxFeatures(options.target, usesF8(module) ? 84 : usesVectorRed(module) ? 81 : 80),
                           .llvmPasses = llvmPasses(),
                           .verifyEachPass = verifyEach,
                           .timing = timing ? &codegenTiming : nullptr,
                           .dumpDir = dumpDir.empty() ? std::string() : dumpDir + "/codegen"};
  auto ptx = compileToPtx(module, nvptx);
  if (mlir::failed(ptx)) throw first.error(kernelName, "codegen", "cannot compile the GPU code to PTX");
  result.ptx = std::move(*ptx);
  if (!dumpDir.empty()) std::ofstream(dumpDir + "/" + kernelName + ".ptx") << result.ptx;
  return result;
}


namespace {
// An error of the whole kernel, that no op of the user's line has (its shared memory, a
// code generator's failure), at the kernel's definition.
[[noreturn]] void rethrowAtDefinition(const Error& e, const graph::KernelGraph& kernel) {
  if (!e.file().empty() || kernel.loc.file.empty()) throw e;
  throw Error(e.kernel(), e.op(), kernel.loc.file, kernel.loc.line, e.message());
}
}  // namespace

PtxKernel compile_to_ptx(const graph::KernelGraph& kernel, const CompileOptions& given) try {
  const CompileOptions options = withTarget(given);
  checkKernelForTarget(kernel, options);  // an unknown target among them, before any work
  check_mapping_bounds(kernel, options.subs);
  // One tree of times for the whole compile, printed to stderr when it ends.
  mlir::DefaultTimingManager timingManager;
  timingManager.setEnabled(timingRequested(options));
  mlir::TimingScope root = timingManager.getRootScope();
  mlir::TimingScope* timing = timingManager.isEnabled() ? &root : nullptr;

  mlir::MLIRContext ctx;
  FirstError first(&ctx);
  mlir::TimingScope importTiming = root.nest("import (trace graph -> wave IR, verify)");
  mlir::OwningOpRef<mlir::ModuleOp> module = importVerified(ctx, kernel, options, first);
  if (auto edited = overrideFor(options, kernel.name, "0-wave.mlir")) {
    // The traced IR checked the kernel's signature; the edited IR replaces its body.
    module = mlir::parseSourceFile<mlir::ModuleOp>(edited->string(), &ctx);
    if (!module || mlir::failed(mlir::verify(*module)))
      throw first.error(kernel.name, "override",
                        "expected valid wave IR in " + edited->string() + ", but it does not parse or verify");
  }
  importTiming.stop();
  // A compile asked to dump its stages runs them (a cache hit would skip them), and one
  // whose PTX is replaced keeps it out of the cache.
  const std::optional<std::filesystem::path> editedPtx = overrideFor(options, kernel.name, kernel.name + ".ptx");
  if (!options.cache || !dumpDirFor(options, kernel.name).empty() || editedPtx) {
    PtxKernel built = compileWaveModule(*module, kernel.name, options, first, timing);
    if (editedPtx) built.ptx = fileText(*editedPtx);
    return built;
  }

  KernelCache& cache = cacheFor(options.cache_dir);
  mlir::TimingScope lookupTiming = root.nest("kernel cache lookup");
  const std::string key = cacheKey(*module, options);
  std::optional<std::string> hit = cache.lookup(key);
  lookupTiming.stop();
  if (hit) return deserialize(*hit);
  PtxKernel built = compileWaveModule(*module, kernel.name, options, first, timing);
  cache.store(key, serialize(built));
  return built;
} catch (const Error& e) {
  rethrowAtDefinition(e, kernel);
}

}  // namespace wave::jit
