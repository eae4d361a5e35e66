"""GEMM + reduce-scatter, GEMM + all-reduce and all-gather + GEMM against cuBLAS and NCCL in the same run: per shape of
bench/tensor_parallel.cpp, times (one process per GPU, NVLink multicast off) each rank's
cuBLAS GEMM of its K slice (bf16, C[M, N] = A[M, K/R] B[N, K/R]^T), NCCL's
reduce_scatter_tensor of that C alone, and the two back to back; runs
wave-bench-tensor-parallel on the same GPUs and prints wave's fused kernel against the
sequential pair; the same for the all-gather + GEMM (NCCL's all_gather_into_tensor of
each rank's rows, then cuBLAS on all of them and the rank's N / ranks weight rows). Each time is rank 0's median of 25 runs of 10 back-to-back repetitions
between CUDA events, after warm-up, the ranks meeting at a barrier before each run.

    python3 bench/gemm_rs_vs_nccl.py path/to/wave-bench-tensor-parallel [RANKS]
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

SHAPES = [(4096, 8192, 8192), (8192, 8192, 8192), (8192, 8192, 28672)]
AG_SHAPES = [(4096, 8192, 8192), (8192, 8192, 8192), (8192, 28672, 8192)]


def median_ms(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(25):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        dist.barrier()
        torch.cuda.synchronize()
        start.record()
        for _ in range(10):
            fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop) / 10)
    times.sort()
    return times[len(times) // 2]


def worker(rank, ranks, results):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29519")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=ranks)
    for m, n, k in SHAPES:
        a = torch.randn(m, k // ranks, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k // ranks, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(m // ranks, n, device="cuda", dtype=torch.bfloat16)
        # The reduce-scatter is checked once against the sum of every rank's C.
        torch.matmul(a, b.t(), out=c)
        dist.reduce_scatter_tensor(out, c)
        full = c.float()
        dist.all_reduce(full)
        assert torch.allclose(out.float(), full[rank * (m // ranks):(rank + 1) * (m // ranks)], rtol=2e-2, atol=1.0)
        gemm = median_ms(lambda: torch.matmul(a, b.t(), out=c))
        rs = median_ms(lambda: dist.reduce_scatter_tensor(out, c))

        def both():
            torch.matmul(a, b.t(), out=c)
            dist.reduce_scatter_tensor(out, c)

        total = median_ms(both)
        ar = median_ms(lambda: dist.all_reduce(c))

        def gemm_then_all_reduce():
            torch.matmul(a, b.t(), out=c)
            dist.all_reduce(c)

        ar_total = median_ms(gemm_then_all_reduce)
        if rank == 0:
            results[(m, n, k)] = (gemm, rs, total)
            results[("AR", m, n, k)] = (gemm, ar, ar_total)
    for m, n, k in AG_SHAPES:
        # The column-parallel layer: every rank's M / ranks rows gathered, times this
        # rank's N / ranks columns of the weights.
        shard = torch.randn(m // ranks, k, device="cuda", dtype=torch.bfloat16)
        gathered = torch.empty(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n // ranks, k, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n // ranks, device="cuda", dtype=torch.bfloat16)
        dist.all_gather_into_tensor(gathered, shard)
        assert torch.equal(gathered[rank * (m // ranks):(rank + 1) * (m // ranks)], shard)
        gemm = median_ms(lambda: torch.matmul(gathered, b.t(), out=c))
        ag = median_ms(lambda: dist.all_gather_into_tensor(gathered, shard))

        def both():
            dist.all_gather_into_tensor(gathered, shard)
            torch.matmul(gathered, b.t(), out=c)

        total = median_ms(both)
        if rank == 0:
            results[("AG", m, n, k)] = (gemm, ag, total)
    dist.destroy_process_group()


def main():
    ranks = int(sys.argv[2]) if len(sys.argv) > 2 else torch.cuda.device_count()
    print(f"torch {torch.__version__}, {ranks} x {torch.cuda.get_device_name()}")
    with mp.Manager() as manager:
        results = manager.dict()
        mp.spawn(worker, args=(ranks, results), nprocs=ranks, join=True)
        torch_times = dict(results)
    sys.stdout.flush()
    out = subprocess.run([sys.argv[1], str(ranks)], capture_output=True, text=True).stdout
    print(out)
    lines = [line.split() for line in out.splitlines()]
    # wave's lines per layer: GEMM + RS start with M, GEMM + AR with "AR", all-gather +
    # GEMM with "AG" (bench/tensor_parallel.cpp); the GEMM alone's and the fused kernel's us.
    # A line per GEMM schedule (its name last): each shape's fastest fused kernel, beside
    # the fastest GEMM alone.
    def fastest(rows):
        alone_of, fused_of = {}, {}
        for shape, alone, fused, schedule in rows:
            alone_of[shape] = min(alone, alone_of.get(shape, alone))
            if shape not in fused_of or fused < fused_of[shape][0]:
                fused_of[shape] = (fused, schedule)
        return {shape: (alone_of[shape],) + fused_of[shape] for shape in fused_of}

    rs = fastest(((int(f[0]), int(f[1]), int(f[2])), float(f[4]), float(f[6]), f[-1])
                 for f in lines if len(f) > 8 and f[0].isdigit() and f[3].isdigit())
    ar = fastest(((int(f[1]), int(f[2]), int(f[3])), float(f[5]), float(f[7]), f[-1])
                 for f in lines if len(f) > 9 and f[0] == "AR" and f[1].isdigit() and f[4].isdigit())
    ag = fastest(((int(f[1]), int(f[2]), int(f[3])), float(f[6]), float(f[9]), f[-1])
                 for f in lines if len(f) > 10 and f[0] == "AG" and f[1].isdigit() and f[4].isdigit())
    table("RS", "GEMM+RS", SHAPES, lambda shape: torch_times[shape], rs)
    table("AR", "GEMM+AR", SHAPES, lambda shape: torch_times[("AR",) + shape], ar)
    table("AG", "AG+GEMM", AG_SHAPES, lambda shape: torch_times[("AG",) + shape], ag)


def table(collective, fused_name, shapes, torch_of, wave):
    """One layer's table: cuBLAS, NCCL and both (torch_of(shape), ms) beside wave's fastest GEMM
    alone and fastest fused kernel (wave[shape], us, and the latter's schedule), and the fused
    kernel's speedups."""
    print(f"{'M':>6} {'N':>6} {'K':>6} {'cuBLAS us':>10} {'NCCL ' + collective + ' us':>10} {'both us':>9} "
          f"{'wave GEMM us':>12} {'wave ' + fused_name + ' us':>15} {'vs both':>8} {'vs cuBLAS':>9}  schedule")
    for shape in shapes:
        gemm, collective_ms, total = torch_of(shape)
        alone, fused, schedule = wave.get(shape, (float("nan"), float("nan"), "-"))
        alone, fused = alone / 1e3, fused / 1e3
        print(f"{shape[0]:6d} {shape[1]:6d} {shape[2]:6d} {gemm * 1e3:10.1f} {collective_ms * 1e3:10.1f} "
              f"{total * 1e3:9.1f} {alone * 1e3:12.1f} {fused * 1e3:15.1f} {total / fused:8.3f} {gemm / fused:9.3f}"
              f"  {schedule}")

if __name__ == "__main__":
    main()
