#!/usr/bin/env bash
# Runs on the GPU host, from the bundle scripts/gpu-bundle.sh made: every test, the kernels
# under compute-sanitizer at small sizes, then the benchmark tables. Logs go to $OUT (or /tmp).
#   bash gpu-bundle/run.sh [tests|tables|all|urejanje]   (default all; urejanje: its tests and tables only)
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [[ -f $here/bundle.tar.gz ]]; then # unpack the binaries beside a read-only or small bundle
  unpacked=$(mktemp -d)
  tar -C "$unpacked" -xzf "$here/bundle.tar.gz"
  here=$unpacked
fi
what=${1:-all}
log=${OUT:-/tmp}/gpu-run.log
: >"$log"
export TECAJ_BIN=$here/bin
failed=()
step() { # step NAME COMMAND...: runs it, keeps its output in the log, remembers a failure
  local name=$1; shift
  echo "=== $name" | tee -a "$log"
  if ! "$@" >>"$log" 2>&1; then failed+=("$name"); echo "    FAILED (see the log)"; fi
}
nvidia-smi -L 2>&1 | tee -a "$log"

if [[ $what == all || $what == tests ]]; then
  step gtest "$here/tests/kernel_tests"
  for t in "$here"/tests/go-*.test; do step "$(basename "$t")" "$t" -test.v; done
  # memcheck every kernel at small sizes; racecheck the shared-memory reductions
  export TECAJ_MAX_N=70000
  step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 "$here/tests/kernel_tests"
  step racecheck compute-sanitizer --tool racecheck --error-exitcode 9 "$here/tests/kernel_tests" --gtest_filter='Razdalja.*:Urejanje.EveryVariantAndSize:Urejanje.Batches'
  unset TECAJ_MAX_N
  echo "--- tests"
  grep -hE '^\[  PASSED  \]|^\[  SKIPPED \] [0-9]+ tests?,|^\[  FAILED  \] [0-9]+ tests?,' "$log" | sort | uniq -c
  echo "go: $(grep -c -- '^--- PASS' "$log") passed, $(grep -c -- '^--- SKIP' "$log") skipped, $(grep -c -- '^--- FAIL' "$log") failed"
  grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log"
fi

if [[ $what == urejanje ]]; then
  step gtest "$here/tests/kernel_tests" --gtest_filter='Urejanje.*'
  grep -hE '^\[  PASSED  \]|^\[  FAILED  \]' "$log"
  grep -m 30 -E 'Failure|FAILED|not the key|value out|differs' "$log"
fi

if [[ $what == all || $what == tables || $what == urejanje ]]; then
  [[ $what == urejanje ]] || for prog in razdalja razlika; do
    for n in 1000000 2^28; do
      echo; "$here/bin/$prog" -variant all -n "$n" -reps 30 2>&1 | tee -a "$log" || failed+=("$prog -n $n")
    done
  done
  for args in "-n 2^24 -pairs -type uint32 -reps 10" "-n 1024 -batch 1024 -pairs -type uint32" \
              "-n 2^14 -type uint32" "-n 2^20 -pairs -type uint32"; do
    echo; "$here/bin/urejanje" -variant all $args 2>&1 | tee -a "$log" || failed+=("urejanje $args")
  done
  [[ $what == urejanje ]] || "$here/bin/razdalja" -info 2>&1 | tee -a "$log"
  "$here/bin/urejanje" -info 2>&1 | tee -a "$log"
fi

echo
if ((${#failed[@]})); then echo "FAILED: ${failed[*]}"; exit 1; fi
echo "all steps passed"
