#include "target/LlvmCodegen.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

namespace wave::jit {

mlir::LogicalResult runLlvmPasses(llvm::Module& module, llvm::TargetMachine& machine, llvm::StringRef passes,
                                  mlir::gpu::GPUModuleOp op) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline;
  if (llvm::Error error = builder.parsePassPipeline(pipeline, passes))
    return op.emitError() << "LLVM passes '" << passes << "': " << llvm::toString(std::move(error));
  pipeline.run(module, modules);
  return mlir::success();
}

mlir::FailureOr<std::string> emitMachineCode(llvm::Module& module, llvm::TargetMachine& machine,
                                             llvm::CodeGenFileType type, mlir::gpu::GPUModuleOp op) {
  std::string out;
  {
    llvm::raw_string_ostream stream(out);
    llvm::buffer_ostream buffered(stream);  // written to `out` when it goes
    llvm::legacy::PassManager codegen;
    if (machine.addPassesToEmitFile(codegen, buffered, nullptr, type))
      return op.emitError() << "LLVM's " << machine.getTarget().getName() << " back end cannot emit "
                            << (type == llvm::CodeGenFileType::ObjectFile ? "an object" : "assembly");
    codegen.run(module);
  }
  return out;
}

}  // namespace wave::jit
