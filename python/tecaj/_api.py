"""The public functions: each prepares a Job (arguments checked, plan cached, pointers and stream
known), launches it once and returns its result. compare() launches the same Jobs many times."""
import math
from ctypes import byref, c_float, cast, POINTER

import numpy as np

from . import _abi, _arrays, _cuda, _results
from ._abi import lib
from ._arrays import LATER
from ._programs import (FIELDS, MASKS, PROGRAMS, SCAN_OPS, Call, check_same, check_size, check_type, output, plan)


class Job:
    """One prepared call: launch() queues its kernels on the caller's stream, finish() returns its result."""

    def __init__(self, program, variant, entry, call, outputs, launch, finish):
        self.program, self.variant, self.entry, self.call, self.outputs = program, variant, entry, call, outputs
        self.launch, self.finish = launch, finish

    def start(self):
        """Selects the device; NumPy operands get device memory (their inputs copied in)."""
        return self.call.start(self.outputs)

    @property
    def plan(self):
        return self.entry.plan


def _status(program, variant, s):
    if s != _abi.OK:
        raise RuntimeError(f"tecaj: launching {program} {variant}: {_abi.status_text(s)}")


def _ops(*pairs):
    """The arrays among (name, array) pairs, described; DLPack operands last, their producers asked
    for the call's stream (that of the first PyTorch or CuPy operand, whichever argument it is)."""
    ops = [_arrays.describe(name, x, LATER) for name, x in pairs if x is not None]
    if None in ops:
        stream = _arrays.call_stream([o for o in ops if o is not None])
        pairs = [p for p in pairs if p[1] is not None]
        ops = [o or _arrays.describe(name, x, stream) for o, (name, x) in zip(ops, pairs)]
    return ops


def _returned(call, outs, objs):
    """Launch done: NumPy outputs copied back; the caller's arrays returned (one, or a tuple)."""
    call.finish(outs)
    return objs[0] if len(objs) == 1 else tuple(objs)


def prepare_razlika(a, b, variant="best", out=None, threads=0, blocks=0):
    A, B = _ops(("a", a), ("b", b))
    for o in (A, B):
        check_type(o, "razlika")
    check_same(A, B)
    check_size(A)
    e = plan("razlika", variant, (A.size, threads, blocks), A.device, lambda base: _abi.RazlikaRequest(base=base, lesson=0))
    call = Call([A, B], managed=bool(PROGRAMS["razlika"].variants[e.plan.launch.variant].flags & _abi.MANAGED))
    out_obj, O = output("out", out, A, A.shape, "float32", call, same=(A, B))  # (elementwise: in place is safe)
    launch = lambda: _status("razlika", variant, lib.tc_razlika_run(e.ref, A.ptr, B.ptr, O.ptr, call.stream))
    return Job("razlika", variant, e, call, [O], launch, lambda: _returned(call, [O], [out_obj]))


def _razdalja(a, b, variant, threads, blocks):
    """(plan entry, Call, A, B): razdalja's arguments checked and its plan cached."""
    A, B = _ops(("a", a), ("b", b))
    for o in (A, B):
        check_type(o, "razdalja")
    check_same(A, B)
    check_size(A)
    e = plan("razdalja", variant, (A.size, threads, blocks), A.device, lambda base: _abi.RazdaljaRequest(base=base))
    return e, Call([A, B]), A, B


def _razdalja_bytes(pl):
    return 4 * max(pl.launch.out_count, 2)


def _pointers(operands):
    """The device pointers of a run's operands (None for an absent one), read once they are staged."""
    return tuple(o.ptr if o is not None else None for o in operands)


def _scalar_job(program, variant, e, call, nbytes, inputs, library_finish):
    """A prepared run whose result is a few bytes: launch puts it in the launching thread's Memory
    (device memory and a copy, so kernel times are the commands'), finish reads it with the
    library's decoding (the reference the public calls' decoders are held to). inputs: the
    operands, whose pointers are read at launch (a NumPy array has one once the call has staged it)."""
    run, m = PROGRAMS[program].run, None

    def launch():
        nonlocal m
        m = e.memory(call.stream, nbytes)
        _status(program, variant, run(e.ref, *_pointers(inputs), m.out, m.scratch, call.stream))

    def finish():
        m.fetch(call.stream)
        call.finish()
        return library_finish(m.host)

    return Job(program, variant, e, call, [], launch, finish)


