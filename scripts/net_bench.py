"""Side-by-side network speed: damone against PyTorch eager and ONNX Runtime.

Builds damone's architecture (src/net/model.rs) from a damone config's
`[model]` section in PyTorch, exports the same graph to ONNX with the
`onnx` package's helpers (ONNX Runtime then folds batch norm itself), and
measures, interleaved per setting so that drift hits all three alike:

- inference positions/s at each batch and thread count (damone's figure is
  its fast path's full forward pass, policy logits for all 4,096 moves and
  value logits, from observations);
- training samples/s at one batch (damone vs PyTorch): the same loss
  (policy cross-entropy over masked logits + value cross-entropy) and the
  same optimiser (AdamW, per-tensor gradient clipping at 1.0).

Run through scripts/net_bench.sh, which sets up the virtual environment.
"""
import argparse
import os
import csv
import io
import subprocess
import sys
import time
import tomllib

import numpy as np
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
    """conv stem, residual tower, policy head (1x1 conv to 2 planes, BN,
    ReLU, linear to 4096), WDL value head (1x1 conv to 1 plane, BN, ReLU,
    linear, ReLU, linear to 3)."""

    def __init__(self, blocks, c, hidden):
        super().__init__()
        self.stem = nn.Conv2d(PLANES, c, 3, padding=1, bias=False)
        self.stem_bn = nn.BatchNorm2d(c)
        self.blocks = nn.ModuleList([Block(c) for _ in range(blocks)])
        self.pc = nn.Conv2d(c, 2, 1, bias=False)
        self.pb = nn.BatchNorm2d(2)
        self.pf = nn.Linear(128, POLICY)
        self.vc = nn.Conv2d(c, 1, 1, bias=False)
        self.vb = nn.BatchNorm2d(1)
        self.v1 = nn.Linear(64, hidden)
        self.v2 = nn.Linear(hidden, 3)

    def forward(self, x):
        h = F.relu(self.stem_bn(self.stem(x)))
        for b in self.blocks:
            h = b(h)
        p = self.pf(F.relu(self.pb(self.pc(h))).flatten(1))
        v = F.relu(self.vb(self.vc(h))).flatten(1)
        v = self.v2(F.relu(self.v1(v)))
        return p, v


