// Every device benchmark in one binary, so that one copy of the static LLVM/MLIR goes to a
// GPU machine (the carry is 64 MiB; each static binary is about 21 MiB compressed):
//   wave-bench NAME [arguments]    NAME: gemm, attention, paged-decode, varlen-attention,
//                                  extend-attention, moe, conv2d, softmax, memory-bound,
//                                  collectives, tensor-parallel
// or through a link named wave-bench-NAME (what the bench/*.py scripts run).
#include <cstdio>
#include <cstring>
#include <string>

int wave_bench_gemm_main(int, char**);
int wave_bench_attention_main(int, char**);
int wave_bench_paged_decode_main(int, char**);
int wave_bench_varlen_attention_main(int, char**);
int wave_bench_extend_attention_main(int, char**);
int wave_bench_moe_main(int, char**);
int wave_bench_conv2d_main(int, char**);
int wave_bench_softmax_main(int, char**);
int wave_bench_memory_bound_main(int, char**);
int wave_bench_collectives_main(int, char**);
int wave_bench_tensor_parallel_main(int, char**);

int main(int argc, char** argv) {
  struct Bench {
    const char* name;
    int (*main)(int, char**);
  };
  const Bench benches[] = {{"gemm", wave_bench_gemm_main},
                           {"attention", wave_bench_attention_main},
                           {"paged-decode", wave_bench_paged_decode_main},
                           {"varlen-attention", wave_bench_varlen_attention_main},
                           {"extend-attention", wave_bench_extend_attention_main},
                           {"moe", wave_bench_moe_main},
                           {"conv2d", wave_bench_conv2d_main},
                           {"softmax", wave_bench_softmax_main},
                           {"memory-bound", wave_bench_memory_bound_main},
                           {"collectives", wave_bench_collectives_main},
                           {"tensor-parallel", wave_bench_tensor_parallel_main}};
  const std::string self = argv[0];
  const std::string base = self.substr(self.rfind('/') + 1);
  for (const Bench& b : benches) {
    if (base == std::string("wave-bench-") + b.name) return b.main(argc, argv);
    if (argc > 1 && !std::strcmp(argv[1], b.name)) return b.main(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "usage: %s gemm|attention|paged-decode|varlen-attention|extend-attention|moe|conv2d|softmax|memory-bound|collectives|tensor-parallel [arguments]\n", argv[0]);
  return 2;
}
