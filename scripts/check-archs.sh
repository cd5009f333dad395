#!/usr/bin/env bash
# Compiles every cuda/*/*.cu (each program's plan.cu, its CUB units, the runtime) to machine code for each architecture CUDA 13 supports (so ptxas runs,
# and an instruction a target lacks is an error), with the library's flags, and fails on any
# error. Prints one line an (architecture, file): ok or FAILED, and the seconds it took.
#   scripts/check-archs.sh                 # 75 80 86 89 90 100 120, nproc compiles at once
#   ARCHS="75 80" scripts/check-archs.sh   # CI's check: the oldest target below each feature line
#                                          # (sm_80: warp reductions; sm_90: bulk copies)
#   JOBS=16 scripts/check-archs.sh         # parallel compiles (default: one a core)
set -uo pipefail
cd "$(dirname "$0")/.."
archs=${ARCHS:-75 80 86 89 90 100 120}
jobs=${JOBS:-$(nproc)}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "check-archs: $($nvcc --version | tail -1); architectures: $archs; $jobs at once"
start=$(date +%s)
for a in $archs; do for f in cuda/*/*.cu; do echo "$a $f"; done; done |
  xargs -P "$jobs" -L 1 bash -c '
    a=$0 f=$1 name=sm_$0-$(echo "${1#cuda/}" | tr / - | sed "s/\.cu$//")
    s=$(date +%s)
    if "'"$nvcc"'" -std=c++17 -O3 --Werror=all-warnings -Xcompiler -fPIC -arch=sm_$a -Icuda/include -Icuda -c "$f" \
         -o "'"$tmp"'/$name.o" >"'"$tmp"'/$name.log" 2>&1; then r=ok; else r=FAILED; fi
    printf "sm_%-4s %-30s %-6s %4ss\n" "$a" "$f" "$r" $(( $(date +%s) - s ))'
status=0
for log in "$tmp"/*.log; do
  [[ -f ${log%.log}.o ]] && continue
  status=1
  echo "--- $(basename "$log" .log):"
  grep -m 10 -E 'error|Error' "$log"
done
echo "check-archs: $( ((status)) && echo FAILED || echo passed) in $(( $(date +%s) - start ))s"
exit $status
