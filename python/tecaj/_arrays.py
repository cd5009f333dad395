"""Arrays in and out: PyTorch and CuPy arrays read directly, anything else through DLPack
(stream-aware) or the CUDA Array Interface v3, NumPy arrays staged through device memory.
The kernels read and write the caller's memory on the caller's current stream."""
import ctypes
import math
import sys
from ctypes import POINTER, Structure, c_int32, c_int64, c_uint8, c_uint16, c_uint64, c_void_p

import numpy as np

from . import _cuda

# DLPack's DLDataType codes and CUDA device types
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BOOL = 0, 1, 2, 6
_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
LEGACY_STREAM = 0  # what we launch on where the caller's framework names no stream
LATER = object()  # describe()'s stream where the call's is not known yet (see describe)


class _DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device_type", c_int32), ("device_id", c_int32), ("ndim", c_int32),
                ("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16), ("shape", POINTER(c_int64)),
                ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = c_void_p, [ctypes.py_object, ctypes.c_char_p]


class Operand:
    """One array argument: where its elements are (ptr on device, or a NumPy array), their shape, count and dtype name."""
    __slots__ = ("name", "obj", "kind", "ptr", "shape", "size", "dtype", "device", "host", "keep", "stream")

    def __init__(self, name, obj, kind, ptr, shape, dtype, device, host=None, keep=None, stream=None, size=None):
        self.name, self.obj, self.kind, self.ptr, self.shape, self.dtype = name, obj, kind, ptr, tuple(shape), dtype
        self.device, self.host, self.keep, self.stream = device, host, keep, stream
        self.size = math.prod(self.shape) if size is None else size

    @property
    def nbytes(self):
        return self.size * np.dtype(self.dtype).itemsize


ACCEPTED = "a CuPy or PyTorch CUDA array, any array with __dlpack__ or __cuda_array_interface__ (v3) on a CUDA device, or a NumPy array (copied)"


_frameworks = {}  # an array's type -> the package it comes from ("torch", "cupy", ...)
_dtype_names = {}  # a framework's dtype object -> its NumPy name


def _framework(x):
    t = type(x)
    fw = _frameworks.get(t)
    if fw is None:
        fw = _frameworks[t] = t.__module__.split(".", 1)[0]
    return fw


def _dtype_name(dtype):
    """torch.float32 or numpy.dtype('float32') -> "float32" (cached: a call reads one dict)."""
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = dtype.name if isinstance(dtype, np.dtype) else str(dtype).replace("torch.", "")
    return name


def _contiguous(shape, strides, itemsize):
    """strides are the C order's, in units of which an element takes itemsize (DLPack's count
    elements: 1; the CUDA Array Interface's bytes: a stride that is no multiple of the element's
    size is strided). Size-1 dimensions may carry any stride."""
    want = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != want:
            return False
        want *= n
    return True


def _native(name, dtype):
    """A NumPy dtype in the host's byte order (the kernels read elements as the GPU stores them)."""
    if not dtype.isnative:
        raise TypeError(f"{name}: {dtype.name} elements in non-native byte order ({dtype.str}); tecaj takes "
                        f"native ones (.astype('{dtype.name}'))")


def _strided(name):
    return ValueError(f"{name}: a strided (non-contiguous) array; tecaj takes C-contiguous arrays "
                      f"(.contiguous() in PyTorch, cupy.ascontiguousarray in CuPy)")


def describe(name, x, stream):
    """The operand x as tecaj reads it; stream: the one its kernels will run on (None: the legacy
    default stream). With LATER, a DLPack operand is not read (its producer must be asked for the
    call's stream): None is returned for it, to be described again once the stream is known."""
    fw = _framework(x)
    if fw == "torch" and hasattr(x, "data_ptr"):
        if not x.is_cuda:
            raise TypeError(f"{name}: a PyTorch tensor on the {x.device}; tecaj takes CUDA tensors (x.cuda()) "
                            f"or NumPy arrays (x.numpy(), copied)")
        if not x.is_contiguous():
            raise _strided(name)
        return Operand(name, x, "torch", x.data_ptr(), x.shape, _dtype_name(x.dtype), x.get_device(), size=x.numel())
    if fw == "cupy" and hasattr(x, "data") and hasattr(x, "device"):
        if not x.flags.c_contiguous:
            raise _strided(name)
        mem = x.data  # (a MemoryPointer: its pointer and device as plain ints)
        return Operand(name, x, "cupy", mem.ptr, x.shape, _dtype_name(x.dtype), mem.device_id, size=x.size)
    if isinstance(x, np.ndarray):
        _native(name, x.dtype)
        return Operand(name, x, "numpy", None, x.shape, x.dtype.name, None, host=np.ascontiguousarray(x))
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        dev_type, dev_id = x.__dlpack_device__()
        if int(dev_type) not in (_DL_CUDA, _DL_CUDA_MANAGED):
            raise TypeError(f"{name}: an array on DLPack device type {int(dev_type)}; tecaj takes {ACCEPTED}")
        if stream is LATER:
            return None
        # the producer orders its work before our stream (1: the legacy default stream, DLPack's word for it)
        capsule = x.__dlpack__(stream=stream if stream else 1)
        t = _DLTensor.from_address(_get_pointer(capsule, b"dltensor"))
        shape = [t.shape[i] for i in range(t.ndim)]
        if t.strides and not _contiguous(shape, [t.strides[i] for i in range(t.ndim)], 1):
            raise _strided(name)
        dtype = {(_DL_FLOAT, 32): "float32", (_DL_FLOAT, 64): "float64", (_DL_INT, 32): "int32", (_DL_INT, 64): "int64",
                 (_DL_UINT, 32): "uint32", (_DL_UINT, 8): "uint8", (_DL_UINT, 1): "bool", (_DL_BOOL, 8): "bool",
                 (_DL_INT, 8): "int8", (_DL_FLOAT, 16): "float16"}.get(
                     (t.code, t.bits), f"DLPack type code {t.code} of {t.bits} bits")
        if t.lanes != 1:
            dtype = f"{dtype} x {t.lanes} lanes"
        return Operand(name, x, "dlpack", (t.data or 0) + t.byte_offset, shape, dtype, t.device_id, keep=capsule)
    if hasattr(x, "__cuda_array_interface__"):
        cai = x.__cuda_array_interface__
        if cai.get("mask") is not None:
            raise ValueError(f"{name}: a masked array; tecaj takes arrays without a mask")
        dtype = np.dtype(cai["typestr"])
        _native(name, dtype)
        shape = tuple(cai["shape"])
        strides = cai.get("strides")
        if strides is not None and not _contiguous(shape, strides, dtype.itemsize):
            raise _strided(name)
        ptr = cai["data"][0]
        device = _cuda.pointer_device(ptr) if ptr else None
        return Operand(name, x, "cai", ptr, shape, dtype.name, device, stream=cai.get("stream"))
    raise TypeError(f"{name}: a {type(x).__module__}.{type(x).__name__}; tecaj takes {ACCEPTED}")


def call_stream(ops):
    """The stream a call runs on: the caller's current stream in the framework of its first PyTorch
    or CuPy operand (where the caller queued the work that made the arrays), else the legacy default
    stream."""
    for op in ops:
        if op.kind == "torch":
            torch = sys.modules["torch"]
            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # (the handle alone, without a Stream object)
            return raw(op.device) if raw else torch.cuda.current_stream(op.device).cuda_stream
        if op.kind == "cupy":
            return sys.modules["cupy"].cuda.get_current_stream().ptr
    return LEGACY_STREAM


def empty(like, shape, dtype):
    """A new array in like's framework, on its device."""
    if like.kind == "torch":
        torch = sys.modules["torch"]
        return torch.empty(shape, dtype=getattr(torch, dtype), device=like.obj.device)
    if like.kind == "cupy":
        cupy = sys.modules["cupy"]
        with cupy.cuda.Device(like.device):
            return cupy.empty(shape, dtype=dtype)
    if like.kind == "numpy":
        return np.empty(shape, dtype=dtype)
    raise TypeError(f"{like.name}: tecaj makes results as CuPy, PyTorch or NumPy arrays; for this array's "
                    f"framework pass out= (a {dtype} array of shape {tuple(shape)} on the same device)")
