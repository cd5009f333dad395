#!/usr/bin/env python3
"""The SASS lines where the warps stalled most, from an ncu report's source page as CSV
(`ncu -i REPORT.ncu-rep --page source --csv --print-source sass`): each line's share of the warp
stall samples, its samples, its address and its instruction, the 40 with the most.
  python3 scripts/ncu-stalls.py SOURCE.csv   (run.sh profile with NCU_SOURCE=1 runs it)"""
import csv
import sys

if len(sys.argv) != 2:
    sys.exit(__doc__)
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
head = next((i for i, r in enumerate(rows) if any("Warp Stall Sampling (All" in c for c in r)), None)
if head is None:
    print("no source page in the report (ncu's --page source): " + " ".join(" ".join(r) for r in rows[:3])[:300])
    sys.exit()
cols = rows[head]
stall = next(i for i, c in enumerate(cols) if "Warp Stall Sampling (All" in c)
text = next((i for i, c in enumerate(cols) if c.strip() in ("Source", "SASS")), 1)


def num(v):
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return 0.0


body = [r for r in rows[head + 1:] if len(r) > max(stall, text)]
total = sum(num(r[stall]) for r in body) or 1.0
print(f"warp stall samples: {total:.0f}; the lines with the most (share, samples, SASS):")
for r in sorted(body, key=lambda r: -num(r[stall]))[:40]:
    print(f"{100 * num(r[stall]) / total:5.1f}% {num(r[stall]):8.0f}  {r[0][:8]:8} {r[text].strip()[:90]}")
