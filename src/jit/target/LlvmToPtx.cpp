#include "target/LlvmToPtx.h"

#include "target/LlvmCodegen.h"

#include <cstdlib>
#include <memory>
#include <mutex>

#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/Internalize.h"

namespace wave::jit {

namespace {

constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

// Loop strength reduction rewrites each address in the K loop around one induction
// variable per stride: for a 128x128x64 GEMM it cost 40 ms of 70 in code generation, and
// ptxas then kept 29 more registers live than without it. Its switch is a command-line
// option of LLVM's code generator (no API sets it), turned on once for the process.
void initializeNvptxBackEnd() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    auto& options = llvm::cl::getRegisteredOptions();
    if (auto it = options.find("disable-lsr"); it != options.end())
      if (auto* disable = static_cast<llvm::cl::opt<bool>*>(it->second)) disable->setValue(true);
  });
}

// CUDA's libdevice, where the math functions MLIR has no NVVM instruction for live (tanh,
// log2, rsqrt, erf: `__nv_*`). Searched where MLIR searches ($CUDA_ROOT, $CUDA_HOME,
// $CUDA_PATH) and where CUDA installs it.
std::string findLibdevice() {
  for (llvm::StringRef root : {mlir::NVVM::getCUDAToolkitPath(), llvm::StringRef("/usr/local/cuda")}) {
    if (root.empty()) continue;
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::is_regular_file(path)) return path.str().str();
  }
  constexpr llvm::StringLiteral debian = "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc";
  return llvm::sys::fs::is_regular_file(debian) ? debian.str() : std::string();
}

// The first libdevice function `module` calls, if any.
llvm::StringRef firstLibdeviceCall(const llvm::Module& module) {
  for (const llvm::Function& f : module)
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) return f.getName();
  return {};
}

// Links the libdevice functions `module` calls (only those), internal to it so they are
// inlined and dropped. Returns whether it linked any.
mlir::FailureOr<bool> linkLibdevice(llvm::Module& module, mlir::gpu::GPUModuleOp op) {
  const llvm::StringRef callee = firstLibdeviceCall(module);
  if (callee.empty()) return false;
  const std::string path = findLibdevice();
  if (path.empty())
    return op.emitError() << "a math op of the kernel lowers to a call to libdevice's `" << callee
                          << "`, but CUDA's libdevice.10.bc was not found: expected it under $CUDA_HOME/nvvm/libdevice";
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> libdevice = llvm::getLazyIRFileModule(path, error, module.getContext());
  if (!libdevice) return op.emitError() << "cannot read " << path << ": " << error.getMessage().str();
  libdevice->setDataLayout(module.getDataLayout());
  libdevice->setTargetTriple(module.getTargetTriple());
  const bool failed =
      llvm::Linker::linkModules(module, std::move(libdevice), llvm::Linker::Flags::LinkOnlyNeeded,
                                [](llvm::Module& linked, const llvm::StringSet<>& imported) {
                                  llvm::internalizeModule(linked, [&](const llvm::GlobalValue& gv) {
                                    return !gv.hasName() || !imported.contains(gv.getName());
                                  });
                                });
  if (failed) return op.emitError() << "cannot link " << path;
  return true;
}

}  // namespace

// MLIR has folded and CSE'd the IR, and ptxas optimizes what it assembles: LLVM's -O3 pipeline
// (InstCombine, DSE, GVN, LICM, unrolling) spent 90 ms of a 128x128x64 GEMM's compile and
// hoisted invariant addresses out of the K loop, which ptxas then kept live (244 registers,
// 168 after early CSE alone; flash attention 164 and 131). Early CSE merges the index
// arithmetic each fragment repeats.
std::string defaultLlvmPasses() { return "function(early-cse<memssa>)"; }

mlir::FailureOr<std::string> translateToPtx(mlir::gpu::GPUModuleOp module, const LlvmToPtxOptions& options) {
  initializeNvptxBackEnd();
  std::string error;
  const llvm::Triple triple(kTriple);
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return module.emitError() << "no LLVM target for " << kTriple << ": " << error;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.chip, options.features, {}, std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine) return module.emitError() << "LLVM cannot target " << options.chip << " " << options.features;

  mlir::TimingScope root = options.timing ? options.timing->nest("LLVM -> PTX") : mlir::TimingScope();
  mlir::TimingScope step = root.nest("translate to LLVM IR, link libdevice");
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> ir = mlir::translateModuleToLLVMIR(module, context, module.getName());
  if (!ir) return module.emitError() << "cannot translate the kernel to LLVM IR";
  ir->setDataLayout(machine->createDataLayout());
  ir->setTargetTriple(triple);
  if (!options.dumpDir.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream out(options.dumpDir + "/" + module.getName().str() + ".ll", ec);
    if (!ec) ir->print(out, nullptr);
  }

  mlir::FailureOr<bool> callsLibdevice = linkLibdevice(*ir, module);
  if (mlir::failed(callsLibdevice)) return mlir::failure();
  // Libdevice's functions are `alwaysinline` and branch on __nvvm_reflect (the GPU, whether
  // denormals flush): inlined, the reflect folded, the untaken branches gone.
  const std::string passes =
      (*callsLibdevice ? "always-inline,nvvm-reflect,function(simplifycfg)," : "") +
      (options.passes.empty() ? defaultLlvmPasses() : options.passes);
  step.stop();
  step = root.nest("LLVM passes: " + passes);
  if (mlir::failed(runLlvmPasses(*ir, *machine, passes, module))) return mlir::failure();
  step.stop();
  step = root.nest("NVPTX code generation");

  return emitMachineCode(*ir, *machine, llvm::CodeGenFileType::AssemblyFile, module);
}

}  // namespace wave::jit
