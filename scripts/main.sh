#!/usr/bin/env bash
# The main job: builds, then compiles each example kernel, shows its IR and PTX, and runs and
# checks it on the GPU where there is one. Exits non-zero when any example fails to compile
# or gives a wrong answer; without a GPU, compiling each is the check.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVE_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" "$@"
failed=()
for example in copy gemm gemm_bias_relu gemm_f8 gemm_i8 softmax flash_attention decode_attention conv2d; do
  echo "=== examples/$example"
  "$build/bin/wave-example-$example" --run || failed+=("$example")
done
if ((${#failed[@]})); then
  echo "main: failed: ${failed[*]}" >&2
  exit 1
fi
echo "main: every example compiled$(command -v nvidia-smi >/dev/null && echo ', ran and matched its reference')"
