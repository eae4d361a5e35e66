#!/bin/bash
# Run 257: moe_gate_up beside the dense GEMM of its tile and shape (128x256x64 on 8 waves, cp.async, plain) under ncu: where the stalls differ.
REPO=$(pwd)
mkdir -p /tmp/bin && xz -dc $REPO/.carry/wave-bench-new.xz > /tmp/bin/wave-bench && chmod +x /tmp/bin/wave-bench
for n in gemm moe; do ln -sf /tmp/bin/wave-bench /tmp/bin/wave-bench-$n; done
date -u
cd /tmp
S="--section WarpStateStats --section SchedulerStats --section SpeedOfLight --metrics smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio"
F='Duration|stalled|inst_executed|dram__bytes|sector_hit|Issued Warp|No Eligible|Active Warps|Eligible Warps|Warp Cycles Per Issued'
echo "== moe_gate_up (Mixtral, 4096 tokens, 128x128x64 64x32)"
timeout 200 ncu --clock-control none --kernel-name moe_gate_up --launch-skip 2 --launch-count 1 $S /tmp/bin/wave-bench-moe 4096 128 2>&1 | grep -v "^==PROF==" | grep -E "$F" | head -40
echo "== dense 8192 28672 4096 128x256x64 64x64, cp.async plain"
WAVE_BENCH_TMA=0 WAVE_BENCH_OUT=f16 timeout 200 ncu --clock-control none --kernel-name regex:gemm --launch-skip 2 --launch-count 1 $S /tmp/bin/wave-bench-gemm 8192 28672 4096 128 256 64 64 64 0 0 1 0 2>&1 | grep -v "^==PROF==" | grep -E "$F" | head -40
date -u
