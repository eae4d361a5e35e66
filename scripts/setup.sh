#!/usr/bin/env bash
# Installs the Debian packages wave-cpp builds with (idempotent; WAVE_EXTRA_PACKAGES adds
# more), then configures the build.
#   scripts/setup.sh [build-dir] [extra cmake args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools lld-22 liblld-22-dev
  libamdhip64-5  # the HIP runtime: loaded (not linked) to launch AMD code objects; with no AMD GPU it says so
  libboost-dev catch2 libdlpack-dev
  cmake ninja-build ccache g++ xz-utils python3
  ${WAVE_EXTRA_PACKAGES:-}
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd=sudo
  echo "setup: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# lit is what the LLVM tools ship; FileCheck, not, count live next to it.
export PATH=/usr/lib/llvm-22/bin:$PATH
cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
  "$@"