def _scalar(program, variant, e, call, nbytes, inputs, decoder):
    """The public call of a run whose result is a few bytes: launch on the call's stream into this
    thread's Memory (mapped where the variant allows), wait, decode in Python (_results)."""
    stream = call.start()
    m = e.memory(stream, nbytes, e.mapped, decoder)
    _status(program, variant, PROGRAMS[program].run(e.ref, *_pointers(inputs), m.out, m.scratch, stream))
    m.fetch(stream)
    call.finish()
    return m.decode()


def prepare_razdalja(a, b, variant="best", threads=0, blocks=0):
    e, call, A, B = _razdalja(a, b, variant, threads, blocks)
    return _scalar_job("razdalja", variant, e, call, _razdalja_bytes(e.plan), (A, B),
                       lambda host: math.sqrt(lib.tc_razdalja_finish(e.ref, host)))


def _redukcija(x, op, y, variant, threads, blocks):
    """(plan entry, Call, X, Y): redukcija's arguments checked and its plan cached."""
    if op not in _abi.OPS:
        raise ValueError(f"op={op!r}: redukcija takes {', '.join(_abi.OPS)}")
    if (op == "dot") != (y is not None):
        raise ValueError("y: the second vector of op='dot' (and of no other op)" if y is None or op == "dot"
                         else f"y: only op='dot' takes a second vector (op={op!r})")
    ops = _ops(("x", x), ("y", y))
    X = ops[0]
    check_type(X, "redukcija")
    if y is not None:
        check_type(ops[1], "redukcija", (X.dtype,))
        check_same(X, ops[1])
    check_size(X)
    e = plan("redukcija", variant, (X.size, threads, blocks, op, X.dtype), X.device, lambda base: _abi.RedukcijaRequest(
        base=base, op=_abi.OPS[op], type=_abi.DTYPES[X.dtype]))
    return e, Call(ops), X, ops[1] if y is not None else None


def prepare_redukcija(x, op="sum", y=None, variant="best", threads=0, blocks=0):
    e, call, X, Y = _redukcija(x, op, y, variant, threads, blocks)
    exact = X.dtype == "int32" and op not in ("mean", "norm")
    arg = op in ("argmin", "argmax")

    def library_finish(host):
        r = _abi.RedukcijaResult()
        lib.tc_redukcija_finish(e.ref, host, byref(r))
        value = r.exact if exact else r.value
        return (value, r.index) if arg else value

    return _scalar_job("redukcija", variant, e, call, _abi.REDUKCIJA_OUT_BYTES, (X, Y),
                       library_finish)


def prepare_prefiks(x, op="sum", exclusive=False, flags=None, variant="best", out=None, threads=0, blocks=0):
    if op not in SCAN_OPS:
        raise ValueError(f"op={op!r}: prefiks takes {', '.join(SCAN_OPS)}")
    ops = _ops(("x", x), ("flags", flags))
    X = ops[0]
    check_type(X, "prefiks")
    if flags is not None:
        check_type(ops[1], "prefiks", ("uint8", "bool"))
        check_same(X, ops[1])
    check_size(X)
    request = (X.size, threads, blocks, op, X.dtype, bool(exclusive), flags is not None)
    e = plan("prefiks", variant, request, X.device, lambda base: _abi.PrefiksRequest(
        base=base, op=_abi.OPS[op], type=_abi.DTYPES[X.dtype], exclusive=int(bool(exclusive)),
        segmented=int(flags is not None)))
    call = Call(ops)
    out_obj, O = output("out", out, X, X.shape, X.dtype, call)
    launch = lambda: _status("prefiks", variant, lib.tc_prefiks_run(
        e.ref, X.ptr, ops[1].ptr if flags is not None else None, O.ptr, e.memory(call.stream).scratch, call.stream))
    return Job("prefiks", variant, e, call, [O], launch, lambda: _returned(call, [O], [out_obj]))


