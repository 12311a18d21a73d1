"""igemm.torch.Conv2d against torch.nn.Conv2d: same constructor and
state_dict, the same forward, the same weight and bias gradients, and an
input gradient within the verify rule of the float64 reference."""
import copy
import unittest
import warnings

import torch

import igemm
import igemm.torch as itorch
from reference import reference, verify_failure

# nn.Conv2d (the reference) warns that it pads a copy for an even kernel with padding="same"
warnings.filterwarnings("ignore", message="Using padding=.same. with even kernel")

CASES = [  # nn.Conv2d arguments, input shape
    (dict(in_channels=4, out_channels=6, kernel_size=3, stride=2, padding=1), (2, 4, 9, 9)),
    (dict(in_channels=6, out_channels=4, kernel_size=(3, 2), dilation=(2, 1), padding=(2, 0), bias=False), (1, 6, 8, 7)),
    (dict(in_channels=8, out_channels=4, kernel_size=3, groups=2, padding=1), (2, 8, 5, 6)),
    (dict(in_channels=3, out_channels=5, kernel_size=1, stride=3), (2, 3, 7, 8)),  # most of dx gets no term
    (dict(in_channels=3, out_channels=4, kernel_size=4, padding="same"), (1, 3, 6, 5)),  # asymmetric same
    (dict(in_channels=3, out_channels=4, kernel_size=3, padding="valid"), (2, 3, 5, 5)),
    (dict(in_channels=2, out_channels=3, kernel_size=3, padding=1, padding_mode="reflect"), (2, 2, 6, 6)),
    (dict(in_channels=2, out_channels=3, kernel_size=3, padding=1, padding_mode="circular"), (1, 2, 5, 4)),
]


def pair(model_kw, shape, seed, **igemm_kw):
    torch.manual_seed(seed)
    ref = torch.nn.Conv2d(**model_kw)
    mod = itorch.Conv2d(**model_kw, **igemm_kw)
    mod.load_state_dict(ref.state_dict())
    x = torch.rand(shape) * 2 - 1
    return ref, mod, x


def grads(module, x, g):
    x = x.clone().requires_grad_()
    y = module(x)
    y.backward(g)
    return y.detach(), x.grad, module.weight.grad, module.bias.grad if module.bias is not None else None


