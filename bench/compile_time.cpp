// Cold compile times (trace graph -> PTX, kernel cache off) of the kernels the other
// benchmarks run at their winning tilings: the median and the fastest of 9 compiles after
// one warm-up (the first compile in a process also pays for loading dialects and LLVM's
// target). Host CPU only; no GPU is needed. Loading the PTX (the driver's ptxas) is not
// counted: it happens at the first launch.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <wave/wave.hpp>

#include "kernels/decode_attention.hpp"
#include "kernels/flash_attention.hpp"
#include "kernels/gemm.hpp"

using namespace wave;

namespace {

using examples::gemm::WAVE_M;
using examples::gemm::WAVE_N;

void time(const std::string& what, const graph::KernelGraph& graph, CompileOptions options) {
  options.cache = false;
  std::vector<double> ms;
  for (int i = 0; i < 10; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)jit::compile_to_ptx(graph, options);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  ms.erase(ms.begin());  // the warm-up
  std::sort(ms.begin(), ms.end());
  std::printf("%-48s %9.1f %9.1f\n", what.c_str(), ms[ms.size() / 2], ms.front());
  std::fflush(stdout);
}

}  // namespace

int main() {
  std::printf("%-48s %9s %9s\n", "kernel", "median ms", "min ms");
  namespace g = examples::gemm;
  struct GemmTiles { int m, n, k, wm, wn; };
  for (GemmTiles t : {GemmTiles{128, 128, 64, 64, 64}, GemmTiles{128, 128, 64, 64, 32}, GemmTiles{128, 256, 64, 64, 64},
                      GemmTiles{64, 64, 64, 32, 32}})
    for (bool bf : {false, true}) {
      const CompileOptions o{.subs = {{g::M, 4096}, {g::N, 4096}, {g::K, 4096}, {g::BLOCK_M, t.m}, {g::BLOCK_N, t.n},
                                      {g::BLOCK_K, t.k}, {WAVE_M, t.wm}, {WAVE_N, t.wn}}};
      const std::string name = std::string("gemm ") + (bf ? "bf16 " : "f16 ") + std::to_string(t.m) + "x" +
                               std::to_string(t.n) + "x" + std::to_string(t.k) + " / " + std::to_string(t.wm) + "x" +
                               std::to_string(t.wn);
      time(name, bf ? examples::gemm::make_with_wave_tiles<bf16>().trace(o) : examples::gemm::make_with_wave_tiles<f16>().trace(o), o);
    }
  namespace fa = examples::flash_attention;
  for (bool causal : {false, true})
    for (int block_k2 : {32, 64}) {
      const CompileOptions o{.subs = {{fa::B, 4}, {fa::H, 16}, {fa::M, 4096}, {fa::K2, 4096}, {fa::K1, 128}, {fa::N, 128},
                                      {fa::BLOCK_M, 128}, {fa::BLOCK_K2, block_k2}}};
      time(std::string("flash attention D 128, 128x") + std::to_string(block_k2) + "/4" + (causal ? ", causal" : ""),
           fa::make_kernel<f16>({.head_dim = 128, .causal = causal, .waves = 4}).trace(o), o);
    }
  namespace da = examples::decode_attention;
  const CompileOptions decode = da::default_options();
  time("decode attention D 128, BK2 128", da::make_kernel(128, 4).trace(decode), decode);
  return 0;
}
