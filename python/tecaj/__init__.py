"""tecaj: the course's CUDA kernels, every variant from the lecture's first to the best, on
CuPy and PyTorch arrays (zero copy, on the caller's current stream) or NumPy arrays (copied to
the device and back).

    import cupy, tecaj
    x = cupy.random.rand(10**6, dtype=cupy.float32)
    tecaj.redukcija(x)                      # best
    tecaj.redukcija(x, variant="r3")        # one step of the lecture
    tecaj.compare("redukcija", x)           # every variant, timed and checked

The library is libtecaj.so: the package's own, or TECAJ_LIBRARY=path/to/libtecaj.so, or
TECAJ_BUILD=a CMake build folder (its shared/libtecaj.so).
"""
from . import _abi, _cuda, _programs
from ._api import konvolucija, prefiks, razdalja, razlika, redukcija, urejanje, PREPARE
from ._compare import Rows, compare
from ._cuda import NoGPUError
from ._programs import clear_cache

__all__ = ["razlika", "razdalja", "redukcija", "prefiks", "urejanje", "konvolucija", "variants", "device",
           "programs", "plan", "compare", "clear_cache", "cache_info", "NoGPUError"]


def programs():
    """The programs' names."""
    return list(_programs.PROGRAMS)


def variants(program):
    """The program's variant table, in the lecture's order: one dict a variant with its name, summary,
    domain (where it is correct, and what covers the rest), bytes (what it must move), flags and kernels."""
    if program not in _programs.PROGRAMS:
        raise ValueError(f"program={program!r}: one of {', '.join(_programs.PROGRAMS)}")
    out = []
    for v in _programs.PROGRAMS[program].variants:
        f = v.flags
        out.append(dict(name=v.name.decode(), summary=v.summary.decode(), domain=v.domain.decode(),
                        bytes=v.bytes.decode(), managed=bool(f & _abi.MANAGED), pow2_threads=bool(f & _abi.POW2_THREADS),
                        own_grid=bool(f & _abi.OWN_GRID), library=bool(f & _abi.LIBRARY),
                        counter_example=bool(f & _abi.COUNTER_EXAMPLE),
                        kernels=[v.kernels[k].name.decode() for k in range(v.kernel_count)]))
    return out


def device(index=0):
    """The figures plans are made for on device index: the GPU's, or TECAJ_EMULATE's profile's, or
    (no GPU here: gpu False) those of the profile plans are made for without one."""
    _, d, gpu = _programs.described(index)
    out = {name: getattr(d, name) for name, _ in _abi.Device._fields_ if name != "profile"}
    out["profile"] = d.profile.decode()
    out["gpu"] = gpu
    if gpu and not out["profile"]:
        out["name"] = _cuda.name(index)
        out["free_bytes"], out["total_bytes"] = _cuda.mem_info()
    return out


def plan(program, *arrays, variant="best", **options):
    """The plan a call would run, without running it (no GPU needed for NumPy arrays): threads,
    blocks, launches, scratch bytes, the bytes it moves. Outside the variant's domain: ValueError."""
    if program not in PREPARE:
        raise ValueError(f"program={program!r}: one of {', '.join(PREPARE)}")
    launch = PREPARE[program](*arrays, variant=variant, **options).plan.launch
    return dict({name: getattr(launch, name) for name, _ in _abi.Launch._fields_}, variant=variant)


def cache_info():
    """Cached plans, and the calls that found their plan cached (hits) or made it (misses)."""
    return dict(_programs.stats, plans=len(_programs._cache))
