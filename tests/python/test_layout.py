"""The layout guard of the Python package's hand-written mirrors of the C
structs (python/igemm/_lib.py: Problem, Options, RunInfoC against
include/igemm.h's igemm_problem, igemm_options, igemm_run_info).

A small C program, generated from the mirrors' field lists, is compiled
against include/igemm.h and prints sizeof of each struct and offsetof and
sizeof of each field the mirror names; the test compares them with ctypes'
view. A field the C side renamed or removed fails to compile (named in the
failure); one it added, moved or resized changes a size or an offset."""
import ctypes
import os
import shlex
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from igemm import _lib

MIRRORS = (
    ("igemm_problem", _lib.Problem),
    ("igemm_options", _lib.Options),
    ("igemm_memory_view", _lib.MemoryViewC),
    ("igemm_run_info", _lib.RunInfoC),
)


def compiler():
    """The build's C compiler: CC of IGEMM_TEST_MAKE (make test), else cc."""
    for word in shlex.split(os.environ.get("IGEMM_TEST_MAKE", "")):
        if word.startswith("CC="):
            return shlex.split(word[3:]) or ["cc"]
    return ["cc"]


def c_program(mirrors):
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "igemm.h"', "int main(void)", "{"]
    for cname, py in mirrors:
        lines.append(f'    printf("{cname} %zu\\n", sizeof({cname}));')
        for field, _ in py._fields_:
            lines.append(f'    printf("{cname}.{field} %zu %zu\\n", offsetof({cname}, {field}), '
                         f'sizeof((({cname} *)0)->{field}));')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def c_layout(mirrors):
    """{name: (offset, size)} and {struct: size} as the C compiler lays them out."""
    with tempfile.TemporaryDirectory(prefix="igemm-layout-") as tmp:
        src, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
        with open(src, "w") as f:
            f.write(c_program(mirrors))
        cc = compiler()
        r = subprocess.run(cc + ["-std=c11", "-I", os.path.join(ROOT, "include"), src, "-o", exe],
                           capture_output=True, text=True)
        if r.returncode:
            raise AssertionError("the mirrors name fields include/igemm.h does not have: " + r.stderr.strip())
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    fields, sizes = {}, {}
    for line in out.splitlines():
        words = line.split()
        if len(words) == 2:
            sizes[words[0]] = int(words[1])
        else:
            fields[words[0]] = (int(words[1]), int(words[2]))
    return fields, sizes


def py_layout(mirrors):
    fields, sizes = {}, {}
    for cname, py in mirrors:
        sizes[cname] = ctypes.sizeof(py)
        for field, ctype in py._fields_:
            fields[f"{cname}.{field}"] = (getattr(py, field).offset, ctypes.sizeof(ctype))
    return fields, sizes


def differences(mirrors):
    (cf, cs), (pf, ps) = c_layout(mirrors), py_layout(mirrors)
    bad = [f"{n}: C {cs[n]} bytes, Python {ps[n]}" for n in cs if cs[n] != ps[n]]
    bad += [f"{n}: C offset {cf[n][0]} size {cf[n][1]}, Python offset {pf[n][0]} size {pf[n][1]}"
            for n in cf if cf[n] != pf[n]]
    return bad


class Layout(unittest.TestCase):
    def test_mirrors_match_igemm_h(self):
        bad = differences(MIRRORS)
        self.assertEqual(bad, [], "python/igemm/_lib.py no longer mirrors include/igemm.h:\n" + "\n".join(bad))

    def test_guard_sees_a_wrong_mirror(self):
        """A mirror with two fields swapped and one with a field missing
        are reported: the guard can fail."""
        fields = list(_lib.Problem._fields_)
        swapped = type("Swapped", (ctypes.Structure,), {"_fields_": [fields[1], fields[0]] + fields[2:]})
        short = type("Short", (ctypes.Structure,), {"_fields_": fields[:-1]})
        bad = differences((("igemm_problem", swapped),))
        self.assertTrue(any("igemm_problem.n:" in b for b in bad), bad)
        bad = differences((("igemm_problem", short),))
        self.assertTrue(any(b.startswith("igemm_problem: C") for b in bad), bad)
        wrong = type("Wrong", (ctypes.Structure,), {"_fields_": [("no_such_field", ctypes.c_int)]})
        with self.assertRaises(AssertionError):
            differences((("igemm_problem", wrong),))


if __name__ == "__main__":
    unittest.main()
