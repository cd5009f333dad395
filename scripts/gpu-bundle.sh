#!/usr/bin/env bash
# Builds everything here, where Go is, and packs it into gpu-bundle/ for a GPU host without Go:
# the commands, the GoogleTest binary, one `go test -c` binary per Go package, and run.sh, which
# runs every test (also under compute-sanitizer) and the benchmark tables there.
#   scripts/gpu-bundle.sh            # then, on the GPU host: bash gpu-bundle/run.sh
# With the device tool: run command "bash gpu-bundle/run.sh", carry ["gpu-bundle"].
#   scripts/gpu-bundle.sh DIR        # the bundle into DIR instead (an A/B pair in one device call:
#       from a worktree of the other commit, `scripts/gpu-bundle.sh /path/to/repo/gpu-bundle-a`,
#       then carry ["gpu-bundle", "gpu-bundle-a"], about 34 MB each: one full and one MINI fit best, and run both bundles' run.sh)
#   MINI=1 scripts/gpu-bundle.sh DIR # the commands and the library only (about 14 MB; no tests): the
#       figures of several commits in one call (run.sh targets, grid, tables, profile). For a commit
#       whose script is older, copy this one into its worktree first.
#
# The library's device code (CUB's sorts among it) is 10 MB: the commands and the Go test binaries
# (-tags shared) load one lib/libtecaj.so (the GoogleTest binary links it statically, below), so a
# new command adds its Go code only (about 4 MB, 1 MB packed), and everything travels packed (the carry holds 64 MiB).
set -euo pipefail
out=$(realpath -m "${1:-$(dirname "$0")/../gpu-bundle}")
[[ $(basename "$out") == gpu-bundle* ]] || { echo "gpu-bundle.sh: the bundle's folder must be named gpu-bundle* (got $out)" >&2; exit 2; }
cd "$(dirname "$0")/.."
# the H100's machine code (sm_90) and PTX, named so that an older build folder's cache cannot
# leave the bundle JIT-compiling another architecture's PTX at load time
# LINEINFO=1: line tables for ncu's source view (run.sh profile with NCU_SOURCE=1)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90-real;90-virtual}" \
  -DTECAJ_LINEINFO="$([[ ${LINEINFO:-0} == 1 ]] && echo ON || echo OFF)" >/dev/null
mini=${MINI:-0}
if [[ $mini == 1 ]]; then cmake --build build -j"$(nproc)" --target tecaj_shared
else cmake --build build -j"$(nproc)" --target all tecaj_shared; fi
rm -rf "$out"
mkdir -p "$out/bin" "$out/tests" "$out/lib" "$out/src"
cp build/shared/libtecaj.so "$out/lib/"
go build -tags shared -ldflags='-s -w' -o "$out/bin" ./cmd/...
if [[ $mini != 1 ]]; then
  # the GoogleTest binary links the library statically: a test binary that loaded lib/libtecaj.so would
  # hold a second CUDA runtime (the library's, static in it), and the tests that ask the runtime about
  # the library's kernels (the launch lists, the occupancy) would get invalid-device-function errors
  cp build/kernel_tests "$out/tests/kernel_tests"
  # each test binary runs in src/<package>, beside its testdata (tests open files relative to their
  # package, and the packages are siblings under internal/)
  for dir in $(go list -f '{{if .TestGoFiles}}{{.Dir}}{{end}}' ./...); do
    name=$(basename "$dir")
    go test -tags shared -c -ldflags='-s -w' -o "$out/tests/go-$name.test" "./${dir#$PWD/}"
    mkdir -p "$out/src/$name"
    [[ -d $dir/testdata ]] && cp -r "$dir/testdata" "$out/src/$name/"
  done
fi
tar -C "$out" -czf "$out/bundle.tar.gz" bin tests lib src
rm -rf "$out/bin" "$out/tests" "$out/lib" "$out/src"
cp scripts/gpu-run.sh "$out/run.sh"
du -sh "$out"
