#!/usr/bin/env bash
# Runs on the GPU host, from the bundle scripts/gpu-bundle.sh made and copied there: the tests
# through CTest (labels gpu, memcheck and racecheck), the benchmark lines through tools/bench.
# Each mode writes its whole log to $OUT (/tmp by default) as gpu-run-MODE.log; the terminal gets
# a line a test or a benchmark line, then the counts and the failures.
#   bash gpu-bundle/run.sh [all|tests|quick|sanitizers|PROGRAM]   (default all)
#       quick: every test (ctest -L gpu); sanitizers: compute-sanitizer memcheck and racecheck at
#       small sizes (ctest -L 'memcheck|racecheck'); tests: both; all: both, then the tables;
#       a program's name (e.g. urejanje): its GoogleTest suite and its tables
#   SANITIZE_ONLY='Redukcija.*:Razdalja.*' bash gpu-bundle/run.sh sanitizers   (those suites only)
#   bash gpu-bundle/run.sh ctest ARGS...   (ctest itself, e.g. ctest -L memcheck -R Redukcija)
#   LIB=ptx75 bash gpu-bundle/run.sh quick   (on the compute_75 PTX library: gpu-bundle.sh's PTX_ARCHS)
#   TECAJ_EMULATE=t4 bash gpu-bundle/run.sh quick   (every plan made for a T4; also rtx3060, rtx4090, a100, h200)
#   bash gpu-bundle/run.sh targets [PROGRAM...]   (each benchmark line once, best beside its library)
#   bash gpu-bundle/run.sh tables [PROGRAM...]   (every line, every variant; each line's -csv into $OUT/tables.tgz)
#   bash gpu-bundle/run.sh ab LINES|targets gpu-bundle-b ...   (each line of LINES, "[VAR=VALUE...]
#       PROGRAM ARGS", run by this bundle and each other one in turn, AB_ROUNDS rounds (2), then the
#       table of medians; targets: every benchmark line, best beside its library)
#   GRID="512x0 256x528" bash gpu-bundle/run.sh grid razdalja -n 1000000 -variant best
#       (one line at several THREADSxBLOCKS, blocks 0 the variant's own)
#   bash gpu-bundle/run.sh pictures [NAME...]   (README's pictures, or those whose names start with a NAME
#       given, e.g. urejanje: each sweep's .svg and .csv into $OUT/images.tgz;
#       PICTURES_NPP=1 adds konvolucija's npp)
#   bash gpu-bundle/run.sh profile PROGRAM ARGS...   (ncu of one run: per-kernel time, DRAM and issue;
#       with a LINEINFO=1 bundle, NCU_SOURCE=1 and NCU_ARGS="-k regex:NAME -c 1" add the SASS lines
#       where the warps stall most, $OUT/profile-source.txt)
#   bash gpu-bundle/run.sh archs   (every .cu for sm_75 ... sm_120, JOBS (nproc) at once)
#   bash gpu-bundle/run.sh bench   (the measurements of bench/: the floors under the targets)
#   bash gpu-bundle/run.sh large   (best and the library at n = 2^31 + 5; ~60 GB of host memory)
#   bash gpu-bundle/run.sh multi   (several GPUs: bench/combine's floor, the multi-GPU Go tests, then best
#       over 2, 4 and 8 GPUs where there are so many, at 2^31 + 5 and 10^6; the rows' .csv into $OUT/multi.tgz)
set -u
bundle=$(cd "$(dirname "$0")" && pwd)
here=$bundle
if [[ -f $here/bundle.tar.gz ]]; then # unpack the binaries beside a read-only or small bundle
  here=$(mktemp -d)
  trap 'rm -rf "$here"' EXIT
  tar -C "$here" -xzf "$bundle/bundle.tar.gz" || exit 2
