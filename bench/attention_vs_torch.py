"""Flash attention against PyTorch SDPA in the same run: times
torch.nn.functional.scaled_dot_product_attention with the flash and the cuDNN back ends on
the f16 [B, H, S, D] shapes of wave-bench-attention, runs wave-bench-attention, and prints
each shape's best wave-cpp tiling as TFLOP/s and as a ratio to each back end; then decode
attention (one query per head) as GB/s of K and V read, beside SDPA on the same shapes.

    python3 bench/attention_vs_torch.py path/to/wave-bench-attention
"""
import subprocess
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa

from compare import best_by_shape, median_ms

BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}


def main():
    shapes = [(4, 16, 4096, 128), (16, 16, 1024, 128), (8, 32, 2048, 64)]
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    reference = {}
    for b, h, s, d in shapes:
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
        for causal in (False, True):
            flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
            for name, backend in BACKENDS.items():
                try:
                    with sdpa_kernel([backend]):
                        ms = median_ms(lambda: sdpa(q, k, v, is_causal=causal), warmup=5, runs=30)
                    reference[(b, h, s, d, causal, name)] = flops / (ms * 1e9)
                    print(f"sdpa-{name:5s} {b:3d} {h:3d} {s:5d} {d:4d} {int(causal):6d} {ms:9.4f} ms "
                          f"{flops / (ms * 1e9):8.1f} TFLOP/s")
                except RuntimeError as e:
                    print(f"sdpa-{name:5s} {b:3d} {h:3d} {s:5d} {d:4d} {int(causal):6d}: {str(e).splitlines()[0]}")
    decode = {}
    for b, h, s, d in [(16, 32, 1024, 128), (16, 32, 8192, 128), (4, 32, 32768, 128)]:
        q = torch.randn(b, h, 1, d, device="cuda", dtype=torch.float16)
        k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(2))
        for name, backend in BACKENDS.items():
            try:
                with sdpa_kernel([backend]):
                    ms = median_ms(lambda: sdpa(q, k, v), warmup=5, runs=50)
                decode[(b, h, s, d, name)] = 2.0 * b * h * s * d * 2 / (ms * 1e6)
                print(f"sdpa-{name:5s} decode {b:3d} {h:3d} {s:5d} {d:4d} {ms * 1e3:9.1f} us "
                      f"{decode[(b, h, s, d, name)]:8.1f} GB/s")
            except RuntimeError as e:
                print(f"sdpa-{name:5s} decode {b:3d} {h:3d} {s:5d} {d:4d}: {str(e).splitlines()[0]}")
    sys.stdout.flush()
    out = subprocess.run([sys.argv[1]], capture_output=True, text=True).stdout
    print(out)
    best = best_by_shape(out, "attention", lambda f: (int(f[1]), int(f[2]), int(f[3]), int(f[4]), bool(int(f[5]))),
                         lambda f: float(f[10]), lambda f: f"{f[6]}x{f[7]}/{f[8]}")
    print(f"{'B':>3} {'H':>3} {'S':>5} {'D':>4} {'causal':>6} {'wave TFLOP/s':>12} {'tiling':>10} "
          f"{'flash':>7} {'ratio':>6} {'cudnn':>7} {'ratio':>6}")
    for key, (tflops, tiling) in best.items():
        flash = reference.get(key + ("flash",), float("nan"))
        cudnn = reference.get(key + ("cudnn",), float("nan"))
        print(f"{key[0]:3d} {key[1]:3d} {key[2]:5d} {key[3]:4d} {int(key[4]):6d} {tflops:12.1f} {tiling:>10} "
              f"{flash:7.1f} {tflops / flash:6.3f} {cudnn:7.1f} {tflops / cudnn:6.3f}")

    best = best_by_shape(out, "decode", lambda f: (int(f[1]), int(f[2]), int(f[3]), int(f[4])),
                         lambda f: float(f[9]), lambda f: f"BK2 {f[6]}")
    print(f"{'B':>3} {'H':>3} {'S':>5} {'D':>4} {'wave GB/s':>10} {'tiling':>8} {'flash':>8} {'ratio':>6} "
          f"{'cudnn':>8} {'ratio':>6}")
    for key, (gbs, tiling) in best.items():
        flash = decode.get(key + ("flash",), float("nan"))
        cudnn = decode.get(key + ("cudnn",), float("nan"))
        print(f"{key[0]:3d} {key[1]:3d} {key[2]:5d} {key[3]:4d} {gbs:10.1f} {tiling:>8} {flash:8.1f} "
              f"{gbs / flash:6.3f} {cudnn:8.1f} {gbs / cudnn:6.3f}")


if __name__ == "__main__":
    main()
