"""Host-only tests: the variant tables, planning, domains, dtype mapping, errors and caching, through
the real libtecaj.so, with no GPU (plans are made for TECAJ_EMULATE's profile or, without one, the
profile the commands use without a GPU). unittest style, so `python3 -m unittest` runs them as
pytest does."""
import ctypes
import os
import threading
import time
import unittest

import numpy as np

import fake_gpu
import tecaj
from tecaj import _abi, _programs

RNG = np.random.default_rng(45)
SIZES = (1, 2, 31, 33, 1023, 1025, 65537, 2**20 + 3)


def vec(n, dtype=np.float32):
    return (RNG.standard_normal(n) * 100).astype(dtype)


def in_threads(fn, count):
    """[fn(0), ..., fn(count - 1)], each called on a thread of its own, started together; a thread's
    exception is raised here."""
    results, errors = [None] * count, []
    start = threading.Barrier(count)

    def body(i):
        try:
            start.wait()
            results[i] = fn(i)
        except BaseException as e:  # (re-raised on the test's thread)
            errors.append(e)
    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


class Vocabulary(unittest.TestCase):
    def test_programs_and_units(self):
        self.assertEqual(sorted(tecaj.programs()), sorted(["razlika", "razdalja", "redukcija", "prefiks", "urejanje", "konvolucija"]))
        units = {p: _programs.PROGRAMS[p].unit for p in tecaj.programs()}
        self.assertEqual(units["urejanje"], "keys")
        self.assertEqual(units["konvolucija"], "pixels")

    def test_every_table_row(self):
        rows = 0
        for p in tecaj.programs():
            vs = tecaj.variants(p)
            self.assertIn("best", [v["name"] for v in vs], p)
            for v in vs:
                rows += 1
                self.assertTrue(v["summary"] and v["domain"] and v["bytes"], (p, v["name"]))
                self.assertEqual(v["library"], not v["kernels"], (p, v["name"]))
        self.assertGreaterEqual(rows, 40)

    def test_dtype_and_op_codes(self):
        # the one vocabulary: tecaj.h's values, read back through a plan that echoes them
        for name, code in _abi.OPS.items():
            pl = tecaj.plan("redukcija", vec(100, np.float32), op=name, **({"y": vec(100)} if name == "dot" else {}))
            self.assertEqual(pl["variant"], "best")
            e = next(iter(reversed(_programs._cache.values())))
            self.assertEqual(e.plan.op, code, name)
        for dtype in ("float32", "float64", "int32"):
            tecaj.plan("redukcija", vec(10, dtype))
            e = next(iter(reversed(_programs._cache.values())))
            self.assertEqual(_abi.DTYPE_NAMES[e.plan.type], dtype)

    def test_unknown_program(self):
        with self.assertRaisesRegex(ValueError, "program='sum': one of razlika"):
            tecaj.variants("sum")


