"""All-reduce against NCCL in the same run: times torch.distributed.all_reduce (NCCL, one
process per GPU, NVLink multicast off) of bf16 tensors from 64 KiB to 1 GiB per rank,
runs wave-bench-collectives on the same GPUs, and prints NCCL's bus bandwidth beside each
wave all-reduce's (host-ordered, one-shot, two-shot) and their ratios per size. Each NCCL time is the median of 25 runs of 10 back-to-back all-reduces
between CUDA events, after warm-up.

    python3 bench/allreduce_vs_nccl.py path/to/wave-bench-collectives [RANKS]
"""
import os
import subprocess
import sys

# Multicast (NVLS) can take the host's GPUs out of service: off, also in the children.
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
os.environ["NVSHMEM_DISABLE_NVLS"] = "1"

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SIZES = [(64 << 10) * 4 ** k for k in range(9) if (64 << 10) * 4 ** k <= (1 << 30)]


def worker(rank, ranks, results):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=ranks)
    for size in SIZES:
        x = torch.randn(size // 2, device="cuda", dtype=torch.bfloat16)
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(25):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            dist.barrier()
            start.record()
            for _ in range(10):
                dist.all_reduce(x)
            stop.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(stop) / 10)
        times.sort()
        if rank == 0:
            results[size] = times[len(times) // 2]
    dist.destroy_process_group()


def main():
    ranks = int(sys.argv[2]) if len(sys.argv) > 2 else torch.cuda.device_count()
    print(f"torch {torch.__version__}, {ranks} x {torch.cuda.get_device_name()}")
    with mp.Manager() as manager:
        results = manager.dict()
        mp.spawn(worker, args=(ranks, results), nprocs=ranks, join=True)
        nccl = dict(results)
    sys.stdout.flush()
    # NCCL's medians first (a run cut short keeps them), then wave's lines as they come.
    for size in SIZES:
        print(f"NCCL {size:12d} {nccl[size] * 1e3:9.1f} us", flush=True)
    wave_run = subprocess.Popen([sys.argv[1], str(ranks)], stdout=subprocess.PIPE, text=True)
    lines = []
    for line in wave_run.stdout:
        print(line, end="", flush=True)
        lines.append(line)
    wave_run.wait()
    out = "".join(lines)
    kinds = ["host-ordered", "one-shot", "two-shot"]
    wave = {}
    for f in (l.split() for l in out.splitlines()):
        if len(f) > 4 and f[0].isdigit() and f[4].rstrip(",") in kinds:
            wave[(int(f[0]), f[4].rstrip(","))] = (float(f[1]), float(f[3]))
    print("busbw GB/s; the ordered kinds are whole all-reduces, host-ordered leaves out the ranks' sync")
    print(f"{'bytes/rank':>12} {'NCCL us':>9} {'NCCL':>7}" + "".join(f" {k + ' us':>16} {k:>13} {'ratio':>6}" for k in kinds))
    for size in SIZES:
        ms = nccl[size]
        busbw = size / (ms * 1e-3) / 1e9 * 2 * (ranks - 1) / ranks
        line = f"{size:12d} {ms * 1e3:9.1f} {busbw:7.1f}"
        for k in kinds:
            us, w = wave.get((size, k), (float("nan"), float("nan")))
            line += f" {us:16.1f} {w:13.1f} {w / busbw:6.3f}"
        print(line)

if __name__ == "__main__":
    main()