def to_onnx(net, blocks):
    """The same graph in ONNX (opset 17), weights from the PyTorch model."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    inits, nodes = [], []

    def w(name, t):
        inits.append(numpy_helper.from_array(t.detach().numpy().astype(np.float32), name))
        return name

    def conv_bn(x, conv, bn, name, pad):
        nodes.append(helper.make_node("Conv", [x, w(name + ".w", conv.weight)], [name + ".c"],
                                      pads=[pad] * 4))
        nodes.append(helper.make_node(
            "BatchNormalization",
            [name + ".c", w(name + ".g", bn.weight), w(name + ".b", bn.bias),
             w(name + ".m", bn.running_mean), w(name + ".v", bn.running_var)],
            [name + ".bn"], epsilon=bn.eps))
        return name + ".bn"

    def relu(x, name):
        nodes.append(helper.make_node("Relu", [x], [name]))
        return name

    def dense(x, lin, name):
        nodes.append(helper.make_node("Gemm", [x, w(name + ".w", lin.weight), w(name + ".b", lin.bias)],
                                      [name], transB=1))
        return name

    h = relu(conv_bn("x", net.stem, net.stem_bn, "stem", 1), "stem.r")
    for i, b in enumerate(net.blocks):
        y = relu(conv_bn(h, b.c1, b.b1, f"b{i}.1", 1), f"b{i}.1r")
        y = conv_bn(y, b.c2, b.b2, f"b{i}.2", 1)
        nodes.append(helper.make_node("Add", [h, y], [f"b{i}.add"]))
        h = relu(f"b{i}.add", f"b{i}.r")
    inits.append(numpy_helper.from_array(np.array([0, -1], dtype=np.int64), "flat"))
    p = relu(conv_bn(h, net.pc, net.pb, "pol", 0), "pol.r")
    nodes.append(helper.make_node("Reshape", [p, "flat"], ["pol.flat"]))
    nodes.append(helper.make_node("Identity", [dense("pol.flat", net.pf, "pol.fc")], ["policy"]))
    v = relu(conv_bn(h, net.vc, net.vb, "val", 0), "val.r")
    nodes.append(helper.make_node("Reshape", [v, "flat"], ["val.flat"]))
    v = relu(dense("val.flat", net.v1, "val.fc1"), "val.fc1r")
    nodes.append(helper.make_node("Identity", [dense(v, net.v2, "val.fc2")], ["value"]))
    graph = helper.make_graph(
        nodes, "damone",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", PLANES, 8, 8])],
        [helper.make_tensor_value_info("policy", TensorProto.FLOAT, ["n", POLICY]),
         helper.make_tensor_value_info("value", TensorProto.FLOAT, ["n", 3])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def per_second(seconds, f):
    f()
    n, t = 0, time.perf_counter()
    while n < 3 or time.perf_counter() - t < seconds:
        f()
        n += 1
    return n / (time.perf_counter() - t)


def inputs(batch, seed=1):
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(batch, PLANES, 8, 8, generator=g) < 0.2).float()
    mask = torch.full((batch, POLICY), -1e9)
    target = torch.zeros(batch, POLICY)
    for i in range(batch):
        idx = torch.randperm(POLICY, generator=g)[:10]
        mask[i, idx] = 0.0
        target[i, idx] = 0.1
    value = torch.tensor([[0.3, 0.4, 0.3]]).repeat(batch, 1)
    return x, mask, target, value


def torch_infer(net, x, seconds):
    with torch.inference_mode():
        def f():
            p, v = net(x)
            p.numpy(), F.softmax(v, 1).numpy()
        return per_second(seconds, f) * x.shape[0]


def torch_train(blocks, c, hidden, batch, seconds):
    torch.manual_seed(1)
    net = Net(blocks, c, hidden).train()
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    x, mask, target, value = inputs(batch)

    def step():
        p, v = net(x)
        lp = F.log_softmax(p + mask, 1)
        loss = -(target * lp).sum(1).mean() - (value * F.log_softmax(v, 1)).sum(1).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        for prm in net.parameters():
            torch.nn.utils.clip_grad_norm_([prm], 1.0)
        opt.step()
        loss.item()
    return per_second(seconds, step) * batch


def ort_session(model_bytes, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])


def ort_infer(sess, x, seconds):
    xn = x.numpy()

    def f():
        _, v = sess.run(None, {"x": xn})
        e = np.exp(v - v.max(1, keepdims=True))
        e / e.sum(1, keepdims=True)
    return per_second(seconds, f) * x.shape[0]


def damone(binary, config, args, path):
    cmd = [binary, "bench", "--suite", "net", "--csv", "--config", config] + args
    env = dict(os.environ, DAMONE_SIMD=path)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return {(r["what"], int(r["threads"]), int(r["batch"])): float(r["per_second"])
            for r in csv.DictReader(io.StringIO(out))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default="target/release/damone")
    ap.add_argument("--config", default="configs/default.toml")
    ap.add_argument("--batches", default="1,16,64,256")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--train-batch", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--paths", default="auto",
                    help="damone's kernel paths, comma-separated (auto, avx512, avx2, portable: "
                         "DAMONE_SIMD of each run); a path the CPU does not run measures the best below it")
    a = ap.parse_args()
    paths = a.paths.split(",")
    with open(a.config, "rb") as f:
        m = tomllib.load(f).get("model", {})
    blocks, c, hidden = m.get("blocks", 4), m.get("channels", 32), m.get("value_hidden", 64)
    import onnxruntime
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    cpu_model = next((l.split(":", 1)[1].strip() for l in cpu.splitlines() if l.startswith("Model name")), "?")
    print(f"CPU: {cpu_model}")
    print(f"network {blocks}x{c} (value head {hidden}) from {a.config}; "
          f"torch {torch.__version__}, onnxruntime {onnxruntime.__version__}; "
          f"{a.seconds:.0f} s per figure, interleaved")
    torch.manual_seed(1)
    net = Net(blocks, c, hidden).eval()
    model = to_onnx(net, blocks)
    rows = []
    for t in [int(s) for s in a.threads.split(",")]:
        torch.set_num_threads(t)
        sess = ort_session(model, t)
        for b in [int(s) for s in a.batches.split(",")]:
            x = inputs(b)[0]
            pt = torch_infer(net, x, a.seconds)
            on = ort_infer(sess, x, a.seconds)
            for path in paths:
                d = damone(a.binary, a.config, ["--batch", str(b), "--threads", str(t),
                                                "--seconds", str(a.seconds), "--no-train"], path)
                rows.append(("inference", path, t, b, d[("forward", t, b)], d[("evaluator", t, b)], pt, on))
                print(f"  inference {path} threads {t} batch {b:4}: damone {rows[-1][4]:8.0f}  "
                      f"torch {pt:8.0f}  onnxruntime {on:8.0f}", file=sys.stderr)
    for t in [int(s) for s in a.threads.split(",")]:
        torch.set_num_threads(t)
        b = a.train_batch
        pt = torch_train(blocks, c, hidden, b, a.seconds)
        for path in paths:
            d = damone(a.binary, a.config, ["--batch", str(b), "--threads", str(t),
                                            "--seconds", str(a.seconds)], path)
            rows.append(("training", path, t, b, d[("train", t, b)], None, pt, None))
            print(f"  training {path} threads {t} batch {b}: damone {rows[-1][4]:.0f}  torch {pt:.0f}",
                  file=sys.stderr)
    print()
    print("| what | damone path | threads | batch | damone /s | damone evaluator /s | PyTorch eager /s "
          "| ONNX Runtime /s | damone / PyTorch | damone / ONNX Runtime |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for what, path, t, b, d, ev, pt, on in rows:
        print(f"| {what} | {path} | {t} | {b} | {d:,.0f} | {'' if ev is None else f'{ev:,.0f}'} | {pt:,.0f} "
              f"| {'' if on is None else f'{on:,.0f}'} | {d / pt:.2f}x "
              f"| {'' if on is None else f'{d / on:.2f}x'} |")


if __name__ == "__main__":
    main()