class Planning(unittest.TestCase):
    def test_best_covers_every_size(self):
        cases = 0
        for n in SIZES:
            for p, args in (("razlika", (vec(n), vec(n))), ("razdalja", (vec(n), vec(n))), ("redukcija", (vec(n),)),
                            ("prefiks", (vec(n),)), ("urejanje", (vec(n),)), ("konvolucija", (vec(n),))):
                pl = tecaj.plan(p, *args)
                self.assertEqual(pl["n"], n, p)
                self.assertGreaterEqual(pl["out_count"], 1, p)
                cases += 1
        self.assertGreaterEqual(cases, 48)

    def test_every_variant_plans_or_refuses_by_name(self):
        # each variant at each size: planned, or refused naming its domain
        planned = refused = 0
        for p in ("razlika", "razdalja", "redukcija", "prefiks", "urejanje"):
            for v in tecaj.variants(p):
                for n in (1, 33, 1025, 65537):
                    try:
                        pl = tecaj.plan(p, *([vec(n)] * (2 if p in ("razlika", "razdalja") else 1)), variant=v["name"])
                        self.assertGreater(pl["threads"] + (v["library"] or 0), 0, (p, v["name"], n))
                        planned += 1
                    except tecaj.NoGPUError:
                        self.assertTrue(v["library"], (p, v["name"]))  # (CUB's plan asks the GPU)
                    except ValueError as e:
                        self.assertIn(v["domain"], str(e))
                        refused += 1
        self.assertGreaterEqual(planned, 100)
        self.assertGreaterEqual(refused, 5)

    def test_batches_and_images(self):
        pl = tecaj.plan("urejanje", vec(7 * 33).reshape(7, 33))
        self.assertEqual(pl["items"], 7 * 33)
        pl = tecaj.plan("konvolucija", vec(31 * 33).reshape(31, 33), mask="gauss", k=5)
        self.assertEqual(pl["out_count"], 31 * 33)

    def test_emulated_profiles(self):
        for name in _programs.profiles():
            os.environ["TECAJ_EMULATE"] = name
            tecaj.clear_cache()  # (the environment is read when the first plan is made)
            try:
                self.assertEqual(tecaj.device()["profile"], name)
                tecaj.plan("redukcija", vec(2**20 + 3))
            finally:
                del os.environ["TECAJ_EMULATE"]
                tecaj.clear_cache()
        os.environ["TECAJ_EMULATE"] = "no-such-gpu"
        tecaj.clear_cache()
        try:
            with self.assertRaisesRegex(ValueError, "unknown GPU profile 'no-such-gpu' \\(profiles: t4"):
                tecaj.device()
        finally:
            del os.environ["TECAJ_EMULATE"]
            tecaj.clear_cache()

    def test_the_environment_is_read_at_the_first_plan(self):
        """TECAJ_EMULATE is read once (a call reads no environment); clear_cache() reads it again."""
        x = vec(2**20 + 3)
        tecaj.clear_cache()
        os.environ["TECAJ_EMULATE"] = "t4"
        try:
            t4 = tecaj.plan("redukcija", x)["blocks"]
            os.environ["TECAJ_EMULATE"] = "a100"
            self.assertEqual(tecaj.device()["profile"], "t4")
            self.assertEqual(tecaj.plan("redukcija", x)["blocks"], t4)
            tecaj.clear_cache()
            self.assertEqual(tecaj.device()["profile"], "a100")
            self.assertNotEqual(tecaj.plan("redukcija", x)["blocks"], t4)
        finally:
            del os.environ["TECAJ_EMULATE"]
            tecaj.clear_cache()


