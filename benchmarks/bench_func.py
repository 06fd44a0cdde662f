"""``compat.func`` against ``torch.func`` in one process: torch's per-sample-gradients
recipe and model ensembling.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_func.py     # ~15 s

Rows (float32, batch 64, PyTorch single-threaded, ``torch.set_num_threads(1)``; run with
``OPENBLAS_NUM_THREADS=1`` for ftrans's single thread):

* ``psg-mlp``: ``vmap(grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers,
  data, targets)`` with ``functional_call`` and ``cross_entropy`` of a 16-32-10 ReLU MLP;
* ``psg-cnn``: the same for a digits-sized CNN (8x8 inputs: Conv2d(1, 8, 3) - ReLU -
  MaxPool2d - Conv2d(8, 16, 3) - ReLU - MaxPool2d - Flatten - Linear(64, 32) - ReLU -
  Linear(32, 10));
* ``psg-digits``: the same for ``examples/digits_cnn.py``'s model in eval mode
  (Conv2d(1, 16, 3) - BatchNorm2d - ReLU - MaxPool2d - Conv2d(16, 32, 3) - BatchNorm2d -
  ReLU - MaxPool2d - Flatten - Dropout - Linear(128, 10));
* ``ensemble``: 5 MLPs stacked with ``stack_module_state``, ``vmap(fmodel, in_dims=(0, 0,
  None))`` over one minibatch (parameters requiring grad, as in torch's tutorial).

Both libraries run the same model (torch's initialization loaded into compat); the
results are compared first (max abs difference printed).  Figures: the best of 7 timed
calls after one warm-up, in milliseconds, and the ratio compat / torch.
"""
from __future__ import annotations

import time

import numpy as np
import torch as T

import ftrans.compat as C

T.set_num_threads(1)


def _best(fn, n=7):
    fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts) * 1e3


def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(16, 32), lib.nn.ReLU(), lib.nn.Linear(32, 10))


def _cnn(lib):
    n = lib.nn
    return n.Sequential(n.Conv2d(1, 8, 3, padding=1), n.ReLU(), n.MaxPool2d(2),
                        n.Conv2d(8, 16, 3, padding=1), n.ReLU(), n.MaxPool2d(2),
                        n.Flatten(), n.Linear(64, 32), n.ReLU(), n.Linear(32, 10))


def _digits(lib):
    n = lib.nn
    return n.Sequential(
        n.Conv2d(1, 16, 3, padding=1), n.BatchNorm2d(16), n.ReLU(), n.MaxPool2d(2),
        n.Conv2d(16, 32, 3, padding=1), n.BatchNorm2d(32), n.ReLU(), n.MaxPool2d(2),
        n.Flatten(), n.Dropout(0.25), n.Linear(32 * 2 * 2, 10))


def _pair(build, seed=0):
    T.manual_seed(seed)
    tm = build(T).eval()
    cm = build(C).eval()
    cm.load_state_dict({k: C.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, cm


def _np(tree):
    if isinstance(tree, dict):
        return [np.asarray(v.detach().numpy()) for _, v in sorted(tree.items())]
    return [np.asarray(tree.detach().numpy())]


def psg(lib, model, data, targets):
    fn = lib.func
    F = lib.nn.functional
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(p, b, x, t):
        out = fn.functional_call(model, (p, b), (x.unsqueeze(0),))
        return F.cross_entropy(out, t.unsqueeze(0))
    f = fn.vmap(fn.grad(compute_loss), in_dims=(None, None, 0, 0))
    return lambda: f(params, buffers, data, targets)


def ensemble(lib, models, base, x):
    fn = lib.func
    params, buffers = fn.stack_module_state(models)
    f = fn.vmap(lambda p, b, x: fn.functional_call(base, (p, b), (x,)), in_dims=(0, 0, None))
    return lambda: f(params, buffers, x)


def main():
    rng = np.random.default_rng(0)
    rows = []
    for name, build, shape in (("psg-mlp", _mlp, (16,)), ("psg-cnn", _cnn, (1, 8, 8)),
                               ("psg-digits", _digits, (1, 8, 8))):
        tm, cm = _pair(build)
        x = rng.standard_normal((64,) + shape).astype(np.float32)
        y = rng.integers(0, 10, 64)
        rows.append((name, psg(T, tm, T.tensor(x), T.tensor(y)),
                     psg(C, cm, C.tensor(x), C.tensor(y))))
    pairs = [_pair(_mlp, s) for s in range(5)]
    x = rng.standard_normal((64, 16)).astype(np.float32)
    rows.append(("ensemble", ensemble(T, [p[0] for p in pairs], _mlp(T), T.tensor(x)),
                 ensemble(C, [p[1] for p in pairs], _mlp(C), C.tensor(x))))
    print(f"torch {T.__version__}, torch threads {T.get_num_threads()}")
    print(f"{'workload':10} {'compat ms':>10} {'torch ms':>10} {'ratio':>7} {'max|diff|':>10}")
    for name, tf, cf in rows:
        diff = max(float(np.max(np.abs(a - b))) for a, b in zip(_np(tf()), _np(cf())))
        tt, ct = _best(tf), _best(cf)
        print(f"{name:10} {ct:10.2f} {tt:10.2f} {ct / tt:7.2f} {diff:10.1e}")


if __name__ == "__main__":
    main()
