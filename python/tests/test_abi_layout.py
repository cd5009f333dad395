"""The ctypes mirror of the C ABI against the headers: a C compiler prints every structure's size
and every field's offset, and each must equal ctypes'. Skips where no C compiler or CUDA headers."""
import os
import shutil
import subprocess
import tempfile
import unittest

from tecaj import _abi

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the ABI's headers: the repository's, or TECAJ_INCLUDE's (a copy of cuda/include, as the GPU bundle has)
INCLUDE = os.environ.get("TECAJ_INCLUDE") or os.path.join(ROOT, "cuda", "include")


def cuda_include():
    for d in (os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"):
        if d and os.path.exists(os.path.join(d, "include", "cuda_runtime_api.h")):
            return os.path.join(d, "include")
    nvcc = shutil.which("nvcc")
    if nvcc:
        d = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "include")
        if os.path.exists(os.path.join(d, "cuda_runtime_api.h")):
            return d
    return None


class Layout(unittest.TestCase):
    def test_structures_match_headers(self):
        cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
        cuda = cuda_include()
        if not cc or not cuda or not os.path.isdir(INCLUDE):
            self.skipTest(f"needs a C compiler ({cc}), the CUDA headers ({cuda}) and the repository's {INCLUDE}")
        lines = []
        for cname, struct in _abi.STRUCTS.items():
            lines.append(f'printf("{cname} %zu\\n", sizeof({cname}));')
            for field, _ in struct._fields_:
                lines.append(f'printf("{cname}.{field} %zu\\n", offsetof({cname}, {field}));')
        headers = "".join(f'#include "tecaj/{p}.h"\n' for p in _abi.PROGRAMS)
        src = f"#include <stdio.h>\n#include <stddef.h>\n{headers}int main(void) {{\n" + "\n".join(lines) + "\nreturn 0;}\n"
        with tempfile.TemporaryDirectory() as tmp:
            c, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
            with open(c, "w") as f:
                f.write(src)
            subprocess.run([cc, "-I", INCLUDE, "-I", cuda, c, "-o", exe], check=True)
            out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
        got = dict(line.rsplit(" ", 1) for line in out.splitlines())
        checked = 0
        for cname, struct in _abi.STRUCTS.items():
            self.assertEqual(int(got[cname]), ctypes_sizeof(struct), f"sizeof({cname})")
            for field, _ in struct._fields_:
                self.assertEqual(int(got[f"{cname}.{field}"]), getattr(struct, field).offset, f"{cname}.{field}")
                checked += 1
        self.assertGreaterEqual(checked, 100)

    def test_constants_match_headers(self):
        with open(os.path.join(INCLUDE, "tecaj.h")) as f:
            text = f.read()
        for name, code in _abi.DTYPES.items():
            self.assertIn(f"TC_{name.upper()} = {code},", text)
        for name, code in _abi.OPS.items():
            self.assertIn(f"TC_{name.upper()} = {code},", text)


def ctypes_sizeof(s):
    import ctypes
    return ctypes.sizeof(s)


if __name__ == "__main__":
    unittest.main()
