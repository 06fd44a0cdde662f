"""Training steps through ``ftrans.compat.compile`` (``torch.compile`` on ftrans's
compiler) against compat eager, PyTorch eager and PyTorch's ``torch.compile``, in one
process (issue 22).

    PYTHONPATH=. python benchmarks/bench_compat_compile.py            # ~3-4 min (inductor)
    PYTHONPATH=. python benchmarks/bench_compat_compile.py --quick    # a smoke run

Workloads (float32, ``nn.CrossEntropyLoss`` on int64 labels, ``Adam(lr=1e-3)``):

* ``mlp``: W2's 784-512-512-10 tanh MLP as an ``nn.Sequential`` of ``nn.Linear`` /
  ``nn.Tanh``, batch 256, the inputs and labels of ``bench_compat_train.py`` (its
  one-hot labels as class indices) and its weights;
* ``digits-cnn``: ``make_model()`` of ``examples/digits_cnn.py`` (Conv2d-BatchNorm2d-
  ReLU-MaxPool2d twice, Flatten, Dropout(0.25), Linear) in training mode, a batch of 64
  random (1, 8, 8) inputs and random labels.

One step is forward, loss, ``zero_grad()``, ``backward()``, ``Adam.step()``.  Rows:
compat eager, compat ``torch.compile(model)`` (forward: the compiled ftrans program;
backward: its compiled VJP program; the loss and Adam run eagerly), PyTorch eager and
PyTorch ``torch.compile(model)`` (inductor; it needs a C++ compiler: when its first call
fails the row reads "n/a (reason)"; without PyTorch both rows read "n/a").  Every row
starts from the same weights.

``FTRANS_CACHE_DIR`` is set to a fresh temporary directory before ftrans is imported
(and removed at the end), so the first compiled step stages and compiles the forward and
backward programs from nothing: its time is printed as the compile time ("cold").  The
timed row then compiles a second model, which finds the programs in that cache ("warm").
``TORCHINDUCTOR_CACHE_DIR`` is fresh too, so torch.compile's first call (printed) is a
cold compile of the MLP, and of the CNN with what the MLP left in the cache.

Before timing, a compiled and an eager compat model from the same weights and the same
random seed (Dropout's masks) run 3 steps: the max abs differences of the 3 losses, of
the last gradients and of the state_dict after them (parameters and BatchNorm's running
statistics; the worst entry is named) are printed.  In the CNN the worst entry is a
convolution's bias, about lr = 1e-3 apart: each convolution feeds a BatchNorm, which
removes its bias, so that bias's gradient is rounding noise (~1e-8) and Adam's
normalized step turns noise of either sign into steps of +-lr (the gradients agree to
~1e-7).  ``compat._dynamo.explain`` (and ``torch._dynamo.explain``) give each model's
graph count and break count.  Timing as in ``bench_compat_train.py``: warm-up, then
blocks that alternate between the rows; medians and minima per step, and the ratios
compat.compile / torch eager and compat.compile / compat eager.  PyTorch runs with one
thread (``--torch-threads``; 0 keeps its default, the number of cores: on the shared
2-core machine its two threads waited for the busy second core, 300 ms per MLP step
instead of ~12 ms), and OpenBLAS too unless ``OPENBLAS_NUM_THREADS`` is set, as in
``examples/digits_cnn.py`` (importing it sets that default anyway).
"""
from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
import tempfile
import time

# before ftrans and torch are imported: both compilers start from empty caches
_CACHE_DIR = tempfile.mkdtemp(prefix="ftrans-ccbench-")
atexit.register(shutil.rmtree, _CACHE_DIR, ignore_errors=True)
os.environ["FTRANS_CACHE_DIR"] = os.path.join(_CACHE_DIR, "ftrans")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(_CACHE_DIR, "inductor")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # as examples/digits_cnn.py does

import numpy as np  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, ".."))
sys.path.insert(0, os.path.join(_HERE, "..", "examples"))

import ftrans.compat as fc  # noqa: E402
from bench_compat_train import data as mlp_data, timed, torch  # noqa: E402
from digits_cnn import make_model  # noqa: E402
from w5_limit import first_call  # noqa: E402

CNN_BATCH = 64


def mlp_model(nn):
    return nn.Sequential(nn.Linear(784, 512), nn.Tanh(), nn.Linear(512, 512), nn.Tanh(),
                         nn.Linear(512, 10))


def workloads():
    """{name: (model builder taking an ``nn`` namespace, start state_dict as NumPy
    arrays, inputs, int64 labels)}."""
    params, X, Y = mlp_data()
    mlp_state = {}
    for i, k in enumerate((0, 2, 4)):   # data() gives (in, out) weights; Linear's are (out, in)
        mlp_state[f"{k}.weight"] = np.ascontiguousarray(params[2 * i].T)
        mlp_state[f"{k}.bias"] = params[2 * i + 1]
    fc.manual_seed(0)
    cnn_state = {k: v.detach().numpy().copy() for k, v in make_model(fc.nn).state_dict().items()}
    rng = np.random.default_rng(2)
    xc = rng.standard_normal((CNN_BATCH, 1, 8, 8)).astype(np.float32)
    yc = rng.integers(0, 10, CNN_BATCH).astype(np.int64)
    return {"mlp": (mlp_model, mlp_state, X, Y.argmax(1).astype(np.int64)),
            "digits-cnn": (make_model, cnn_state, xc, yc)}


