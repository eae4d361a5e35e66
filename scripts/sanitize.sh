#!/usr/bin/env bash
# The sanitizer job: builds the JIT library, its unit and lit tests and the fuzz targets
# with clang's AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/), runs the
# tests, then each fuzz target for FUZZ_SECONDS (default 60) from its corpus in
# fuzz/corpus/<target>. Findings (crashes, hangs over 5 s, leaks) fail the job and leave
# their input in build-asan/fuzz-findings/.
#   scripts/sanitize.sh            # build, test, fuzz
#   FUZZ_SECONDS=600 scripts/sanitize.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVE_ASAN_BUILD_DIR:-$root/build-asan}
jobs=${WAVE_JOBS:-$(nproc)}
seconds=${FUZZ_SECONDS:-60}

# -O1 keeps the instrumented tests fast enough; LLVM/MLIR themselves are not instrumented.
WAVE_EXTRA_PACKAGES="clang-22 libclang-rt-22-dev" CC=clang-22 CXX=clang++-22 CMAKE_BUILD_TYPE=RelWithDebInfo \
  "$root/scripts/setup.sh" "$build" \
  -DWAVE_SANITIZE=address,undefined -DWAVE_WERROR=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1"
fuzzers=(wave-fuzz-attributes wave-fuzz-modules wave-fuzz-import wave-fuzz-launch)
# check-wave-lit's dependencies: wave-opt and the examples the lit tests run.
cmake --build "$build" -j "$jobs" --target wave-unit-tests wave-jit-tests wave-opt wave-example-copy \
  wave-example-gemm wave-example-softmax wave-example-flash_attention wave-example-decode_attention \
  wave-example-conv2d "${fuzzers[@]}"

# LLVM's headers poison parts of its bump allocators when the including code is built with
# ASan, which the uninstrumented libMLIR then writes: those reports are false, so manual
# poisoning is off. Leaks are still reported.
export ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PATH=/usr/lib/llvm-22/bin:$PATH
ctest --test-dir "$build" -L 'unit|lit' --output-on-failure -j "$jobs"

# Each target from its corpus (read-only; new inputs go to a scratch folder), two at a time.
findings=$build/fuzz-findings
mkdir -p "$findings"
run_fuzzer() {
  local name=$1 scratch
  scratch=$(mktemp -d)
  echo "sanitize: fuzzing $name for ${seconds}s"
  "$build/bin/$name" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=16384 \
    -print_final_stats=1 -artifact_prefix="$findings/$name-" "$scratch" "$root/fuzz/corpus/$name" \
    > "$findings/$name.log" 2>&1 || { tail -n 60 "$findings/$name.log"; return 1; }
  grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$findings/$name.log" | sed "s/^/$name: /"
  rm -rf "$scratch"
}
status=0
for ((i = 0; i < ${#fuzzers[@]}; i += 2)); do
  pids=()
  for name in "${fuzzers[@]:i:2}"; do
    run_fuzzer "$name" & pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
done
exit $status
