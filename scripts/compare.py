#!/usr/bin/env python3
"""Compares two runs' -json reports, as nvbench_compare does: per (program, variant, n), the old
and new times (the kernel's median, or a host row's whole run), the change, and a verdict: faster
or slower where the change is larger than the noise (the larger of the two rows' spreads, and at
least 1%), else same. Each file holds one report or a list of them (a sweep), or is a -csv file.

    scripts/compare.py OLD.json NEW.json         # exit 0; 1 when a row got slower
"""
import csv
import json
import math
import sys


def rows(path):
    if path.endswith(".csv"):  # a -csv file (docs/results): a row a (variant, size)
        out = {}
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("refused"):
                    continue
                ms = row.get("kernel_ms") or row.get("total_ms")
                if ms:
                    key = (row["program"] + (" " + row["params"] if row.get("params") else ""), row["variant"], int(row["n"]))
                    out[key] = (float(ms), float(row.get("spread_pct") or 0.0), row.get("device", ""))
        return out
    with open(path) as f:
        data = json.load(f)
    reports = data if isinstance(data, list) else [data]
    out = {}
    for r in reports:
        for row in r.get("rows", []):
            if row.get("refused"):
                continue
            ms = row.get("kernel_ms")
            if ms is None:
                ms = row.get("total_ms")
            if ms is None:
                continue
            out[(r["program"] + (" " + r["params"] if r.get("params") else ""), row["variant"], r["n"])] = (ms, row.get("spread_pct") or 0.0, r.get("device", ""))
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        old, new = rows(argv[1]), rows(argv[2])
    except (OSError, ValueError, KeyError) as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    devices = {v[2] for v in old.values()} | {v[2] for v in new.values()}
    if len(devices) > 1:
        print("note: the runs come from different devices (" + "; ".join(sorted(devices)) + "): compare ratios only")
    slower = 0
    w = max([12] + [len(k[0]) for k in set(old) | set(new)])
    print(f"{'program':{w}} {'variant':8} {'n':>11} {'old us':>10} {'new us':>10} {'change':>8} {'noise':>6}  verdict")
    for key in sorted(set(old) | set(new)):
        program, variant, n = key
        if key not in old or key not in new:
            print(f"{program:{w}} {variant:8} {n:>11} {'only in ' + ('new' if key in new else 'old'):>30}")
            continue
        (a, sa, _), (b, sb, _) = old[key], new[key]
        change = 100.0 * (b - a) / a if a > 0 else math.nan
        noise = max(sa, sb, 1.0)
        verdict = "same" if abs(change) <= noise else ("faster" if change < 0 else "slower")
        slower += verdict == "slower"
        print(f"{program:{w}} {variant:8} {n:>11} {1000 * a:>10.2f} {1000 * b:>10.2f} {change:>+7.1f}% {noise:>5.1f}%  {verdict}")
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