def make_step(T, build, state, X, labels, compiled=False):
    """(step function returning the loss tensor, eager model) for library ``T``, the model
    built with ``T.nn`` from ``state``, wrapped in ``T.compile`` when ``compiled``."""
    model = build(T.nn)
    model.load_state_dict({k: T.from_numpy(v.copy()) for k, v in state.items()})
    model.train()
    run = T.compile(model) if compiled else model
    x, y = T.from_numpy(X.copy()), T.from_numpy(labels.copy())
    loss_fn = T.nn.CrossEntropyLoss()
    opt = T.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        loss = loss_fn(run(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step, model


def check(build, state, X, labels, steps=3):
    """3 steps compiled and eager (compat) from the same start and seed: (seconds of the
    first compiled step, max abs diff of the losses, (max abs diff of the state_dict
    entries, its key), max abs diff of the last gradients)."""
    runs = []
    first = None
    for compiled in (True, False):
        fc.manual_seed(1)
        step, model = make_step(fc, build, state, X, labels, compiled)
        losses = []
        for i in range(steps):
            t = time.perf_counter()
            losses.append(step().item())
            if compiled and i == 0:
                first = time.perf_counter() - t
        runs.append((np.array(losses),
                     {k: v.detach().numpy().astype(np.float64)
                      for k, v in model.state_dict().items()},
                     [p.grad.numpy() for p in model.parameters()]))
    (lc, sc, gcomp), (le, se, geager) = runs
    dstate = max((np.abs(sc[k] - se[k]).max(), k) for k in sc)
    return (first, np.abs(lc - le).max(), dstate,
            max(np.abs(a - b).max() for a, b in zip(gcomp, geager)))


def explain_counts(T, build, state, X):
    """'graphs G, breaks B' of ``T._dynamo.explain`` on a fresh model, or 'n/a (why)'."""
    model = build(T.nn)
    model.load_state_dict({k: T.from_numpy(v.copy()) for k, v in state.items()})
    try:
        e = T._dynamo.explain(model)(T.from_numpy(X.copy()))
    except Exception as exc:  # report and go on
        return f"n/a ({type(exc).__name__}: {str(exc).strip()[:100]})"
    return f"graphs {e.graph_count}, breaks {e.graph_break_count}"


def run_workload(name, spec, blocks, per_block):
    build, state, X, labels = spec
    print(f"\n== {name} (batch {len(X)}, float32, Adam) ==")
    first, dloss, (dstate, key), dgrad = check(build, state, X, labels)
    print(f"compile time, cold (first compiled step, empty FTRANS_CACHE_DIR): {first:.2f} s")
    print(f"check compat.compile vs compat eager, 3 steps from the same start: max abs diff "
          f"of the losses {dloss:.1e}, of the gradients {dgrad:.1e}, of the state_dict "
          f"{dstate:.1e} ({key})")
    print(f"explain: compat {explain_counts(fc, build, state, X)}; torch "
          f"{explain_counts(torch, build, state, X) if torch else 'n/a'}")
    rows, available = {}, {}
    rows["compat eager"] = make_step(fc, build, state, X, labels)[0]
    first_call("compat.compile (warm cache)", make_step(fc, build, state, X, labels, True)[0],
               rows, available)
    if torch is None:
        available["torch eager"] = available["torch.compile"] = "n/a (PyTorch not installed)"
    else:
        rows["torch eager"] = make_step(torch, build, state, X, labels)[0]
        try:
            tstep = make_step(torch, build, state, X, labels, True)[0]
        except Exception as exc:  # torch.compile itself refused the model
            available["torch.compile"] = f"n/a ({type(exc).__name__}: {exc})"
        else:
            first_call("torch.compile", tstep, rows, available)
    for fn in rows.values():   # warm-up: kernels compiled or loaded, BLAS threads up
        for _ in range(3):
            fn()
    s = timed(rows, blocks, per_block, 0.1)
    med = {k: np.median(v) for k, v in s.items()}
    print(f"{blocks} blocks x {per_block} steps per row")
    print(f"{'':30s}{'median':>10s}{'min':>10s}")
    for k, v in s.items():
        print(f"{k:30s}{med[k] * 1e3:8.2f}ms{np.min(v) * 1e3:8.2f}ms")
    for k, why in available.items():
        print(f"{k:30s}{why}")
    cc = med["compat.compile (warm cache)"]
    print(f"ratio compat.compile / compat eager: {cc / med['compat eager']:.2f}")
    if "torch eager" in med:
        print(f"ratio compat.compile / torch eager:  {cc / med['torch eager']:.2f}")
    if "torch.compile" in med:
        print(f"ratio compat.compile / torch.compile: {cc / med['torch.compile']:.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: few samples")
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--per-block", type=int, default=10)
    ap.add_argument("--only", choices=("mlp", "digits-cnn"), default=None,
                    help="one workload (default: both)")
    ap.add_argument("--torch-threads", type=int, default=1,
                    help="torch.set_num_threads(N); 0: PyTorch's own default (default 1)")
    args = ap.parse_args(argv)
    blocks, per_block = (2, 3) if args.quick else (args.blocks, args.per_block)
    if torch is None:
        print("PyTorch is not installed: its rows are skipped")
    elif args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    torch_v = f"{torch.__version__} ({torch.get_num_threads()} threads)" if torch else "n/a"
    print(f"torch {torch_v}, numpy "
          f"{np.__version__}, OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, "
          f"fresh FTRANS_CACHE_DIR and TORCHINDUCTOR_CACHE_DIR under {_CACHE_DIR}")
    for name, spec in workloads().items():
        if args.only in (None, name):
            run_workload(name, spec, blocks, per_block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
