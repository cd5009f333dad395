"""The C ABI of libtecaj.so (cuda/include/tecaj.h and cuda/include/tecaj/*.h) in ctypes.

Each structure mirrors its header field for field; tests/test_abi_layout.py compiles the headers
and compares every size and offset, so that a change to a header fails a test instead of a run.
"""
import ctypes
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int, c_int64, c_size_t,
                    c_uint, c_void_p)

# tc_status
OK, OUTSIDE_DOMAIN, BAD_ARGUMENT, UNAVAILABLE = 0, -1, -2, -3

# tc_dtype and tc_op: the one vocabulary (tecaj.h), by name
DTYPES = {"float32": 0, "float64": 1, "int32": 2, "uint32": 3, "uint8": 4, "int64": 5}
OPS = {"sum": 0, "min": 1, "max": 2, "mean": 3, "norm": 4, "dot": 5, "argmin": 6, "argmax": 7}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
OP_NAMES = {v: k for k, v in OPS.items()}

# variant flags
MANAGED, POW2_THREADS, OWN_GRID, LIBRARY, COUNTER_EXAMPLE = 1, 2, 4, 8, 16

KONVOLUCIJA_MAX_2D, KONVOLUCIJA_MAX_1D = 31, 63
REDUKCIJA_OUT_BYTES = 16
BORDERS = {"zero": 0, "replicate": 1}
# tc_razdalja_output
RAZDALJA_SQUARES, RAZDALJA_PARTIALS, RAZDALJA_SCALAR, RAZDALJA_SCALAR64 = 0, 1, 2, 3


class Kernel(Structure):
    _fields_ = [("name", c_char_p), ("function", c_void_p)]


class Variant(Structure):
    _fields_ = [("name", c_char_p), ("summary", c_char_p), ("domain", c_char_p), ("bytes", c_char_p),
                ("flags", c_int), ("kernels", POINTER(Kernel)), ("kernel_count", c_int)]


class KernelInfo(Structure):
    _fields_ = [("kernel", c_char_p), ("registers", c_int), ("static_shared_bytes", c_size_t),
                ("local_bytes", c_size_t), ("const_bytes", c_size_t), ("max_threads_per_block", c_int)]


class Device(Structure):
    _fields_ = [("multiprocessors", c_int), ("max_threads_per_multiprocessor", c_int),
                ("max_blocks_per_multiprocessor", c_int), ("max_threads_per_block", c_int),
                ("registers_per_multiprocessor", c_int), ("max_grid_x", c_int), ("max_grid_y", c_int),
                ("shared_per_multiprocessor", c_size_t), ("shared_per_block", c_size_t),
                ("shared_per_block_optin", c_size_t), ("l2_bytes", c_size_t),
                ("memory_bandwidth", c_double), ("bytes_in_flight_per_sm", c_size_t), ("compute_major", c_int), ("compute_minor", c_int), ("no_cooperative_launch", c_int),
                ("profile", c_char * 16)]


class Request(Structure):
    _fields_ = [("variant", c_int), ("n", c_int64), ("threads", c_int), ("blocks", c_int)]


class Launch(Structure):
    _fields_ = [("variant", c_int), ("n", c_int64), ("threads", c_int), ("blocks", c_int), ("launches", c_int),
                ("out_count", c_int64), ("items", c_int64), ("scratch_bytes", c_size_t),
                ("bytes_moved", c_double), ("shared_bytes", c_size_t)]


class RazlikaRequest(Structure):
    _fields_ = [("base", Request), ("lesson", c_int)]


class RazlikaPlan(Structure):
    _fields_ = [("launch", Launch), ("lesson", c_int), ("reach", c_int64)]


class RazdaljaRequest(Structure):
    _fields_ = [("base", Request)]


class RazdaljaPlan(Structure):
    _fields_ = [("launch", Launch), ("output", c_int), ("accumulation_depth", c_int64)]


class RedukcijaRequest(Structure):
    _fields_ = [("base", Request), ("op", c_int), ("type", c_int)]


class RedukcijaPlan(Structure):
    _fields_ = [("launch", Launch), ("op", c_int), ("type", c_int), ("accumulator", c_int), ("passes", c_int),
                ("depth", c_int64), ("device", Device)]


class RedukcijaResult(Structure):
    _fields_ = [("value", c_double), ("exact", c_int64), ("index", c_int64)]


class PrefiksRequest(Structure):
    _fields_ = [("base", Request), ("op", c_int), ("type", c_int), ("exclusive", c_int), ("segmented", c_int)]


class PrefiksPlan(Structure):
    _fields_ = [("launch", Launch), ("op", c_int), ("type", c_int), ("exclusive", c_int), ("segmented", c_int),
                ("levels", c_int), ("depth", c_int64), ("rows", c_int), ("ahead", c_int64)]


class UrejanjeRequest(Structure):
    _fields_ = [("base", Request), ("batch", c_int64), ("pairs", c_int), ("type", c_int), ("descending", c_int)]


class UrejanjePlan(Structure):
    _fields_ = [("launch", Launch), ("batch", c_int64), ("padded", c_int64), ("pairs", c_int), ("type", c_int),
                ("descending", c_int), ("block_log", c_int), ("rest_log", c_int), ("radix_tiles", c_int64),
                ("radix_chunk", c_int64), ("radix_above", c_int64), ("radix", c_int), ("rank", c_int),
                ("rank_most", c_int64)]


