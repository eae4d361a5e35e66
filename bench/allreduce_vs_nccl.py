"""All-reduce against NCCL in the same run: times torch.distributed.all_reduce (NCCL, one
process per GPU, NVLink multicast off) of bf16 tensors from 64 KiB to 1 GiB per rank,
runs wave-bench-collectives on the same GPUs, and prints both bus bandwidths and their
ratio per size. Each NCCL time is the median of 25 runs of 10 back-to-back all-reduces
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
    out = subprocess.run([sys.argv[1], str(ranks)], capture_output=True, text=True).stdout
    print(out)
    wave = {int(f[0]): float(f[3]) for f in (l.split() for l in out.splitlines()) if len(f) > 4 and f[0].isdigit() and f[4] == "BLOCK_N"}
    print(f"{'bytes/rank':>12} {'NCCL us':>9} {'NCCL busbw':>11} {'wave busbw':>11} {'ratio':>6}")
    for size in SIZES:
        ms = nccl[size]
        busbw = size / (ms * 1e-3) / 1e9 * 2 * (ranks - 1) / ranks
        w = wave.get(size)
        print(f"{size:12d} {ms * 1e3:9.1f} {busbw:11.1f} {w if w else float('nan'):11.1f}"
              f" {(w / busbw) if w else float('nan'):6.3f}")


if __name__ == "__main__":
    main()
