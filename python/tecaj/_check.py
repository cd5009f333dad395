"""float64 references and derived tolerances, one check a program: compare() marks its rows with
them, and the GPU tests hold every variant to them. Each returns (ok, error, tolerance)."""
import numpy as np

from . import _abi
from ._abi import lib

U32 = 2.0 ** -24  # float32's unit roundoff


def gamma(k, u=U32):
    """Higham's gamma_k: the relative bound of k roundings."""
    return k * u / (1 - k * u)


def _same(got, want, tol):
    """got within tol of want everywhere; NaN where want is NaN, the same infinity where it is infinite."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    nan, inf = np.isnan(want), np.isinf(want)
    fin = ~(nan | inf)
    err = float(np.max(np.abs(got[fin] - want[fin]), initial=0.0))
    tol = np.broadcast_to(np.asarray(tol, np.float64), want.shape)
    ok = (np.array_equal(np.isnan(got), nan) and np.array_equal(got[inf], want[inf])
          and bool(np.all(np.abs(got[fin] - want[fin]) <= tol[fin])))
    return ok, err, float(np.max(tol, initial=0.0))


def razlika(job, result, a, b, **_):
    want = (a.astype(np.float64) - b).astype(np.float32)  # a - b is correctly rounded: exact
    return _same(result, want, 0.0)


def razdalja(job, result, a, b, **_):
    want = float(np.sqrt(np.sum((a.astype(np.float64) - b) ** 2)))
    tol = lib.tc_razdalja_tolerance(job.plan) * want
    return _same(result, want, tol)


def redukcija(job, result, x, y=None, op="sum", **_):
    x64 = x.astype(np.float64)
    if op in ("argmin", "argmax"):
        nan = np.isnan(x64)
        i = int(np.argmax(nan)) if nan.any() else int(np.argmin(x64) if op == "argmin" else np.argmax(x64))
        return result[1] == i and _same(result[0], x64[i], 0.0)[0], float(result[1] != i), 0.0
    if x.dtype == np.int32 and op in ("sum", "min", "max", "dot"):
        xi = x.astype(np.int64)
        want = {"sum": lambda: xi.sum(), "min": lambda: xi.min(), "max": lambda: xi.max(),
                "dot": lambda: (xi * y.astype(np.int64)).sum()}[op]()
        return int(result) == int(want), float(abs(int(result) - int(want))), 0.0
    terms = {"dot": lambda: x64 * y, "norm": lambda: x64 * x64}.get(op, lambda: x64)()
    want = {"sum": np.sum, "mean": np.mean, "dot": np.sum, "min": np.min, "max": np.max,
            "norm": lambda t: np.sqrt(np.sum(t))}[op](terms)
    tol = lib.tc_redukcija_tolerance(job.plan, float(np.sum(np.abs(terms)))) if op not in ("min", "max") else 0.0
    return _same(result, want, tol)


def _segments(n, flags):
    heads = np.zeros(n, bool) if flags is None else np.asarray(flags).astype(bool).copy()
    heads[0] = True
    return np.flatnonzero(heads)


def prefiks(job, result, x, flags=None, op="sum", exclusive=False, **_):
    want = np.empty(x.size, np.float64)
    absum = np.zeros(x.size)
    starts = list(_segments(x.size, flags)) + [x.size]
    integer = x.dtype == np.int32
    ident = {"sum": 0, "max": -np.inf, "min": np.inf}[op]
    if integer:
        ident = {"sum": 0, "max": np.iinfo(np.int32).min, "min": np.iinfo(np.int32).max}[op]
    for s, e in zip(starts[:-1], starts[1:]):
        seg = x[s:e].astype(np.int64 if integer else np.float64)
        acc = {"sum": np.cumsum, "max": np.maximum.accumulate, "min": np.minimum.accumulate}[op](seg)
        mags = np.cumsum(np.abs(seg.astype(np.float64)))
        if exclusive:
            acc, mags = np.concatenate([[ident], acc[:-1]]), np.concatenate([[0.0], mags[:-1]])
        want[s:e] = (acc.astype(np.int64) % 2**32).astype(np.uint32).view(np.int32) if integer and op == "sum" else acc
        absum[s:e] = mags
    if integer or op != "sum":
        return _same(result, want, 0.0)
    return _same(result, want, lib.tc_prefiks_tolerance(job.plan, 1.0) * absum)  # (the bound is linear in prefix_abs)


def _order_key(k, desc):
    """Sorted keys as urejanje orders them: -0.0 equals +0.0, NaNs last ascending (first descending)."""
    s = np.sort(k, axis=-1)  # NumPy sorts NaN last too
    return s[..., ::-1] if desc else s


def urejanje(job, result, keys, values=None, desc=False, **_):
    got_k, got_v = (result if values is not None else (result, None))
    want = _order_key(keys, desc)
    ok = np.array_equal(np.asarray(got_k, np.float64), np.asarray(want, np.float64), equal_nan=True)
    if values is not None and ok:  # every (key, value) pair kept: the same pairs, in key order
        k2, v2 = keys.reshape(-1, keys.shape[-1]), values.reshape(-1, keys.shape[-1])
        gk, gv = np.asarray(got_k).reshape(k2.shape), np.asarray(got_v).reshape(v2.shape)
        for r in range(k2.shape[0]):
            a = np.lexsort((v2[r].view(np.uint32), np.nan_to_num(k2[r].astype(np.float64), nan=np.inf)))
            b = np.lexsort((gv[r].view(np.uint32), np.nan_to_num(gk[r].astype(np.float64), nan=np.inf)))
            ok &= np.array_equal(v2[r][a].view(np.uint32), gv[r][b].view(np.uint32))
    return bool(ok), float(not ok), 0.0


def konvolucija(job, result, img, border="zero", **_):
    w = job.weights.astype(np.float64)
    mh, mw = w.shape
    x = img.astype(np.float64).reshape(-1, img.shape[-1]) if img.ndim == 2 else img.astype(np.float64)[None, :]
    pad = np.pad(x, ((mh // 2,) * 2, (mw // 2,) * 2), mode="constant" if border == "zero" else "edge")
    h, wd = x.shape

    def conv(m):
        out = np.zeros_like(x)
        for j in range(mh):
            for i in range(mw):
                if m[j, i]:
                    out += m[j, i] * pad[j:j + h, i:i + wd]
        return out

    want = np.hypot(conv(w), conv(w.T)) if job.magnitude else conv(w)
    fin = x[np.isfinite(x)]
    tol = gamma(w.size + 1) * np.abs(w).sum() * (np.abs(fin).max() if fin.size else 0.0)
    if job.magnitude:
        tol = (gamma(w.size + 1) + gamma(3)) * np.sqrt(2) * np.abs(w).sum() * (np.abs(fin).max() if fin.size else 0.0)
    if img.dtype == np.uint8:  # float32 sums rounded ties-to-even, clamped: one step either way
        want, tol = np.clip(np.rint(want), 0, 255), 1.0
    return _same(np.asarray(result).reshape(want.shape), want, tol)


CHECKS = {"razlika": razlika, "razdalja": razdalja, "redukcija": redukcija, "prefiks": prefiks,
          "urejanje": urejanje, "konvolucija": konvolucija}