class Domains(unittest.TestCase):
    def test_refusal_names_domain_and_cover(self):
        for p, variant, args, opts, covers in (
                ("redukcija", "b1", (vec(5000),), {}, "larger n: bm, r0..r7, best"),
                ("redukcija", "r3", (vec(100),), {"op": "argmin"}, "argmin/argmax: best, cub"),
                ("razlika", "2", (vec(2000), vec(2000)), {}, "larger n: 3, 4 or best"),
                ("prefiks", "warp", (vec(33),), {}, "larger n: block, grid, co"),
                ("prefiks", "seg", (vec(33),), {}, "segmented only"),
                ("razdalja", "la2", (vec(2**22 + 1), vec(2**22 + 1)), {}, "larger n: la1 or best")):
            with self.assertRaises(ValueError, msg=(p, variant)) as cm:
                tecaj.plan(p, *args, variant=variant, **opts)
            self.assertIn(f"variant {variant} does not cover", str(cm.exception))
            self.assertIn(covers, str(cm.exception))

    def test_domain_before_gpu(self):
        # a refusal is usage: it comes before any GPU is needed
        with self.assertRaisesRegex(ValueError, "its domain is"):
            tecaj.redukcija(vec(5000), variant="b1")

    def test_threads_and_blocks(self):
        with self.assertRaisesRegex(ValueError, "threads=100: 0 .* multiple of 32"):
            tecaj.plan("redukcija", vec(100), threads=100)
        with self.assertRaisesRegex(ValueError, "threads=96: variant r0 takes a power of two"):
            tecaj.plan("redukcija", vec(100), variant="r0", threads=96)
        with self.assertRaisesRegex(ValueError, "blocks=4: variant best sizes its own grid"):
            tecaj.plan("redukcija", vec(100), blocks=4)
        pl = tecaj.plan("redukcija", vec(100000), variant="r0", threads=128)
        self.assertEqual(pl["threads"], 128)
        self.assertGreaterEqual(pl["blocks"] * 128 * 2, 100000 // 64)


class Errors(unittest.TestCase):
    def test_dtypes(self):
        with self.assertRaisesRegex(TypeError, "a: float64 elements; razlika takes float32"):
            tecaj.plan("razlika", vec(10, np.float64), vec(10, np.float64))
        with self.assertRaisesRegex(TypeError, "x: int64 elements; redukcija takes float32 or float64 or int32"):
            tecaj.plan("redukcija", vec(10, np.int64))
        with self.assertRaisesRegex(TypeError, "y: float64 elements; redukcija takes float32"):
            tecaj.plan("redukcija", vec(10), op="dot", y=vec(10, np.float64))
        with self.assertRaisesRegex(TypeError, "flags: float32 elements; prefiks takes uint8 or bool"):
            tecaj.plan("prefiks", vec(10), flags=vec(10))
        with self.assertRaisesRegex(TypeError, "keys: float64 elements; urejanje takes float32 or int32 or uint32"):
            tecaj.plan("urejanje", vec(10, np.float64))

    def test_shapes_and_arguments(self):
        with self.assertRaisesRegex(ValueError, r"b: shape \(11,\), a's is \(10,\)"):
            tecaj.plan("razlika", vec(10), vec(11))
        with self.assertRaisesRegex(ValueError, "x: an empty array"):
            tecaj.plan("redukcija", vec(0))
        with self.assertRaisesRegex(ValueError, "op='prod': redukcija takes sum, min"):
            tecaj.plan("redukcija", vec(10), op="prod")
        with self.assertRaisesRegex(ValueError, "y: the second vector of op='dot'"):
            tecaj.plan("redukcija", vec(10), op="dot")
        with self.assertRaisesRegex(ValueError, "y: only op='dot' takes a second vector"):
            tecaj.plan("redukcija", vec(10), y=vec(10))
        with self.assertRaisesRegex(ValueError, "variant='r9': redukcija has the variants race, atomic"):
            tecaj.plan("redukcija", vec(10), variant="r9")
        with self.assertRaisesRegex(ValueError, "keys: shape \\(2, 3, 4\\)"):
            tecaj.plan("urejanje", vec(24).reshape(2, 3, 4))
        with self.assertRaisesRegex(ValueError, "k=4: an odd size from 1 to 31"):
            tecaj.plan("konvolucija", vec(100).reshape(10, 10), k=4)
        with self.assertRaisesRegex(ValueError, "mask='sobel': a 2-D mask"):
            tecaj.plan("konvolucija", vec(100), mask="sobel")
        with self.assertRaisesRegex(ValueError, "border='wrap': zero or replicate"):
            tecaj.plan("konvolucija", vec(100), border="wrap")
        with self.assertRaisesRegex(ValueError, r"mask: weights of shape \(2, 3\)"):
            tecaj.plan("konvolucija", vec(100).reshape(10, 10), mask=np.ones((2, 3)))

    def test_other_objects(self):
        with self.assertRaisesRegex(TypeError, "a: a builtins.list; tecaj takes a CuPy or PyTorch CUDA array"):
            tecaj.plan("razlika", [1.0, 2.0], vec(2))

    def test_strided_refused(self):
        class Strided:  # every other float32 of a device array, through the CUDA Array Interface
            __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0, False), "strides": (8,), "version": 3}
        with self.assertRaisesRegex(ValueError, "x: a strided .non-contiguous. array"):
            tecaj.plan("redukcija", Strided())

    def test_byte_order_and_byte_strides(self):
        """Elements in the other byte order would be read as garbage: refused (NumPy arrays, out= and
        the CUDA Array Interface). A byte stride that is no multiple of the element's size is strided."""
        with self.assertRaisesRegex(TypeError, r"x: float32 elements in non-native byte order \(>f4\); .*astype"):
            tecaj.plan("redukcija", vec(10).astype(">f4"))
        with self.assertRaisesRegex(TypeError, "out: int32 elements in non-native byte order"):
            tecaj.prefiks(vec(10, np.int32), out=np.zeros(10, ">i4"))

        class Interface:  # a device array through the CUDA Array Interface
            def __init__(self, shape, typestr="<f4", strides=None):
                self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0, False),
                                                 "strides": strides, "version": 3}
        with self.assertRaisesRegex(TypeError, "x: float32 elements in non-native byte order"):
            tecaj.plan("redukcija", Interface((4,), ">f4"))
        for shape, strides in (((4,), (6,)), ((2, 3), (13, 4)), ((2, 3), (12, 5))):
            with self.assertRaisesRegex(ValueError, "x: a strided .non-contiguous. array", msg=strides):
                tecaj.plan("redukcija", Interface(shape, strides=strides))
        self.assertEqual(tecaj.plan("redukcija", Interface((2, 1, 3), strides=(12, 7, 4)))["n"], 6)

    def test_mask_weights_match_the_commands(self):
        from tecaj._api import mask_weights
        w, mag = mask_weights("gauss", 5, 2)
        self.assertAlmostEqual(float(w.sum()), 1.0, places=6)
        self.assertEqual(w.shape, (5, 5))
        self.assertTrue(mask_weights("sobel", 3, 2)[1])
        self.assertEqual(mask_weights("box", 7, 1)[0].shape, (1, 7))


