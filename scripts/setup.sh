#!/usr/bin/env bash
# Set-up: installs Go (Debian's golang-go) if it is missing, then configures and builds the CUDA
# library, the GoogleTest binary and the Go commands. CUDA_ARCHS overrides the GPU targets
# (default: sm_90 machine code plus compute_90 PTX).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null; then
  echo "installing Go (golang-go) ..."
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq golang-go >/dev/null
fi
go version
# (named every time: a build folder configured before keeps its cached architectures otherwise)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90-real;90-virtual}"
cmake --build build -j"$(nproc)"
go build ./...
