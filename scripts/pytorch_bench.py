"""Inference speed of damone's network architecture in PyTorch (CPU), for a
side-by-side comparison with `damone bench --suite net`.

The model mirrors src/net/model.rs: a 3x3 conv stem, residual blocks
(conv-BN-ReLU-conv-BN + skip, ReLU), a policy head (1x1 conv to 2 planes,
BN, ReLU, linear to 4096) and a WDL value head (1x1 conv to 1 plane, BN,
ReLU, linear, ReLU, linear to 3, softmax). Usage:

    python scripts/pytorch_bench.py --blocks 4 --channels 32 --batch 256 --threads 2
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PLANES = 9
POLICY = 4096


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(c)
        self.c2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(x + y)


class Net(nn.Module):
    def __init__(self, blocks, c, hidden):
        super().__init__()
        self.stem = nn.Conv2d(PLANES, c, 3, padding=1, bias=False)
        self.stem_bn = nn.BatchNorm2d(c)
        self.blocks = nn.Sequential(*[Block(c) for _ in range(blocks)])
        self.pc = nn.Conv2d(c, 2, 1, bias=False)
        self.pb = nn.BatchNorm2d(2)
        self.pf = nn.Linear(128, POLICY)
        self.vc = nn.Conv2d(c, 1, 1, bias=False)
        self.vb = nn.BatchNorm2d(1)
        self.v1 = nn.Linear(64, hidden)
        self.v2 = nn.Linear(hidden, 3)

    def forward(self, x):
        h = self.blocks(F.relu(self.stem_bn(self.stem(x))))
        p = self.pf(F.relu(self.pb(self.pc(h))).flatten(1))
        v = F.relu(self.vb(self.vc(h))).flatten(1)
        v = F.softmax(self.v2(F.relu(self.v1(v))), dim=1)
        return p, v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=5.0)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    net = Net(a.blocks, a.channels, a.hidden).eval()
    x = (torch.rand(a.batch, PLANES, 8, 8) < 0.2).float()
    with torch.inference_mode():
        for _ in range(5):
            net(x)
        n = 0
        t = time.perf_counter()
        while time.perf_counter() - t < a.seconds:
            p, v = net(x)
            p.numpy(), v.numpy()
            n += 1
        dt = time.perf_counter() - t
    print(
        f"pytorch {torch.__version__} net {a.blocks}x{a.channels} batch {a.batch}: "
        f"{n * a.batch / dt:.0f} evaluations/s ({1000 * dt / n:.2f} ms per batch, threads {a.threads})"
    )


if __name__ == "__main__":
    main()