def prepare_urejanje(keys, values=None, desc=False, variant="best", out=None, threads=0, blocks=0):
    ops = _ops(("keys", keys), ("values", values))
    K = ops[0]
    check_type(K, "urejanje")
    if len(K.shape) not in (1, 2):
        raise ValueError(f"keys: shape {K.shape}; urejanje takes one array of keys (1-D) or a batch of them (2-D: batch x n)")
    if values is not None:
        check_type(ops[1], "urejanje", ("uint32", "int32"))
        check_same(K, ops[1])
    check_size(K)
    batch, n = (1, K.shape[0]) if len(K.shape) == 1 else K.shape
    request = (n, threads, blocks, batch, values is not None, K.dtype, bool(desc))
    e = plan("urejanje", variant, request, K.device, lambda base: _abi.UrejanjeRequest(
        base=base, batch=batch, pairs=int(values is not None), type=_abi.DTYPES[K.dtype], descending=int(bool(desc))))
    call = Call(ops)
    if isinstance(out, tuple) and (values is None or len(out) != 2):
        raise ValueError("out: the sorted keys' array, or (keys, values) where values are given")
    outs = out if isinstance(out, tuple) else (out, None)
    k_obj, KO = output("out", outs[0], K, K.shape, K.dtype, call, same=(K,))  # (urejanje.h: keys_out may equal keys_in)
    results, objs = [KO], [k_obj]
    VO = None
    if values is not None:
        v_obj, VO = output("out[1]", outs[1], ops[1], K.shape, ops[1].dtype, call, apart=(KO,))
        results.append(VO)
        objs.append(v_obj)
    launch = lambda: _status("urejanje", variant, lib.tc_urejanje_run(
        e.ref, K.ptr, ops[1].ptr if values is not None else None, KO.ptr, VO.ptr if VO else None,
        e.memory(call.stream).scratch, call.stream))
    return Job("urejanje", variant, e, call, results, launch, lambda: _returned(call, results, objs))


