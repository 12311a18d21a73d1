#!/usr/bin/env python3
"""Every layer of a shape list (tests/shapes/*.txt) at a batch, fp32, run on the emulator of a
target with the library's selection (one emulator thread per CPU), each dx verified against
torch.nn.grad.conv2d_input in float64 (on a CUDA GPU when torch has one, else the CPU) by the
library's rule for fp32: |dx - ref| <= 1e-5 * sum|terms| per element, finite, and exactly 0 where no
term reaches. Prints per layer the solution, the emulator's wall time and the largest error over
sum|terms|, then the total; exit status 1 when a layer fails. docs/EMULATOR.md, "ResNet-50 at batch 256".

  IGEMM_LIBRARY=$PWD/build/lib/libigemm.so python3 tools/torch_check_network.py gfx942 256 tests/shapes/resnet50.txt
"""
import os, re, sys, time
import numpy as np, torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import igemm
arch = sys.argv[1] if len(sys.argv) > 1 else "gfx942"
batch = int(sys.argv[2]) if len(sys.argv) > 2 else 256
shapes = sys.argv[3] if len(sys.argv) > 3 else "tests/shapes/resnet50.txt"
dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
g = torch.Generator(device=dev).manual_seed(1)
tot = 0.0; fails = 0
for line in open(shapes):
    if not line.strip().startswith("conv"): continue
    f = dict(re.findall(r"-(\w) (\d+)", line.split("#")[0]))
    c, H, W, k, y, x = (int(f[v]) for v in "cHWkyx")
    p, q, u, v, l, j, gr = (int(f[v]) for v in "pquvljg")
    Ho = (H + 2 * p - l * (y - 1) - 1) // u + 1; Wo = (W + 2 * q - j * (x - 1) - 1) // v + 1
    dy = (torch.rand((batch, k, Ho, Wo), generator=g, device=dev) * 2 - 1)
    w = (torch.rand((k, c // gr, y, x), generator=g, device=dev) * 2 - 1)
    dyh, wh = dy.cpu().numpy(), w.cpu().numpy()
    t0 = time.time()
    dx, info = igemm.conv_bwd_data(dyh, wh, (batch, c, H, W), stride=(u, v), padding=(p, q), dilation=(l, j),
                                   groups=gr, arch=arch, backend="emu", return_info=True)
    dt = time.time() - t0; tot += dt
    a = dict(stride=(u, v), padding=(p, q), dilation=(l, j), groups=gr)
    ref = torch.nn.grad.conv2d_input((batch, c, H, W), w.double(), dy.double(), **a)
    asum = torch.nn.grad.conv2d_input((batch, c, H, W), w.double().abs(), dy.double().abs(), **a)
    d = torch.from_numpy(np.ascontiguousarray(dx)).to(dev).double()
    bad = (~torch.isfinite(d)) | ((d - ref).abs() > 1e-5 * asum) | ((asum == 0) & (d != 0))
    nb = int(bad.sum()); fails += nb > 0
    err = float(((d - ref).abs() / asum.clamp_min(1e-300)).max())
    sol = getattr(info, "solution", "?")
    print(f"{line.split('#')[0].strip()[:60]:60s} {sol:58s} {dt:7.2f} s  max err/sum|terms| {err:.2e}  "
          f"{'ok' if nb == 0 else 'FAIL %d' % nb}", flush=True)
    del dy, w, ref, asum, d
print(f"total emulator wall {tot:.1f} s, {fails} layers failed, arch {arch}, batch {batch}")
sys.exit(1 if fails else 0)