fi
what=${1:-all}
(($#)) && shift
out=${OUT:-/tmp}
mkdir -p "$out"
# one log a mode, and for ab one a lines file, so that running one mode after another keeps each
log=$out/gpu-run-$what${LIB:+-$LIB}${TECAJ_EMULATE:+-$TECAJ_EMULATE}.log
[[ $what == ab && -n ${1:-} ]] && log=$out/gpu-run-ab-$(basename "$1" .lines).log
: >"$log"
export TECAJ_BIN=$here/bin
export NCCL_NVLS_ENABLE=0 # (-gpus: NVLink multicast off, always: on a shared host it can take GPUs out of service)
if [[ -z ${TECAJ_NPPIF:-} ]]; then # NPP (konvolucija npp) from the toolkit or a wheel, where there is one
  TECAJ_NPPIF=$(find /usr/local/cuda*/ /usr/lib /opt -name 'libnppif.so.1[0-9]*' 2>/dev/null | head -1) && [[ -n $TECAJ_NPPIF ]] && export TECAJ_NPPIF
  echo "NPP: ${TECAJ_NPPIF:-not found (konvolucija npp rows are skipped)}"
fi
if [[ -z ${TECAJ_NCCL:-} ]]; then # NCCL from the Python wheel where the toolkit has none
  TECAJ_NCCL=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null) && export TECAJ_NCCL
fi
# LIB=ptx75 (a bundle made with PTX_ARCHS="75"): the library built as compute_75 PTX only, for the
# commands, the Go tests and the GoogleTest binary; the GPU JIT-compiles it, so older GPUs' paths
# run. TECAJ_EMULATE passes through: every plan is then made for that GPU.
libdir=$here/lib kernel_tests=$here/tests/kernel_tests
if [[ -n ${LIB:-} ]]; then
  libdir=$here/lib-$LIB kernel_tests=$here/tests/kernel_tests-$LIB
  [[ -d $libdir ]] || { echo "run.sh: LIB=$LIB: the bundle has no lib-$LIB (PTX_ARCHS when it was made)" >&2; exit 2; }
  export CUDA_CACHE_MAXSIZE=4294967296 # the JIT's cache holds every module it compiles
fi
echo "library: $libdir${TECAJ_EMULATE:+; plans for TECAJ_EMULATE=$TECAJ_EMULATE}"
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} # the commands' shared libtecaj.so

# bench MODE ARGS...: the benchmark lines (tools/bench, from scripts/bench), this bundle's commands
bench() {
  local mode=$1; shift
  "$here/tools/bench" "$mode" -bin "$here/bin" -out "$out" -log "$log" "$@"
}
testline='^ *[0-9]+/[0-9]+ Test +#' # (ctest -V's line a test: "3/101 Test #3: Suite.Name ... Passed")
# ctests ARGS...: CTest over the bundle's tests (its CMake project, configured here once a run),
# every output into the log, a line a test to the terminal, then the summary
ctests() {
  { nvidia-smi -L 2>&1 || echo "nvidia-smi: none here"; } | tee -a "$log"
  cmake -S "$here" -B "$here/ctest" -DTECAJ_KERNEL_TESTS="$kernel_tests" -DTECAJ_LIB_DIR="$libdir" >>"$log" 2>&1 ||
    { echo "run.sh: cmake could not configure the bundle's tests (see $log)"; return 2; }
  ctest --test-dir "$here/ctest" -V "$@" 2>&1 | tee -a "$log" | grep --line-buffered -E "$testline"
  local code=${PIPESTATUS[0]}
  summary
  # (a run in which no test ran, e.g. CTest could not read its tests, is a failure, never a pass)
  grep -qE "$testline" "$log" || { echo "run.sh: no test ran (see $log)"; code=1; }
  return "$code"
}
# the counts of CTest's tests and of the Go test functions, the sanitizers' verdicts, what failed
summary() {
  local line=$testline
  echo "--- summary (the whole log: $log)"
  echo "ctest: $(grep -cE "$line.* Passed " "$log") passed, $(grep -cE "$line.*\*\*\*Skipped " "$log") skipped," \
    "$(grep -E "$line" "$log" | grep -cvE ' Passed |\*\*\*Skipped ') failed"
  grep -qE '^[0-9]+: --- ' "$log" && echo "go test functions: $(grep -cE '^[0-9]+: --- PASS' "$log") passed," \
    "$(grep -cE '^[0-9]+: --- SKIP' "$log") skipped, $(grep -cE '^[0-9]+: --- FAIL' "$log") failed"
  grep -E '^[0-9]+: verdict:' "$log" | sed -E 's/^[0-9]+: //'
  grep -A100 '^The following tests FAILED:' "$log" | grep -E '^\s+[0-9]+ - '
  grep -m 20 -A6 -E ': Failure$' "$log" | sed -E 's/^[0-9]+: //'
}
# SANITIZE_ONLY (a gtest filter, 'Redukcija.*:Razdalja.*'): the sanitizers' tests of the suites it names
sanitizers=(-L 'memcheck|racecheck')
if [[ -n ${SANITIZE_ONLY:-} ]]; then
  sanitizers+=(-R "^(memcheck|racecheck)\.($(tr ':' '\n' <<<"$SANITIZE_ONLY" | sed 's/\..*//' | paste -sd'|'))\$")
