"""Softmax against torch.softmax in the same run: times torch.softmax over the rows of the
f16 shapes of wave-bench-softmax (f16 in and out, f32 math inside), runs wave-bench-softmax,
and prints each shape's best wave-cpp layout as GB/s, as a ratio to torch, and as a ratio
to the copy of the same bytes measured by the bench.

    python3 bench/softmax_vs_torch.py path/to/wave-bench-softmax
"""
import subprocess
import sys

import torch

from compare import best_by_shape, median_ms


def main():
    shapes = [(4096, 4099), (16384, 4096), (32768, 1024), (8192, 8192)]
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    reference = {}
    for m, n in shapes:
        x = torch.randn(m, n, device="cuda", dtype=torch.float16)
        ms = median_ms(lambda: torch.softmax(x, dim=-1), warmup=5, runs=50)
        reference[(m, n)] = 2.0 * m * n * 2 / (ms * 1e6)
        print(f"torch.softmax {m:6d} {n:6d} {ms:8.4f} ms {reference[(m, n)]:8.1f} GB/s")
    sys.stdout.flush()
    out = subprocess.run([sys.argv[1]], capture_output=True, text=True).stdout
    print(out)
    copy = {(int(f[1]), int(f[2])): float(f[7]) for f in (l.split() for l in out.splitlines()) if f and f[0] == "copy"}
    best = best_by_shape(out, "softmax", lambda f: (int(f[1]), int(f[2])), lambda f: float(f[7]),
                         lambda f: f"{f[3]}x{f[4]}/{f[5]}")
    print(f"{'M':>6} {'N':>6} {'wave GB/s':>10} {'layout':>14} {'torch GB/s':>11} {'ratio':>6} {'copy GB/s':>10}"
          f" {'of copy':>8}")
    for key, (gbs, layout) in best.items():
        print(f"{key[0]:6d} {key[1]:6d} {gbs:10.1f} {layout:>14} {reference[key]:11.1f} {gbs / reference[key]:6.3f}"
              f" {copy[key]:10.1f} {gbs / copy[key]:8.3f}")


if __name__ == "__main__":
    main()
