#!/usr/bin/env bash
# Runs on the GPU host, from the bundle scripts/gpu-bundle.sh made and copied there: every test,
# the kernels under compute-sanitizer at small sizes, then the benchmark tables. Each mode writes
# its whole log into the folder for logs, $OUT (/tmp by default), and the terminal gets the counts
# and the failures.
#   bash gpu-bundle/run.sh [tests|quick|sanitizers|tables [PROGRAM...]|all|PROGRAM]   (default all; tables also
#       write each line's -csv into $OUT/tables.tgz, for docs/results and scripts/tables; quick:
#       the tests without the sanitizers; sanitizers: memcheck and racecheck only; tables PROGRAM...:
#       those programs' tables only; a program's name: its tests and tables only). On an H100 quick
#       takes minutes, sanitizers and all the tables several times that (docs/gpu-host.md).
#   bash gpu-bundle/run.sh archs   (scripts/check-archs.sh: every .cu for sm_75 ... sm_120, JOBS (nproc) at once)
#   LIB=ptx75 bash gpu-bundle/run.sh quick   (on the compute_75 PTX library: see gpu-bundle.sh's PTX_ARCHS)
#   SANITIZE_ONLY='Redukcija.*' bash gpu-bundle/run.sh sanitizers   (memcheck and racecheck of some suites)
#   bash gpu-bundle/run.sh targets [PROGRAM...]   (each benchmark line once, best beside its library,
#       about a third of the tables' time)
#   GRID="512x0 256x528" bash gpu-bundle/run.sh grid razdalja -n 1000000 -variant best
#       (one line at several THREADSxBLOCKS, blocks 0 the variant's own; each line's kernel rows)
#   bash gpu-bundle/run.sh ab LINES gpu-bundle-b ...  (each line of the file LINES, "[VAR=VALUE...] PROGRAM
#       ARGS", run by this bundle and each other one in turn, AB_ROUNDS rounds (2): two commits' kernel
#       rows side by side on one GPU, e.g. a MINI=1 bundle of a branch beside main's; an experiment's
#       switches in the environment, one line a setting. LINES "targets": every benchmark line, best
#       beside its library. scripts/ab-table.py LOG turns the log into a table of medians)
#   bash gpu-bundle/run.sh large   (best and the library at n = 2^31 + 5: razdalja, redukcija sum and argmin, prefiks, razlika)
#   bash gpu-bundle/run.sh pictures   (README's four pictures: each sweep's .svg and .csv, packed into $OUT/images.tgz)
#   bash gpu-bundle/run.sh profile PROGRAM ARGS...      (ncu of one run: per-kernel time, DRAM and issue figures;
#       with a bundle from LINEINFO=1 scripts/gpu-bundle.sh, NCU_SOURCE=1 and NCU_ARGS="-k
#       regex:NAME -c 1" add the SASS lines where the warps stall most, $OUT/profile-source.txt)
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [[ -f $here/bundle.tar.gz ]]; then # unpack the binaries beside a read-only or small bundle
  unpacked=$(mktemp -d)
  tar -C "$unpacked" -xzf "$here/bundle.tar.gz"
  here=$unpacked
fi
what=${1:-all}
# one log a mode, and for ab one a lines file: running quick and then the sanitizers, or two ab
# files, keeps every log
log=${OUT:-/tmp}/gpu-run-$what${LIB:+-$LIB}${TECAJ_EMULATE:+-$TECAJ_EMULATE}.log
[[ $what == ab && -n ${2:-} ]] && log=${OUT:-/tmp}/gpu-run-ab-$(basename "$2" .lines).log
mkdir -p "$(dirname "$log")"
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
# commands, the Go tests and the GoogleTest binary; the GPU JIT-compiles it, so older GPUs' paths run
# TECAJ_EMULATE=t4|rtx3060|rtx4090|a100 passes through: every plan is then made for that GPU
libdir=$here/lib kernel_tests=$here/tests/kernel_tests
if [[ -n ${LIB:-} ]]; then
  libdir=$here/lib-$LIB kernel_tests=$here/tests/kernel_tests-$LIB
  [[ -d $libdir ]] || { echo "run.sh: LIB=$LIB: the bundle has no lib-$LIB (PTX_ARCHS when it was made)" >&2; exit 2; }
  export CUDA_CACHE_MAXSIZE=4294967296 # the JIT's cache holds every module it compiles
