// The NVPTX target stage: upstream GPU IR to PTX, in process.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "fixtures/masked_copy.hpp"
#include "target/NvptxTarget.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

using Catch::Matchers::Contains;

namespace {


// The PTX of `source`, or the diagnostics that failed it, prefixed "error: ".
std::string tryCompile(const char* source, const wave::jit::NvptxOptions& options) {
  mlir::DialectRegistry registry;
  wave::jit::registerNvptxTarget(registry);
  mlir::MLIRContext ctx(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &ctx);
  REQUIRE(module);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic& d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  auto ptx = wave::jit::compileToPtx(*module, options);
  return mlir::succeeded(ptx) ? *ptx : "error: " + diagnostics;
}

std::string compile(const wave::jit::NvptxOptions& options) {
  std::string ptx = tryCompile(wave::fixtures::kMaskedCopy, options);
  REQUIRE_FALSE(ptx.starts_with("error: "));
  return ptx;
}

// tanh of f32 has no PTX instruction (exact enough): it lowers to libdevice's __nv_tanhf.
constexpr const char* kTanh = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tanh(%a: memref<256xf32>) kernel {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<256xf32>
      %y = math.tanh %x : f32
      memref.store %y, %a[%tid] : memref<256xf32>
      gpu.return
    }
  }
}
)mlir";

bool haveLibdevice() {
  const char* home = std::getenv("CUDA_HOME");
  for (const std::string& root : {std::string(home ? home : ""), std::string("/usr/local/cuda")})
    if (!root.empty() && std::filesystem::exists(root + "/nvvm/libdevice/libdevice.10.bc")) return true;
  return std::filesystem::exists("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
}

}  // namespace

TEST_CASE("upstream GPU IR compiles to PTX for the chosen target", "[target][ptx]") {
  const std::string ptx = compile({});
  CHECK_THAT(ptx, Contains(".target sm_90a"));
  CHECK_THAT(ptx, Contains(".visible .entry copy("));
  CHECK_THAT(ptx, Contains("ld.global"));
  CHECK_THAT(ptx, Contains("st.global"));
  // Memref descriptors (pointer, pointer, offset, size, stride) for the two buffers, then
  // the count: 11 parameters.
  CHECK_THAT(ptx, Contains("copy_param_10"));
  CHECK_FALSE(ptx.find("copy_param_11") != std::string::npos);

  const std::string sm80 = compile({.chip = "sm_80", .features = "+ptx70"});
  CHECK_THAT(sm80, Contains(".target sm_80"));
  CHECK_THAT(sm80, Contains(".version 7.0"));
}

TEST_CASE("ptxas assembles the PTX for sm_90a without spills", "[target][ptx]") {
  const char* candidates[] = {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"};
  std::string ptxas;
  for (const char* c : candidates)
    if (std::FILE* f = std::fopen(c, "r")) {
      std::fclose(f);
      ptxas = c;
    }
  if (ptxas.empty()) {
    WARN("SKIPPED: no ptxas (CUDA toolkit) on this machine");
    return;
  }
  const std::string dir = std::filesystem::temp_directory_path() / "wave-ptx-test";
  std::filesystem::create_directories(dir);
  const std::string ptx_file = dir + "/copy.ptx", log_file = dir + "/ptxas.log";
  {
    std::ofstream out(ptx_file);
    out << compile({});
  }
  const std::string cmd = ptxas + " -arch=sm_90a -v " + ptx_file + " -o " + dir + "/copy.cubin > " +
                          log_file + " 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(log_file);
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  INFO(log);
  CHECK_THAT(log, Contains("0 bytes spill stores, 0 bytes spill loads"));
}

TEST_CASE("a math op without a PTX instruction gets libdevice's function, inlined", "[target][ptx]") {
  const std::string ptx = tryCompile(kTanh, {});
  if (!haveLibdevice()) {
    // Without CUDA's bitcode the compile stops at the op, saying what it lacks.
    CHECK_THAT(ptx, Contains("__nv_tanhf"));
    CHECK_THAT(ptx, Contains("libdevice.10.bc was not found"));
    return;
  }
  REQUIRE_FALSE(ptx.starts_with("error: "));
  CHECK_THAT(ptx, Contains(".visible .entry tanh("));
  CHECK_FALSE(ptx.find("__nv_") != std::string::npos);  // inlined: no call, no declaration
  CHECK_FALSE(ptx.find("call") != std::string::npos);
  CHECK_FALSE(ptx.find("__nvvm_reflect") != std::string::npos);
}

TEST_CASE("LLVM passes that do not parse are an error naming them", "[target][ptx]") {
  const std::string out = tryCompile(wave::fixtures::kMaskedCopy, {.llvmPasses = "function(no-such-pass)"});
  CHECK_THAT(out, Contains("error: "));
  CHECK_THAT(out, Contains("LLVM passes 'function(no-such-pass)'"));
  // A real pipeline in their place compiles.
  CHECK_THAT(compile({.llvmPasses = "function(instcombine)"}), Contains("st.global"));
}
