#!/usr/bin/env bash
# The main job: builds, then compiles each example kernel and shows its IR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVE_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" "$@"
for example in copy gemm flash_attention conv2d; do
  echo "=== examples/$example"
  "$build/bin/wave-example-$example"
done
