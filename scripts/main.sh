#!/usr/bin/env bash
# The main job: builds, then compiles each example kernel, shows its IR and PTX, and runs it
# on the GPU where there is one (where a stage cannot handle a kernel yet, it says so).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVE_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" "$@"
for example in copy gemm gemm_bias_relu softmax flash_attention decode_attention conv2d; do
  echo "=== examples/$example"
  "$build/bin/wave-example-$example" --run
done