class ModuleBackward(unittest.TestCase):
    def test_backward_equals_nn_conv2d(self):
        for i, (kw, shape) in enumerate(CASES):
            for arch in ("gfx906", "gfx942"):
                with self.subTest(case=kw, arch=arch):
                    ref, mod, x = pair(kw, shape, i, igemm_arch=arch)
                    y_ref = ref(x)
                    g = torch.rand(y_ref.shape) * 2 - 1
                    y0, dx0, dw0, db0 = grads(ref, x, g)
                    y1, dx1, dw1, db1 = grads(mod, x, g)
                    self.assertTrue(torch.equal(y0, y1), "forward differs")
                    self.assertTrue(torch.equal(dw0, dw1), "weight gradient differs")
                    if db0 is not None:
                        self.assertTrue(torch.equal(db0, db1), "bias gradient differs")
                    if kw.get("padding_mode", "zeros") == "zeros" and kw.get("padding") not in ("same",):
                        pad = 0 if kw.get("padding") == "valid" else kw.get("padding", 0)
                        r, s = reference(g, ref.weight.detach(), shape, ref.stride, pad, ref.dilation, ref.groups)
                        self.assertIsNone(verify_failure(dx1, r, s))
                    else:  # padding folded into F.pad: compare with nn.Conv2d's own dx
                        self.assertLessEqual((dx1 - dx0).abs().max().item(), 1e-5 * dx0.abs().max().item())

    def test_channels_last_backward(self):
        """Channels-last training: igemm gets NHWC dy and w and runs an NHWC
        configuration; dx equals the float64 reference and comes back
        channels-last, like nn.Conv2d's."""
        kw, shape = dict(in_channels=4, out_channels=6, kernel_size=3, stride=2, padding=1, groups=2), (2, 4, 9, 7)
        for arch in ("gfx906", "gfx90a"):
            with self.subTest(arch=arch):
                ref, mod, x = pair(kw, shape, 7, igemm_arch=arch)
                x = x.contiguous(memory_format=torch.channels_last)
                g = (torch.rand(ref(x).shape) * 2 - 1).contiguous(memory_format=torch.channels_last)
                y0, dx0, dw0, db0 = grads(ref, x, g)
                y1, dx1, dw1, db1 = grads(mod, x, g)
                self.assertTrue(dx1.is_contiguous(memory_format=torch.channels_last))
                r, s = reference(g, ref.weight.detach(), shape, ref.stride, 1, ref.dilation, ref.groups)
                self.assertIsNone(verify_failure(dx1, r, s))
                _, info = igemm.conv_bwd_data(g, ref.weight.detach(), shape, ref.stride, 1, ref.dilation, ref.groups,
                                              arch=arch, return_info=True)
                self.assertIn("_nhwc_", info.solution)

    def test_igemm_computes_the_input_gradient(self):
        """The module's dx comes from igemm: an emulator run per backward
        with an input that needs a gradient, none without."""
        ref, mod, x = pair(CASES[0][0], CASES[0][1], 0)
        runs = igemm_runs()
        mod(x).sum().backward()  # x needs no gradient: igemm is not called
        self.assertEqual(igemm_runs(), runs)
        mod(x.clone().requires_grad_()).sum().backward()
        self.assertEqual(igemm_runs(), runs + 1)

    def test_state_dict_compatible(self):
        ref, mod, _ = pair(CASES[2][0], (1, 8, 5, 6), 1)
        self.assertEqual(list(ref.state_dict()), list(mod.state_dict()))
        back = torch.nn.Conv2d(**CASES[2][0])
        back.load_state_dict(mod.state_dict(), strict=True)
        self.assertTrue(torch.equal(back.weight, ref.weight))
        self.assertIsInstance(mod, torch.nn.Conv2d)

    def test_unbatched_input(self):
        ref, mod, x = pair(CASES[0][0], (4, 9, 9), 2)
        g = torch.rand(ref(x).shape)
        _, dx0, _, _ = grads(ref, x, g)
        _, dx1, _, _ = grads(mod, x, g)
        self.assertLessEqual((dx1 - dx0).abs().max().item(), 1e-5 * dx0.abs().max().item())

    def test_convert_and_train(self):
        """convert() swaps every nn.Conv2d; three SGD steps on changing batch
        and image sizes give the plain model's losses."""
        torch.manual_seed(7)
        plain = torch.nn.Sequential(torch.nn.Conv2d(3, 6, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.Conv2d(6, 8, 3, stride=2, padding=1), torch.nn.ReLU(),
                                    torch.nn.Conv2d(8, 4, 3, dilation=2, padding=2), torch.nn.AdaptiveAvgPool2d(1),
                                    torch.nn.Flatten())
        model = itorch.convert(copy.deepcopy(plain))
        convs = [m for m in model.modules() if isinstance(m, itorch.Conv2d)]
        self.assertEqual(len(convs), 3)
        self.assertEqual([id(m) for m in itorch.convert(model).modules() if isinstance(m, itorch.Conv2d)],
                         [id(m) for m in convs])  # converting again changes nothing
        for a, b in zip(plain.state_dict().values(), model.state_dict().values()):
            self.assertTrue(torch.equal(a, b))
        opt_p = torch.optim.SGD(plain.parameters(), lr=0.1)
        opt_m = torch.optim.SGD(model.parameters(), lr=0.1)
        for n, hw in ((2, 8), (1, 11), (2, 6)):
            x = torch.rand(n, 3, hw, hw)
            t = torch.randint(0, 4, (n,))
            losses = []
            for m, opt in ((plain, opt_p), (model, opt_m)):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(m(x), t)
                loss.backward()
                opt.step()
                losses.append(loss.item())
            self.assertAlmostEqual(losses[0], losses[1], delta=1e-5 * abs(losses[0]))


def igemm_runs():
    import igemm
    return igemm.stats()["runs"]


if __name__ == "__main__":
    unittest.main()
