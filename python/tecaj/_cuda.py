"""The few CUDA driver calls the package makes itself (libcuda.so.1, present wherever the driver
is): staging NumPy arrays, scratch, result bytes, events. libtecaj.so links the runtime statically
and exports none of it; the driver API needs no toolkit and no framework at run time. The driver's
primary context is the one the runtime (ours, CuPy's, PyTorch's) uses, so pointers, streams and
events pass between them unchanged."""
import ctypes
import threading
from ctypes import byref, c_int, c_size_t, c_uint, c_void_p, c_float, c_uint64

from . import _abi

_driver = None
_one_device = False  # the driver sees one device (set by driver())
_error = None  # why there is no usable GPU, once found
_contexts = {}  # device ordinal -> its primary context
_local = threading.local()


class NoGPUError(RuntimeError):
    """There is no usable GPU (no driver, no device, or a driver older than the runtime)."""


def _sig(name, *args):
    f = getattr(_driver, name)
    f.restype, f.argtypes = c_int, list(args)
    return f


def _check(what, code):
    if code != 0:
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        _driver.cuGetErrorName(code, byref(name))
        _driver.cuGetErrorString(code, byref(text))
        raise RuntimeError(f"tecaj: {what}: {(text.value or b'?').decode()} ({(name.value or b'?').decode()})")


def driver():
    """The driver library, initialised; NoGPUError where there is none or no device."""
    global _driver, _error, _one_device
    if _driver is not None:
        return _driver
    if _error:
        raise NoGPUError(_error)
    try:
        d = ctypes.CDLL("libcuda.so.1")
    except OSError:
        _error = "tecaj: no NVIDIA driver found (libcuda.so.1): no GPU, or its driver is not installed"
        raise NoGPUError(_error) from None
    code = d.cuInit(0)
    count = c_int(0)
    if code == 0:
        code = d.cuDeviceGetCount(byref(count))
    if code != 0 or count.value == 0:
        _error = f"tecaj: no usable GPU (cuInit: error {code}, {count.value} devices)"
        raise NoGPUError(_error)
    _driver, _one_device = d, count.value == 1
    for name, args in {
        "cuDeviceGet": (c_void_p, c_int), "cuDeviceGetCount": (c_void_p,), "cuDeviceGetName": (c_void_p, c_int, c_int),
        "cuDevicePrimaryCtxRetain": (c_void_p, c_int), "cuCtxGetCurrent": (c_void_p,), "cuCtxSetCurrent": (c_void_p,),
        "cuMemGetInfo_v2": (c_void_p, c_void_p), "cuMemAlloc_v2": (c_void_p, c_size_t),
        "cuMemAllocManaged": (c_void_p, c_size_t, c_uint), "cuMemFree_v2": (c_void_p,),
        "cuMemHostAlloc": (c_void_p, c_size_t, c_uint), "cuMemFreeHost": (c_void_p,),
        "cuMemHostGetDevicePointer_v2": (c_void_p, c_void_p, c_uint),
        "cuMemsetD8Async": (c_void_p, ctypes.c_ubyte, c_size_t, c_void_p),
        "cuMemcpyHtoDAsync_v2": (c_void_p, c_void_p, c_size_t, c_void_p),
        "cuMemcpyDtoHAsync_v2": (c_void_p, c_void_p, c_size_t, c_void_p),
        "cuStreamSynchronize": (c_void_p,), "cuStreamWaitEvent": (c_void_p, c_void_p, c_uint),
        "cuEventCreate": (c_void_p, c_uint), "cuEventDestroy_v2": (c_void_p,), "cuEventRecord": (c_void_p, c_void_p),
        "cuEventSynchronize": (c_void_p,), "cuEventElapsedTime": (c_void_p, c_void_p, c_void_p),
        "cuPointerGetAttribute": (c_void_p, c_int, c_void_p), "cuGetErrorName": (c_int, c_void_p),
        "cuGetErrorString": (c_int, c_void_p),
    }.items():
        _sig(name, *args)
    return d


def use(device):
    """Makes the device's primary context current on this thread, for our calls and the library's launches.
    With one device, a thread that has selected it keeps it (the frameworks whose arrays tecaj reads all use
    the primary context), so the driver is asked once a thread; with several, at every call, as the
    caller's framework may have made another device's context current since."""
    if _one_device and getattr(_local, "device", None) == device:
        return
    d = driver()
    ctx = _contexts.get(device)
    if ctx is None:
        dev, ctx = c_int(), c_void_p()
        _check(f"opening device {device}", d.cuDeviceGet(byref(dev), device))
        _check(f"opening device {device}", d.cuDevicePrimaryCtxRetain(byref(ctx), dev))
        _contexts[device] = ctx = ctx.value
    current = c_void_p()
    d.cuCtxGetCurrent(byref(current))
    if current.value != ctx or getattr(_local, "device", None) != device:
        _check(f"selecting device {device}", d.cuCtxSetCurrent(ctx))
        status = _abi.lib.tc_select_device(device)
        if status != _abi.OK:
            raise RuntimeError(f"tecaj: selecting device {device}: {_abi.status_text(status)}")
        _local.device = device


