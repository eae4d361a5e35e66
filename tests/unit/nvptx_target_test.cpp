// The NVPTX target stage: upstream GPU IR to PTX, in process.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "fixtures/masked_copy.hpp"
#include "target/NvptxTarget.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

using Catch::Matchers::Contains;

namespace {


std::string compile(const wave::jit::NvptxOptions& options) {
  mlir::DialectRegistry registry;
  wave::jit::registerNvptxTarget(registry);
  mlir::MLIRContext ctx(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(wave::fixtures::kMaskedCopy, &ctx);
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