class Caching(unittest.TestCase):
    def test_repeated_request_hits(self):
        tecaj.clear_cache()
        x = vec(12345)
        for _ in range(5):
            tecaj.plan("redukcija", x, op="max")
        self.assertEqual(tecaj.cache_info(), {"hits": 4, "misses": 1, "plans": 1})
        tecaj.plan("redukcija", x, op="min")
        tecaj.plan("redukcija", vec(12346), op="max")
        self.assertEqual(tecaj.cache_info()["misses"], 3)

    def test_bounded(self):
        tecaj.clear_cache()
        for n in range(1, _programs.CACHE_PLANS + 20):
            tecaj.plan("redukcija", vec(n))
        self.assertEqual(tecaj.cache_info()["plans"], _programs.CACHE_PLANS)

    def test_masks_are_part_of_the_request(self):
        tecaj.clear_cache()
        img = vec(400).reshape(20, 20)
        tecaj.plan("konvolucija", img, mask=np.ones((3, 3)))
        tecaj.plan("konvolucija", img, mask=2 * np.ones((3, 3)))
        self.assertEqual(tecaj.cache_info()["misses"], 2)


class CallCost(unittest.TestCase):
    """What a repeated call costs in driver and library calls, on the stand-in GPU (fake_gpu): a
    cached best redukcija launches (its kernel writes the result into mapped pinned host memory)
    and waits, and nothing more; a variant that keeps its result in device memory adds one copy."""
    CACHED = {"tc_redukcija_run": 1, "cuStreamSynchronize": 1}
    COPIED = {"tc_redukcija_run": 1, "cuMemcpyDtoHAsync_v2": 1, "cuStreamSynchronize": 1}

    def test_a_cached_call(self):
        for array in (fake_gpu.TorchTensor, fake_gpu.CupyArray):
            with fake_gpu.gpu() as calls:
                x = array(10**6)
                self.assertEqual(tecaj.redukcija(x), fake_gpu.RESULT)
                # scratch on the device and the result's bytes in mapped pinned memory, once
                self.assertEqual((calls["cuMemAlloc_v2"], calls["cuMemHostAlloc"]), (1, 1), array)
                calls.clear()
                self.assertEqual(tecaj.redukcija(x), fake_gpu.RESULT)
                self.assertEqual(dict(calls), self.CACHED, array)
                for name in ("tc_redukcija_run", "cuStreamSynchronize"):
                    self.assertEqual(calls.last[name][-1], fake_gpu.STREAM, (array, name))  # the caller's stream
                self.assertEqual(tecaj.cache_info(), {"hits": 1, "misses": 1, "plans": 1})

    def test_result_paths(self):
        """best's kernels write to mapped host memory (the run's out is a pinned buffer), the others'
        to device memory, copied back; either way the value decoded is the one the kernel wrote."""
        cases = [("redukcija", "best", {}, fake_gpu.RESULT, self.CACHED),
                 ("redukcija", "r3", {}, fake_gpu.RESULT, self.COPIED),
                 ("redukcija", "atomic", {}, fake_gpu.RESULT, self.COPIED),
                 ("redukcija", "cg", {"op": "dot", "y": fake_gpu.TorchTensor(1025)}, fake_gpu.RESULT, self.COPIED),
                 ("redukcija", "bm", {"op": "mean"}, fake_gpu.RESULT / 1025, self.COPIED),
                 ("redukcija", "best", {"op": "argmin"}, (fake_gpu.RESULT, fake_gpu.INDEX), self.CACHED),
                 ("redukcija", "best", {"op": "dot", "y": fake_gpu.TorchTensor(1025)}, fake_gpu.RESULT, self.CACHED),
                 ("redukcija", "best", {"op": "mean"}, fake_gpu.RESULT / 1025, self.CACHED),
                 ("redukcija", "best", {"op": "norm"}, fake_gpu.RESULT ** 0.5, self.CACHED),
                 ("razdalja", "best", {}, fake_gpu.RESULT, {"tc_razdalja_run": 1, "cuStreamSynchronize": 1}),
                 ("razdalja", "la1", {}, fake_gpu.RESULT, {"tc_razdalja_run": 1, "cuMemcpyDtoHAsync_v2": 1,
                                                           "cuStreamSynchronize": 1}),
                 ("razdalja", "ls4", {}, fake_gpu.RESULT, {"tc_razdalja_run": 1, "cuMemcpyDtoHAsync_v2": 1,
                                                           "cuStreamSynchronize": 1, "tc_razdalja_finish": 1})]
        for program, variant, opts, want, cost in cases:
            with self.subTest(program=program, variant=variant, opts=opts), fake_gpu.gpu() as calls:
                args = [fake_gpu.TorchTensor(1025)] * (2 if program == "razdalja" else 1)
                call = lambda: getattr(tecaj, program)(*args, variant=variant, **opts)
                self.assertEqual(call(), want)
                out = calls.last[f"tc_{program}_run"][3]
                mapped = "cuMemcpyDtoHAsync_v2" not in cost
                self.assertEqual(out in tecaj._cuda._driver.host, mapped)
                calls.clear()
                self.assertEqual(call(), want)
                self.assertEqual(dict(calls), cost)

    def test_numpy_inputs_reach_the_run_staged(self):
        """A NumPy array is staged on the device when the call starts: the run gets its device pointer,
        in the public call and in a prepared job."""
        def prepared(*a, **k):
            job = tecaj.PREPARE["redukcija"](*a, **k)
            job.start()
            job.launch()
            return job.finish()

        for call in (tecaj.redukcija, prepared):
            with self.subTest(call=call), fake_gpu.gpu() as calls:
                self.assertEqual(call(np.full(1025, 3, np.float32)), fake_gpu.RESULT)
                self.assertTrue(calls.last["tc_redukcija_run"][1])
                self.assertEqual(call(np.ones(1025, np.float32), op="dot", y=np.ones(1025, np.float32)), fake_gpu.RESULT)
        with fake_gpu.gpu() as calls:
            self.assertEqual(tecaj.razdalja(np.ones(1025, np.float32), np.zeros(1025, np.float32)), fake_gpu.RESULT)
            self.assertTrue(all(calls.last["tc_razdalja_run"][1:3]))

    def test_a_call_after_a_prepared_job(self):
        """compare() runs prepared Jobs, which read the library's finish and make no decoder; a public
        call of the same variant after them (the same result memory: the variants but best keep device
        memory either way) still decodes."""
        for program, variant in (("redukcija", "r3"), ("redukcija", "best"), ("razdalja", "la1"), ("razdalja", "ls4")):
            with self.subTest(program=program, variant=variant), fake_gpu.gpu():
                args = [fake_gpu.TorchTensor(1025)] * (2 if program == "razdalja" else 1)
                job = tecaj.PREPARE[program](*args, variant=variant)
                job.start()
                job.launch()
                self.assertEqual(job.finish(), fake_gpu.RESULT)
                self.assertEqual(getattr(tecaj, program)(*args, variant=variant), fake_gpu.RESULT)

    def test_a_job_finishes_on_another_thread(self):
        """A prepared Job's finish reads the result where its launch put it (the launching thread's
        memory), whichever thread finishes it."""
        with fake_gpu.gpu():
            tecaj._cuda._driver.results[0x20000000] = 5.0
            job = tecaj.PREPARE["redukcija"](fake_gpu.TorchTensor(1025), variant="r3")
            job.start()
            job.launch()
            self.assertEqual(in_threads(lambda i: job.finish(), 1), [5.0])

    def test_several_devices_check_the_context(self):
        with fake_gpu.gpu(devices=2) as calls:
            x = fake_gpu.TorchTensor(10**6)
            tecaj.redukcija(x)
            calls.clear()
            tecaj.redukcija(x)
            self.assertEqual(dict(calls), dict(self.CACHED, cuCtxGetCurrent=1))

    def test_another_stream_gets_its_memory(self):
        with fake_gpu.gpu() as calls:
            x = fake_gpu.TorchTensor(1025)
            tecaj.redukcija(x)
            calls.stream = fake_gpu.STREAM + 1
            calls.clear()
            tecaj.redukcija(x)  # the plan cached; scratch and result memory for the new stream, zeroed on it
            self.assertEqual((calls["cuMemAlloc_v2"], calls["cuMemHostAlloc"], calls["cuMemsetD8Async"]), (1, 1, 1))
            self.assertEqual(calls.last["cuMemsetD8Async"][-1], fake_gpu.STREAM + 1)
            self.assertEqual(calls.last["tc_redukcija_run"][-1], fake_gpu.STREAM + 1)
            calls.clear()
            self.assertEqual(tecaj.redukcija(x), fake_gpu.RESULT)
            self.assertEqual(dict(calls), self.CACHED)

    def test_threads_on_one_stream_read_their_own_results(self):
        """Two threads' calls on one stream (NumPy calls' and a framework's default): each launches
        before either waits (ctypes lets go of the GIL); each must read its own input's result."""
        for variant in ("best", "r3"):
            with self.subTest(variant=variant), fake_gpu.gpu():
                driver = tecaj._cuda._driver
                xs = [fake_gpu.TorchTensor(1025, ptr=0x20000000 + i * 0x10000) for i in range(2)]
                for i, x in enumerate(xs):
                    driver.results[x.data_ptr()] = 10.0 + i
                tecaj.redukcija(xs[0], variant=variant)  # (the plan and the stream's memory made)
                launched, synchronize = threading.Barrier(2, timeout=5), driver.cuStreamSynchronize

                def wait(stream):  # returns once both threads have launched
                    launched.wait()
                    return synchronize(stream)
                driver.cuStreamSynchronize = wait
                self.assertEqual(in_threads(lambda i: tecaj.redukcija(xs[i], variant=variant), 2), [10.0, 11.0])

    def test_threads_calling_first_make_one_scratch(self):
        """Two threads' first calls of one plan on one stream at once: one scratch for the stream
        (zero-filled once), a result buffer for each."""
        with fake_gpu.gpu() as calls:
            driver = tecaj._cuda._driver
            alloc = driver.cuMemAlloc_v2
            driver.cuMemAlloc_v2 = lambda *args: time.sleep(0.05) or alloc(*args)  # (the other thread runs meanwhile)
            x = fake_gpu.TorchTensor(1025)
            tecaj.plan("redukcija", x)  # (the plan made: the threads meet at its memory)
            self.assertEqual(in_threads(lambda i: tecaj.redukcija(x), 2), [fake_gpu.RESULT] * 2)
            self.assertEqual((calls["cuMemAlloc_v2"], calls["cuMemsetD8Async"], calls["cuMemHostAlloc"]), (1, 1, 2))

    def test_outputs_apart_from_inputs(self):
        """out= must not overlap an input where the ABI says so (prefiks, konvolucija: out may not
        alias in); razlika (elementwise) and urejanje's keys (keys_out may equal keys_in) take the
        input itself, never a part of it; urejanje's values go apart from every keys array."""
        T = fake_gpu.TorchTensor
        with fake_gpu.gpu():
            x, shifted = T(1025), T(1025, ptr=0x20000000 + 8)
            for out in (x, shifted):
                with self.assertRaisesRegex(ValueError, "out: overlaps x in memory; the result goes to memory apart"):
                    tecaj.prefiks(x, out=out)
                with self.assertRaisesRegex(ValueError, "out: overlaps img"):
                    tecaj.konvolucija(x, out=out)
            with self.assertRaisesRegex(ValueError, "out: overlaps flags"):
                tecaj.prefiks(x, flags=T(1025, "uint8", ptr=0x40000000), out=T(1025, ptr=0x40000000 + 512))
            self.assertIs(tecaj.razlika(x, T(1025, ptr=0x40000000), out=x), x)  # in place
            with self.assertRaisesRegex(ValueError, "out: overlaps b"):
                tecaj.razlika(x, T(1025, ptr=0x40000000), out=T(1025, ptr=0x40000000 + 4))
            self.assertIs(tecaj.urejanje(x, out=x), x)  # in place
            with self.assertRaisesRegex(ValueError, "out: overlaps keys in memory; pass keys itself"):
                tecaj.urejanje(x, out=shifted)
            values = T(1025, "uint32", ptr=0x40000000)
            with self.assertRaisesRegex(ValueError, "out: overlaps values"):
                tecaj.urejanje(x, values, out=(T(1025, ptr=0x40000000), T(1025, "uint32", ptr=0x50000000)))
            for vo, other in ((T(1025, "uint32", ptr=0x20000000), "keys"), (values, "values"),
                              (T(1025, "uint32", ptr=0x60000000 + 4), "out")):
                with self.assertRaisesRegex(ValueError, f"out\\[1\\]: overlaps {other}"):
                    tecaj.urejanje(x, values, out=(T(1025, ptr=0x60000000), vo))
            self.assertEqual(len(tecaj.urejanje(x, values, out=(x, T(1025, "uint32", ptr=0x50000000)))), 2)
            a = vec(1025)
            self.assertIs(tecaj.prefiks(a, out=a), a)  # (NumPy: staged apart)

    def test_dlpack_is_asked_for_the_calls_stream(self):
        """A DLPack operand's producer orders its work before the stream the kernels run on: the
        current stream of the first PyTorch or CuPy operand, whichever argument it is (the legacy
        default stream, 1 in DLPack's words, where there is none)."""
        with fake_gpu.gpu() as calls:
            for first in (True, False):
                dl, x = fake_gpu.DLPackArray(1025), fake_gpu.TorchTensor(1025)
                tecaj.redukcija(*((x, "dot", dl) if first else (dl, "dot", x)))
                self.assertEqual(dl.asked, [fake_gpu.STREAM], first)
                self.assertEqual(calls.last["tc_redukcija_run"][-1], fake_gpu.STREAM, first)
            dl = fake_gpu.DLPackArray(1025)
            tecaj.redukcija(dl)
            self.assertEqual((dl.asked, calls.last["tc_redukcija_run"][-1]), ([1], 0))

    def test_dlpack_booleans(self):
        """DLPack producers send booleans as kDLBool (code 6) of 8 bits: accepted as flags."""
        with fake_gpu.gpu() as calls:
            x, flags = fake_gpu.TorchTensor(1025, ptr=0x40000000), fake_gpu.DLPackArray(1025, code=6, bits=8)
            tecaj.prefiks(x, flags=flags, out=fake_gpu.TorchTensor(1025))
            self.assertEqual(calls.last["tc_prefiks_run"][2], 0x70000000)

    def test_arg_results(self):
        with fake_gpu.gpu():
            x = fake_gpu.TorchTensor(1025)
            for _ in range(2):
                self.assertEqual(tecaj.redukcija(x, op="argmax"), (fake_gpu.RESULT, fake_gpu.INDEX))

    def test_checks_stay_on_the_cached_path(self):
        with fake_gpu.gpu():
            tecaj.redukcija(fake_gpu.TorchTensor(64))
            with self.assertRaisesRegex(ValueError, "x: a strided"):
                tecaj.redukcija(fake_gpu.TorchTensor(64, contiguous=False))
            with self.assertRaisesRegex(ValueError, "x: a strided"):
                tecaj.redukcija(fake_gpu.CupyArray(64, contiguous=False))
            with self.assertRaisesRegex(TypeError, "x: int64 elements; redukcija takes"):
                tecaj.redukcija(fake_gpu.TorchTensor(64, "int64"))
            with self.assertRaisesRegex(TypeError, "x: float16 elements"):
                tecaj.redukcija(fake_gpu.CupyArray(64, "float16"))
            with self.assertRaisesRegex(ValueError, "y: on device 1, x on device 0"):
                tecaj.redukcija(fake_gpu.TorchTensor(64), op="dot", y=fake_gpu.TorchTensor(64, device=1))
            with self.assertRaisesRegex(ValueError, r"y: shape \(65,\), x's is \(64,\)"):
                tecaj.redukcija(fake_gpu.TorchTensor(64), op="dot", y=fake_gpu.TorchTensor(65))
            cpu = fake_gpu.TorchTensor(64)
            cpu.is_cuda, cpu.device = False, "cpu"
            with self.assertRaisesRegex(TypeError, "x: a PyTorch tensor on the cpu"):
                tecaj.redukcija(cpu)
            with self.assertRaisesRegex(ValueError, "variant='r9'"):
                tecaj.redukcija(fake_gpu.TorchTensor(64), variant="r9")


