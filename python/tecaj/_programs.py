"""The six programs over the C ABI: arguments checked, a plan made (cached per program and
request), the caller's arrays run on the caller's stream."""
import collections
import ctypes
import os
import threading
from ctypes import byref
from threading import get_ident

import numpy as np

from . import _abi, _arrays, _cuda, _results
from ._abi import lib

NO_GPU_PROFILE = "a100"  # the profile plans are made for where there is no GPU (as the commands do)
CACHE_PLANS = 64  # cached plans (with their scratch); the least recently used is freed past this

# The element types each program takes (its header's list).
TYPES = {"razlika": ("float32",), "razdalja": ("float32",), "redukcija": ("float32", "float64", "int32"),
         "prefiks": ("float32", "int32"), "urejanje": ("float32", "int32", "uint32"), "konvolucija": ("float32", "uint8")}
SCAN_OPS = ("sum", "min", "max")
MASKS = ("box", "shift", "sobel-x", "sobel-y", "sobel", "gauss")


class Program:
    """One program of the library: its handle and variant table."""

    def __init__(self, name):
        self.name = name
        self.request_type, self.plan_type, _ = _abi.PROGRAMS[name]
        self.handle = getattr(lib, f"tc_{name}_program")()
        self.make_plan = getattr(lib, f"tc_{name}_make_plan")
        self.run = getattr(lib, f"tc_{name}_run")
        self.unit = lib.tc_program_unit(self.handle).decode()
        self.variants = [lib.tc_variant_at(self.handle, i)[0] for i in range(lib.tc_variant_count(self.handle))]
        self.names = [v.name.decode() for v in self.variants]

    def index(self, variant):
        if not isinstance(variant, str) or variant not in self.names:
            raise ValueError(f"variant={variant!r}: {self.name} has the variants {', '.join(self.names)}")
        return self.names.index(variant)


PROGRAMS = {name: Program(name) for name in _abi.PROGRAMS}


def profile(name):
    d = _abi.Device()
    if lib.tc_device_profile(name.encode(), byref(d)) != _abi.OK:
        raise ValueError(f"unknown GPU profile {name!r} (profiles: {', '.join(profiles())})")
    return d


def profiles():
    names, i = [], 0
    while lib.tc_device_profile_name(i):
        names.append(lib.tc_device_profile_name(i).decode())
        i += 1
    return names


_described = {}
_emulate = None  # TECAJ_EMULATE as read when the first plan was made (None: not read since clear_cache())


def emulated():
    """TECAJ_EMULATE's profile name ("" for none): the environment is read when the first plan is made
    (a call reads no environment); clear_cache() reads it again."""
    global _emulate
    if _emulate is None:
        _emulate = os.environ.get("TECAJ_EMULATE", "")
    return _emulate


def described(device):
    """The figures plans are made for: TECAJ_EMULATE's profile, the device's, or (no GPU) NO_GPU_PROFILE's.
    Returns (key, tc_device, gpu) with gpu False where the figures stand in for a missing GPU."""
    emulate = emulated()
    key = (emulate, device)
    if key not in _described:
        if emulate:
            _described[key] = (key, profile(emulate), True)
        else:
            try:
                _cuda.use(device or 0)
                d = _abi.Device()
                status = lib.tc_device_describe(byref(d))
                if status != _abi.OK:
                    raise RuntimeError(f"tecaj: describing device {device or 0}: {_abi.status_text(status)}")
                _described[key] = (key, d, True)
            except _cuda.NoGPUError:
                return key, profile(NO_GPU_PROFILE), False  # (not cached: a GPU may come with the next process only)
    return _described[key]


