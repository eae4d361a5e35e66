#include "target/LlvmToHsaco.h"

#include "target/LlvmCodegen.h"

#include <memory>
#include <mutex>

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#if WAVE_AMDGPU
#include "lld/Common/Driver.h"
LLD_HAS_DRIVER(elf)
#endif

namespace wave::jit {

#if WAVE_AMDGPU

namespace {

constexpr llvm::StringLiteral kTriple = "amdgcn-amd-amdhsa";
// Code object version 5 (ROCm 5.x and later): the kernel's metadata as a MessagePack note.
constexpr int kCodeObjectVersion = 500;

void initializeAmdgpuBackEnd() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
}

// Nothing optimizes after LLVM on this path (no ptxas): its whole -O3 pipeline runs, as
// upstream's ROCDL target runs it.
constexpr llvm::StringLiteral kPasses = "default<O3>";

// `module` as assembly or an object, from a copy (code generation changes the IR it
// runs on, and both are made).
mlir::FailureOr<std::string> emit(const llvm::Module& module, llvm::TargetMachine& machine,
                                  llvm::CodeGenFileType type, mlir::gpu::GPUModuleOp op) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  return emitMachineCode(*copy, machine, type, op);
}

// Links a relocatable object into a code object (a shared ELF, as the HIP runtime loads),
// with lld's ELF driver in process. lld keeps global state per link, so one at a time.
mlir::FailureOr<std::string> linkCodeObject(llvm::StringRef object, mlir::gpu::GPUModuleOp op) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  llvm::SmallString<128> objectPath, hsacoPath;
  int fd = -1;
  if (llvm::sys::fs::createTemporaryFile("wave-kernel", "o", fd, objectPath))
    return op.emitError() << "cannot create a temporary file for the AMDGPU object";
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << object;
  }
  if (llvm::sys::fs::createTemporaryFile("wave-kernel", "hsaco", hsacoPath)) {
    llvm::sys::fs::remove(objectPath);
    return op.emitError() << "cannot create a temporary file for the code object";
  }
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(objectPath);
    llvm::sys::fs::remove(hsacoPath);
  });
  std::string messages;
  llvm::raw_string_ostream diagnostics(messages);
  const char* args[] = {"ld.lld", "-shared", "--no-undefined", objectPath.c_str(), "-o", hsacoPath.c_str()};
  const lld::Result linked = lld::lldMain(args, diagnostics, diagnostics, {{lld::Gnu, &lld::elf::link}});
  if (linked.retCode != 0) return op.emitError() << "lld cannot link the AMDGPU code object: " << messages;
  auto hsaco = llvm::MemoryBuffer::getFile(hsacoPath, /*IsText=*/false);
  if (!hsaco) return op.emitError() << "cannot read the linked code object " << hsacoPath;
  return (*hsaco)->getBuffer().str();
}

}  // namespace

bool amdgpuBackEndBuilt() { return true; }

mlir::FailureOr<Hsaco> translateToHsaco(mlir::gpu::GPUModuleOp module, const LlvmToHsacoOptions& options) {
  initializeAmdgpuBackEnd();
  std::string error;
  const llvm::Triple triple(kTriple);
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return module.emitError() << "no LLVM target for " << kTriple << ": " << error;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.chip, "", {}, llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine) return module.emitError() << "LLVM cannot target " << options.chip;

  mlir::TimingScope root = options.timing ? options.timing->nest("LLVM -> HSACO") : mlir::TimingScope();
  mlir::TimingScope step = root.nest("translate to LLVM IR");
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> ir = mlir::translateModuleToLLVMIR(module, context, module.getName());
  if (!ir) return module.emitError() << "cannot translate the kernel to LLVM IR";
  ir->setDataLayout(machine->createDataLayout());
  ir->setTargetTriple(triple);
  ir->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", kCodeObjectVersion);
  if (!options.dumpDir.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream out(options.dumpDir + "/" + module.getName().str() + ".ll", ec);
    if (!ec) ir->print(out, nullptr);
  }
  step.stop();
  step = root.nest("LLVM passes: " + kPasses.str());
  if (mlir::failed(runLlvmPasses(*ir, *machine, kPasses, module))) return mlir::failure();
  step.stop();
  step = root.nest("AMDGPU code generation");
  Hsaco result;
  mlir::FailureOr<std::string> assembly = emit(*ir, *machine, llvm::CodeGenFileType::AssemblyFile, module);
  mlir::FailureOr<std::string> object = emit(*ir, *machine, llvm::CodeGenFileType::ObjectFile, module);
  if (mlir::failed(assembly) || mlir::failed(object)) return mlir::failure();
  result.assembly = std::move(*assembly);
  if (!options.dumpDir.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream out(options.dumpDir + "/" + module.getName().str() + ".s", ec);
    if (!ec) out << result.assembly;
  }
  step.stop();
  step = root.nest("lld: link the code object");
  mlir::FailureOr<std::string> hsaco = linkCodeObject(*object, module);
  if (mlir::failed(hsaco)) return mlir::failure();
  result.object = std::move(*hsaco);
  return result;
}

#else

bool amdgpuBackEndBuilt() { return false; }

mlir::FailureOr<Hsaco> translateToHsaco(mlir::gpu::GPUModuleOp module, const LlvmToHsacoOptions&) {
  return module.emitError() << "this build of wave-cpp has no AMDGPU back end (configured with WAVE_AMDGPU=OFF)";
}

#endif

}  // namespace wave::jit