class Decoding(unittest.TestCase):
    """The public calls decode their result bytes in Python (tecaj._results); the library's finish is
    the reference, bit for bit, over random bytes and special values, for every op and type."""

    SPECIAL32 = [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc00123, 0x00000001,
                 0x807fffff, 0x7f7fffff, 0x3f800000, 0x4b000001]
    SPECIAL64 = [0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0x7ff0000000000001,
                 1, 0x000fffffffffffff, 0x7fefffffffffffff, (1 << 53) + 1, (1 << 63) - 1, (1 << 63) + 1, 0x3ff0000000000001]

    def buffers(self, rng, count=300):
        import struct
        out = [rng.bytes(16) for _ in range(count)]
        out += [struct.pack("<II", w, w) + rng.bytes(8) for w in self.SPECIAL32]
        out += [struct.pack("<Q", w) + rng.bytes(8) for w in self.SPECIAL64]
        return out

    @staticmethod
    def library(plan, host, dtype, op):
        """The result as redukcija returned it from the library's finish."""
        r = _abi.RedukcijaResult()
        _abi.lib.tc_redukcija_finish(plan, host, ctypes.byref(r))
        value = r.exact if dtype == "int32" and op not in ("mean", "norm") else r.value
        return (value, r.index) if op in ("argmin", "argmax") else value

    @staticmethod
    def bits(v):
        import struct
        if isinstance(v, tuple):
            return tuple(Decoding.bits(x) for x in v)
        return (type(v).__name__, struct.pack("<d", v) if isinstance(v, float) else v)

    def test_redukcija_decoder_is_the_library_finish(self):
        from tecaj import _results
        rng = np.random.default_rng(7)
        plans = 0
        for variant in ("best", "r3", "atomic", "bm"):
            for dtype in ("float32", "float64", "int32"):
                for op in _abi.OPS:
                    if op in ("argmin", "argmax") and variant != "best":
                        continue
                    x = vec(1023, dtype)  # (an odd n: mean's division rounds)
                    plan = tecaj.PREPARE["redukcija"](x, op=op, y=x if op == "dot" else None, variant=variant).plan
                    buf = ctypes.create_string_buffer(16)
                    decode = _results.redukcija(plan, ctypes.addressof(buf))
                    plans += 1
                    for data in self.buffers(rng):
                        ctypes.memmove(buf, data, 16)
                        want = self.library(plan, buf, dtype, op)
                        self.assertEqual(self.bits(decode()), self.bits(want), (variant, dtype, op, data.hex()))
        self.assertEqual(plans, 4 * 3 * 6 + 3 * 2)

    def test_razdalja_decoder_is_the_library_finish(self):
        from tecaj import _results
        rng = np.random.default_rng(8)
        a, b = vec(65537), vec(65537)
        for variant in ("best", "la1", "ls4", "g"):
            plan = tecaj.PREPARE["razdalja"](a, b, variant=variant).plan
            nbytes = 4 * max(plan.launch.out_count, 2)
            buf = ctypes.create_string_buffer(nbytes)
            decode = _results.razdalja(plan, ctypes.addressof(buf))
            for data in self.buffers(rng)[-40:] + [rng.bytes(nbytes)]:
                ctypes.memmove(buf, data, min(16, nbytes))
                want = _results.sqrt(_abi.lib.tc_razdalja_finish(plan, buf))  # (the root: Python's in both)
                self.assertEqual(self.bits(decode()), self.bits(want), (variant, data.hex()))


