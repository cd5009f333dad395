"""GPU tests: every program and variant on CuPy and PyTorch arrays at odd sizes against the float64
references (tecaj._check), out=, a non-default stream, the generic DLPack and CUDA Array Interface
paths, NumPy round trips, and 10,000 calls without a leak. Skip with the reason where there is no
GPU or neither framework."""
import unittest

import numpy as np

import tecaj
from tecaj import _check

from tecaj import _cuda

try:
    _cuda.driver()
    GPU = None
except tecaj.NoGPUError as e:
    GPU = str(e)

FRAMEWORKS = {}
if GPU is None:
    try:
        import cupy
        FRAMEWORKS["cupy"] = (lambda h: cupy.asarray(h), lambda d: cupy.asnumpy(d))
    except ImportError:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            FRAMEWORKS["torch"] = (lambda h: torch.from_numpy(h).cuda(), lambda d: d.cpu().numpy())
    except ImportError:
        pass
SKIP = GPU or (None if FRAMEWORKS else "neither CuPy nor PyTorch with CUDA is installed")
SIZES = (1, 2, 31, 33, 1023, 1025, 65537, 2**20 + 3)
RNG = np.random.default_rng(2045)


def data(n, dtype=np.float32):
    if dtype == np.int32:
        return RNG.integers(-1000, 1000, n).astype(np.int32)
    if dtype == np.uint32:
        return RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    return (RNG.standard_normal(n) * 10).astype(dtype)


def host(x, fw):
    if isinstance(x, tuple):
        return tuple(host(y, fw) for y in x)
    return FRAMEWORKS[fw][1](x) if hasattr(x, "shape") else x


CASES = {  # program: (arguments at size n, options, check's keyword arrays)
    "razlika": lambda n: ((data(n), data(n)), {}),
    "razdalja": lambda n: ((data(n), data(n)), {}),
    "redukcija": lambda n: ((data(n),), {}),
    "prefiks": lambda n: ((data(n, np.int32),), {}),
    "urejanje": lambda n: ((data(n),), {}),
    "konvolucija": lambda n: ((data(n),), {"mask": "box", "k": 5}),
}
NAMES = {"razlika": ("a", "b"), "razdalja": ("a", "b"), "redukcija": ("x",), "prefiks": ("x",), "urejanje": ("keys",),
         "konvolucija": ("img",)}


@unittest.skipIf(SKIP, SKIP)
class EveryVariant(unittest.TestCase):
    def run_checked(self, fw, program, args, opts, variant):
        """One call through fw's arrays against the reference; False where the variant refuses."""
        if next(v for v in tecaj.variants(program) if v["name"] == variant)["managed"]:
            return False  # (unified memory's lesson takes managed arrays: test_numpy_round_trip runs it)
        to_dev = FRAMEWORKS[fw][0]
        dev = [to_dev(a) for a in args]
        kw = {k: (to_dev(v) if isinstance(v, np.ndarray) and k != "mask" else v) for k, v in opts.items()}
        try:
            job = tecaj.PREPARE[program](*dev, variant=variant, **kw)
        except ValueError as e:
            self.assertIn("its domain is", str(e))
            return False
        except RuntimeError as e:
            if "not installed" in str(e):  # (NPP: a library loaded at run time)
                return False
            raise
        job.start()
        job.launch()
        got = host(job.finish(), fw)
        named = dict(zip(NAMES[program], args), **opts)
        ok, err, tol = _check.CHECKS[program](job, got, **named)
        counter = next(v for v in tecaj.variants(program) if v["name"] == variant)["counter_example"]
        self.assertTrue(ok or counter, f"{fw} {program} {variant} n={args[0].size} {opts}: error {err} > tolerance {tol}")
        return True

    def test_every_program_variant_size(self):
        ran = 0
        for fw in FRAMEWORKS:
            for program, case in CASES.items():
                for n in SIZES:
                    args, opts = case(n)
                    for v in tecaj.variants(program):
                        with self.subTest(fw=fw, program=program, variant=v["name"], n=n):
                            ran += self.run_checked(fw, program, args, opts, v["name"])
        self.assertGreaterEqual(ran, 200 * len(FRAMEWORKS))

    def test_options(self):
        ran = 0
        n = 65537
        cases = [("redukcija", (data(n, t),), {"op": op}) for op in ("sum", "min", "max", "mean", "norm", "argmin", "argmax")
                 for t in (np.float32, np.float64, np.int32)]
        cases += [("redukcija", (data(n),), {"op": "dot", "y": data(n)})]
        cases += [("prefiks", (data(n, t),), {"op": op, "exclusive": ex}) for t in (np.float32, np.int32)
                  for op in ("sum", "min", "max") for ex in (False, True)]
        cases += [("prefiks", (data(n),), {"flags": (RNG.random(n) < 0.01).astype(np.uint8)})]
        cases += [("urejanje", (data(33 * 7, t).reshape(7, 33),), {"desc": d}) for t in (np.float32, np.int32, np.uint32)
                  for d in (False, True)]
        cases += [("urejanje", (data(1025),), {"values": data(1025, np.uint32)})]
        cases += [("konvolucija", (data(257 * 131).reshape(131, 257),), {"mask": m, "border": b})
                  for m in ("box", "shift", "sobel-x", "sobel", "gauss") for b in ("zero", "replicate")]
        cases += [("konvolucija", ((RNG.random(100 * 77) * 255).astype(np.uint8).reshape(77, 100),), {"mask": "box"})]
        for fw in FRAMEWORKS:
            for program, args, opts in cases:
                for v in ("best",) + tuple(x["name"] for x in tecaj.variants(program) if x["name"] != "best"):
                    with self.subTest(fw=fw, program=program, variant=v, opts=list(opts)):
                        ran += self.run_checked(fw, program, args, opts, v)
        self.assertGreaterEqual(ran, 150 * len(FRAMEWORKS))

    def test_special_values(self):
        x = data(1025)
        x[[3, 500]] = [np.nan, np.inf]
        x[7], x[8] = -0.0, 0.0
        for fw in FRAMEWORKS:
            for op in ("sum", "min", "max", "argmin", "argmax"):
                self.assertTrue(self.run_checked(fw, "redukcija", (x,), {"op": op}, "best"))
            self.assertTrue(self.run_checked(fw, "urejanje", (x,), {}, "best"))
            self.assertTrue(self.run_checked(fw, "prefiks", (x,), {"op": "max"}, "best"))


