"""prefiks best's plan, swept where the plan is a runtime field: how far ahead a tile prefetches
into L2 (plan.ahead, in tiles; the default from tc_device's memory system) and the tile (plan.rows:
8 or 16 rows of 128 a warp), at 2^28 float32 sums and segmented int32 sums, each beside the
device-to-device copy in the same run. Every plan's output must be the default plan's, bit for
bit. Needs torch and libtecaj.so:
    TECAJ_LIBRARY=.../libtecaj.so PYTHONPATH=python python3 bench/plan_sweep.py
"""
import ctypes
import statistics
import sys

import torch

from tecaj import _abi

lib = _abi.lib


def timed(f, reps=15):
    """The median and spread (max - min, % of the median) of reps runs of f, in us, by CUDA events."""
    f()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(50000)  # (the events time the work, not the host's launch)
        a.record()
        f()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000)
    m = statistics.median(times)
    return m, 100 * (max(times) - min(times)) / m


def main():
    dev = _abi.Device()
    assert lib.tc_device_describe(ctypes.byref(dev)) == 0
    n = 1 << 28
    x = torch.randint(-100, 100, (n,), dtype=torch.int32, device="cuda")
    xf = torch.rand(n, device="cuda")
    flags = (torch.rand(n, device="cuda") < 1e-3).to(torch.uint8)
    out, ref = torch.empty_like(x), torch.empty_like(x)
    copy_us, copy_spread = timed(lambda: out.copy_(x))
    bytes_plain = 8.0 * n
    print(f"{torch.cuda.get_device_name()}: copy of 2 x {4 * n >> 20} MiB {copy_us:.1f} us "
          f"({bytes_plain / copy_us / 1e3:.0f} GB/s, spread {copy_spread:.1f}%)")
    best = lib.tc_variant_find(lib.tc_prefiks_program(), b"best")
    scratch = torch.zeros(64 << 20, dtype=torch.uint8, device="cuda")
    for name, segmented, data, typ in (("f32 sum", 0, xf, "float32"), ("i32 segmented sum", 1, x, "int32")):
        req = _abi.PrefiksRequest(base=_abi.Request(variant=best, n=n), op=_abi.OPS["sum"], type=_abi.DTYPES[typ],
                                  exclusive=0, segmented=segmented)
        plan = _abi.PrefiksPlan()
        assert lib.tc_prefiks_make_plan(ctypes.byref(req), ctypes.byref(dev), ctypes.byref(plan)) == 0
        default_rows, default_ahead = plan.rows, plan.ahead
        f = flags.data_ptr() if segmented else None
        o, r = out.view(data.dtype), ref.view(data.dtype)

        def run(p, dst):
            s = lib.tc_prefiks_run(ctypes.byref(p), data.data_ptr(), f, dst.data_ptr(), scratch.data_ptr(), None)
            assert s == 0, _abi.status_text(s)

        run(plan, r)
        torch.cuda.synchronize()
        moved = bytes_plain + (n if segmented else 0)
        print(f"{name}: default rows {default_rows}, ahead {default_ahead} tiles")
        sweep = sorted({0, default_ahead // 2, default_ahead, 3 * default_ahead // 2, 2 * default_ahead, 66, 132, 264})
        rows_options = (default_rows,) if segmented else (8, 16)
        for rows in rows_options:
            tile = 1024 * rows
            for ahead in sweep:
                p = _abi.PrefiksPlan.from_buffer_copy(plan)
                p.rows, p.ahead = rows, ahead
                o.fill_(-1)
                us, spread = timed(lambda: run(p, o))
                same = torch.equal(o.view(torch.int32), r.view(torch.int32))
                print(f"  rows {rows:2d} ahead {ahead:4d} tiles ({ahead * tile * 4 / 2**20:6.1f} MiB): {us:8.1f} us "
                      f"spread {spread:4.1f}%  {100 * moved / us / 1e3 / (bytes_plain / copy_us / 1e3):5.1f}% of copy"
                      f"{'' if same else '  DIFFERS'}")
                if rows == 8:
                    break  # (tiles of 8192 have no prefetch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
