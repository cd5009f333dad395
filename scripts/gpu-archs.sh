#!/usr/bin/env bash
# Prints the CUDA architectures to build for (CMake's CMAKE_CUDA_ARCHITECTURES), and on stderr
# why: CUDA_ARCHS where set; else each GPU's compute capability as nvidia-smi reports it (machine
# code, and the newest as PTX too); else, with no GPU, the default: sm_90 machine code and
# compute_75 PTX, which every GPU CUDA 13 supports JIT-compiles.
set -euo pipefail
if [[ -n ${CUDA_ARCHS:-} ]]; then
  archs=$CUDA_ARCHS why="CUDA_ARCHS"
elif caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null) && [[ -n ${caps//[[:space:]]/} ]]; then
  list=$(tr -d ' .' <<<"$caps" | sort -n -u)
  archs=$(sed 's/$/-real/' <<<"$list" | paste -sd';')";$(tail -1 <<<"$list")-virtual"
  why="the GPUs here: $(nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader | paste -sd';')"
else
  archs="90-real;75-virtual" why="no GPU found here: the default (sm_90 machine code, compute_75 PTX for any other GPU)"
fi
echo "CUDA architectures: $archs ($why)" >&2
echo "$archs"
