#!/usr/bin/env bash
# Builds, then runs every test suite: unit, lit, and gpu (which skips without a GPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVE_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" "$@"
ctest --test-dir "$build" --output-on-failure -j "${WAVE_JOBS:-$(nproc)}"
