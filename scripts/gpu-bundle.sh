#!/usr/bin/env bash
# Builds everything here, where Go and the CUDA toolkit are, into gpu-bundle/ for a GPU host that
# needs neither: the commands, the GoogleTest binary, one `go test -c` binary per Go package, the
# benchmark runner (scripts/bench), a small CMake project that declares the same CTest tests over
# these binaries, and run.sh, which runs them there. Copy the folder to the GPU host and run it:
#   scripts/gpu-bundle.sh              # here
#   rsync -a gpu-bundle gpuhost:       # (or scp -r gpu-bundle gpuhost:)
#   ssh gpuhost bash gpu-bundle/run.sh quick   # there: every test (run.sh's head lists every mode)
#   scripts/gpu-bundle.sh DIR          # the bundle into DIR instead (named gpu-bundle*), e.g. another
#       commit's beside this one: `git worktree add ../a main && ../a/scripts/gpu-bundle.sh
#       $PWD/gpu-bundle-a`; copy both over and compare them there with
#       `bash gpu-bundle/run.sh ab LINES gpu-bundle-a`
#   MINI=1 scripts/gpu-bundle.sh DIR   # the commands and the library only (no tests): enough for
#       run.sh targets, grid, tables, ab and profile. For a commit whose script is older, copy this
#       one into its worktree first.
# The GPU host needs the NVIDIA driver, CMake 3.25 or newer (its ctest; `pip install cmake` is
# enough) and, for the sanitizers and profiles, the CUDA toolkit's compute-sanitizer and ncu.
#
# The library's device code (CUB's sorts among it) is the bulk of the bundle: the commands and the
# Go test binaries (-tags shared) load one lib/libtecaj.so (the GoogleTest binary links it
# statically, below), so a new command adds only its Go code, and the binaries travel packed in
# bundle.tar.gz, which run.sh unpacks.
set -euo pipefail
out=$(realpath -m "${1:-$(dirname "$0")/../gpu-bundle}")
[[ $(basename "$out") == gpu-bundle* ]] || { echo "gpu-bundle.sh: the bundle's folder must be named gpu-bundle* (got $out)" >&2; exit 2; }
cd "$(dirname "$0")/.."
# The GPU host's architecture, named (default sm_90 machine code and its PTX: the H100 and H200;
# CUDA_ARCHS="86-real" and so on for another GPU, as scripts/setup.sh takes it), so that an older
# build folder's cache cannot leave the bundle JIT-compiling another architecture's PTX.
# LINEINFO=1: line tables for ncu's source view (run.sh profile with NCU_SOURCE=1)
# PTX_ARCHS="75 80": also the library and the GoogleTest binary built as compute_75 (compute_80)
#   PTX only, into lib-ptx75/ and tests/kernel_tests-ptx75: `LIB=ptx75 bash run.sh quick` runs every
#   test on them, the GPU JIT-compiling the PTX, so the fallbacks for older GPUs run (a few minutes
#   of build each)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90-real;90-virtual}" \
  -DTECAJ_LINEINFO="$([[ ${LINEINFO:-0} == 1 ]] && echo ON || echo OFF)" >/dev/null
mini=${MINI:-0}
if [[ $mini == 1 ]]; then cmake --build build -j"$(nproc)" --target tecaj_shared
else cmake --build build -j"$(nproc)" --target all tecaj_shared; fi
rm -rf "$out"
mkdir -p "$out/bin" "$out/tests" "$out/lib" "$out/src" "$out/tools"
cp build/shared/libtecaj.so "$out/lib/"
go build -tags shared -ldflags='-s -w' -o "$out/bin" ./cmd/...
# the benchmark runner and the profile's stall lines (run.sh targets, tables, ab, grid, pictures, profile)
go build -ldflags='-s -w' -o "$out/tools/bench" ./scripts/bench
cp scripts/ncu-stalls.py "$out/tools/"
# CTest's tests over the bundle's binaries: cmake/tests.cmake, as the build tree declares them
cp -r cmake "$out/" && cp cmake/bundle.cmake "$out/CMakeLists.txt"
mkdir -p "$out/python" && cp -r python/tecaj python/tests python/bench_overhead.py "$out/python/"
if [[ $mini != 1 ]]; then
  # the GoogleTest binary links the library statically: a test binary that loaded lib/libtecaj.so would
  # hold a second CUDA runtime (the library's, static in it), and the tests that ask the runtime about
  # the library's kernels (the launch lists, the occupancy) would get invalid-device-function errors
  cp build/kernel_tests "$out/tests/kernel_tests"
  mkdir -p "$out/tests/bench" && cp build/bench/* "$out/tests/bench/"
  # each test binary runs in src/<package>, beside its testdata (tests open files relative to their
  # package, and the packages are siblings under internal/)
  for dir in $(go list -f '{{if .TestGoFiles}}{{.Dir}}{{end}}' ./...); do
    name=$(basename "$dir")
    go test -tags shared -c -ldflags='-s -w' -o "$out/tests/go-$name.test" "./${dir#$PWD/}"
    mkdir -p "$out/src/$name"
    [[ -d $dir/testdata ]] && cp -r "$dir/testdata" "$out/src/$name/"
  done
fi
for a in ${PTX_ARCHS:-}; do
  cmake -S . -B "build-ptx$a" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$a-virtual" >/dev/null
  cmake --build "build-ptx$a" -j"$(nproc)" --target kernel_tests tecaj_shared
  mkdir -p "$out/lib-ptx$a"
  cp "build-ptx$a/shared/libtecaj.so" "$out/lib-ptx$a/"
  [[ $mini == 1 ]] || cp "build-ptx$a/kernel_tests" "$out/tests/kernel_tests-ptx$a"
done
# the sources and scripts/check-archs.sh, for run.sh archs (every .cu for every architecture)
mkdir -p "$out/check/scripts" && cp -r cuda "$out/check/" && cp scripts/check-archs.sh "$out/check/scripts/"
packed="bin tests lib src check tools cmake python CMakeLists.txt $(cd "$out" && ls -d lib-ptx* 2>/dev/null || true)"
tar -C "$out" -czf "$out/bundle.tar.gz" $packed
(cd "$out" && rm -rf $packed)
cp scripts/gpu-run.sh "$out/run.sh"
du -sh "$out"
