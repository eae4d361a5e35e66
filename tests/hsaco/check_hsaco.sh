#!/usr/bin/env bash
# An example compiled for AMD gfx942 (or gfx950): its code object (HSACO) disassembles for the chip with
# the instructions it must use, and its metadata reports waves of 64, no register spills
# and no scratch memory.
#   check_hsaco.sh <example binary> [--chip gfx950] [--set SYMBOL=N]... [instruction...]
set -euo pipefail
example=$1
shift
chip=gfx942
if [ $# -ge 2 ] && [ "$1" = --chip ]; then
  chip=$2
  shift 2
fi
sets=()
while [ $# -ge 2 ] && [ "$1" = --set ]; do
  sets+=("$1" "$2")
  shift 2
done
tool() { command -v "$1-22" || echo "/usr/lib/llvm-22/bin/$1"; }
objdump=$(tool llvm-objdump)
readobj=$(tool llvm-readobj)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
WAVE_CACHE_DIR="$dir/cache" "$example" "${sets[@]}" --run --target "$chip" --hsaco "$dir/kernel.hsaco" > "$dir/out.txt"
[ -s "$dir/kernel.hsaco" ] || { echo "FAIL: $example wrote no code object"; cat "$dir/out.txt"; exit 1; }
"$objdump" -d --mcpu="$chip" "$dir/kernel.hsaco" > "$dir/kernel.dis"
grep -q 'file format elf64-amdgpu' "$dir/kernel.dis" || { echo "FAIL: not an AMDGPU object"; exit 1; }
grep -q 's_endpgm' "$dir/kernel.dis" || { echo "FAIL: no kernel code (s_endpgm) in the disassembly"; exit 1; }
for instruction in "$@"; do
  grep -qE "$instruction" "$dir/kernel.dis" || { echo "FAIL: no $instruction in the disassembly"; exit 1; }
  echo "found: $instruction ($(grep -cE "$instruction" "$dir/kernel.dis") times)"
done
"$readobj" --notes "$dir/kernel.hsaco" > "$dir/notes.txt"
for field in '.wavefront_size: +64' '.private_segment_fixed_size: +0' '.sgpr_spill_count: +0' '.vgpr_spill_count: +0'; do
  grep -qE -- "$field\$" "$dir/notes.txt" || {
    echo "FAIL: the code object's metadata lacks '$field':"
    grep -E 'wavefront_size|private_segment|spill_count|vgpr_count|sgpr_count' "$dir/notes.txt" || cat "$dir/notes.txt"
    exit 1
  }
done
grep -E '\.(vgpr|sgpr)_count:' "$dir/notes.txt"
echo "PASS: $(basename "$example") compiles for $chip: waves of 64, no spills, no scratch"