class KonvolucijaRequest(Structure):
    _fields_ = [("base", Request), ("dim", c_int), ("width", c_int), ("height", c_int), ("mask_w", c_int),
                ("mask_h", c_int), ("border", c_int), ("magnitude", c_int), ("pixel", c_int),
                ("mask", POINTER(c_float))]


class KonvolucijaPlan(Structure):
    _fields_ = [("launch", Launch), ("dim", c_int), ("width", c_int), ("height", c_int), ("mask_w", c_int),
                ("mask_h", c_int), ("border", c_int), ("magnitude", c_int), ("pixel", c_int), ("block_x", c_int),
                ("block_y", c_int), ("grid_y", c_int), ("mask", c_float * (KONVOLUCIJA_MAX_2D * KONVOLUCIJA_MAX_2D)),
                ("npp_divisor", c_int)]


# Each program: its request and plan types and the run function's pointer arguments after the plan.
PROGRAMS = {
    "razlika": (RazlikaRequest, RazlikaPlan, [c_void_p] * 3 + [c_void_p]),
    "razdalja": (RazdaljaRequest, RazdaljaPlan, [c_void_p] * 4 + [c_void_p]),
    "redukcija": (RedukcijaRequest, RedukcijaPlan, [c_void_p] * 4 + [c_void_p]),
    "prefiks": (PrefiksRequest, PrefiksPlan, [c_void_p] * 4 + [c_void_p]),
    "urejanje": (UrejanjeRequest, UrejanjePlan, [c_void_p] * 5 + [c_void_p]),
    "konvolucija": (KonvolucijaRequest, KonvolucijaPlan, [c_void_p] * 2 + [c_void_p]),
}

# Every structure the layout test compares with the headers, by its C name.
STRUCTS = {"tc_kernel": Kernel, "tc_variant": Variant, "tc_kernel_info": KernelInfo, "tc_device": Device,
           "tc_request": Request, "tc_launch": Launch, "tc_razlika_request": RazlikaRequest,
           "tc_razlika_plan": RazlikaPlan, "tc_razdalja_request": RazdaljaRequest, "tc_razdalja_plan": RazdaljaPlan,
           "tc_redukcija_request": RedukcijaRequest, "tc_redukcija_plan": RedukcijaPlan,
           "tc_redukcija_result": RedukcijaResult, "tc_prefiks_request": PrefiksRequest,
           "tc_prefiks_plan": PrefiksPlan, "tc_urejanje_request": UrejanjeRequest, "tc_urejanje_plan": UrejanjePlan,
           "tc_konvolucija_request": KonvolucijaRequest, "tc_konvolucija_plan": KonvolucijaPlan}


def library_path():
    """The libtecaj.so to load: TECAJ_LIBRARY, else TECAJ_BUILD/shared/libtecaj.so, else the package's own."""
    if os.environ.get("TECAJ_LIBRARY"):
        return os.environ["TECAJ_LIBRARY"]
    if os.environ.get("TECAJ_BUILD"):
        return os.path.join(os.environ["TECAJ_BUILD"], "shared", "libtecaj.so")
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libtecaj.so")


def _load():
    path = library_path()
    if not os.path.exists(path):
        raise ImportError(f"tecaj: no library at {path}: install with `pip install ./python`, or set TECAJ_LIBRARY "
                          "to a libtecaj.so (or TECAJ_BUILD to a build folder with shared/libtecaj.so)")
    lib = ctypes.CDLL(path)
    sig = {
        "tc_program_name": (c_char_p, [c_void_p]), "tc_program_unit": (c_char_p, [c_void_p]),
        "tc_variant_count": (c_int, [c_void_p]), "tc_variant_at": (POINTER(Variant), [c_void_p, c_int]),
        "tc_variant_find": (c_int, [c_void_p, c_char_p]),
        "tc_kernel_attributes": (c_int, [c_void_p, c_int, c_int, POINTER(KernelInfo)]),
        "tc_device_describe": (c_int, [POINTER(Device)]), "tc_select_device": (c_int, [c_int]),
        "tc_device_profile": (c_int, [c_char_p, POINTER(Device)]), "tc_device_profile_name": (c_char_p, [c_int]),
        "tc_stream_gate": (c_int, [c_void_p, c_uint, c_uint, c_void_p]),
        "tc_status_name": (c_char_p, [c_int]), "tc_status_string": (c_char_p, [c_int]),
        "tc_razdalja_finish": (c_double, [POINTER(RazdaljaPlan), c_void_p]),
        "tc_razdalja_tolerance": (c_double, [POINTER(RazdaljaPlan)]),
        "tc_redukcija_finish": (c_int, [POINTER(RedukcijaPlan), c_void_p, POINTER(RedukcijaResult)]),
        "tc_redukcija_tolerance": (c_double, [POINTER(RedukcijaPlan), c_double]),
        "tc_prefiks_tolerance": (c_double, [POINTER(PrefiksPlan), c_double]),
    }
    for name, (request, plan, run_args) in PROGRAMS.items():
        sig[f"tc_{name}_program"] = (c_void_p, [])
        sig[f"tc_{name}_make_plan"] = (c_int, [POINTER(request), POINTER(Device), POINTER(plan)])
        sig[f"tc_{name}_run"] = (c_int, [POINTER(plan)] + run_args)
    for name, (restype, argtypes) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, argtypes
    return lib


lib = _load()


def status_text(s):
    """A tc_status in words: its text and name."""
    return f"{lib.tc_status_string(s).decode()} ({lib.tc_status_name(s).decode()})"
