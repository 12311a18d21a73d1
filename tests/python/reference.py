"""What the Python tests compare igemm with: torch.nn.grad.conv2d_input in
float64, and the project's verify rule (README): per dx element the error
over the sum of |terms| within 1e-5 (beyond half an ulp of the 16-bit format
for float16/bfloat16 dx), no NaN, and elements that receive no term exactly 0. The shape lists are tests/shapes/*.txt, parsed here."""
import os

import torch

REL_TOL = 1e-5
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FLAGS = {"-n": "n", "-c": "c", "-H": "h", "-W": "w", "-k": "k", "-y": "y", "-x": "x", "-p": "pad_h", "-q": "pad_w",
         "-u": "stride_h", "-v": "stride_w", "-l": "dil_h", "-j": "dil_w", "-g": "groups"}


def shapes(name, max_batch=2):
    """The `conv ...` lines of tests/shapes/NAME as dicts, batch capped."""
    out = []
    with open(os.path.join(ROOT, "tests", "shapes", name)) as f:
        for line in f:
            words = line.split("#")[0].split()
            if not words or words[0] != "conv":
                continue
            s = {FLAGS[words[i]]: int(words[i + 1]) for i in range(1, len(words), 2) if words[i] in FLAGS}
            s["n"] = min(s["n"], max_batch)
            s["comment"] = line.split("#", 1)[1].strip() if "#" in line else ""
            out.append(s)
    return out


def conv_args(s):
    """(stride, padding, dilation, groups) of a shape dict."""
    return (s["stride_h"], s["stride_w"]), (s["pad_h"], s["pad_w"]), (s["dil_h"], s["dil_w"]), s["groups"]


def random_problem(s, gen):
    """dy, w (float32 CPU tensors, uniform in [-1, 1)) and the input size of s."""
    stride, padding, dilation, groups = conv_args(s)
    ho = (s["h"] + 2 * s["pad_h"] - s["dil_h"] * (s["y"] - 1) - 1) // s["stride_h"] + 1
    wo = (s["w"] + 2 * s["pad_w"] - s["dil_w"] * (s["x"] - 1) - 1) // s["stride_w"] + 1
    dy = torch.rand((s["n"], s["k"], ho, wo), generator=gen) * 2 - 1
    w = torch.rand((s["k"], s["c"] // groups, s["y"], s["x"]), generator=gen) * 2 - 1
    return dy, w, (s["n"], s["c"], s["h"], s["w"])


def reference(dy, w, input_size, stride, padding, dilation, groups):
    """float64 dx and, per element, the sum of |terms| (the same sum over |dy|, |w|)."""
    args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    dy64, w64 = torch.as_tensor(dy).double(), torch.as_tensor(w).double()
    ref = torch.nn.grad.conv2d_input(input_size, w64, dy64, **args)
    abs_sum = torch.nn.grad.conv2d_input(input_size, w64.abs(), dy64.abs(), **args)
    return ref, abs_sum


# significand bits and smallest normal exponent of the 16-bit formats
HALF_FORMATS = {torch.float16: (11, -14), torch.bfloat16: (8, -126)}


def half_ulp(ref, dtype):
    """Half an ulp of dtype's format at each ref value (0 for float32)."""
    if dtype not in HALF_FORMATS:
        return torch.zeros_like(ref)
    bits, emin = HALF_FORMATS[dtype]
    _, e = torch.frexp(ref)  # |ref| in [2^(e-1), 2^e)
    e = torch.where(ref == 0, torch.full_like(e, emin), (e - 1).clamp(min=emin))
    return torch.ldexp(torch.ones_like(ref), (e - bits).to(ref.dtype))


def verify_failure(dx, ref, abs_sum):
    """None when dx passes the verify rule, else why not. For float16 and
    bfloat16 dx each element may also be off by half an ulp of its format
    at the reference (its rounding)."""
    dtype = torch.as_tensor(dx).dtype
    dx = torch.as_tensor(dx).double()
    if dx.shape != ref.shape:
        return f"dx is {tuple(dx.shape)}, expected {tuple(ref.shape)}"
    if not torch.isfinite(dx).all():
        return f"{int((~torch.isfinite(dx)).sum())} NaN/Inf elements"
    err = (dx - ref).abs()
    covered = abs_sum > 0
    if (dx[~covered] != 0).any():
        return f"{int((dx[~covered] != 0).sum())} elements without terms are not 0"
    if covered.any():
        over = err[covered] - half_ulp(ref[covered], dtype)
        rel = (over.clamp(min=0) / abs_sum[covered]).max().item()
        if rel > REL_TOL:
            return f"max relative error beyond the format's half ulp {rel:.3g} > {REL_TOL}"
    return None
