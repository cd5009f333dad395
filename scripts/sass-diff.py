#!/usr/bin/env python3
"""Compares the sm_90 machine code of two builds of the library, kernel by kernel, here without a
GPU: what a change of layout or of a header did to the code that runs (scripts/sass.sh --diff).
Names are compared with the parts a build changes without changing code normalised (anonymous
namespaces carry the file's hash, CUB's and Thrust's namespaces the architecture list); kernels
whose names still differ are matched by their code.
  scripts/sass-diff.py CUOBJDUMP A.so B.so [ARCH]"""
import collections
import re
import subprocess
import sys


def unversion(name):
    """CUB's and Thrust's namespaces (CUB_300001_SM_750_900) as their bare names: a mangled name
    gives each identifier's length first, which says where the architecture list ends."""
    out, i = [], 0
    for m in re.finditer(r"(\d+)((?:CUB|THRUST)_\d)", name):
        if m.start() < i:
            continue
        out.append(name[i:m.start()])
        out.append(m.group(2).split("_")[0])
        i = m.start(2) + int(m.group(1))
    return "".join(out) + name[i:]


def kernels(cuobjdump, lib, arch):
    out = subprocess.run([cuobjdump, "-sass", "-arch", arch, lib], capture_output=True, text=True, check=True).stdout
    code, name = collections.defaultdict(list), None
    for line in out.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = re.sub(r"\d+_GLOBAL__N__[0-9a-f]+_\d+_\w+?_cu_[0-9a-f]{8}", "ANON", m.group(1))
            name = unversion(name)
            continue
        if name and re.search(r"/\*[0-9a-f]{4,}\*/", line):  # an instruction, without its address
            code[name].append(re.sub(r"/\*[0-9a-f]+\*/", "", line.split(";")[0]).strip())
    return code


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    cuobjdump, a_lib, b_lib = sys.argv[1:4]
    arch = sys.argv[4] if len(sys.argv) > 4 else "sm_90"
    a, b = kernels(cuobjdump, a_lib, arch), kernels(cuobjdump, b_lib, arch)
    demangle = lambda n: subprocess.run(["c++filt"], input=n, capture_output=True, text=True).stdout.strip()[:150]
    named = [n for n in a if n in b]
    differ = [n for n in named if a[n] != b[n]]
    only_a = collections.Counter(tuple(a[n]) for n in a if n not in b)
    only_b = collections.Counter(tuple(b[n]) for n in b if n not in a)
    by_code = sum((only_a & only_b).values())
    print(f"{arch}: {len(a)} kernels in {a_lib}, {len(b)} in {b_lib}")
    print(f"  same name, same code: {len(named) - len(differ)}; same name, other code: {len(differ)}")
    print(f"  other names, same code: {by_code}; code in A only: {sum((only_a - only_b).values())}, in B only: {sum((only_b - only_a).values())}")
    for n in differ:
        print(f"  differs ({len(a[n])} -> {len(b[n])} instructions): {demangle(n)}")
    for label, mine, left in (("A", a, only_a - only_b), ("B", b, only_b - only_a)):
        for n in sorted(n for n in mine if n not in (b if mine is a else a)):
            if left[tuple(mine[n])] > 0:  # (as many names as codes left over: one a code)
                left[tuple(mine[n])] -= 1
                print(f"  only in {label}: {demangle(n)}")


main()
