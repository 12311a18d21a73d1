"""Run Python test modules (unittest) and report each in cmocka's format,
like the C suites of `make test`:

    python3 tests/python/run.py tests/python/test_grad.py ...

Exit status 1 when a test fails or errors, 0 otherwise (skips count as
passes, as in cmocka)."""
import importlib.util
import os
import sys
import time
import unittest


class CmockaResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.failed_names = []

    def startTest(self, test):
        super().startTest(test)
        self._t0 = time.monotonic()
        print(f"[ RUN      ] {self._name(test)}", flush=True)

    @staticmethod
    def _name(test):
        return f"{type(test).__name__}.{test._testMethodName}"

    def _fail(self, test, err, what=""):
        print(self._exc_info_to_string(err, test), end="")
        print(f"[  FAILED  ] {self._name(test)}{what}", flush=True)
        if self._name(test) not in self.failed_names:
            self.failed_names.append(self._name(test))

    def addError(self, test, err):
        super().addError(test, err)
        self._fail(test, err)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, err)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._fail(test, err, " " + subtest._subDescription())

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print(f"[  SKIPPED ] {self._name(test)}: {reason}", flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        print(f"[       OK ] {self._name(test)} ({time.monotonic() - self._t0:.2f} s)", flush=True)


def run_file(path):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    suite = unittest.defaultTestLoader.loadTestsFromModule(mod)
    n = suite.countTestCases()
    print(f"[==========] Running {n} test(s).", flush=True)
    result = CmockaResult()
    suite.run(result)
    print(f"[==========] {n} test(s) run.")
    print(f"[  PASSED  ] {n - len(result.failed_names)} test(s).")
    if result.failed_names:
        print(f"[  FAILED  ] {len(result.failed_names)} test(s), listed below:")
        for t in result.failed_names:
            print(f"[  FAILED  ] {t}")
        print(f"\n {len(result.failed_names)} FAILED TEST(S)")
    return not result.failed_names and n > 0


def main(paths):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    ok = True
    for p in paths:
        print(f"== {p}", flush=True)
        ok = run_file(p) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
