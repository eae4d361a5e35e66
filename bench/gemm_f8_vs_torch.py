"""The scaled f8 GEMM against torch._scaled_mm (cuBLASLt's FP8 GEMM) in the same run:
E4M3 A[M, K] and B[N, K] (B passed to _scaled_mm as the column-major K x N it takes),
per-tensor f32 scales, bf16 out, partial sums promoted to f32 (_scaled_mm's default; its
use_fast_accum=True timed beside it); runs `wave-bench-gemm --f8` and prints each shape's best
wave-cpp tiling as a ratio to torch.

    python3 bench/gemm_f8_vs_torch.py path/to/wave-bench-gemm
"""
import subprocess
import sys

import torch

from compare import best_by_shape, median_ms


def main():
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    reference = {}
    for size in (4096, 8192):
        a = (torch.rand(size, size, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
        b = (torch.rand(size, size, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
        sa = torch.tensor(0.75, device="cuda")
        sb = torch.tensor(1.25, device="cuda")
        run = lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
        # Checked once against float64 on a corner of the output.
        want = (a[:64].double() @ b[:64].t().double()) * 0.75 * 1.25
        assert torch.allclose(run()[:64, :64].double(), want, rtol=1e-2, atol=1e-2)
        ms = median_ms(run)
        fast = lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,
                                        use_fast_accum=True)
        fast_ms = median_ms(fast)
        flops = 2.0 * size ** 3
        reference[("e4m3", size, size, size)] = flops / (ms * 1e9)
        # The default promotes partial sums to f32 as wave-cpp does; use_fast_accum keeps
        # them in wgmma's narrower accumulator (faster, less accurate).
        print(f"_scaled_mm e4m3 {size:6d}^3 bf16 out {ms:8.3f} ms {flops / (ms * 1e9):7.1f} TFLOP/s"
              f"   use_fast_accum {fast_ms:8.3f} ms {flops / (fast_ms * 1e9):7.1f} TFLOP/s")
    sys.stdout.flush()
    out = subprocess.run([sys.argv[1], "--f8"], capture_output=True, text=True).stdout
    print(out)
    best = best_by_shape(out, "gemm8", lambda f: (f[1], int(f[2]), int(f[3]), int(f[4])), lambda f: float(f[11]),
                         lambda f: f"{f[5]}x{f[6]}x{f[7]}/{f[8]}x{f[9]}")
    print(f"{'in':>4} {'M':>6} {'N':>6} {'K':>6} {'wave TFLOP/s':>13} {'tiles':>16} {'_scaled_mm':>11} {'ratio':>6}")
    for key, (tflops, tiles) in best.items():
        ref = reference[key]
        print(f"{key[0]:>4} {key[1]:6d} {key[2]:6d} {key[3]:6d} {tflops:13.1f} {tiles:>16} {ref:11.1f} {tflops / ref:6.3f}")


if __name__ == "__main__":
    main()
