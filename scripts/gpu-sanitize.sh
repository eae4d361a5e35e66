#!/usr/bin/env bash
# Runs the GPU tests under compute-sanitizer's four tools: memcheck (out-of-bounds and
# misaligned accesses, leaks), racecheck (shared-memory hazards), synccheck (barriers in
# divergent code) and initcheck (reads of uninitialized global memory).
#
#   scripts/gpu-sanitize.sh [path/to/wave-gpu-tests] [catch test spec...]
#
# Without a test spec it runs every test but those tagged [driver-error], which make the
# driver fail on purpose (a missing kernel name, PTX it rejects): memcheck would count
# those API errors.
#
# The tools run at once, one process each: the tests spend most of their time compiling
# on the CPU, which the tools do not slow down. Each tool's log goes to
# $WAVE_SANITIZE_LOGS (default build/gpu-sanitize/<tool>.log); the script prints each
# tool's summary and fails when any tool reports an error or a hazard, or a test fails.
#   WAVE_SANITIZE_TOOLS    the tools to run (default "memcheck racecheck synccheck initcheck")
#   WAVE_SANITIZE_TIMEOUT  seconds per tool (default 500)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tests=${1:-$root/build/bin/wave-gpu-tests}
shift || true
spec=("$@")
[[ ${#spec[@]} -gt 0 ]] || spec=("~[driver-error]")
logs=${WAVE_SANITIZE_LOGS:-$root/build/gpu-sanitize}
tools=${WAVE_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
limit=${WAVE_SANITIZE_TIMEOUT:-500}

if ! command -v compute-sanitizer >/dev/null; then
  echo "gpu-sanitize: compute-sanitizer not found (it comes with the CUDA toolkit)" >&2
  exit 2
fi
[[ -x $tests ]] || { echo "gpu-sanitize: $tests is not an executable" >&2; exit 2; }
mkdir -p "$logs"

flags_for() {
  case $1 in
    memcheck) echo "--leak-check full" ;;
    racecheck) echo "--racecheck-report hazard" ;;
    *) echo "" ;;
  esac
}

declare -A pids
for tool in $tools; do
  # shellcheck disable=SC2046 # the flags are words
  timeout "$limit" compute-sanitizer --tool "$tool" $(flags_for "$tool") --error-exitcode 3 \
    "$tests" --durations yes "${spec[@]}" >"$logs/$tool.log" 2>&1 &
  pids[$tool]=$!
done

status=0
for tool in $tools; do
  wait "${pids[$tool]}"
  rc=$?
  summary=$(grep -E "(ERROR|RACECHECK|SYNCCHECK|INITCHECK|LEAK) SUMMARY|^All tests passed|test cases:" "$logs/$tool.log" |
    tr '\n' ' ')
  case $rc in
    0) echo "$tool: clean. $summary" ;;
    124) echo "$tool: timed out after ${limit}s. $summary"; status=1 ;;
    *) echo "$tool: FAILED (exit $rc). $summary"; status=1 ;;
  esac
done
echo "logs: $logs"
exit $status
