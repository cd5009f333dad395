#!/usr/bin/env bash
# Builds everything here, where Go is, and packs it into gpu-bundle/ for a GPU host without Go:
# the commands, the GoogleTest binary, one `go test -c` binary per Go package, and run.sh, which
# runs every test (also under compute-sanitizer) and the benchmark tables there.
#   scripts/gpu-bundle.sh            # then, on the GPU host: bash gpu-bundle/run.sh
# With the device tool: run command "bash gpu-bundle/run.sh", carry ["gpu-bundle"].
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
rm -rf gpu-bundle
mkdir -p gpu-bundle/bin gpu-bundle/tests
cp build/kernel_tests gpu-bundle/tests/
go build -ldflags='-s -w' -o gpu-bundle/bin ./cmd/...
for pkg in $(go list -f '{{if .TestGoFiles}}{{.ImportPath}}{{end}}' ./...); do
  go test -c -ldflags='-s -w' -o "gpu-bundle/tests/go-$(basename "$pkg").test" "$pkg"
done
# Every binary carries the library's device code (CUB's sorts among it): packed, they travel in
# a quarter of the space (the device tool carries at most 64 MiB).
tar -C gpu-bundle -czf gpu-bundle/bundle.tar.gz bin tests
rm -rf gpu-bundle/bin gpu-bundle/tests
cp scripts/gpu-run.sh gpu-bundle/run.sh
du -sh gpu-bundle
