// The NVPTX target stage: upstream GPU IR to PTX, in process.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "target/NvptxTarget.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

using Catch::Matchers::Contains;

namespace {

// A masked copy of n f16 elements, 8 per thread, in the form the wave lowering will emit.
constexpr const char* kCopyKernel = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%a: memref<4097xf16>, %b: memref<4097xf16>, %n: index) kernel {
      %c8 = arith.constant 8 : index
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %t = arith.muli %bid, %bdim : index
      %g = arith.addi %t, %tid : index
      %i = arith.muli %g, %c8 : index
      %rem = arith.subi %n, %i : index
      %mask = vector.create_mask %rem : vector<8xi1>
      %pad = arith.constant dense<0.0> : vector<8xf16>
      %v = vector.maskedload %a[%i], %mask, %pad : memref<4097xf16>, vector<8xi1>, vector<8xf16> into vector<8xf16>
      vector.maskedstore %b[%i], %mask, %v : memref<4097xf16>, vector<8xi1>, vector<8xf16>
      gpu.return
    }
  }
}
)mlir";

std::string compile(const wave::jit::NvptxOptions& options) {
  mlir::DialectRegistry registry;
  wave::jit::registerNvptxTarget(registry);
  mlir::MLIRContext ctx(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kCopyKernel, &ctx);
  REQUIRE(module);
  auto ptx = wave::jit::compileToPtx(*module, options);
  REQUIRE(mlir::succeeded(ptx));
  return *ptx;
}

}  // namespace

TEST_CASE("upstream GPU IR compiles to PTX for the chosen target", "[target][ptx]") {
  const std::string ptx = compile({});
  CHECK_THAT(ptx, Contains(".target sm_90a"));
  CHECK_THAT(ptx, Contains(".visible .entry copy("));
  CHECK_THAT(ptx, Contains("ld.global"));
  CHECK_THAT(ptx, Contains("st.global"));
  // Bare-pointer calling convention: two pointers and the count, no memref descriptors.
  CHECK_THAT(ptx, Contains("copy_param_2"));
  CHECK_FALSE(ptx.find("copy_param_3") != std::string::npos);

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
