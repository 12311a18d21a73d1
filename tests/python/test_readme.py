"""README.md's quoted outputs are what the commands print: every block
after a `<!-- check: COMMAND -->` line is compared with COMMAND's output
(run from the repository root, build/ replaced by this build's directory;
its standard output), line by line in order; a `...` line stands for
any number of lines left out, and the demo's wall time ("emulated in N s")
may differ. The demo's block is one of them."""
import os
import re
import subprocess
import unittest

from reference import ROOT

B = os.environ.get("IGEMM_TEST_B", "build")
WALL = re.compile(r"emulated in \d+ s")


def blocks(text):
    """(command, [expected lines]) of every checked block."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"<!-- check: (.*) -->$", lines[i])
        if m:
            assert lines[i + 1] == "```", f"README line {i + 2}: a ``` block must follow the check line"
            j = lines.index("```", i + 2)
            out.append((m.group(1), lines[i + 2:j]))
            i = j
        i += 1
    return out


def mismatch(expected, got):
    """None when got matches expected (with ... elisions), else why not."""
    norm = [WALL.sub("emulated in N s", g) for g in got]
    pos = 0
    skipping = False
    for e in expected:
        if e.strip() == "...":
            skipping = True
            continue
        e = WALL.sub("emulated in N s", e)
        if skipping:
            while pos < len(norm) and norm[pos] != e:
                pos += 1
        if pos >= len(norm) or norm[pos] != e:
            return f"expected {e!r}, got {norm[pos] if pos < len(norm) else 'the end of the output'!r}"
        pos += 1
        skipping = False
    if not skipping and pos != len(norm):
        return f"the output goes on: {norm[pos]!r}"
    return None


class Readme(unittest.TestCase):
    def test_quoted_outputs(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            checked = blocks(f.read())
        self.assertTrue(any("demo.sh" in c for c, _ in checked), "the demo's output is not checked")
        for cmd, want in checked:
            run = cmd.replace("build/", B.rstrip("/") + "/").replace("B=build", "B=" + B)
            r = subprocess.run(run, shell=True, cwd=ROOT, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, f"{cmd}: {r.stderr}")
            got = [l for l in r.stdout.split("\n")]
            if got and got[-1] == "":
                got.pop()
            why = mismatch(want, got)
            self.assertIsNone(why, f"README's output of {cmd}: {why}")

    def test_elision_rules(self):
        self.assertIsNone(mismatch(["a", "...", "d"], ["a", "b", "c", "d"]))
        self.assertIsNone(mismatch(["a", "..."], ["a", "b"]))
        self.assertIsNotNone(mismatch(["a", "d"], ["a", "b", "d"]))
        self.assertIsNotNone(mismatch(["a"], ["a", "b"]))
        self.assertIsNone(mismatch(["x, emulated in 3 s"], ["x, emulated in 22 s"]))


if __name__ == "__main__":
    unittest.main()
