"""GEMM against cuBLAS in the same run: times torch.matmul (cuBLAS) on the shapes of
wave-bench-gemm (f16 in, f32 out as wave-cpp computes it, and f16 out as cuBLAS usually
runs), runs wave-bench-gemm, and prints each shape's best wave-cpp configuration as a
ratio to cuBLAS.

    python3 bench/gemm_vs_cublas.py path/to/wave-bench-gemm
"""
import subprocess
import sys

import torch


def median_ms(fn, warmup=3, runs=20):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[runs // 2]


def main():
    shapes = [(4096, 4096, 4096), (8192, 8192, 8192), (2048, 10240, 1280), (128, 1280, 5120)]
    cublas = {}
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(n, k, device="cuda", dtype=torch.float16)
        c32 = torch.empty(m, n, device="cuda", dtype=torch.float32)
        flops = 2.0 * m * n * k
        ms16 = median_ms(lambda: torch.matmul(a, b.t()))
        # f32 output: cuBLAS with an f32 C (out_dtype), where this torch has it.
        try:
            ms32 = median_ms(lambda: torch.matmul(a, b.t(), out_dtype=torch.float32, out=c32))
        except TypeError:
            ms32 = median_ms(lambda: torch.mm(a, b.t()).float())
        cublas[(m, n, k)] = (flops / (ms16 * 1e9), flops / (ms32 * 1e9))
        print(f"cublas {m:6d} {n:6d} {k:6d}  f16 out {ms16:8.3f} ms {cublas[(m, n, k)][0]:7.1f} TFLOP/s"
              f"   f32 out {ms32:8.3f} ms {cublas[(m, n, k)][1]:7.1f} TFLOP/s")
    sys.stdout.flush()
    out = subprocess.run([sys.argv[1]], capture_output=True, text=True).stdout
    print(out)
    best = {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "gemm":
            key = (int(f[1]), int(f[2]), int(f[3]))
            tflops = float(f[10])
            if tflops > best.get(key, (0, ""))[0]:
                best[key] = (tflops, f"{f[4]}x{f[5]}x{f[6]}/{f[7]}x{f[8]}")
    print(f"{'M':>6} {'N':>6} {'K':>6} {'wave TFLOP/s':>13} {'tiles':>16} {'cuBLAS f16':>11} {'ratio':>6}"
          f" {'cuBLAS f32':>11} {'ratio':>6}")
    for key, (tflops, tiles) in best.items():
        c16, c32 = cublas[key]
        print(f"{key[0]:6d} {key[1]:6d} {key[2]:6d} {tflops:13.1f} {tiles:>16} {c16:11.1f} {tflops / c16:6.3f}"
              f" {c32:11.1f} {tflops / c32:6.3f}")


if __name__ == "__main__":
    main()
