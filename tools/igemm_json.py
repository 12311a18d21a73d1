"""Running `igemm conv... --json` from the benchmark scripts (tools/bench_*.py).

One function: run the CLI on a layer and return its JSON report, or exit with
the CLI's own one-line message naming the command that failed."""
import json
import os
import re
import subprocess
import sys

CMD = {"fp32": "conv", "fp16": "convfp16", "bf16": "convbfp16"}


def igemm_path():
    return os.path.join(os.environ.get("B", "build"), "bin", "igemm")


def run(cmd, args, arch, extra, who):
    """igemm CMD ARGS --arch ARCH --json EXTRA; `who` names the caller in errors."""
    r = subprocess.run([igemm_path(), cmd] + args + ["--arch", arch, "--json"] + extra,
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{who}: {' '.join(r.args)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def layers(path, batch):
    """The `conv ...` lines of a shape list, -n replaced by batch, comments dropped:
    (argument list, the line's comment)."""
    out = []
    for line in open(path):
        body, _, note = line.partition("#")
        body = body.strip()
        if body.startswith("conv "):
            out.append((re.sub(r"-n \d+", f"-n {batch}", body[5:]).split(), note.strip()))
    return out