class Memory:
    """What one thread's runs of one plan on one stream reuse: the stream's scratch (shared by the
    threads: runs on one stream run one after another) and, where the result is a few bytes, where
    the kernels write them, the thread's own (two threads' calls on one stream would otherwise read
    each other's: ctypes lets go of the GIL between one's launch and its wait): mapped pinned host
    memory (mapped: the kernels write to the host, no copy), or device memory and pinned host memory
    they are copied back to; decode() reads them (made by the program's decoder at the first public
    call). The pointers are plain ints, made once."""

    def __init__(self, scratch, result_bytes, mapped):
        self.scratch, self.buffers = scratch, []
        self.out = self.host = self.decode = None
        self.result_bytes, self.mapped = result_bytes, mapped
        if result_bytes:
            pinned = _cuda.Pinned(result_bytes)
            if mapped:
                self.buffers.append(pinned)
                self.out = pinned.device_ptr
            else:
                self.buffers += [_cuda.Buffer(result_bytes), pinned]
                self.out = self.buffers[0].ptr
            self.host = pinned.ptr

    def fetch(self, stream):
        """Waits for the stream (a kernel's error surfaces here) with the result bytes on the host."""
        if not self.mapped:
            _cuda.to_host(self.host, self.out, self.result_bytes, stream)
        _cuda.synchronize(stream)

    def free(self):
        for b in self.buffers:
            b.free()


class Entry:
    """A cached plan (and a reference to it for the run functions), its scratch, one a stream
    (zero-filled once, on that stream), and its Memory, one a thread, stream and result path.
    mapped: the plan's variant writes its result straight to the host (_results.MAPPED); the public
    calls take that path, compare() and prepared Jobs keep device memory and a copy, so kernel times
    are the commands'."""

    def __init__(self, plan, mapped):
        self.plan, self.ref, self.mapped, self.scratch, self.per_call = plan, byref(plan), mapped, {}, {}

    def memory(self, stream, result_bytes=0, mapped=False, decoder=None):
        """This thread's Memory of (stream, mapped), made on first use; decoder: the public calls'
        (a prepared Job, which reads the library's finish, may have made the Memory without one)."""
        m = self.per_call.get((get_ident(), stream, mapped))
        if m is None or (m.decode is None and decoder is not None):
            m = self._made(stream, result_bytes, mapped, decoder)
        return m

    def _made(self, stream, result_bytes, mapped, decoder):
        with _lock:  # (threads calling first at once make one scratch a stream)
            key = (get_ident(), stream, mapped)
            m = self.per_call.get(key)
            if m is None:
                s = self.scratch.get(stream)
                if s is None:
                    s = self.scratch[stream] = _cuda.Buffer(self.plan.launch.scratch_bytes, zero_on=stream)
                m = self.per_call[key] = Memory(s.ptr, result_bytes, mapped)
            if decoder is not None and m.decode is None:
                m.decode = decoder(self.plan, m.host)
            return m

    def free(self):
        for m in self.per_call.values():
            m.free()
        for s in self.scratch.values():
            s.free()
        self.per_call.clear()
        self.scratch.clear()


_cache = collections.OrderedDict()
_lock = threading.Lock()
stats = {"hits": 0, "misses": 0}


def clear_cache():
    """Frees every cached plan's device memory (after waiting for the device's work on it); the next
    plan reads TECAJ_EMULATE again."""
    global _emulate
    with _lock:
        _emulate = None
        for e in _cache.values():
            e.free()
        _cache.clear()
        stats.update(hits=0, misses=0)


def _params(fields):
    return "".join(f" {k}={v}" for k, v in fields.items() if v not in (None, 0, False, "") or k in ("n",))


# Each program's request, as plan() takes it: its values in this order (the cache key; named in refusals).
FIELDS = {"razlika": ("n", "threads", "blocks"), "razdalja": ("n", "threads", "blocks"),
          "redukcija": ("n", "threads", "blocks", "op", "type"),
          "prefiks": ("n", "threads", "blocks", "op", "type", "exclusive", "segmented"),
          "urejanje": ("n", "threads", "blocks", "batch", "pairs", "type", "desc"),
          "konvolucija": ("n", "threads", "blocks", "dim", "width", "height", "mask", "border", "magnitude", "pixel")}


