#!/usr/bin/env bash
# Set-up: installs Go (Debian's golang-go) if it is missing, then configures and builds the CUDA
# library, the GoogleTest binary and the Go commands, for the GPUs this machine has:
#   - CUDA_ARCHS set: those (CMake's list, e.g. "86-real" or "80-real;90-real;90-virtual");
#   - else the compute capability of each GPU nvidia-smi reports, as machine code, and the newest
#     also as PTX (a newer GPU JIT-compiles it);
#   - else (no GPU here) the default: sm_90 machine code (H100, H200) and compute_75 PTX, which
#     every GPU CUDA 13 supports (Turing onwards) JIT-compiles when it first loads the library.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null; then
  echo "installing Go (golang-go) ..."
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq golang-go >/dev/null
fi
go version
archs=$(scripts/gpu-archs.sh)
# (named every time: a build folder configured before keeps its cached architectures otherwise)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$archs"
cmake --build build -j"$(nproc)"
go build -o bin/ ./cmd/...
echo "the commands are in bin/: bin/razdalja -h (or go run ./cmd/razdalja -h, which reports every nonzero exit status as 1)"
