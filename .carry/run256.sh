#!/bin/bash
# Run 256: MoE with grouped tile order down z (a grouped GEMM's columns) and the down GEMM on 256-column tiles.
REPO=$(pwd)
mkdir -p /tmp/old /tmp/new
xz -dc $REPO/.carry/wave-bench.xz > /tmp/old/wave-bench && chmod +x /tmp/old/wave-bench
xz -dc $REPO/.carry/wave-bench-new.xz > /tmp/new/wave-bench && chmod +x /tmp/new/wave-bench
for d in old new; do for n in gemm moe; do ln -sf /tmp/$d/wave-bench /tmp/$d/wave-bench-$n; done; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
date -u
cd /tmp
for r in 1 2; do
  echo "== old (run $r)"; timeout 250 /tmp/old/wave-bench-moe --kernels 1024 2>&1 | grep -A1 "128x128\|64x128" | grep -v "^--"
  echo "== new (run $r)"; timeout 250 /tmp/new/wave-bench-moe --kernels 1024 2>&1 | grep -A1 "128x128\|64x128" | grep -v "^--"
done
echo "== dense control 4096^3 128x256x64 specialized persistent, f16 out"
for d in old new; do WAVE_BENCH_OUT=f16 timeout 60 /tmp/$d/wave-bench-gemm 4096 4096 4096 128 256 64 64 64 1 1 1 0 2>&1 | tail -1; done
S="--metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum"
for d in old new; do for k in moe_gate_up moe_down; do
  echo "== ncu $d $k 128x128"; timeout 120 ncu --clock-control none --kernel-name $k --launch-skip 2 --launch-count 1 $S /tmp/$d/wave-bench-moe 4096 128 2>&1 | grep -E "dram__|lts__|gpu__time" | head -3
done; done
date -u
