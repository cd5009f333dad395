#!/usr/bin/env bash
# The machine code (SASS) of one .cu's kernels, here, without a GPU: what registers cannot say
# (a release store's MEMBAR.ALL.GPU, an acquire load's CCTL.IVALL, the loads' widths, the
# instruction count of a loop). cuobjdump and nvdisasm come from PyPI (nvidia-cuda-cuobjdump,
# nvidia-cuda-nvdisasm) the first time.
#   scripts/sass.sh cuda/prefiks/plan.cu                 # each kernel: instructions, fences, atomics, shuffles, loads, stores
#   scripts/sass.sh cuda/prefiks/plan.cu 'scan_best.*Lb0ELb0ELi16' full   # the whole listing of the kernels that match
#   scripts/sass.sh --diff A/libtecaj.so B/libtecaj.so [sm_90]   # two builds kernel by kernel (sass-diff.py):
#                                                   # which kernels a change left the same to the instruction
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:?usage: scripts/sass.sh FILE.cu [KERNEL-REGEX [full]] | --diff A.so B.so [ARCH]}
pattern=${2:-.}
tools=${SASS_TOOLS:-$HOME/.cache/tecaj-sass}
if [[ ! -x $tools/cuobjdump || ! -x $tools/nvdisasm ]]; then
  mkdir -p "$tools"
  for tool in cuobjdump nvdisasm; do
    python3 -m pip download --quiet --no-deps -d "$tools/wheel" "nvidia-cuda-$tool"
    python3 -m zipfile -e "$(ls "$tools"/wheel/nvidia_cuda_"$tool"-*.whl | head -1)" "$tools/wheel/x"
    cp "$(find "$tools/wheel/x" -type f -name "$tool" | head -1)" "$tools/$tool"
    chmod +x "$tools/$tool"
  done
fi
if [[ $src == --diff ]]; then exec python3 scripts/sass-diff.py "$tools/cuobjdump" "${@:2}"; fi
cubin=$(mktemp --suffix=.cubin)
trap 'rm -f "$cubin"' EXIT
nvcc -O3 -std=c++17 -arch=sm_90 -Icuda -Icuda/include -cubin -o "$cubin" "$src"
"$tools/cuobjdump" -sass "$cubin" | awk -v pat="$pattern" -v full="${3:-}" '
  /Function : /{ fn = $3; keep = fn ~ pat; if (keep) order[++n] = fn; next }
  keep && /\/\*[0-9a-f]+\*\// {
    if (full) { sub(/ *\/\* 0x[0-9a-f]+ \*\//, ""); print fn ": " $0; next }
    ins[fn]++
    if (/MEMBAR|CCTL|FENCE/) fence[fn]++
    if (/ATOM|RED\./) atom[fn]++
    if (/SHFL|REDUX/) shfl[fn]++
    if (/LDG|LD\.E/) ld[fn]++
    if (/STG|ST\.E/) st[fn]++
    if (/BAR\.SYNC/) bar[fn]++
  }
  END { if (!full) { printf "%6s %6s %6s %6s %6s %6s %6s  %s\n", "instr", "fence", "atom", "shfl", "loads", "stores", "bar", "kernel"
        for (i = 1; i <= n; i++) { f = order[i]; printf "%6d %6d %6d %6d %6d %6d %6d  %s\n", ins[f], fence[f], atom[f], shfl[f], ld[f], st[f], bar[f], f } } }'