class Checks(unittest.TestCase):
    """The references compare() and the GPU tests use: they must be able to fail."""

    def test_compare_stop_rule(self):
        from tecaj import _compare
        self.assertAlmostEqual(_compare.spread([1, 2, 3, 4, 5]), 100 * (4 - 2) / 3)
        import time
        now = time.perf_counter()
        self.assertFalse(_compare.enough([1.0] * 9, now))
        self.assertTrue(_compare.enough([1.0] * 5000, now))
        self.assertTrue(_compare.enough([1.0], now - 2))

    def test_rows_render(self):
        from tecaj._compare import Row, Rows
        rows = Rows([Row(variant="best", kernel_us=5.06, spread_pct=0.4, gb_per_s=790.0, result=1.5, check="ok (exact)"),
                     Row(variant="b1", check="outside domain")])
        text = str(rows)
        self.assertIn("best     5.06       0.4  790.0  1.5     ok (exact)", text)
        self.assertIn("<td>outside domain</td>", rows._repr_html_())

    def test_references_fail_on_wrong_results(self):
        from tecaj import _check
        a, b = vec(1025), vec(1025)
        job = type("J", (), {})()
        self.assertTrue(_check.razlika(job, a - b, a, b)[0])
        wrong = a - b
        wrong[1024] = np.nextafter(wrong[1024], np.inf)
        self.assertFalse(_check.razlika(job, wrong, a, b)[0])
        keys = vec(33)
        self.assertTrue(_check.urejanje(job, np.sort(keys), keys)[0])
        self.assertFalse(_check.urejanje(job, keys, keys)[0])
        x = vec(100, np.int32)
        self.assertFalse(_check.prefiks(job, np.cumsum(x).astype(np.int32) + 1, x)[0])
        self.assertTrue(_check.prefiks(job, np.cumsum(x).astype(np.int32), x)[0])
        nan = np.array([1, np.nan, 0], np.float32)
        self.assertTrue(_check.redukcija(job, (float("nan"), 1), nan, op="argmin")[0])
        self.assertFalse(_check.redukcija(job, (0.0, 2), nan, op="argmin")[0])


if __name__ == "__main__":
    unittest.main()
