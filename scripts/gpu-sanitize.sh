#!/usr/bin/env bash
# Runs the GPU tests under compute-sanitizer's four tools: memcheck (out-of-bounds and
# misaligned accesses, leaks), racecheck (shared-memory hazards), synccheck (barriers in
# divergent code) and initcheck (reads of uninitialized global memory).
#
#   scripts/gpu-sanitize.sh [path/to/wave-gpu-tests] [catch test spec...]
#
# Without a test spec it runs every test but those tagged [driver-error], which make the
# driver fail on purpose (a missing kernel name, PTX it rejects): memcheck would count
# those API errors. That whole suite is split into groups of tags that together cover it,
# one process per tool and group, all at once: the tests spend most of their time
# compiling on the CPU, which the tools do not slow down, and under racecheck the suite
# in one process takes longer than a device call may run. Each log goes to
# $WAVE_SANITIZE_LOGS (default build/gpu-sanitize/<tool>-<group>.log); the script prints
# each one's summary and fails when any tool reports an error or a hazard, or a test
# fails.
#   WAVE_SANITIZE_TOOLS    the tools to run (default "memcheck racecheck synccheck initcheck")
#   WAVE_SANITIZE_TIMEOUT  seconds per process (default 500)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tests=${1:-$root/build/bin/wave-gpu-tests}
shift || true
# Groups of the whole suite: each a Catch test spec (`,` or, juxtaposed and, `~` not); the
# last takes every test no other group names.
groups=("[attention]~[masks]~[variants]~[mapping]~*lengths that differ*" "*lengths that differ*"
        "[masks],[variants],[mapping]" "[gemm]~[fusion]" "[fusion]"
        "[layouts]~[gemm],[memory],[softmax],[print],[conv2d],[autotune]"
        "[differential],~[attention]~[gemm]~[layouts]~[memory]~[softmax]~[print]~[conv2d]~[autotune]~[differential]~[driver-error]")
[[ $# -gt 0 ]] && groups=("$*")
logs=${WAVE_SANITIZE_LOGS:-$root/build/gpu-sanitize}
tools=${WAVE_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
limit=${WAVE_SANITIZE_TIMEOUT:-500}

if ! command -v compute-sanitizer >/dev/null; then
  echo "gpu-sanitize: compute-sanitizer not found (it comes with the CUDA toolkit)" >&2
  exit 2
fi
[[ -x $tests ]] || { echo "gpu-sanitize: $tests is not an executable" >&2; exit 2; }
mkdir -p "$logs"
export WAVE_GPU_SANITIZER=1  # the tests leave out their largest problems (tests/fixtures/sanitizer.hpp)

flags_for() {
  case $1 in
    memcheck) echo "--leak-check full" ;;
    racecheck) echo "--racecheck-report hazard" ;;
    *) echo "" ;;
  esac
}

declare -A pids specs
for tool in $tools; do
  for g in "${!groups[@]}"; do
    run=$tool-$g
    specs[$run]=${groups[$g]}
    # shellcheck disable=SC2046 # the flags are words
    timeout "$limit" compute-sanitizer --tool "$tool" $(flags_for "$tool") --error-exitcode 3 \
      "$tests" --durations yes "${groups[$g]}" >"$logs/$run.log" 2>&1 &
    pids[$run]=$!
  done
done

status=0
for run in $(printf '%s\n' "${!pids[@]}" | sort); do
  wait "${pids[$run]}"
  rc=$?
  summary=$(grep -E "(ERROR|RACECHECK|SYNCCHECK|INITCHECK|LEAK) SUMMARY|^All tests passed|test cases:" "$logs/$run.log" |
    tr '\n' ' ')
  case $rc in
    0) echo "$run (${specs[$run]}): clean. $summary" ;;
    124) echo "$run (${specs[$run]}): timed out after ${limit}s. $summary"; status=1 ;;
    *) echo "$run (${specs[$run]}): FAILED (exit $rc). $summary"; status=1 ;;
  esac
done
echo "logs: $logs"
exit $status
