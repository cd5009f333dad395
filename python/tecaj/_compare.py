"""compare(): every variant timed with CUDA events and checked against a float64 reference, by the
commands' rule (internal/cli/stop.go and timing.go): one warm-up run, then each run queued behind
the timing gate, until at least 10 runs and 50 ms with a spread (interquartile range over the
median) of at most 1%, or 1 s, or 5000 runs; the median and its spread reported."""
import ctypes
import html
import inspect
import time

import numpy as np

from . import _abi, _arrays, _check, _cuda
from ._api import PREPARE
from ._programs import PROGRAMS

MIN_RUNS, MIN_SECONDS, SPREAD_PCT, MAX_SECONDS, MAX_RUNS = 10, 0.05, 1.0, 1.0, 5000
GATE_MIN_US, GATE_MAX_US, GATE_TRIES = 50, 100_000, 3
ARRAYS = ("a", "b", "x", "y", "flags", "keys", "values", "img")  # the parameters that are arrays


def median(xs):
    return float(np.median(xs)) if len(xs) else float("nan")


def spread(xs):
    """The interquartile range over the median, in percent (NumPy's linear quartiles, as the commands')."""
    if len(xs) < 2:
        return float("nan")
    q1, q3 = np.percentile(xs, [25, 75])
    return float(100 * (q3 - q1) / np.median(xs))


def enough(times, started):
    """The stop rule: at most MAX_RUNS or MAX_SECONDS; at least MIN_RUNS and MIN_SECONDS; then a spread within SPREAD_PCT."""
    n, elapsed = len(times), time.perf_counter() - started
    if n >= MAX_RUNS or (elapsed >= MAX_SECONDS and n >= 1):
        return True
    if n < MIN_RUNS or elapsed < MIN_SECONDS:
        return False
    return spread(times) <= SPREAD_PCT


class Timer:
    """Start and stop events on one stream, and the timing gate's two words (pinned, mapped)."""

    def __init__(self, stream):
        self.stream, self.start, self.stop = stream, _cuda.Event(), _cuda.Event()
        self.gate = _cuda.Pinned(8)
        self.words = (ctypes.c_uint32 * 2).from_address(self.gate.ptr)

    def between(self, launch, queued=lambda: None):
        self.start.record(self.stream)
        launch()
        self.stop.record(self.stream)
        queued()
        self.stop.synchronize()
        return self.stop.ms_since(self.start)

    def gated(self, launch):
        """(ms, late): the run behind the gate, which opens once the stop event is queued."""
        self.words[0] = self.words[1] = 0
        status = _abi.lib.tc_stream_gate(self.gate.device_ptr, GATE_MIN_US, GATE_MAX_US, self.stream)
        if status != _abi.OK:
            raise RuntimeError(f"tecaj: queueing the timing gate: {_abi.status_text(status)}")
        try:
            ms = self.between(launch, lambda: self.words.__setitem__(0, 1))
        finally:
            self.words[0] = 1
        return ms, self.words[1] != 0

    def times(self, launch):
        """Every timed run's ms after one warm-up, and a note where the gate could not hold the runs."""
        self.between(launch)
        times, started, note = [], time.perf_counter(), ""
        while not enough(times, started):
            for _ in range(GATE_TRIES):
                ms, late = self.gated(launch)
                if not late:
                    times.append(ms)
                    break
            else:  # a run that waits for the device inside it: timed without the gate, and said so
                note = "timed without the gate: the host's launches are in the time"
                times.append(self.between(launch))
        return times, note


def to_numpy(x, name="array"):
    """A host copy of a device array (NumPy arrays as they are)."""
    if isinstance(x, np.ndarray):
        return x
    op = _arrays.describe(name, x, None)
    _cuda.use(op.device)
    host = np.empty(op.shape, op.dtype)
    stream = _arrays.call_stream([op])
    _cuda.to_host(host.ctypes.data, op.ptr, op.nbytes, stream)
    _cuda.synchronize(stream, "copying to the host")
    return host


class Row(dict):
    pass