def plan(program, variant, request, device, make_request, params=None):
    """The cached plan of (program, request) for the device; a refusal is a ValueError naming the
    domain (which names the variants that cover the request). request: the values of the program's
    FIELDS; make_request(base) makes its structure (on a miss only); params: the fields as a refusal
    names them, where they differ."""
    key = (program, variant, _emulate if _emulate is not None else emulated(), device) + request
    with _lock:
        e = _cache.get(key) if isinstance(variant, str) else None
        if e is not None:  # (its variant, threads and blocks were checked when it was made)
            _cache.move_to_end(key)
            stats["hits"] += 1
            return e
    fields = dict(zip(FIELDS[program], request))
    params = params or fields
    p = PROGRAMS[program]
    vi = p.index(variant)
    v = p.variants[vi]
    threads, blocks = int(fields["threads"]), int(fields["blocks"])
    if threads and (threads % 32 or not 32 <= threads <= 1024):
        raise ValueError(f"threads={threads}: 0 (the variant's choice) or a multiple of 32 from 32 to 1024")
    if threads and v.flags & _abi.POW2_THREADS and threads & (threads - 1):
        raise ValueError(f"threads={threads}: variant {variant} takes a power of two from 32 to 1024")
    if blocks < 0:
        raise ValueError(f"blocks={blocks}: 0 (the variant's choice) or a positive count")
    if v.flags & _abi.OWN_GRID and blocks:
        raise ValueError(f"blocks={blocks}: variant {variant} sizes its own grid; leave blocks at 0")
    _, desc, gpu = described(device)
    req = make_request(_abi.Request(variant=vi, n=int(fields["n"]), threads=threads, blocks=blocks))
    pl = p.plan_type()
    status = p.make_plan(byref(req), byref(desc), byref(pl))
    if status == _abi.OUTSIDE_DOMAIN:
        detail = ""
        if program == "redukcija" and 0 < pl.launch.blocks < blocks:
            where = desc.profile.decode() and f"the {desc.profile.decode()} profile" or "this GPU"
            detail = f" (at most {pl.launch.blocks} blocks of {pl.launch.threads} threads on {where})"
        raise ValueError(f"{program}: variant {variant} does not cover{_params(params)}: its domain is "
                         f"{v.domain.decode()}{detail}")
    if status == _abi.UNAVAILABLE:
        raise RuntimeError(f"{program}: variant {variant}: {lib.tc_status_string(status).decode()}")
    if status > 0:  # (a CUDA error: a library variant's plan asks the device for its scratch)
        raise (RuntimeError if gpu else _cuda.NoGPUError)(
            f"tecaj: planning {program} {variant}: {_abi.status_text(status)}" + ("" if gpu else " (no GPU here)"))
    if status != _abi.OK:
        raise ValueError(f"{program}: variant {variant} refuses{_params(params)}: {_abi.status_text(status)}")
    with _lock:
        stats["misses"] += 1
        _cache[key] = e = Entry(pl, (program, variant) in _results.MAPPED)
        while len(_cache) > CACHE_PLANS:
            _cache.popitem(last=False)[1].free()
    return e


def check_type(op, program, accepted=None):
    accepted = accepted or TYPES[program]
    if op.dtype not in accepted:
        raise TypeError(f"{op.name}: {op.dtype} elements; {program} takes {' or '.join(accepted)}")


def check_same(a, b):
    if b.shape != a.shape:
        raise ValueError(f"{b.name}: shape {b.shape}, {a.name}'s is {a.shape}; they must be the same")


def check_size(op):
    if op.size < 1:
        raise ValueError(f"{op.name}: an empty array; tecaj takes at least one element")


