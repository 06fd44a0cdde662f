"""Training steps through ``ftrans.compat.nn`` modules against PyTorch eager.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_nn.py [--steps 40] [--only mlp]

Workloads (float32, cross-entropy loss):

* ``digits-cnn``: the CNN of ``examples/digits_cnn.py`` (Conv2d-BatchNorm2d-ReLU-
  MaxPool2d twice, Dropout, Linear) on a batch of 64 8x8 images;
* ``mlp``: W2's 784-512-512-10 tanh MLP as ``nn.Sequential`` of ``nn.Linear``/``nn.Tanh``,
  batch 256 (``benchmarks/bench_compat_train.py`` times the same step on plain tensors).

One step is ``zero_grad``, forward, loss, ``backward`` and an optimizer step (``Adam``
from ``ftrans.compat.optim`` when it is importable, else a plain SGD update written the
same way in both libraries).  Prints, per workload, the best and median CPU time
(``time.process_time``: robust on a shared machine) of each library and the ratio.
PyTorch runs with one thread, as does OpenBLAS when started as above.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import ftrans.compat as fc

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def digits_cnn(T):
    nn = T.nn
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32),
                         nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2),
                         nn.Linear(128, 10))


def mlp(T):
    nn = T.nn
    return nn.Sequential(nn.Linear(784, 512), nn.Tanh(), nn.Linear(512, 512), nn.Tanh(),
                         nn.Linear(512, 10))


WORKLOADS = {"digits-cnn": (digits_cnn, (64, 1, 8, 8)), "mlp": (mlp, (256, 784))}


def _compat_has_adam():
    try:
        from ftrans.compat import optim
    except ImportError:
        return False
    return hasattr(optim, "Adam")


USE_ADAM = _compat_has_adam()


def _optimizer(T, params):
    """Adam in both libraries when compat has it, else None (SGD by hand in both)."""
    if USE_ADAM:
        optim = fc.optim if T is fc else T.optim
        return optim.Adam(params, lr=1e-3), "Adam"
    return None, "SGD by hand"


def time_steps(T, make, shape, steps):
    rng = np.random.default_rng(0)
    x = T.tensor(rng.standard_normal(shape).astype(np.float32))
    y = T.tensor(rng.integers(0, 10, shape[0]))
    model = make(T)
    params = list(model.parameters())
    opt, kind = _optimizer(T, params)
    loss_fn = T.nn.CrossEntropyLoss()

    def step():
        if opt is not None:
            opt.zero_grad()
        else:
            for p in params:
                p.grad = None
        loss = loss_fn(model(x), y)
        loss.backward()
        if opt is not None:
            opt.step()
        else:
            with T.no_grad():
                for p in params:
                    p.sub_(p.grad * 1e-2)
    for _ in range(5):
        step()
    ts = []
    for _ in range(steps):
        t0 = time.process_time()
        step()
        ts.append(time.process_time() - t0)
    return np.min(ts) * 1e3, np.median(ts) * 1e3, kind


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--only", choices=sorted(WORKLOADS), help="time one workload only")
    args = ap.parse_args(argv)
    if torch is not None:
        torch.set_num_threads(1)
    for name, (make, shape) in WORKLOADS.items():
        if args.only and name != args.only:
            continue
        fmin, fmed, kind = time_steps(fc, make, shape, args.steps)
        line = f"{name:11s} ({kind}): ftrans.compat best {fmin:7.2f} ms median {fmed:7.2f} ms"
        if torch is not None:
            tmin, tmed, _ = time_steps(torch, make, shape, args.steps)
            line += (f" | torch best {tmin:7.2f} ms median {tmed:7.2f} ms | ratio best "
                     f"{fmin / tmin:5.2f} median {fmed / tmed:5.2f}")
        print(line)


if __name__ == "__main__":
    main()