@unittest.skipIf(SKIP, SKIP)
class Arrays(unittest.TestCase):
    def test_out_and_frameworks(self):
        for fw, (to_dev, to_host) in FRAMEWORKS.items():
            a, b = data(1025), data(1025)
            out = to_dev(np.full(1025, np.nan, np.float32))
            got = tecaj.razlika(to_dev(a), to_dev(b), out=out)
            self.assertIs(got, out)
            np.testing.assert_array_equal(to_host(out), a - b)
            self.assertEqual(type(tecaj.razlika(to_dev(a), to_dev(b))), type(out))
            keys = to_dev(data(1025))
            tecaj.urejanje(keys, out=keys)  # in place
            self.assertTrue(np.all(np.diff(to_host(keys)) >= 0))
            with self.assertRaisesRegex(ValueError, "out: overlaps x"):  # (prefiks.h: out may not alias in)
                tecaj.prefiks(keys, out=keys)

    def test_non_default_stream(self):
        n = 2**20 + 3
        a = data(n)
        if "torch" in FRAMEWORKS:
            import torch
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                x = torch.from_numpy(a).cuda(non_blocking=False)
                y = torch.empty_like(x)
                for _ in range(3):
                    tecaj.prefiks(x * 2, out=y)  # x * 2 queued on s: tecaj must run after it, on s
                self.assertAlmostEqual(tecaj.redukcija(x), float(x.double().sum()), delta=1e-3 * np.abs(a).sum())
            s.synchronize()
            ok, err, tol = _check.prefiks(tecaj.PREPARE["prefiks"](x, out=y), y.cpu().numpy(), a * 2)
            self.assertTrue(ok, (err, tol))
        if "cupy" in FRAMEWORKS:
            import cupy
            with cupy.cuda.Stream(non_blocking=True) as s:
                x = cupy.asarray(a) * 3
                y = tecaj.prefiks(x)
            s.synchronize()
            ok, err, tol = _check.prefiks(tecaj.PREPARE["prefiks"](x), cupy.asnumpy(y), a * 3)
            self.assertTrue(ok, (err, tol))

    def test_generic_protocols(self):
        fw = next(iter(FRAMEWORKS))
        to_dev, to_host = FRAMEWORKS[fw]
        a = data(33)
        x = to_dev(a)

        class OnlyDLPack:
            def __dlpack__(self, stream=None):
                return x.__dlpack__(stream=stream)

            def __dlpack_device__(self):
                return x.__dlpack_device__()

        class OnlyCAI:
            __cuda_array_interface__ = property(lambda self: x.__cuda_array_interface__)

        for wrapped in (OnlyDLPack(), OnlyCAI()):
            self.assertAlmostEqual(tecaj.redukcija(wrapped), float(a.astype(np.float64).sum()), delta=1e-3)
            with self.assertRaisesRegex(TypeError, "pass out="):
                tecaj.razlika(wrapped, wrapped)
            out = to_dev(np.zeros(33, np.float32))
            tecaj.razlika(wrapped, wrapped, out=out)
            np.testing.assert_array_equal(to_host(out), np.zeros(33, np.float32))
        want = float((a.astype(np.float64) ** 2).sum())  # (a DLPack operand beside the framework's, either side)
        for first, second in ((x, OnlyDLPack()), (OnlyDLPack(), x)):
            self.assertAlmostEqual(tecaj.redukcija(first, op="dot", y=second), want, delta=1e-5 * want)

    def test_errors_on_device(self):
        fw = next(iter(FRAMEWORKS))
        to_dev = FRAMEWORKS[fw][0]
        m = to_dev(data(64).reshape(8, 8))
        with self.assertRaisesRegex(ValueError, "x: a strided"):
            tecaj.redukcija(m.T)
        with self.assertRaisesRegex(TypeError, "x: a NumPy array beside"):
            tecaj.redukcija(data(4), op="dot", y=to_dev(data(4)))
        with self.assertRaisesRegex(TypeError, "out: float64 elements"):
            tecaj.razlika(to_dev(data(4)), to_dev(data(4)), out=to_dev(data(4, np.float64)))
        with self.assertRaisesRegex(ValueError, "e4 .*|unified memory"):
            tecaj.razlika(to_dev(data(4)), to_dev(data(4)), variant="e4")

    def test_numpy_round_trip(self):
        a, b = data(65537), data(65537)
        np.testing.assert_array_equal(tecaj.razlika(a, b), a - b)
        np.testing.assert_array_equal(tecaj.razlika(a, b, variant="e4"), a - b)  # staged in managed memory
        self.assertEqual(tecaj.redukcija(data(1025, np.int32) * 0 + 3), 3 * 1025)

    def test_mapped_results_are_the_copied_ones(self):
        """A public call (best: the kernel writes to mapped host memory, Python decodes) gives the bits
        a prepared Job gives (device memory, a copy, the library's finish), and changes with the input
        (no stale bytes are read)."""
        import struct
        bits = lambda v: tuple(bits(x) for x in v) if isinstance(v, tuple) else struct.pack("<d", v)
        for fw, (to_dev, _) in FRAMEWORKS.items():
            for t in (np.float32, np.float64, np.int32):
                for op in ("sum", "min", "max", "mean", "norm", "dot", "argmin", "argmax"):
                    a = data(65537, t)
                    x = to_dev(a)
                    y = x if op == "dot" else None
                    got = tecaj.redukcija(x, op=op, y=y)
                    job = tecaj.PREPARE["redukcija"](x, op=op, y=y)
                    job.start()
                    job.launch()
                    self.assertEqual(bits(got), bits(job.finish()), (fw, t, op))
                    if op in ("sum", "mean", "norm", "dot"):  # (x + 1 changes each of these)
                        x1 = to_dev(a + t(1))
                        self.assertNotEqual(bits(tecaj.redukcija(x1, op=op, y=x1 if y is not None else None)), bits(got))
            a, b = to_dev(data(1025)), to_dev(data(1025))
            job = tecaj.PREPARE["razdalja"](a, b)
            job.start()
            job.launch()
            self.assertEqual(bits(tecaj.razdalja(a, b)), bits(job.finish()), fw)

    def test_no_leak_over_10000_calls(self):
        fw = next(iter(FRAMEWORKS))
        x = FRAMEWORKS[fw][0](data(10**6))
        tecaj.clear_cache()
        for _ in range(100):
            tecaj.redukcija(x)
        free0 = _cuda.mem_info()[0]
        for _ in range(10000):
            tecaj.redukcija(x)
        free1 = _cuda.mem_info()[0]
        self.assertLessEqual(free0 - free1, 2 << 20, "device memory fell over 10,000 calls")
        self.assertEqual(tecaj.cache_info()["plans"], 1)

    def test_compare(self):
        fw = next(iter(FRAMEWORKS))
        rows = tecaj.compare("redukcija", FRAMEWORKS[fw][0](data(10**6)))
        print(rows)
        names = [r["variant"] for r in rows]
        self.assertEqual(names, [v["name"] for v in tecaj.variants("redukcija")])
        best = next(r for r in rows if r["variant"] == "best")
        self.assertTrue(best["ok"] and best["runs"] >= 10 and best["kernel_us"] > 0)
        self.assertIn("<table>", rows._repr_html_())


if __name__ == "__main__":
    unittest.main()
