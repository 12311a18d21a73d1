"""Train a small CNN with igemm.torch.Conv2d on the emulator, changing the
batch size and the image size between steps, next to the same model in
plain torch.

    PYTHONPATH=python python3 examples/train_cnn.py [--arch gfx906] [--steps 8]
    make demo-torch                                   (the same, DEMO_ARCH=...)

Per step: both models' loss (they start from the same weights and see the
same data, so they must agree within float tolerance), the wall time of
each step, the number of distinct backward-data problems igemm met for the
first time, and the number of code objects igemm loaded during the step.
MIOpen compiles kernels for every new shape; igemm's one code object per
target is loaded once (in the first step) and serves every shape after.
Exit status 1 when the losses disagree.
"""
import argparse
import copy
import sys
import time

import torch
import torch.nn as nn

import igemm
import igemm.torch

# (batch, image size) per step, repeating from the start after the last
SCHEDULE = [(4, 16), (2, 24), (8, 12), (1, 31), (4, 16), (3, 20), (6, 14), (2, 27)]
CLASSES = 4
TOLERANCE = 1e-4  # relative, on the loss


def make_model():
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=2, dilation=2, groups=2), nn.ReLU(),
        nn.Conv2d(64, 32, 1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, CLASSES))


def batch(n, size, gen):
    """Synthetic images: noise plus a bright square whose quadrant is the label."""
    x = torch.rand((n, 3, size, size), generator=gen) * 0.5
    y = torch.randint(0, CLASSES, (n,), generator=gen)
    h = size // 2
    for i, label in enumerate(y.tolist()):
        r, c = (label // 2) * h, (label % 2) * h
        x[i, :, r:r + h // 2 + 1, c:c + h // 2 + 1] += 1.0
    return x, y


def step(model, opt, x, y):
    t0 = time.perf_counter()
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.item(), time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", default=None, help="emulated target (default: the library's, gfx906)")
    ap.add_argument("--steps", type=int, default=len(SCHEDULE))
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.steps < 1:
        ap.error("--steps must be at least 1")

    torch.manual_seed(a.seed)
    plain = make_model()
    model = igemm.torch.convert(copy.deepcopy(plain), igemm_arch=a.arch, igemm_backend="emu")
    opts = [torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9) for m in (plain, model)]
    gen = torch.Generator().manual_seed(a.seed)
    n_igemm = sum(isinstance(m, igemm.torch.Conv2d) for m in model.modules())
    print(f"igemm {igemm.__version__} ({igemm.library_path})")
    print(f"model: {n_igemm} igemm.torch.Conv2d layers (3x3, 3x3 stride 2, 3x3 dilation 2 groups 2, 1x1), "
          f"input gradient on the {a.arch or 'default-target'} emulator; the same model in plain torch beside it")
    print(f"{'step':>4} {'batch':>5} {'image':>7} {'loss igemm':>12} {'loss torch':>12} {'rel diff':>9} "
          f"{'igemm s':>8} {'torch s':>8} {'new shapes':>10} {'code objects loaded':>19}")
    worst = 0.0
    for i in range(a.steps):
        n, size = SCHEDULE[i % len(SCHEDULE)]
        x, y = batch(n, size, gen)
        before = igemm.stats()
        loss_i, t_i = step(model, opts[1], x, y)
        after = igemm.stats()
        loss_t, t_t = step(plain, opts[0], x, y)
        rel = abs(loss_i - loss_t) / max(abs(loss_t), 1e-30)
        worst = max(worst, rel)
        print(f"{i + 1:>4} {n:>5} {size:>3}x{size:<3} {loss_i:>12.6f} {loss_t:>12.6f} {rel:>9.1e} {t_i:>8.3f} "
              f"{t_t:>8.3f} {after['distinct_problems'] - before['distinct_problems']:>10} "
              f"{after['code_object_loads'] - before['code_object_loads']:>19}")
    drift = max((p - q).abs().max().item() for p, q in zip(plain.parameters(), model.parameters()))
    s = igemm.stats()
    print(f"igemm ran {s['runs']} backward-data convolutions, {s['distinct_problems']} distinct problems, from "
          f"{s['code_object_loads']} code object load(s)")
    if s["code_object_loads"] != 1:
        print("FAIL: one target's code object should have been loaded once, in the first step")
        return 1
    print("no kernel was compiled or loaded for a new shape: the one code object served them all")
    if worst > TOLERANCE:
        print(f"FAIL: the losses differ by {worst:.2e} (relative) > {TOLERANCE}")
        return 1
    print(f"PASS: igemm's losses equal plain torch's within {TOLERANCE} (worst {worst:.1e}; largest parameter "
          f"difference after {a.steps} steps {drift:.1e}: the input gradients agree to float32 rounding)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
