"""Flash attention against PyTorch SDPA in the same run: times
torch.nn.functional.scaled_dot_product_attention with the flash and the cuDNN back ends on
the f16 [B, H, S, D] shapes of wave-bench-attention, runs wave-bench-attention, and prints
each shape's best wave-cpp tiling (a `p` after it: on a persistent grid) as TFLOP/s and as
a ratio to each back end; then decode
attention (one query per head) as GB/s of K and V read, beside SDPA on the same shapes.

    python3 bench/attention_vs_torch.py path/to/wave-bench-attention [decode]

With `decode`, only decode attention.
"""
import subprocess
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa

from compare import best_by_shape, median_ms

BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}


def time_backends(label, q, k, v, causal, runs):
    """SDPA's median ms on q, k, v per back end that runs them (those that cannot say why)."""
    times = {}
    for name, backend in BACKENDS.items():
        try:
            with sdpa_kernel([backend]):
                times[name] = median_ms(lambda: sdpa(q, k, v, is_causal=causal), warmup=5, runs=runs)
        except RuntimeError as e:
            print(f"sdpa-{name:5s} {label}: {str(e).splitlines()[0]}")
    return times


def main():
    decode_only = sys.argv[2:] == ["decode"]
    shapes = [] if decode_only else [(4, 16, 4096, 128), (16, 16, 1024, 128), (8, 32, 2048, 64)]
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    reference = {}
    for b, h, s, d in shapes:
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
        for causal in (False, True):
            flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
            label = f"{b:3d} {h:3d} {s:5d} {d:4d} {int(causal):6d}"
            for name, ms in time_backends(label, q, k, v, causal, runs=30).items():
                reference[(b, h, s, d, causal, name)] = flops / (ms * 1e9)
                print(f"sdpa-{name:5s} {label} {ms:9.4f} ms {flops / (ms * 1e9):8.1f} TFLOP/s")
    decode = {}
    for b, h, s, d in [(16, 32, 1024, 128), (16, 32, 8192, 128), (4, 32, 32768, 128)]:
        q = torch.randn(b, h, 1, d, device="cuda", dtype=torch.float16)
        k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(2))
        label = f"decode {b:3d} {h:3d} {s:5d} {d:4d}"
        for name, ms in time_backends(label, q, k, v, False, runs=50).items():
            decode[(b, h, s, d, name)] = 2.0 * b * h * s * d * 2 / (ms * 1e6)
            print(f"sdpa-{name:5s} {label} {ms * 1e3:9.1f} us {decode[(b, h, s, d, name)]:8.1f} GB/s")
    sys.stdout.flush()
    out = subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout
    print(out)
    best = best_by_shape(out, "attention", lambda f: (int(f[1]), int(f[2]), int(f[3]), int(f[4]), bool(int(f[5]))),
                         lambda f: float(f[10]),
                         lambda f: f"{f[6]}x{f[7]}/{f[8]}" + ("p" if f[12:13] == ["persistent"] else ""))
    print_against_sdpa(best, reference, f"{'B':>3} {'H':>3} {'S':>5} {'D':>4} {'causal':>6}",
                       lambda k: f"{k[0]:3d} {k[1]:3d} {k[2]:5d} {k[3]:4d} {int(k[4]):6d}", "wave TFLOP/s")
    best = best_by_shape(out, "decode", lambda f: (int(f[1]), int(f[2]), int(f[3]), int(f[4])),
                         lambda f: float(f[9]), lambda f: f"BK2 {f[6]}")
    print_against_sdpa(best, decode, f"{'B':>3} {'H':>3} {'S':>5} {'D':>4}",
                       lambda k: f"{k[0]:3d} {k[1]:3d} {k[2]:5d} {k[3]:4d}", "wave GB/s")


def print_against_sdpa(best, reference, key_header, format_key, rate_name):
    """One line per shape: wave-cpp's best rate and tiling, each SDPA back end's rate and the ratio."""
    print(f"{key_header} {rate_name:>12} {'tiling':>11} {'flash':>8} {'ratio':>6} {'cudnn':>8} {'ratio':>6}")
    for key, (rate, tiling) in best.items():
        flash = reference.get(key + ("flash",), float("nan"))
        cudnn = reference.get(key + ("cudnn",), float("nan"))
        print(f"{format_key(key)} {rate:12.1f} {tiling:>11} {flash:8.1f} {rate / flash:6.3f} {cudnn:8.1f} "
              f"{rate / cudnn:6.3f}")

if __name__ == "__main__":
    main()
