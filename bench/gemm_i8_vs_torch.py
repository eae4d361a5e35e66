"""The int8 GEMM against torch._int_mm (cuBLASLt's int8 GEMM, i32 out) in the same run:
i8 A[M, K] and B[N, K] (B passed to _int_mm as the column-major K x N it takes); runs
`wave-bench-gemm --i8` and prints each shape's best wave-cpp tiling as a ratio to torch.

    python3 bench/gemm_i8_vs_torch.py path/to/wave-bench-gemm
"""
import subprocess
import sys

import torch

from compare import best_by_shape, median_ms


def main():
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    reference = {}
    for size in (4096, 8192):
        a = torch.randint(-128, 128, (size, size), device="cuda", dtype=torch.int8)
        b = torch.randint(-128, 128, (size, size), device="cuda", dtype=torch.int8)
        run = lambda: torch._int_mm(a, b.t())
        # Checked once, exactly, on a corner of the output.
        want = a[:64].cpu().long() @ b[:64].cpu().t().long()
        assert torch.equal(run()[:64, :64].cpu().long(), want)
        ms = median_ms(run)
        ops = 2.0 * size ** 3
        reference[("i8", size, size, size)] = ops / (ms * 1e9)
        print(f"_int_mm i8 {size:6d}^3 i32 out {ms:8.3f} ms {ops / (ms * 1e9):7.1f} TOP/s")
    sys.stdout.flush()
    out = subprocess.run([sys.argv[1], "--i8"], capture_output=True, text=True).stdout
    print(out)
    best = best_by_shape(out, "gemmi8", lambda f: (f[1], int(f[2]), int(f[3]), int(f[4])), lambda f: float(f[11]),
                         lambda f: f"{f[5]}x{f[6]}x{f[7]}/{f[8]}x{f[9]}")
    print(f"{'in':>4} {'M':>6} {'N':>6} {'K':>6} {'wave TOP/s':>11} {'tiles':>16} {'_int_mm':>8} {'ratio':>6}")
    for key, (tops, tiles) in best.items():
        ref = reference[key]
        print(f"{key[0]:>4} {key[1]:6d} {key[2]:6d} {key[3]:6d} {tops:11.1f} {tiles:>16} {ref:8.1f} {tops / ref:6.3f}")


if __name__ == "__main__":
    main()