fi
echo "library: $libdir${TECAJ_EMULATE:+; plans for TECAJ_EMULATE=$TECAJ_EMULATE}"
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} # the commands' shared libtecaj.so
if [[ $what == bench ]]; then # the measurements of bench/ (the floors the targets are held to)
  for b in "$here"/tests/bench/*; do echo "=== $(basename "$b")"; "$b"; done 2>&1 | tee "$log"
  exit "${PIPESTATUS[0]}"
fi
if [[ $what == archs ]]; then # every .cu compiled for every architecture CUDA 13 supports
  JOBS=${JOBS:-$(nproc)} bash "$here/check/scripts/check-archs.sh" 2>&1 | tee "$log"
  exit "${PIPESTATUS[0]}"
fi
if [[ $what == profile ]]; then # ncu over one verified run of the named program's variant
  shift
  prog=$1; shift
  # NCU_ARGS: more ncu options, e.g. NCU_ARGS="--kernel-name regex:conv_best -c 2". The clocks stay
  # as the card has them (--clock-control none: a profile leaves the card's settings alone, as the
  # tables' runs do; ncu's default locks them to base, 1.58 GHz on the H100, during the profile).
  # NCU_SOURCE=1 (with a LINEINFO=1 bundle and NCU_ARGS naming one kernel, -c 1): the SASS lines
  # where the warps stalled most, from the report's source page, into profile-source.txt as well.
  rep=${OUT:-/tmp}/profile
  ncu --clock-control none ${NCU_ARGS:-} --section SpeedOfLight --section LaunchStats --section Occupancy \
      --section MemoryWorkloadAnalysis --section WarpStateStats --section ComputeWorkloadAnalysis \
      --section SchedulerStats ${NCU_SOURCE:+--section SourceCounters --import-source yes -f -o "$rep"} \
      "$here/bin/$prog" -reps 1 "$@" >"$rep.log" 2>&1
  code=$?
  [[ -n ${NCU_SOURCE:-} && -f $rep.ncu-rep ]] && ncu -i "$rep.ncu-rep" >>"$rep.log" 2>&1
  grep -vE '^==PROF==' "$rep.log" | tail -150
  if [[ -n ${NCU_SOURCE:-} && -f $rep.ncu-rep ]]; then
    ncu -i "$rep.ncu-rep" --page source --csv --print-source sass >"$rep-source.csv" 2>&1
    python3 - "$rep-source.csv" <<'PY' | tee "$rep-source.txt"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
head = next((i for i, r in enumerate(rows) if any("Warp Stall Sampling (All" in c for c in r)), None)
if head is None:
    print("no source page in the report (ncu's --page source): " + " ".join(" ".join(r) for r in rows[:3])[:300]); sys.exit()
cols = rows[head]
stall = next(i for i, c in enumerate(cols) if "Warp Stall Sampling (All" in c)
text = next((i for i, c in enumerate(cols) if c.strip() in ("Source", "SASS")), 1)
def num(v):
    try: return float(v.replace(",", ""))
    except ValueError: return 0.0
body = [r for r in rows[head + 1:] if len(r) > max(stall, text)]
total = sum(num(r[stall]) for r in body) or 1.0
print(f"warp stall samples: {total:.0f}; the lines with the most (share, samples, SASS):")
for r in sorted(body, key=lambda r: -num(r[stall]))[:40]:
    print(f"{100 * num(r[stall]) / total:5.1f}% {num(r[stall]):8.0f}  {r[0][:8]:8} {r[text].strip()[:90]}")
PY
  fi
  exit "$code"
fi
# one [VAR=VALUE...] PROGRAM ARGS...: one run of a command (in that environment: an experiment's
# switch, as a line of an ab file), its copy line, kernel rows and any refusal shown, its whole
# output kept in the log; its exit status. bin: the commands' folder (another bundle's, in ab),
# label: a name before the line, ONE_TIMEOUT: seconds a run may take (0: no limit).
bin=$here/bin
one() {
  local vars=()
  while [[ $1 == [A-Z_]*=* ]]; do vars+=("$1"); shift; done
  local prog=$1; shift
  echo "--- ${label:+$label: }${vars[*]:+${vars[*]} }$prog $*" | tee -a "$log"
  env "${vars[@]}" timeout "${ONE_TIMEOUT:-0}" "$bin/$prog" "$@" >"$log.one" 2>&1
  local code=$?
  grep -E 'copy \(read|^ +variant |^ +[a-z0-9]+ +([0-9]+|-) +([0-9]+|-) ' "$log.one" | cut -c1-120
  ((code)) && { echo "    exit $code (see the log)"; grep -m1 -i -E -- '-blocks|-threads|error|usable|fail' "$log.one"; }
  cat "$log.one" >>"$log"; rm -f "$log.one"
  return $code
}
if [[ $what == grid ]]; then # one line at several grids (a grid sweep)
  shift
  prog=$1; shift
  for g in ${GRID:-512x0 256x0 256x264 256x528 256x1056 512x132 512x264}; do
    one "$prog" "$@" -threads "${g%x*}" -blocks "${g#*x}"
  done
  exit 0
fi
if [[ $what == ab ]]; then # lines of a file, this bundle's run beside other bundles' (another commit's), interleaved
  shift
  lines=$1; shift
  if [[ $lines == targets ]]; then # every benchmark line of this bundle, best beside its library (old bundles may lack npp)
    lines=$(mktemp)
    for prog in $(cd "$here/bin" && ls); do
      case $prog in razlika | konvolucija) v=best ;; *) v=best,cub ;; esac
      "$here/bin/$prog" -benchmarks | sed "s/^/$prog -variant $v /" >>"$lines"
    done
  fi
  names=("$(basename "$(dirname "$0")")"); dirs=("$here")
  for b in "$@"; do # each other bundle unpacked beside this one
    d=$(mktemp -d); tar -C "$d" -xzf "$b/bundle.tar.gz" || exit 2
    names+=("$(basename "$b")"); dirs+=("$d")
  done
  export ONE_TIMEOUT=${AB_TIMEOUT:-300} # (a 2^28 input's set-up on a fresh machine takes over a minute)
  while read -r line; do
    [[ -z $line || $line == \#* ]] && continue
    for ((round = 0; round < ${AB_ROUNDS:-2}; round++)); do
      for i in "${!dirs[@]}"; do
        label=${names[$i]} bin=${dirs[$i]}/bin LD_LIBRARY_PATH=${dirs[$i]}/lib one $line
      done
    done
  done <"$lines"
  exit 0
fi
if [[ $what == large ]]; then # best and the library past 2^31 elements (TestPastTwoToThe31: minutes, ~60 GB of host memory)
  cd "$here/src/cli" && TECAJ_LARGE=1 "$here/tests/go-cli.test" -test.run 'TestPastTwoToThe31' -test.v -test.timeout 30m 2>&1 | tee "$log"
  exit "${PIPESTATUS[0]}"
fi
if [[ $what == pictures ]]; then # README's four pictures, each with its table and .csv, into $OUT/images
  img=${OUT:-/tmp}/images; mkdir -p "$img"
  pic() { # pic NAME PROGRAM ARGS...
    local name=$1; shift
    echo "=== $name: $*" | tee -a "$log"
    "$here/bin/$@" -plot "$img/$name.svg" -csv "$img/$name.csv" 2>&1 | tee -a "$log"
    ((PIPESTATUS[0] == 0)) || failed+=("$name")
  }
  failed=()
  pic redukcija-staircase redukcija -n 2^28 -variant all # (named one by one, the variants outside their domain at 2^28 would be refused)
  pic redukcija-sweep redukcija -n 2^10..2^28 -variant best,r6,cub
  pic prefiks-sweep prefiks -n 2^10..2^28 -variant best,cub,grid
  pic konvolucija-sweep konvolucija -n 2^16..2^26 -variant g,c,t,best${PICTURES_NPP:+,npp}
  tar -C "$img/.." -czf "$img.tgz" images && rm -rf "$img" # one file to copy back
  if ((${#failed[@]})); then echo "FAILED: ${failed[*]}"; exit 1; fi
  exit 0
fi
failed=()
step() { # step NAME COMMAND...: runs it, keeps its output in the log, remembers a failure
  local name=$1; shift
  echo "=== $name" | tee -a "$log"
  if ! "$@" >>"$log" 2>&1; then failed+=("$name"); echo "    FAILED (see the log)"; fi
}
nvidia-smi -L 2>&1 | tee -a "$log"

programs=$(cd "$here/bin" && ls) # every command in the bundle; each names its own benchmark tables (-benchmarks)
if [[ $what == tables && $# -gt 1 ]]; then shift; programs="$*"; fi

if [[ $what == all || $what == tests || $what == quick ]]; then
  step gtest "$kernel_tests"
  for t in "$here"/tests/go-*.test; do # each in its package's folder, beside its testdata
    name=$(basename "$t" .test)
    pushd "$here/src/${name#go-}" >/dev/null && step "$(basename "$t")" "$t" -test.v
    popd >/dev/null
  done
fi
summary() { # the counts of every test binary's run in the log, and the sanitizers' verdicts
  echo "--- tests"
  grep -hE '^\[  PASSED  \]|^\[  SKIPPED \] [0-9]+ tests?,|^\[  FAILED  \] [0-9]+ tests?,' "$log" | sort | uniq -c
  echo "go: $(grep -c -- '^--- PASS' "$log") passed, $(grep -c -- '^--- SKIP' "$log") skipped, $(grep -c -- '^--- FAIL' "$log") failed"
  grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log"
}
if [[ $what == quick ]]; then # the counts, and what failed, in short
  summary
  grep -E '^\[  FAILED  \]|^--- FAIL' "$log" | sort -u | head -60
  grep -m 60 -B2 -A8 -E ': Failure$' "$log"
fi
if [[ $what == all || $what == tests || $what == sanitizers ]]; then
  # memcheck every kernel at small sizes; racecheck the kernels that share memory (by test name:
  # every variant of every program, the block sizes, the primitives)
  # SANITIZE_ONLY: a gtest filter naming the suites a change touched (e.g. 'Redukcija.*:Razdalja.*');
  # the racecheck set is then its shared-memory tests within those suites
  only=${SANITIZE_ONLY:-*}
  race='*.EveryVariant*:*.Batches:*.BlockSizes:*Dimension*:Primitives.*:*.BestMagnitude*:*.BestUint8*'
  # (each pattern within each named suite: *.X as Suite.X, *X* as Suite.*X*, Suite.X where it is that suite)
  if [[ $only != '*' ]]; then race=$(for s in ${only//:/ }; do for r in ${race//:/ }; do
    case $r in
      \*.*) echo -n "${s%%.*}.${r#\*.}:" ;;
      \**) echo -n "${s%%.*}.$r:" ;;
      "${s%%.*}".*) echo -n "$r:" ;;
    esac; done; done); fi
  export TECAJ_MAX_N=70000
  step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 "$kernel_tests" --gtest_filter="$only"
  # (racecheck is the slower tool: sizes up to 5000 still span many blocks and tiles)
  TECAJ_MAX_N=5000 step racecheck compute-sanitizer --tool racecheck --error-exitcode 9 "$kernel_tests" \
    --gtest_filter="$race"
  unset TECAJ_MAX_N
  summary
fi

if [[ $what != all && $what != tests && $what != tables && $what != quick && $what != sanitizers && $what != targets ]]; then # one program: its tests and tables
  programs=$what
  step gtest "$kernel_tests" --gtest_filter="${what^}.*"
  grep -hE '^\[  PASSED  \]|^\[  FAILED  \]' "$log"
  grep -m 30 -E 'Failure|FAILED|not the key|value out|differs' "$log"
fi

if [[ $what == targets ]]; then # the issues' target rows only: best beside its library, one input set a line
  shift
  [[ $# -gt 0 ]] && programs="$*"
  for prog in $programs; do
    case $prog in
      razdalja) variants=all ;;         # best must be the fastest of them
      razlika) variants=best ;;         # no library row; the copy is the bar
      konvolucija) variants=best ;;     # (and npp on the replicate border's lines, below)
      *) variants=best,cub ;;
    esac
    while read -r args; do
      v=$variants
      [[ $prog == konvolucija && $args == *"-border replicate"* ]] && v=best,npp # (npp's only border)
      one "$prog" -variant "$v" $args || failed+=("$prog $args")
    done < <("$here/bin/$prog" -benchmarks)
  done
  echo
  if ((${#failed[@]})); then echo "FAILED: ${failed[*]}"; exit 1; fi
  echo "all steps passed"
  exit 0
fi

if [[ $what != tests && $what != quick && $what != sanitizers ]]; then
  # every table as data too: one -csv a line (the run's parameters, card, commit and date in each
  # row), packed into $OUT/tables.tgz for docs/results and scripts/tables
  tables=$(mktemp -d)
  for prog in $programs; do
    k=0
    while read -r args; do
      ((++k)) # (not inside the pipeline below: its commands run in subshells, and each line wrote $prog-1.csv)
      echo; "$here/bin/$prog" -variant all $args -csv "$tables/$prog-$k.csv" 2>&1 | tee -a "$log" || failed+=("$prog $args")
    done < <("$here/bin/$prog" -benchmarks)
    "$here/bin/$prog" -info 2>&1 | tee -a "$log"
  done
  tar -C "$tables" -czf "${OUT:-/tmp}/tables.tgz" . && echo "tables as data: ${OUT:-/tmp}/tables.tgz"
fi

echo
if ((${#failed[@]})); then echo "FAILED: ${failed[*]}"; exit 1; fi
echo "all steps passed"
