#!/bin/bash
# Run 258: MoE and GEMM GPU tests on the session's compiler (grouped order down z, the down GEMM's own tiling, gate_up's two batches in flight); MoE against cuBLAS.
REPO=$(pwd)
mkdir -p /tmp/bin && for b in wave-bench wave-gpu-tests; do xz -dc $REPO/.carry/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
ln -sf wave-bench /tmp/bin/wave-bench-moe
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
cd /tmp
echo "== [moe]"; timeout 150 /tmp/bin/wave-gpu-tests "[moe]" 2>&1 | tail -3
/tmp/bin/wave-gpu-tests --list-test-names-only "[gemm]" | grep -v "^$" | grep -v "test cases" | grep -v "^device" | grep -v "^  " > names.txt
wc -l < names.txt
mkdir -p $OUT/gemm
i=0; while IFS= read -r n; do i=$((i+1)); echo "$n" > $OUT/gemm/$i.name; done < names.txt
seq 1 $i | xargs -P 12 -I{} sh -c 'timeout 150 /tmp/bin/wave-gpu-tests "$(sed "s/[,\[].*\$//; s/\$/*/" '$OUT'/gemm/{}.name)" > '$OUT'/gemm/{}.txt 2>&1; echo "rc $? {}" >> '$OUT'/gemm/rc.txt'
echo "== [gemm] per case"; sort -n -k3 $OUT/gemm/rc.txt | tr '\n' ' '; echo
grep -h "All tests passed\|test cases:\|FAILED\|No tests ran" $OUT/gemm/*.txt | sed 's/(.*//' | sort | uniq -c
for f in $OUT/gemm/*.txt; do grep -q "All tests passed" $f && rm $f; done
date -u
echo "== moe_vs_torch (T >= 1024)"; timeout 240 python3 $REPO/bench/moe_vs_torch.py /tmp/bin/wave-bench-moe 1024 2>&1 | grep -v "^torch .*T\(1 \|4 \|16 \|64 \|256 \)"
date -u
