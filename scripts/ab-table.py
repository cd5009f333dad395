#!/usr/bin/env python3
"""The log of `run.sh ab` as a table: per line, each bundle's median best (and library) kernel time
over the rounds, and each bundle's change against the base bundle's median.
  python3 scripts/ab-table.py [-base LABEL] gpu-run-ab-NAME.log ...   (base: the last bundle named)"""
import collections
import re
import statistics
import sys

args = sys.argv[1:]
base = None
if args[:1] == ["-base"]:
    base, args = args[1], args[2:]
if not args:
    sys.exit(__doc__)
times = collections.defaultdict(lambda: collections.defaultdict(list))  # line -> (bundle, variant) -> us
lines, labels = [], []
for path in args:
    current = None
    for text in open(path, errors="replace"):
        m = re.match(r"--- (\S+): (.*)", text)
        if m:
            current = m.groups()
            lines += [current[1]] if current[1] not in lines else []
            labels += [current[0]] if current[0] not in labels else []
            continue
        m = re.match(r"\s+(best|cub|npp)\s+\S+\s+\S+\s+([0-9.]+)\s", text)
        if m and current:
            times[current[1]][(current[0], m.group(1))].append(float(m.group(2)))
base = base or labels[-1]
others = [b for b in labels if b != base]
print("| line | " + " | ".join(f"{b} best us" for b in [base] + others) + " | library us (" + ", ".join([base] + others) + ") |")
print("|---" * (len(labels) + 2) + "|")
worst = 0.0
for line in lines:
    t = times[line]
    if not t.get((base, "best")):
        continue
    b0 = statistics.median(t[(base, "best")])
    cells = [f"{b0:.4g}"]
    for b in others:
        v = t.get((b, "best"))
        if not v:
            cells.append("-")
            continue
        change = 100 * (statistics.median(v) / b0 - 1)
        worst = max(worst, abs(change))
        cells.append(f"{statistics.median(v):.4g} ({change:+.1f}%)")
    lib = [statistics.median(t[(b, k)]) for b in [base] + others for k in ("cub", "npp") if t.get((b, k))]
    print(f"| `{line}` | " + " | ".join(cells) + " | " + (", ".join(f"{x:.4g}" for x in lib) or "-") + " |")
print(f"\nlargest change against {base}: {worst:.1f}% (medians of each bundle's rounds)")
