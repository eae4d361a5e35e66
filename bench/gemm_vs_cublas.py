"""GEMM against cuBLAS in the same run: times torch.matmul (cuBLAS) on the shapes of
wave-bench-gemm (f16 and bf16 in; f32 out as wave-cpp computes it, and 16-bit out as
cuBLAS usually runs), runs wave-bench-gemm, and prints each shape's best wave-cpp configuration as a
ratio to cuBLAS.

    python3 bench/gemm_vs_cublas.py path/to/wave-bench-gemm [--schedules]

(Arguments after the bench's path go to it: with --schedules, each shape's best of the
eight schedules, named beside its tiling; with --split-k, the skinny shapes' best split.)
"""
import subprocess
import sys

import torch

from compare import best_by_shape, median_ms


def main():
    shapes = [(4096, 4096, 4096), (8192, 8192, 8192), (2048, 10240, 1280), (128, 1280, 5120), (4000, 4000, 4000),
              (128, 4096, 8192), (256, 2048, 8192)]  # the last two: --split-k's
    cublas = {}
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    for dtype, name in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(n, k, device="cuda", dtype=dtype)
            flops = 2.0 * m * n * k
            ms16 = median_ms(lambda: torch.matmul(a, b.t()))
            # f32 output: cuBLAS writing an f32 C (torch.mm's out_dtype), checked against
            # float64 once; without out_dtype in this torch there is no f32-out figure.
            try:
                want = a[:64].double() @ b[:64].t().double()
                got = torch.mm(a, b.t(), out_dtype=torch.float32)
                # f32 accumulation over K: rounding grows like sqrt(K) ulps of the sums.
                assert got.dtype == torch.float32 and torch.allclose(got[:64, :64].double(), want, rtol=1e-3,
                                                                     atol=2e-4 * k ** 0.5)
                ms32 = median_ms(lambda: torch.mm(a, b.t(), out_dtype=torch.float32))
            except TypeError:
                ms32 = float("nan")
            cublas[(name, m, n, k)] = (flops / (ms16 * 1e9), flops / (ms32 * 1e9))
            print(f"cublas {name:4} {m:6d} {n:6d} {k:6d}  {name} out {ms16:8.3f} ms {flops / (ms16 * 1e9):7.1f} TFLOP/s"
                  f"   f32 out {ms32:8.3f} ms {flops / (ms32 * 1e9):7.1f} TFLOP/s")
    sys.stdout.flush()
    out = subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout
    print(out)
    # (--schedules names each line's schedule after its rate.)
    schedule = lambda f: " " + " ".join(f[12:]) if len(f) > 12 and f[12][0].isalpha() else ""
    best = best_by_shape(out, "gemm", lambda f: (f[1], int(f[2]), int(f[3]), int(f[4])), lambda f: float(f[11]),
                         lambda f: f"{f[5]}x{f[6]}x{f[7]}/{f[8]}x{f[9]}{schedule(f)}")
    print(f"{'in':>4} {'M':>6} {'N':>6} {'K':>6} {'wave TFLOP/s':>13} {'tiles':>40} {'cuBLAS 16-bit out':>18}"
          f" {'ratio':>6} {'cuBLAS f32 out':>15} {'ratio':>6}")
    for key, (tflops, tiles) in best.items():
        c16, c32 = cublas[key]
        print(f"{key[0]:>4} {key[1]:6d} {key[2]:6d} {key[3]:6d} {tflops:13.1f} {tiles:>40} {c16:18.1f} {tflops / c16:6.3f}"
              f" {c32:15.1f} {tflops / c32:6.3f}")


if __name__ == "__main__":
    main()