def name(device):
    buf = ctypes.create_string_buffer(256)
    _check("reading the device's name", driver().cuDeviceGetName(buf, 256, device))
    return buf.value.decode()


def mem_info():
    free, total = c_size_t(), c_size_t()
    _check("reading free device memory", driver().cuMemGetInfo_v2(byref(free), byref(total)))
    return free.value, total.value


class Buffer:
    """Device memory we own (scratch, staging, result bytes); freed by free() or when collected."""

    def __init__(self, nbytes, managed=False, zero_on=None):
        self.nbytes, self.ptr = max(int(nbytes), 1), None
        p = c_void_p()
        if managed:
            _check(f"allocating {self.nbytes} bytes of managed memory", driver().cuMemAllocManaged(byref(p), self.nbytes, 1))
        else:
            _check(f"allocating {self.nbytes} bytes of device memory", driver().cuMemAlloc_v2(byref(p), self.nbytes))
        self.ptr = p.value
        if zero_on is not None:  # (scratch: zero-filled once, as the ABI asks; runs leave it reusable)
            _check("zero-filling scratch", driver().cuMemsetD8Async(self.ptr, 0, self.nbytes, zero_on))

    def free(self):
        if self.ptr and _driver is not None:
            _driver.cuMemFree_v2(self.ptr)
        self.ptr = None

    __del__ = free


class Pinned:
    """Page-locked host memory mapped for the device in every context (the timing gate's words,
    result bytes): ptr for the host, device_ptr for kernels, which write it straight to the host
    (on UVA systems the two are the same address)."""

    def __init__(self, nbytes):
        p, d = c_void_p(), c_void_p()
        _check("allocating pinned host memory", driver().cuMemHostAlloc(byref(p), nbytes, 0x3))  # PORTABLE | DEVICEMAP
        self.ptr, self.nbytes = p.value, nbytes
        _check("mapping pinned host memory", driver().cuMemHostGetDevicePointer_v2(byref(d), self.ptr, 0))
        self.device_ptr = d.value
        ctypes.memset(self.ptr, 0, nbytes)

    def free(self):
        if self.ptr and _driver is not None:
            _driver.cuMemFreeHost(self.ptr)
        self.ptr = None

    __del__ = free


def to_device(dst, host_ptr, nbytes, stream):
    _check("copying to the device", driver().cuMemcpyHtoDAsync_v2(dst, host_ptr, nbytes, stream))


def to_host(host_ptr, src, nbytes, stream):
    code = driver().cuMemcpyDtoHAsync_v2(host_ptr, src, nbytes, stream)
    if code:
        _check("copying to the host", code)


def synchronize(stream, what="running"):
    """Waits for the stream; a kernel's execution error surfaces here."""
    code = driver().cuStreamSynchronize(stream)
    if code:
        _check(what, code)


def pointer_device(ptr):
    """The device ordinal memory at ptr lives on (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)."""
    v = c_int(-1)
    _check("reading a pointer's device", driver().cuPointerGetAttribute(byref(v), 9, ptr))
    return v.value


def is_managed(ptr):
    v = c_uint(0)
    code = driver().cuPointerGetAttribute(byref(v), 8, ptr)  # CU_POINTER_ATTRIBUTE_IS_MANAGED
    return code == 0 and v.value != 0


class Event:
    def __init__(self, timing=True):
        e = c_void_p()
        _check("creating an event", driver().cuEventCreate(byref(e), 0 if timing else 0x2))  # 0x2: DISABLE_TIMING
        self.handle = e.value

    def record(self, stream):
        _check("recording an event", driver().cuEventRecord(self.handle, stream))

    def synchronize(self):
        _check("waiting for an event", driver().cuEventSynchronize(self.handle))

    def ms_since(self, start):
        ms = c_float()
        _check("reading an event time", driver().cuEventElapsedTime(byref(ms), start.handle, self.handle))
        return ms.value

    def free(self):
        if self.handle and _driver is not None:
            _driver.cuEventDestroy_v2(self.handle)
        self.handle = None

    __del__ = free


def wait(stream, other):
    """Makes stream wait for the work queued so far on other (CUDA Array Interface's stream)."""
    if other == stream:
        return
    e = Event(timing=False)
    e.record(other)
    _check("ordering two streams", driver().cuStreamWaitEvent(stream, e.handle, 0))
    e.free()
