"""conv2d against cuDNN in the same run: times torch.nn.functional.conv2d (channels-last
f16, 3x3, no padding or with --pad P that padding) on the shapes of wave-bench-conv2d, runs
it (WAVE_BENCH_CONV_PAD=P), and prints each shape's
best wave-cpp tiling, per output type, as a ratio to cuDNN (whose output is f16: the f16
line is the like-for-like one). cuDNN is timed before and after wave-cpp (its
times have moved by up to 2x between runs); the ratio is to the faster of the two.

    python3 bench/conv2d_vs_cudnn.py path/to/wave-bench-conv2d [--pad P]
"""
import os
import subprocess
import sys

import torch

from compare import median_ms


def time_cudnn(shapes, pad):
    times = {}
    for n, c, hw, nf, stride in shapes:
        x = torch.randn(n, c, hw, hw, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
        w = torch.randn(nf, c, 3, 3, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
        ms = median_ms(lambda: torch.nn.functional.conv2d(x, w, stride=stride, padding=pad))
        times[(n, c, hw, nf, stride, pad)] = ms
        print(f"cudnn  N {n} C {c} {hw}x{hw} -> {nf} stride {stride} padding {pad}: {ms:.3f} ms")
    return times


def main():
    shapes = [(32, 256, 56, 256, 1), (64, 512, 14, 512, 1), (16, 128, 64, 256, 2), (8, 64, 128, 64, 1)]
    torch.backends.cudnn.benchmark = True
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    pad = int(sys.argv[sys.argv.index("--pad") + 1]) if "--pad" in sys.argv else 0
    before = time_cudnn(shapes, pad)
    env = dict(os.environ, WAVE_BENCH_CONV_PAD=str(pad))
    out = subprocess.run([sys.argv[1]], capture_output=True, text=True, env=env).stdout
    print(out)
    after = time_cudnn(shapes, pad)
    cudnn = {key: min(before[key], after[key]) for key in before}
    best = {}
    for line in out.splitlines():
        f = line.split()
        if not f or f[0] not in ("conv2d", "tuned"):
            continue
        key = (int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6]), f[7])
        ms = float(f[14])
        if key not in best or ms < best[key][0]:
            best[key] = (ms, "x".join(f[8:11]) + "/" + "x".join(f[11:13]) + (", stream-K" if f[13] == "sk" else ""))
    for key, (ms, tiles) in best.items():
        ref = cudnn[key[:6]]
        print(f"N {key[0]} C {key[1]} {key[2]}x{key[2]} -> {key[3]} stride {key[4]} padding {key[5]}, {key[6]} out: wave {ms:.3f} ms "
              f"({tiles}), cuDNN {ref:.3f} ms, ratio {ref / ms:.2f}x")

if __name__ == "__main__":
    main()
