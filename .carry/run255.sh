#!/bin/bash
# Run 255: MoE's grouped GEMMs beside the dense GEMM of the same tile under ncu (one launch each).
REPO=$(pwd)
mkdir -p /tmp/bin && xz -dc $REPO/.carry/wave-bench.xz > /tmp/bin/wave-bench && chmod +x /tmp/bin/wave-bench
for n in gemm moe; do ln -sf /tmp/bin/wave-bench /tmp/bin/wave-bench-$n; done
date -u
cd /tmp
S="--section SpeedOfLight --section WarpStateStats --section InstructionStats --section LaunchStats --section MemoryWorkloadAnalysis --section Occupancy --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum"
F='Duration|Executed Ipc|Issue Slots Busy|Stall|Warp Cycles Per Issued|Registers|Achieved Occupancy|Compute \(SM\)|Memory Throughput|DRAM Throughput|L2 Hit|gmma|inst_executed|sector_hit|dram__bytes|Shared Memory Configuration Size|Block Limit'
for k in moe_gate_up moe_down; do
  echo "== $k (Mixtral, 4096 tokens, 128x128x64 64x32)"
  timeout 250 ncu --clock-control none --kernel-name $k --launch-skip 2 --launch-count 1 $S /tmp/bin/wave-bench-moe 4096 128 2>&1 | grep -v "^==PROF==" | grep -E "$F" | head -40
done
echo "== dense 8192 4096 14336 128x128x64 64x32, cp.async plain"
WAVE_BENCH_TMA=0 WAVE_BENCH_OUT=f16 timeout 200 ncu --clock-control none --kernel-name regex:gemm --launch-skip 2 --launch-count 1 $S /tmp/bin/wave-bench-gemm 8192 4096 14336 128 128 64 64 32 0 0 1 0 2>&1 | grep -v "^==PROF==" | grep -E "$F" | head -40
date -u
