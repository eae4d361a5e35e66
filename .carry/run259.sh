#!/bin/bash
# Run 259: a one-off binary whose wave-promote-shared orders every mma operand's tile contraction-innermost on NVIDIA too
# (what it does on gfx942): the transposed tiles' fills and reads checked on hardware (attention's V, GEMM's B as [K, N]).
REPO=$(pwd)
mkdir -p /tmp/bin && xz -dc $REPO/.carry/wave-gpu-tests-forced.xz > /tmp/bin/wave-gpu-tests && chmod +x /tmp/bin/wave-gpu-tests
date -u
cd /tmp
echo "== B[K,N]"; timeout 100 /tmp/bin/wave-gpu-tests "GEMM variants: B*" 2>&1 | tail -2
echo "== [attention][variants]"; timeout 100 /tmp/bin/wave-gpu-tests "[attention][variants]" 2>&1 | tail -2
date -u
