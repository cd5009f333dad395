"""The overhead of a call (issue 45, item 7): tecaj.redukcija on a torch tensor of 10^6 float32,
host time included (the call returns a Python float, so each call ends when the result is on the
host), beside torch.sum(x).item() and cupy.sum(x).item() the same way, in the same run; then at
2^28 the kernel times by CUDA events of best, torch.sum and cupy.sum.

    python3 python/bench_overhead.py            (needs torch; cupy where installed)
"""
import statistics
import sys
import time

import numpy as np
import torch

import tecaj

try:
    import cupy
except ImportError:
    cupy = None


def per_call_us(rows, calls=2000, rounds=15):
    """Each row's wall time a call over rounds of `calls` calls, the rows interleaved round by round
    (a noisy moment on the host hits every contender): {name: (median us, interquartile range over
    the median in percent)}."""
    for _, fn in rows:
        fn()
    times = {name: [] for name, _ in rows}
    for _ in range(rounds):
        for name, fn in rows:
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            times[name].append((time.perf_counter() - t) / calls * 1e6)
    out = {}
    for name, ts in times.items():
        q1, med, q3 = np.percentile(ts, [25, 50, 75])
        out[name] = (med, 100 * (q3 - q1) / med)
    return out


def kernel_us(fn, reps=50):
    """The median of reps CUDA-event timings of fn on torch's current stream, in microseconds."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000)
    return statistics.median(times)


class _Handle:
    """A raw stream handle as the CUDA stream protocol presents it (what CuPy's Stream.from_external reads)."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __cuda_stream__(self):
        return (0, self.ptr)


def cupy_stream(ptr):
    """CuPy's view of another framework's stream: Stream.from_external where CuPy has it (ExternalStream,
    its predecessor, is deprecated there)."""
    if hasattr(cupy.cuda.Stream, "from_external"):
        return cupy.cuda.Stream.from_external(_Handle(ptr))
    return cupy.cuda.ExternalStream(ptr)


def main():
    rng = np.random.default_rng(7)
    host = rng.standard_normal(10**6).astype(np.float32)
    x = torch.from_numpy(host).cuda()
    rows = [("tecaj.redukcija best (torch tensor)", lambda: tecaj.redukcija(x)),
            ("torch.sum(x).item()", lambda: torch.sum(x).item())]
    if cupy is not None:
        xc = cupy.asarray(host)
        rows.append(("tecaj.redukcija best (cupy array)", lambda: tecaj.redukcija(xc)))
        rows.append(("cupy.sum(x).item()", lambda: cupy.sum(xc).item()))
    print(f"{torch.cuda.get_device_name()}: a call of 10^6 float32, host time included (result on the host); "
          "median of 15 rounds, the contenders interleaved")
    for name, (us, spread) in per_call_us(rows).items():
        print(f"  {name:38s} {us:8.2f} us/call  (±{spread:.1f}%: interquartile range of 15 rounds of 2000 calls)")

    n = 2**28
    big = torch.rand(n, device="cuda", dtype=torch.float32)
    job = tecaj.PREPARE["redukcija"](big)
    job.start()
    print(f"kernel time at 2^28 float32 (CUDA events, median of 50)")
    print(f"  {'tecaj best':38s} {kernel_us(job.launch):8.1f} us")
    print(f"  {'torch.sum':38s} {kernel_us(lambda: torch.sum(big)):8.1f} us")
    if cupy is not None:
        bc = cupy.from_dlpack(big)
        with cupy_stream(torch.cuda.current_stream().cuda_stream):
            print(f"  {'cupy.sum':38s} {kernel_us(lambda: cupy.sum(bc)):8.1f} us")
    print(tecaj.compare("redukcija", x, variants=["best", "cub"]))


if __name__ == "__main__":
    sys.exit(main())
