#!/usr/bin/env bash
# README's pictures, drawn again from the kept results in docs/results (the -csv files of an H100
# run: `bash gpu-bundle/run.sh pictures` makes new ones) into docs/images, and rendered to PNG
# where rsvg-convert (or headless chromium) is installed, to look at.
set -euo pipefail
cd "$(dirname "$0")/.."
plot() { go run ./scripts/plot "$@"; }
r=docs/results i=docs/images
plot -o $i/redukcija-staircase.svg -variants race,atomic,b1,b1d,bm,r0,r1,r2,r3,r4,r5,r6,r7,best,cub $r/redukcija-staircase.csv
plot -o $i/redukcija-sweep.svg -variants r6,best,cub -l2 50 $r/redukcija-sweep.csv
plot -o $i/prefiks-sweep.svg -variants grid,best,cub -l2 50 $r/prefiks-sweep.csv
plot -o $i/konvolucija-sweep.svg -variants g,c,t,best -l2 50 $r/konvolucija-sweep.csv
plot -o $i/urejanje-sweep.svg -variants nl,best,radix,cub -l2 50 $r/urejanje-sweep.csv
plot -o $i/urejanje-pairs-sweep.svg -variants nl,best,radix,cub -l2 50 $r/urejanje-pairs-sweep.csv
if command -v rsvg-convert >/dev/null; then
  for f in $i/*.svg; do rsvg-convert -w 800 "$f" -o "${f%.svg}.png"; done
elif command -v chromium >/dev/null; then
  for f in $i/*.svg; do
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=800,480 --screenshot="${f%.svg}.png" "$f" 2>/dev/null ||
      echo "pictures.sh: chromium could not render $f" >&2
  done
fi
ls -l $i