class Call:
    """One call's arrays on one device and stream: device pointers for every operand (NumPy ones
    staged through device memory), then the results copied back where they came from NumPy."""

    def __init__(self, inputs, managed=False):
        first = inputs[0]
        self.host = first.kind == "numpy"
        self.device = first.device
        for o in inputs[1:]:
            if (o.kind == "numpy") != self.host:
                host, dev = (first, o) if self.host else (o, first)
                raise TypeError(f"{host.name}: a NumPy array beside {dev.name} on a GPU; pass all device arrays, or all NumPy")
            if o.device != self.device:
                raise ValueError(f"{o.name}: on device {o.device}, {first.name} on device {self.device}; "
                                 "tecaj takes arrays on one device")
        self.inputs, self.managed, self.staged = inputs, managed, []
        self.stream = None if self.host else _arrays.call_stream(inputs)

    def start(self, outputs=()):
        """Selects the device and gives every operand a device pointer; returns the stream."""
        _cuda.use(self.device or 0)
        if self.host:
            self.stream = _arrays.LEGACY_STREAM
        for o in (*self.inputs, *outputs):
            if o.kind == "numpy":
                buf = _cuda.Buffer(o.nbytes, managed=self.managed)
                self.staged.append(buf)
                o.ptr = buf.ptr
                if o in self.inputs:
                    _cuda.to_device(o.ptr, o.host.ctypes.data, o.nbytes, self.stream)
            else:
                if o.stream not in (None, self.stream):  # (the CUDA Array Interface's producer stream)
                    _cuda.wait(self.stream, o.stream)
                if self.managed and not _cuda.is_managed(o.ptr):
                    raise ValueError(f"{o.name}: device memory; the variant's lesson is unified memory: it takes "
                                     "managed arrays (e.g. CuPy's cupy.cuda.malloc_managed allocator) or NumPy arrays")
        return self.stream

    def finish(self, outputs=()):
        """Copies NumPy outputs back and waits for them; frees the staging memory."""
        if self.host:
            for o in outputs:
                _cuda.to_host(o.host.ctypes.data, o.ptr, o.nbytes, self.stream)
            _cuda.synchronize(self.stream)
            for b in self.staged:
                b.free()
            self.staged = []


def output(name, out, like, shape, dtype, call, same=(), apart=()):
    """out as an operand (checked), or a new array in like's framework. A given device out must not
    overlap the inputs or apart (the kernels read them while they write out), except that it may be
    exactly an operand of same, where the program's ABI allows it (NumPy arrays are staged apart)."""
    given = out is not None
    if not given:
        out = _arrays.empty(like, shape, dtype)
    o = _arrays.describe(name, out, call.stream)
    if o.kind == "numpy":
        if not isinstance(out, np.ndarray) or not out.flags.c_contiguous:
            raise ValueError(f"{name}: a C-contiguous NumPy array")
        o.host = out
    if o.dtype != dtype:
        raise TypeError(f"{name}: {o.dtype} elements; this result is {dtype}")
    if o.size != int(np.prod(shape, dtype=np.int64)):
        raise ValueError(f"{name}: shape {o.shape}; this result has shape {tuple(shape)}")
    if (o.kind == "numpy") != call.host:
        raise TypeError(f"{name}: a {'NumPy' if o.kind == 'numpy' else 'device'} array for "
                        f"{'NumPy' if call.host else 'device'} inputs")
    if o.kind != "numpy" and o.device != call.device:
        raise ValueError(f"{name}: on device {o.device}; the inputs are on device {call.device}")
    if given and o.kind != "numpy":
        for other in (*call.inputs, *apart):
            if o.ptr < other.ptr + other.nbytes and other.ptr < o.ptr + o.nbytes and not (
                    other in same and o.ptr == other.ptr and o.nbytes == other.nbytes):
                raise ValueError(f"{name}: overlaps {other.name} in memory; " + (
                    f"pass {other.name} itself (in place) or memory apart from it" if other in same
                    else f"the result goes to memory apart from {other.name}"))
    return out, o
