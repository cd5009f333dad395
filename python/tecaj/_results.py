"""Results of a few bytes (redukcija, razdalja): where the kernels write them and how the host reads
them. The decoders read the pinned bytes through ctypes (C's own float-to-double conversion) and do
the library's finish (tc_redukcija_finish, tc_razdalja_finish) in Python, operation for operation,
so a call makes no library call after the run; tests/test_host.py holds them to the library's finish
bit for bit."""
import ctypes
import ctypes.util
import math
from ctypes import Structure, c_double, c_float, c_int32, c_int64

from . import _abi
from ._abi import lib

# The variants whose kernels write their result straight into mapped pinned host memory: their one
# write to it is a plain store by one thread at the end (reduce_best.cuh), which is valid over the
# bus, so a call needs no copy. The rest keep device memory and a copy: an atomic read-modify-write
# on the result (redukcija atomic and race, razdalja la1 and la2: not guaranteed on host memory),
# a partial or a square per block or element (razdalja g and ls*: many small writes over the bus),
# the lecture's passes (as the commands run them), and the libraries' code (cub).
MAPPED = {("redukcija", "best"), ("razdalja", "best")}

_FLOAT32, _FLOAT64, _INT32, _INT64 = (_abi.DTYPES[t] for t in ("float32", "float64", "int32", "int64"))
_C = {_FLOAT32: c_float, _FLOAT64: c_double, _INT32: c_int32, _INT64: c_int64}
_MEAN, _NORM, _ARGMIN, _ARGMAX = (_abi.OPS[o] for o in ("mean", "norm", "argmin", "argmax"))


_libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_libm.sqrt.restype, _libm.sqrt.argtypes = c_double, [c_double]


def sqrt(x):
    """C's sqrt, as the library's finish takes it: math.sqrt where the two agree (x >= 0, correctly
    rounded), the C library's for NaN and negatives (math.sqrt raises or keeps a signalling NaN)."""
    return math.sqrt(x) if x >= 0 else _libm.sqrt(x)


def redukcija(plan, host):
    """A function of no arguments that returns the result at host as redukcija returns it: int where
    exact (int32 sums, dots, min and max), float otherwise; (value, index) for argmin/argmax."""
    op, n = plan.op, float(plan.launch.n)
    if op in (_ARGMIN, _ARGMAX):  # a KeyValue: the value in the input's type at 0, the index at 8
        pair = type("KeyValue", (Structure,), {"_fields_": [("value", _C[plan.type]), ("index", c_int64)]}).from_address(host)
        return lambda: (pair.value, pair.index)
    acc = _C[plan.accumulator].from_address(host)
    if plan.type == _INT32 and op not in (_MEAN, _NORM):
        return lambda: acc.value
    if op == _MEAN:
        return lambda: float(acc.value) / n
    if op == _NORM:
        return lambda: sqrt(float(acc.value))
    return lambda: float(acc.value)


def razdalja(plan, host):
    """A function of no arguments that returns the distance from the bytes at host (the root of the
    library's sum; partials and squares are summed by the library's finish, in float64, in order)."""
    if plan.output == _abi.RAZDALJA_SCALAR64:
        s = c_double.from_address(host)
    elif plan.output == _abi.RAZDALJA_SCALAR:
        s = c_float.from_address(host)
    else:
        return lambda: sqrt(lib.tc_razdalja_finish(plan, host))
    return lambda: sqrt(s.value)
