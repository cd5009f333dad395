#!/usr/bin/env bash
# Builds and runs the scratch experiments on the GPU host (one device call; one log back):
#   bash scripts/experiments/run.sh            (with carry ["gpu-bundle"]: the 8-bit one links the bundle's library)
# Each experiment's output goes to $OUT/experiments.log (or /tmp).
set -u
cd "$(dirname "$0")/../.."
log=${OUT:-/tmp}/experiments.log
: >"$log"
nvidia-smi -L >>"$log" 2>&1
lib=$(mktemp -d)
tar -C "$lib" -xzf gpu-bundle/bundle.tar.gz lib
build() { # build NAME SOURCE [nvcc options...]
  local name=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -arch=sm_90 -Icuda/include -Icuda "$src" "$@" -o "/tmp/$name" >>"$log" 2>&1 || echo "$name: build failed" >>"$log"
}
build tail scripts/experiments/redukcija_tail.cu &
build u8 scripts/experiments/konvolucija_u8_shapes.cu -L"$lib/lib" -ltecaj &
build box scripts/experiments/konvolucija_box_stream.cu -L"$lib/lib" -ltecaj &
wait
build stream scripts/experiments/konvolucija_stream.cu -L"$lib/lib" -ltecaj &
wait
for x in box stream tail u8; do
  echo "=== $x" >>"$log"
  [[ -x /tmp/$x ]] && LD_LIBRARY_PATH=$lib/lib timeout 240 "/tmp/$x" >>"$log" 2>&1
done
cat "$log"