class Rows(list):
    """compare()'s rows: one dict a variant (variant, kernel_us, spread_pct, gb_per_s, result, check, ...);
    prints as a table, renders as HTML in Jupyter."""
    columns = (("variant", "variant"), ("kernel_us", "kernel us"), ("spread_pct", "±%"), ("gb_per_s", "GB/s"),
               ("result", "result"), ("check", "check"))
    title, notes = "", ()

    def cells(self):
        def text(key, v):
            if v is None or (isinstance(v, float) and np.isnan(v)):
                return ""
            if key == "kernel_us":
                return f"{v:.2f}" if v < 1000 else f"{v:.0f}"
            if key in ("spread_pct", "gb_per_s"):
                return f"{v:.1f}"
            return f"{v:.8g}" if isinstance(v, float) else str(v)
        return [[text(k, r.get(k)) for k, _ in self.columns] for r in self]

    def __str__(self):
        cells = [[h for _, h in self.columns]] + self.cells()
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.columns))]
        lines = [self.title] + ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
        return "\n".join(lines + list(self.notes))

    __repr__ = __str__

    def _repr_html_(self):
        head = "".join(f"<th>{html.escape(h)}</th>" for _, h in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in self.cells())
        notes = "".join(f"<p>{html.escape(n)}</p>" for n in self.notes)
        return f"<p>{html.escape(self.title)}</p><table><tr>{head}</tr>{body}</table>{notes}"


def _result_text(r):
    if isinstance(r, tuple) and len(r) == 2 and not hasattr(r[0], "shape"):
        return f"{r[0]:.8g} at {r[1]}"
    if isinstance(r, (int, float)):
        return r
    return ""


def compare(program, *arrays, variants="all", **options):
    """Runs each variant of program on the arrays (as program(*arrays, **options) takes them), checks
    it against a float64 reference with its derived tolerance, and times it with CUDA events on the
    caller's stream. Returns Rows. variants: "all" or a list of names; those whose domain does not
    cover the request get a row saying so."""
    if program not in PREPARE:
        raise ValueError(f"program={program!r}: one of {', '.join(PREPARE)}")
    if "out" in options or "variant" in options:
        raise ValueError("compare makes its own outputs and runs every variant: leave out= and variant= out")
    prepare = PREPARE[program]
    names = PROGRAMS[program].names if variants == "all" else list(variants)
    bound = inspect.signature(prepare).bind(*arrays, **options)
    bound.apply_defaults()
    host = {k: to_numpy(v, k) if k in ARRAYS and v is not None else v for k, v in bound.arguments.items()}
    rows, device = Rows(), None
    for v in names:
        table = PROGRAMS[program].variants[PROGRAMS[program].index(v)]
        try:
            job = prepare(*arrays, **dict(options, variant=v))
        except (ValueError, RuntimeError) as e:
            rows.append(Row(variant=v, check=str(e).split(": ", 1)[-1]))
            continue
        stream = job.start()
        device = job.call.device or 0
        job.launch()
        timer = Timer(stream)
        times, note = timer.times(job.launch)
        result = job.finish()
        got = tuple(to_numpy(r) for r in result) if isinstance(result, tuple) and hasattr(result[0], "shape") else (
            result if isinstance(result, (int, float, tuple)) else to_numpy(result))
        ok, err, tol = _check.CHECKS[program](job, got, **{k: val for k, val in host.items() if k != "variant"})
        if ok:
            check = f"ok (error {err:.3g} <= {tol:.3g})" if tol else "ok (exact)"
        elif table.flags & _abi.COUNTER_EXAMPLE:
            check = "WRONG (the lecture's counter-example: expected)"
        else:
            check = f"FAIL (error {err:.3g} > {tol:.3g})" if tol else "FAIL (not exact)"
        ms = median(times)
        launch = job.plan.launch
        rows.append(Row(variant=v, kernel_us=1000 * ms, spread_pct=spread(times), runs=len(times),
                        gb_per_s=launch.bytes_moved / (ms * 1e-3) / 1e9 if launch.bytes_moved else float("nan"),
                        result=_result_text(result), check=check, ok=ok, threads=launch.threads,
                        blocks=launch.blocks, note=note))
    first = next((a for a in arrays if a is not None), None)
    n = int(np.prod(np.shape(host.get("a", host.get("x", host.get("keys", host.get("img")))))))
    where = _cuda.name(device) if device is not None else "no run"
    rows.title = f"{program}  n={n}  {where}"
    rows.notes = ("runs: each row's until their spread is at most 1% (at least 10 runs and 50 ms, at most 1 s or "
                  "5000 runs); kernel us is their median, ±% their interquartile range over it",) + tuple(
        f"{r['variant']}: {r['note']}" for r in rows if r.get("note"))
    return rows