def mask_weights(mask, k, dim):
    """(weights as float32 rows, magnitude): a named mask as the commands build it, or the caller's weights."""
    limit = _abi.KONVOLUCIJA_MAX_2D if dim == 2 else _abi.KONVOLUCIJA_MAX_1D
    if isinstance(mask, str):
        if not isinstance(k, int) or k < 1 or k % 2 == 0 or k > limit:
            raise ValueError(f"k={k!r}: an odd size from 1 to {limit}")
        h = k if dim == 2 else 1
        if mask == "box":
            return np.full((h, k), 1 / np.float32(k * h), np.float32), False
        if mask == "shift":
            return (np.array([[0, 0, 1]], np.float32) if dim == 1 else
                    np.array([[0, 0, 0], [0, 0, 1], [0, 0, 0]], np.float32)), False
        if mask in ("sobel-x", "sobel-y", "sobel"):
            if dim == 1:
                raise ValueError(f"mask={mask!r}: a 2-D mask; img is 1-D")
            w = [[1, 0, -1], [2, 0, -2], [1, 0, -1]] if mask != "sobel-y" else [[1, 2, 1], [0, 0, 0], [-1, -2, -1]]
            return np.array(w, np.float32), mask == "sobel"
        if mask == "gauss":
            sigma = 0.3 * ((k - 1) * 0.5 - 1) + 0.8
            g = np.exp(-((np.arange(k) - k // 2) ** 2) / (2 * sigma * sigma))
            w = np.outer(g, g) if dim == 2 else g[None, :]
            return (w / w.sum()).astype(np.float32), False
        raise ValueError(f"mask={mask!r}: one of {', '.join(MASKS)}, or an array of weights")
    w = np.asarray(mask, dtype=np.float64)
    if w.ndim == 1:
        w = w[None, :]
    if w.ndim != 2 or w.shape[0] % 2 == 0 or w.shape[1] % 2 == 0 or max(w.shape) > limit or (dim == 1 and w.shape[0] != 1):
        raise ValueError(f"mask: weights of shape {w.shape}; odd sizes up to {limit}" + (", one row for a 1-D img" if dim == 1 else ""))
    if not np.all(np.isfinite(w)):
        raise ValueError("mask: weights must be finite")
    return w.astype(np.float32), False


def prepare_konvolucija(img, mask="box", k=3, border="zero", variant="best", out=None, threads=0, blocks=0):
    (I,) = _ops(("img", img))
    check_type(I, "konvolucija")
    if len(I.shape) not in (1, 2):
        raise ValueError(f"img: shape {I.shape}; konvolucija takes a vector (1-D) or an image (2-D: height x width)")
    if border not in _abi.BORDERS:
        raise ValueError(f"border={border!r}: {' or '.join(_abi.BORDERS)}")
    check_size(I)
    dim = len(I.shape)
    height, width = (1, I.shape[0]) if dim == 1 else I.shape
    weights, magnitude = mask_weights(mask, k, dim)
    mh, mw = weights.shape
    request = (I.size, threads, blocks, dim, width, height, (mw, mh, weights.tobytes()), border, magnitude, I.dtype)
    params = dict(zip(FIELDS["konvolucija"], request), mask=mask if isinstance(mask, str) else f"{mh}x{mw} weights")
    buf = np.ascontiguousarray(weights)
    e = plan("konvolucija", variant, request, I.device, lambda base: _abi.KonvolucijaRequest(
        base=base, dim=dim, width=width, height=height, mask_w=mw, mask_h=mh, border=_abi.BORDERS[border],
        magnitude=int(magnitude), pixel=_abi.DTYPES[I.dtype], mask=cast(buf.ctypes.data, POINTER(c_float))), params)
    call = Call([I])
    out_obj, O = output("out", out, I, I.shape, I.dtype, call)
    launch = lambda: _status("konvolucija", variant, lib.tc_konvolucija_run(e.ref, I.ptr, O.ptr, call.stream))
    job = Job("konvolucija", variant, e, call, [O], launch, lambda: _returned(call, [O], [out_obj]))
    job.weights, job.magnitude = weights, magnitude
    return job


PREPARE = {"razlika": prepare_razlika, "razdalja": prepare_razdalja, "redukcija": prepare_redukcija,
           "prefiks": prepare_prefiks, "urejanje": prepare_urejanje, "konvolucija": prepare_konvolucija}


def _run(job):
    job.start()
    job.launch()
    return job.finish()


def razlika(a, b, variant="best", out=None, *, threads=0, blocks=0):
    """c = a - b, elementwise, of two float32 arrays of one shape; returns c (out, where given)."""
    return _run(prepare_razlika(a, b, variant, out, threads, blocks))


def razdalja(a, b, variant="best", *, threads=0, blocks=0):
    """sqrt(sum (a - b)^2) of two float32 arrays of one shape, as a Python float."""
    e, call, A, B = _razdalja(a, b, variant, threads, blocks)
    return _scalar("razdalja", variant, e, call, _razdalja_bytes(e.plan), (A, B), _results.razdalja)


def redukcija(x, op="sum", y=None, variant="best", *, threads=0, blocks=0):
    """One reduction of x (float32, float64 or int32): op sum, min, max, mean, norm, dot (with y),
    argmin or argmax. Returns a Python number: int for int32 sums, dots, min and max (exact,
    accumulated in int64), float otherwise; argmin/argmax return (value, index), the lowest index
    among equal values. NaN propagates through min, max and the arg ops."""
    e, call, X, Y = _redukcija(x, op, y, variant, threads, blocks)
    return _scalar("redukcija", variant, e, call, _abi.REDUKCIJA_OUT_BYTES, (X, Y), _results.redukcija)


def prefiks(x, op="sum", exclusive=False, flags=None, variant="best", out=None, *, threads=0, blocks=0):
    """The inclusive (or exclusive) scan of x (float32 or int32) with op sum, min or max; flags
    (uint8 or bool, one per element; nonzero starts a segment) makes it segmented. int32 sums
    wrap as two's complement. Returns the scan, x's shape and dtype (out, where given)."""
    return _run(prepare_prefiks(x, op, exclusive, flags, variant, out, threads, blocks))


def urejanje(keys, values=None, desc=False, variant="best", out=None, *, threads=0, blocks=0):
    """Sorts keys (float32, int32 or uint32; 1-D, or 2-D: each row one array), ascending (desc:
    descending), with values (uint32 or int32, keys' shape) carried along. -0.0 and +0.0 compare
    equal; NaNs go last (first with desc) as the canonical NaN. Returns the sorted keys, or
    (keys, values); out: the keys' array (keys itself sorts in place) or (keys, values)."""
    return _run(prepare_urejanje(keys, values, desc, variant, out, threads, blocks))


def konvolucija(img, mask="box", k=3, border="zero", variant="best", out=None, *, threads=0, blocks=0):
    """Convolves a vector (1-D) or an image (2-D: height x width) of float32 or uint8 pixels with
    a mask: "box", "shift", "sobel-x", "sobel-y", "sobel" (the gradient magnitude), "gauss" (k x k,
    k odd), or an array of weights (odd sizes). The mask is not flipped (correlation). border:
    "zero" or "replicate". The lecture's variants g, c, t and npp keep the mask in one module-wide
    array: their calls with different masks must not overlap on different streams."""
    return _run(prepare_konvolucija(img, mask, k, border, variant, out, threads, blocks))
