"""A stand-in GPU for host-only tests of the call path: a driver (libcuda) whose functions count
their calls, the library's GPU entry points stubbed and counted, and PyTorch- and CuPy-shaped
arrays of made-up device pointers. What a call costs in driver and library calls can then be
counted where there is no GPU. Device memory holds bytes; the device "reduces" by writing RESULT
(razdalja: RESULT^2; redukcija: Driver.results' value for its input, where a test sets one) in the
plan's accumulator, where the run's out points, device memory or
mapped pinned host memory, so a wrong pointer, copy or decode shows as a wrong value."""
import collections
import contextlib
import ctypes
import os
import struct
import sys
import threading
import types
from unittest import mock

import numpy as np

from tecaj import _abi, _arrays, _cuda, _programs

RESULT, INDEX = 42.5, 7  # what every fake reduction leaves in its result bytes (value, index)
CONTEXT, STREAM = 0x7000, 0x5100  # made-up handles: the primary context, the caller's current stream


class Driver:
    """libcuda's functions as the package calls them, each call counted in calls."""

    def __init__(self, calls):
        self.calls, self.current, self.next_ptr, self.host, self.device_bytes = calls, 0, 0x10000000, {}, {}
        self.device_data = {}  # device pointer -> the bytes a fake kernel wrote there
        self.results = {}  # an input's device pointer -> what a fake redukcija of it leaves (RESULT where unset)

    def __getattr__(self, name):
        if not name.startswith("cu"):
            raise AttributeError(name)
        do = getattr(self, "_" + name, lambda *args: 0)

        call = _counted(self.calls, name, do)
        setattr(self, name, call)  # (made once a name)
        return call

    def _cuDevicePrimaryCtxRetain(self, ctx, dev):
        ctx._obj.value = CONTEXT
        return 0

    def _cuCtxGetCurrent(self, ctx):
        ctx._obj.value = self.current or None
        return 0

    def _cuCtxSetCurrent(self, ctx):
        self.current = ctx
        return 0

    def _cuMemAlloc_v2(self, p, nbytes):
        p._obj.value, self.next_ptr = self.next_ptr, self.next_ptr + ((nbytes + 255) & ~255)
        self.device_bytes[p._obj.value] = nbytes
        return 0

    def _cuMemHostAlloc(self, p, nbytes, flags):
        buf = ctypes.create_string_buffer(nbytes)
        self.host[ctypes.addressof(buf)] = buf
        p._obj.value = ctypes.addressof(buf)
        return 0

    def _cuMemFreeHost(self, ptr):
        self.host.pop(ptr, None)
        return 0

    def _cuMemHostGetDevicePointer_v2(self, p, host, flags):
        p._obj.value = host if host in self.host else 0  # (UVA: the host address)
        return 0 if host in self.host else 1

    def _cuMemcpyDtoHAsync_v2(self, dst, src, nbytes, stream):
        data = self.device_data.get(src, b"")[:nbytes]
        ctypes.memmove(dst, data, len(data))
        return 0

    def write(self, out, data):
        """A kernel's store of data at out: into mapped host memory, or device memory (kept for a copy)."""
        if out in self.host:
            ctypes.memmove(out, data, len(data))
        elif out in self.device_bytes:
            self.device_data[out] = data
        else:
            raise AssertionError(f"a fake kernel writes to {out:#x}, which is no allocation")

    def _cuPointerGetAttribute(self, value, attribute, ptr):
        value._obj.value = 0
        return 0


class Calls(collections.Counter):
    """Calls by name; last: each name's last arguments; stream: the frameworks' current stream."""

    def __init__(self):
        super().__init__()
        self.last, self.stream = {}, STREAM


def _counted(calls, name, do):
    def call(*args):
        calls[name] += 1
        calls.last[name] = args
        return do(*args)
    return call


def _describe(d):
    ctypes.pointer(d._obj)[0] = _programs.profile("a100")
    return _abi.OK


def _run(*args):
    return _abi.OK


_FORMATS = {_abi.DTYPES["float32"]: "f", _abi.DTYPES["float64"]: "d", _abi.DTYPES["int32"]: "i", _abi.DTYPES["int64"]: "q"}


def _redukcija_run(driver):
    """tc_redukcija_run: RESULT in the plan's accumulator (an int where it is an integer), an arg
    operator's pair as KeyValue<T> (the index at byte 8)."""
    def run(plan, a, b, out, scratch, stream):
        p = plan._obj
        if not a or not out or (p.op == _abi.OPS["dot"]) != bool(b):
            return _abi.BAD_ARGUMENT  # (the library's check: a missing buffer)
        value = driver.results.get(a, RESULT)
        if p.op in (_abi.OPS["argmin"], _abi.OPS["argmax"]):
            f = _FORMATS[p.type]
            data = struct.pack("<" + f + ("4x" if f in "fi" else "") + "q", value if f in "fd" else int(value), INDEX)
        else:
            f = _FORMATS[p.accumulator]
            data = struct.pack("<" + f, value if f in "fd" else int(value)).ljust(_abi.REDUKCIJA_OUT_BYTES, b"\0")
        driver.write(out, data)
        return _abi.OK
    return run


