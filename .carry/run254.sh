#!/bin/bash
# Run 254: where MoE's grouped GEMMs lose: the dense GEMM of gate_up's shape on cp.async vs TMA, plain vs specialized; MoE per kernel.
REPO=$(pwd)
mkdir -p /tmp/bin
xz -dc $REPO/.carry/wave-bench.xz > /tmp/bin/wave-bench && chmod +x /tmp/bin/wave-bench
for n in gemm moe; do ln -sf /tmp/bin/wave-bench /tmp/bin/wave-bench-$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
date -u
cd /tmp
python3 - <<'PY'
import torch
from statistics import median
def ms(f, n=50):
    for _ in range(10): f()
    torch.cuda.synchronize()
    ts=[]
    for _ in range(n):
        s=torch.cuda.Event(enable_timing=True); e=torch.cuda.Event(enable_timing=True)
        s.record(); f(); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    return median(ts)
for m,n,k in ((8192,28672,4096),(8192,4096,14336)):
    a=torch.randn(m,k,device='cuda',dtype=torch.float16); b=torch.randn(n,k,device='cuda',dtype=torch.float16)
    t=ms(lambda: torch.matmul(a,b.t()))
    print(f"cuBLAS {m}x{n}x{k}: {t*1e3:.0f} us {2*m*n*k/t/1e9:.1f} TFLOP/s")
PY
for shape in "8192 28672 4096" "8192 4096 14336"; do
  echo "== dense $shape 128x256x64 on 8 waves, f16 out"
  echo "-- cp.async, plain"; WAVE_BENCH_TMA=0 WAVE_BENCH_OUT=f16 timeout 60 /tmp/bin/wave-bench-gemm $shape 128 256 64 64 64 0 0 1 0 2>&1 | tail -1
  echo "-- TMA, plain"; WAVE_BENCH_OUT=f16 timeout 60 /tmp/bin/wave-bench-gemm $shape 128 256 64 64 64 0 0 1 0 2>&1 | tail -1
  echo "-- TMA, specialized persistent"; WAVE_BENCH_OUT=f16 timeout 60 /tmp/bin/wave-bench-gemm $shape 128 256 64 64 64 1 1 1 0 2>&1 | tail -1
  echo "-- cp.async, 128x128x64 on 8 waves"; WAVE_BENCH_TMA=0 WAVE_BENCH_OUT=f16 timeout 60 /tmp/bin/wave-bench-gemm $shape 128 128 64 64 32 0 0 1 0 2>&1 | tail -1
done
echo "== moe"; timeout 200 /tmp/bin/wave-bench-moe --kernels 4096 128 2>&1 | tail -12
date -u
