#!/usr/bin/env bash
# Builds and runs the scratch experiments on the GPU host (one device call; one log back):
#   bash scripts/experiments/run.sh [NAME...]   (with carry ["gpu-bundle"]: they link the bundle's library;
#       NAME: box, boxbulk, bulk, codesize, l2read, mix, parts, phases, stream, tail, u8, wave; default all)
# Each experiment's output goes to $OUT/experiments.log (or /tmp).
set -u
cd "$(dirname "$0")/../.."
log=${OUT:-/tmp}/experiments.log
mkdir -p "$(dirname "$log")"
: >"$log"
nvidia-smi -L >>"$log" 2>&1
lib=$(mktemp -d)
tar -C "$lib" -xzf gpu-bundle/bundle.tar.gz lib
build() { # build NAME SOURCE [nvcc options...]
  local name=$1 src=$2; shift 2
  nvcc -O3 -std=c++17 -arch=sm_90 -Icuda/include -Icuda "$src" "$@" -o "/tmp/$name" >>"$log" 2>&1 || echo "$name: build failed" >>"$log"
}
declare -A src=([box]=konvolucija_box_stream.cu [boxbulk]=konvolucija_box_bulk.cu [bulk]=prefiks_bulk.cu [codesize]=code_size.cu [l2read]=l2_read.cu [mix]=prefiks_mix.cu [parts]=razdalja_parts.cu [phases]=redukcija_phases.cu [stream]=konvolucija_stream.cu [tail]=redukcija_tail.cu [u8]=konvolucija_u8_shapes.cu [wave]=redukcija_wave.cu)
which=${*:-box boxbulk bulk codesize l2read mix phases stream tail u8}
for x in $which; do
  [[ -n ${src[$x]:-} ]] || { echo "no experiment $x (one of: ${!src[*]})" | tee -a "$log"; exit 2; }
  build "$x" "scripts/experiments/${src[$x]}" -L"$lib/lib" -ltecaj &
done
wait
for x in $which; do
  echo "=== $x" >>"$log"
  [[ -x /tmp/$x ]] && LD_LIBRARY_PATH=$lib/lib timeout 240 "/tmp/$x" >>"$log" 2>&1
done
cat "$log"