fi

case $what in
  quick) ctests -L gpu ;;
  sanitizers) ctests "${sanitizers[@]}" ;;
  tests) ctests ;;
  all) ctests; code=$?; bench tables || code=1; exit "$code" ;;
  ctest) ctests "$@" ;;
  targets | tables | grid | pictures) # (the environment's settings as the bash runner took them)
    case $what in
      grid) [[ -n ${GRID:-} ]] && set -- -grid "$GRID" "$@" ;;
      pictures) [[ -n ${PICTURES_NPP:-} ]] && set -- -npp "$@" ;;
    esac
    bench "$what" "$@" ;;
  ab) bench ab -name "$(basename "$bundle")" -rounds "${AB_ROUNDS:-2}" -timeout "${AB_TIMEOUT:-300}s" "$@" ;;
  profile) # ncu over one verified run of the named program's variant
    prog=$1; shift
    # NCU_ARGS: more ncu options. The clocks stay as the card has them (--clock-control none: a
    # profile leaves the card's settings alone, as the tables' runs do; ncu's default locks them to base)
    rep=$out/profile
    ncu --clock-control none ${NCU_ARGS:-} --section SpeedOfLight --section LaunchStats --section Occupancy \
        --section MemoryWorkloadAnalysis --section WarpStateStats --section ComputeWorkloadAnalysis \
        --section SchedulerStats ${NCU_SOURCE:+--section SourceCounters --import-source yes -f -o "$rep"} \
        "$here/bin/$prog" -reps 1 "$@" >"$rep.log" 2>&1
    code=$?
    [[ -n ${NCU_SOURCE:-} && -f $rep.ncu-rep ]] && ncu -i "$rep.ncu-rep" >>"$rep.log" 2>&1
    grep -vE '^==PROF==' "$rep.log" | tail -150
    if [[ -n ${NCU_SOURCE:-} && -f $rep.ncu-rep ]]; then
      ncu -i "$rep.ncu-rep" --page source --csv --print-source sass >"$rep-source.csv" 2>&1
      python3 "$here/tools/ncu-stalls.py" "$rep-source.csv" | tee "$rep-source.txt"
    fi
    exit "$code" ;;
  archs) JOBS=${JOBS:-$(nproc)} bash "$here/check/scripts/check-archs.sh" 2>&1 | tee "$log"; exit "${PIPESTATUS[0]}" ;;
  bench) for b in "$here"/tests/bench/*; do echo "=== $(basename "$b")"; "$b"; done 2>&1 | tee "$log"; exit "${PIPESTATUS[0]}" ;;
  large) cd "$here/src/cli" && TECAJ_LARGE=1 "$here/tests/go-cli.test" -test.run 'TestPastTwoToThe31' -test.v -test.timeout 30m 2>&1 | tee "$log"; exit "${PIPESTATUS[0]}" ;;
  multi)
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    ((gpus >= 2)) || { echo "run.sh multi: $gpus GPU(s) here; it needs two or more" >&2; exit 2; }
    counts=() && for ((g = 2; g <= gpus && g <= 8; g *= 2)); do counts+=("$g"); done
    "$here/tests/bench/bench_combine" 2>&1 | tee "$log"
    code=${PIPESTATUS[0]}
    (cd "$here/src/cli" && "$here/tests/go-cli.test" -test.run 'TestMulti' -test.v) 2>&1 | tee -a "$log"
    ((PIPESTATUS[0] == 0)) || code=1
    bench multi "${counts[@]}" || code=1
    exit "$code" ;;
  *) # one program: its GoogleTest suite and its tables
    [[ -x $here/bin/$what ]] || { echo "run.sh: no mode or program named $what (see the head of run.sh)" >&2; exit 2; }
    ctests -L gpu -R "^${what^}\\."; code=$?
    bench tables "$what" || code=1
    exit "$code" ;;
esac
