"""A MoE layer against PyTorch in the same run: times, on the layers and token counts of
wave-bench-moe (f16, tokens routed at random), a PyTorch loop over the experts (each
expert's pairs found with nonzero, its tokens gathered, two cuBLAS GEMMs with SiLU-and-
multiply between, the routing weight applied, index_add into the output), and one dense
cuBLAS GEMM pair of the same FLOPs (P x D by D x 2I, then P x I by I x D, P = T TOPK);
runs wave-bench-moe and prints each shape's best wave-cpp tiling beside both, as the
ratio of times to the loop and of TFLOP/s to the dense GEMMs.

    python3 bench/moe_vs_torch.py path/to/wave-bench-moe [MIN_TOKENS]
"""
import subprocess
import sys

import torch
import torch.nn.functional as F

from compare import best_by_shape, median_ms

LAYERS = [("E8 top2 D4096 I14336", 8, 2, 4096, 14336), ("E64 top6 D2048 I1408", 64, 6, 2048, 1408)]
TOKENS = [1, 4, 16, 64, 256, 1024, 4096]


def expert_loop(x, w1, w2, ids, weights, inter):
    """The layer as a loop of per-expert cuBLAS GEMMs."""
    out = torch.zeros_like(x)
    flat, topk = ids.flatten(), ids.shape[1]
    flat_weights = weights.flatten()
    for e in range(w1.shape[0]):
        pairs = (flat == e).nonzero().squeeze(1)
        if pairs.numel() == 0:
            continue
        tokens = pairs // topk
        gate_up = x[tokens] @ w1[e].t()
        h = F.silu(gate_up[:, :inter]) * gate_up[:, inter:]
        out.index_add_(0, tokens, (h @ w2[e].t()) * flat_weights[pairs, None].to(x.dtype))
    return out


def main():
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    loop, dense = {}, {}
    for name, experts, topk, hidden, inter in LAYERS:
        w1 = (torch.rand(experts, 2 * inter, hidden, device="cuda", dtype=torch.float16) * 2 - 1) / hidden**0.5
        w2 = (torch.rand(experts, hidden, inter, device="cuda", dtype=torch.float16) * 2 - 1) / inter**0.5
        for tokens in TOKENS:
            x = torch.rand(tokens, hidden, device="cuda", dtype=torch.float16) * 2 - 1
            ids = torch.rand(tokens, experts, device="cuda").topk(topk, dim=1).indices.to(torch.int32)
            weights = torch.rand(tokens, topk, device="cuda")
            weights /= weights.sum(dim=1, keepdim=True)
            ms = median_ms(lambda: expert_loop(x, w1, w2, ids, weights, inter), runs=10 if tokens >= 1024 else 20)
            loop[(name, tokens)] = ms
            pairs = tokens * topk
            a = torch.randn(pairs, hidden, device="cuda", dtype=torch.float16)
            b1 = torch.randn(hidden, 2 * inter, device="cuda", dtype=torch.float16)
            h = torch.randn(pairs, inter, device="cuda", dtype=torch.float16)
            b2 = torch.randn(inter, hidden, device="cuda", dtype=torch.float16)
            dense_ms = median_ms(lambda: (a @ b1, h @ b2), runs=20)
            flops = 2.0 * pairs * 3 * inter * hidden
            dense[(name, tokens)] = flops / (dense_ms * 1e9)
            print(f"torch {name} T{tokens:<5d} loop {ms * 1e3:10.1f} us  dense GEMMs {dense_ms * 1e3:9.1f} us "
                  f"{dense[(name, tokens)]:7.1f} TFLOP/s", flush=True)
        del w1, w2
        torch.cuda.empty_cache()
    # The bench's lines as they come (a timeout still leaves those printed).
    lines = []
    with subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, text=True) as bench:
        for line in bench.stdout:
            print(line, end="", flush=True)
            lines.append(line)
    out = "".join(lines)
    # (A line: moe LAYER(4 words) T<tokens> <tile> <waves> down x<columns>/<wave columns> us TFLOP/s ...)
    best = best_by_shape(out, "moe", lambda f: (" ".join(f[1:5]), int(f[5][1:])), lambda f: float(f[11]),
                         lambda f: f"{f[6]} {f[7]} {f[9]}")
    print(f"{'layer':22} {'T':>5} {'wave us':>9} {'TFLOP/s':>8} {'tiling':>28} {'loop us':>9} {'speedup':>7} "
          f"{'dense TF':>8} {'ratio':>6}")
    for (name, tokens), (rate, tiling) in sorted(best.items()):
        pairs = tokens * next(topk for n, _, topk, _, _ in LAYERS if n == name)
        hidden, inter = next((d, i) for n, _, _, d, i in LAYERS if n == name)
        wave_ms = 2.0 * pairs * 3 * inter * hidden / (rate * 1e9)
        print(f"{name:22} {tokens:5d} {wave_ms * 1e3:9.1f} {rate:8.1f} {tiling:>28} {loop[(name, tokens)] * 1e3:9.1f} "
              f"{loop[(name, tokens)] / wave_ms:7.2f} {dense[(name, tokens)]:8.1f} {rate / dense[(name, tokens)]:6.3f}")


if __name__ == "__main__":
    main()