def _razdalja_run(driver):
    """tc_razdalja_run: RESULT^2 as the plan's output: one double, one float, or the first of its floats."""
    def run(plan, a, b, out, scratch, stream):
        p = plan._obj
        if not a or not b or not out:
            return _abi.BAD_ARGUMENT  # (the library's check: a missing buffer)
        if p.output == _abi.RAZDALJA_SCALAR64:
            data = struct.pack("<d", RESULT * RESULT)
        else:
            data = struct.pack("<f", RESULT * RESULT).ljust(4 * p.launch.out_count, b"\0")
        driver.write(out, data)
        return _abi.OK
    return run


class TorchTensor:
    """A CUDA tensor's face as tecaj reads it (torch.Tensor's attributes and methods)."""
    __module__ = "torch.fake"

    def __init__(self, n, dtype="float32", device=0, contiguous=True, ptr=0x20000000):
        self.shape, self._n, self.dtype, self._device, self._contiguous = (n,), n, FakeDtype(dtype), device, contiguous
        self.is_cuda, self.device, self._ptr = True, types.SimpleNamespace(index=device, type="cuda"), ptr

    def data_ptr(self):
        return self._ptr

    def is_contiguous(self):
        return self._contiguous

    def get_device(self):
        return self._device

    def numel(self):
        return self._n

    def dim(self):
        return len(self.shape)


class FakeDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name

    def __eq__(self, other):
        return isinstance(other, FakeDtype) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


class CupyArray:
    """A CuPy ndarray's face as tecaj reads it."""
    __module__ = "cupy.fake"

    def __init__(self, n, dtype="float32", device=0, contiguous=True, ptr=0x30000000):
        self.shape, self.size, self.dtype = (n,), n, np.dtype(dtype)
        self.data = types.SimpleNamespace(ptr=ptr, device_id=device)
        self.device = types.SimpleNamespace(id=device)
        self.flags = types.SimpleNamespace(c_contiguous=contiguous)


_capsule = ctypes.pythonapi.PyCapsule_New
_capsule.restype, _capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_DLTENSOR = b"dltensor"  # (a capsule keeps a pointer to its name: this one lives as long as the module)


class DLPackArray:
    """An array that offers DLPack only (another framework's, on CUDA device 0): a 1-D DLTensor of
    the DLDataType (code, bits); asked: the stream each __dlpack__ call was asked for."""

    def __init__(self, n, code=2, bits=32, ptr=0x70000000):
        self.asked, self._shape = [], (ctypes.c_int64 * 1)(n)
        self._tensor = _arrays._DLTensor(data=ptr, device_type=2, device_id=0, ndim=1, code=code, bits=bits,
                                         lanes=1, shape=self._shape)

    def __dlpack_device__(self):
        return 2, 0

    def __dlpack__(self, stream=None):
        self.asked.append(stream)
        return _capsule(ctypes.addressof(self._tensor), _DLTENSOR, None)


def _frameworks(calls):
    torch = types.ModuleType("torch")
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: calls.stream)
    torch.cuda = types.SimpleNamespace(current_stream=lambda device=None: types.SimpleNamespace(cuda_stream=calls.stream))
    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(get_current_stream=lambda device_id=-1: types.SimpleNamespace(ptr=calls.stream))
    return {"torch": torch, "cupy": cupy}


@contextlib.contextmanager
def gpu(devices=1):
    """The fake GPU (one of `devices`) in place of the real driver and the library's GPU calls (and
    no TECAJ_EMULATE); yields the counts of every driver and library call made inside, by name (the
    library's host-only decoders, called for real, counted too)."""
    calls = Calls()
    driver = Driver(calls)
    patches = [mock.patch.object(_cuda, "_driver", driver), mock.patch.object(_cuda, "_one_device", devices == 1),
               mock.patch.object(_cuda, "_contexts", {}),
               mock.patch.object(_cuda, "_local", threading.local()),
               mock.patch.dict(sys.modules, _frameworks(calls)), mock.patch.dict(os.environ, {}, clear=False)]
    stubs = {"tc_select_device": _run, "tc_device_describe": _describe}
    stubs.update({name: getattr(_abi.lib, name) for name in ("tc_redukcija_finish", "tc_razdalja_finish")})
    for name in stubs:
        patches.append(mock.patch.object(_abi.lib, name, _counted(calls, name, stubs[name])))
    runs = {"redukcija": _redukcija_run(driver), "razdalja": _razdalja_run(driver)}
    for name, p in _programs.PROGRAMS.items():
        run = _counted(calls, f"tc_{name}_run", runs.get(name, _run))
        patches += [mock.patch.object(p, "run", run), mock.patch.object(_abi.lib, f"tc_{name}_run", run)]
    _programs.clear_cache()  # (with the real driver: plans cached before are freed for real)
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        os.environ.pop("TECAJ_EMULATE", None)
        _programs._described.clear()
        try:
            yield calls
        finally:
            _programs.clear_cache()  # (with the fake driver: its made-up memory)
            _programs._described.clear()
