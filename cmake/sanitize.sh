#!/usr/bin/env bash
# compute-sanitizer's TOOL (memcheck or racecheck) over a GoogleTest binary with its arguments, for
# CTest (cmake/sanitizer_tests.cmake): exits 77, which CTest counts as skipped, when there is no GPU
# to run on, so that a machine without one never reports the sanitizers as passed.
#   bash cmake/sanitize.sh TOOL NAME BINARY --gtest_filter=...   (NAME: the suite, for the verdict line)
set -uo pipefail
what="$1 $2" tool=$1
shift 2
skip() { echo "verdict: $what: skipped: $1"; exit 77; }
if [[ ! -e /proc/driver/nvidia/version ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  skip "no NVIDIA driver found (no GPU, or its driver is not installed)"
fi
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [[ -z $sanitizer ]]; then
  echo "verdict: $what: FAILED: compute-sanitizer not found (the CUDA toolkit's; put its bin/ on PATH)"
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$sanitizer" --tool "$tool" --error-exitcode 9 "$@" 2>&1 | tee "$log"
code=${PIPESTATUS[0]}
# a driver that lists no GPU: every test skipped, saying so (where it lists one, a sanitizer that
# cannot reach it is a failure, not a skip)
if grep -q 'no usable GPU' "$log" && ! grep -q '^\[  PASSED  \] [1-9]' "$log" && ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  skip "$(grep -m1 -o 'no usable GPU.*' "$log")"
fi
# a suite whose tests passed without one CUDA call (host-only: the ABI's tables and argument
# checks): there is nothing for the tool to check, so it is skipped, saying so, never passed
if grep -q 'terminated before first instrumented API call' "$log" && grep -q '^\[  PASSED  \] [1-9]' "$log" &&
  ! grep -q '^\[  FAILED  \]' "$log"; then
  skip "its tests passed and made no CUDA call: nothing for $tool to check"
fi
summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/^=* *//')
echo "verdict: $what: ${summary:-no summary from compute-sanitizer}, exit $code"
exit "$code"
