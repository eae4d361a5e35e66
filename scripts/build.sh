#!/usr/bin/env bash
# Sets up (packages, configure) and builds. Extra arguments go to cmake.
#   WAVE_BUILD_DIR (default build), WAVE_JOBS (default: the number of cores)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVE_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" "$build" "$@"
cmake --build "$build" -j "${WAVE_JOBS:-$(nproc)}"
