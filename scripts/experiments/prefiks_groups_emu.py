# The grouped look-back (cuda/prefiks.cu, group_prefix) on integers, against the left fold of the tiles' (value, head) pairs:
# the Kogge-Stone pair scan as seg_warp_scan_exclusive does it, group totals, and a look-back that stops at any group.
#   python3 scripts/experiments/prefiks_groups_emu.py
import random
def ks_excl(x):  # seg_warp_scan_exclusive emulation: x = list of 32 (v, f)
    heads = [f for v, f in x]
    s = [v for v, f in x]
    head = []
    for lane in range(32):
        h = -1
        for l in range(lane, -1, -1):
            if heads[l]: h = l; break
        head.append(h)
    d = 1
    while d < 32:
        u = [s[l - d] if l >= d else None for l in range(32)]
        s = [ (u[l] + s[l]) if (l >= d and l - d >= head[l]) else s[l] for l in range(32)]
        d <<= 1
    total = (s[31], 1 if any(heads) else 0)
    before = [None] + [s[l - 1] for l in range(1, 32)]
    out = [(0, 0)] + [(before[l], 1 if any(heads[:l]) else 0) for l in range(1, 32)]
    return out, total
def run(N, p_head, seed):
    rnd = random.Random(seed)
    a = [rnd.randint(-1000, 1000) for _ in range(N)]
    f = [1] + [1 if rnd.random() < p_head else 0 for _ in range(N - 1)]
    # expected: pair fold of tiles before k
    exp = []
    acc = None
    for k in range(N):
        exp.append(acc)
        acc = a[k] if (f[k] or acc is None) else acc + a[k]
    G = 0 if False else None
    groups = (N + 31) // 32
    T = []
    for g in range(groups):
        x = [(a[32*g+l], f[32*g+l]) if 32*g+l < N else (0, 0) for l in range(32)]
        _, tot = ks_excl(x)
        T.append(tot)
    # G_g left fold of group totals, with pair semantics
    Gs = []
    acc = None
    for g in range(groups):
        v, fl = T[g]
        acc = v if (fl or acc is None) else acc + v
        Gs.append(acc)
    for k in range(1, N):
        g, i = divmod(k, 32)
        x = [(a[32*g+l], f[32*g+l]) if l <= i else (0, 0) for l in range(32)]
        before, _ = ks_excl(x)
        v, hd = before[i]
        if hd: got = v
        else:
            # look_back over group words from a random nearest inclusive: fold from G_j then T_{j+1..g-1}
            j = rnd.randint(-1, g - 1) if g > 0 else -1
            # inclusive could be G_j or a group with a head; emulate: start at G_j (or identity 0 if j = -1), fold rest
            accg = Gs[j] if j >= 0 else 0
            for h in range(j + 1, g):
                tv, tf = T[h]
                accg = tv if tf else accg + tv
            got = accg + v
        assert got == exp[k], (N, k, got, exp[k])
for N in [1, 2, 31, 32, 33, 63, 64, 65, 123, 245, 1024, 1000]:
    for p in [0, 0.01, 0.1, 0.5]:
        for seed in range(3):
            run(N, p, seed)
print("ok")
