#!/usr/bin/env bash
# ptxas assembles an example's PTX for sm_90a; a spill fails the test, and so does an
# expected instruction missing from the PTX.
#   check_ptx.sh <example binary> [instruction...]   exits 77 (skipped) without ptxas
set -euo pipefail
example=$1
shift
ptxas=$(command -v ptxas || true)
[ -n "$ptxas" ] || [ ! -x /usr/local/cuda/bin/ptxas ] || ptxas=/usr/local/cuda/bin/ptxas
if [ -z "$ptxas" ]; then
  echo "SKIP: no ptxas (CUDA toolkit) on this machine"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
WAVE_CACHE_DIR="$dir/cache" "$example" --run --ptx > "$dir/out.txt"
# The PTX is printed between its header line and the line that says whether it ran.
awk '/^--- PTX/{on=1; next} /^--- /{on=0} on' "$dir/out.txt" > "$dir/kernel.ptx"
grep -q '\.entry' "$dir/kernel.ptx" || { echo "FAIL: $example printed no PTX"; cat "$dir/out.txt"; exit 1; }
for instruction in "$@"; do
  grep -qF "$instruction" "$dir/kernel.ptx" || { echo "FAIL: no $instruction in the PTX"; exit 1; }
  echo "found: $instruction ($(grep -cF "$instruction" "$dir/kernel.ptx") times)"
done
"$ptxas" -arch=sm_90a -v "$dir/kernel.ptx" -o "$dir/kernel.cubin" 2> "$dir/ptxas.log"
cat "$dir/ptxas.log"
if grep -E '[1-9][0-9]* bytes spill' "$dir/ptxas.log"; then
  echo "FAIL: registers spill"
  exit 1
fi
echo "PASS: $(basename "$example") assembles for sm_90a without spills"
