"""compat.cuda without a GPU (PyTorch CPU-build behaviour), default device/dtype,
``out=`` arguments and utils.benchmark.Timer."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftrans.compat as fc

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed: differential "
                                                       "tests against it are skipped")
no_gpu = pytest.mark.skipif(fc.cuda.is_available(), reason="a GPU is present")


def _err(fn):
    try:
        fn()
    except BaseException as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


CUDA_CALLS = {
    "factory": lambda T: T.zeros(2, device="cuda"),
    "tensor": lambda T: T.tensor([1.0], device="cuda:0"),
    "method": lambda T: T.ones(2).cuda(),
    "to": lambda T: T.ones(2).to("cuda"),
    "to_device": lambda T: T.ones(2).to(T.device("cuda")),
    "current_device": lambda T: T.cuda.current_device(),
    "synchronize": lambda T: T.cuda.synchronize(),
}


@no_gpu
@needs_torch
@pytest.mark.parametrize("call", list(CUDA_CALLS))
def test_cuda_errors_match_torch_cpu_build(call):
    if torch.cuda.is_available():
        pytest.skip("this torch has CUDA")
    ours, ref = _err(lambda: CUDA_CALLS[call](fc)), _err(lambda: CUDA_CALLS[call](torch))
    assert ours == ref == ("AssertionError", "Torch not compiled with CUDA enabled")


@no_gpu
def test_cuda_queries_without_gpu():
    assert fc.cuda.is_available() is False and fc.cuda.device_count() == 0
    fc.cuda.manual_seed(0)          # no-ops, as in a CPU build of PyTorch
    fc.cuda.manual_seed_all(0)
    fc.cuda.empty_cache()
    x = fc.ones(2, requires_grad=True)
    assert x.device == fc.device("cpu") and not x.is_cuda
    assert x.cpu() is x and x.to("cpu") is x


@pytest.mark.skipif(not fc.cuda.is_available(), reason="needs CuPy and an NVIDIA GPU")
def test_cuda_tensors_are_cupy_arrays():  # pragma: no cover - GPU machines only
    import cupy
    x = fc.ones(3, device="cuda", requires_grad=True)
    assert isinstance(x._data, cupy.ndarray) and x.device.type == "cuda" and x.is_cuda
    y = fc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = y.cuda()
    assert isinstance(z._data, cupy.ndarray)
    (z.cpu() * 2).sum().backward()
    assert y.grad.tolist() == [2.0, 2.0, 2.0]


def test_device_copy_gradient_goes_back_to_the_source_device():
    """``ToCopyBackward0`` of a host -> GPU copy hands the host its gradient: a GPU array
    (here a stand-in with CuPy's ``get``) comes back as a NumPy array, a host cotangent
    passes through.  (The GPU -> host direction needs CuPy: the GPU test above.)"""
    from ftrans.compat._join_ops import _copy_back_bwd

    class Node:
        _params = {"source": "cpu"}

    class GpuArray:
        def get(self):
            return np.arange(3.0)

    (g,) = _copy_back_bwd(Node(), GpuArray(), None, None, (True,))
    assert type(g) is np.ndarray and g.tolist() == [0.0, 1.0, 2.0]
    host = np.ones(2)
    assert _copy_back_bwd(Node(), host, None, None, (True,))[0] is host


def test_default_device_and_dtype():
    assert fc.get_default_device() == fc.device("cpu")
    fc.set_default_device("cpu")
    assert fc.zeros(1).device == fc.device("cpu")
    if not fc.cuda.is_available():
        fc.set_default_device("cuda")
        try:
            with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
                fc.zeros(2)
        finally:
            fc.set_default_device(None)
    assert fc.get_default_device() == fc.device("cpu")
    fc.set_default_dtype(fc.float64)
    try:
        assert fc.zeros(2).dtype == fc.float64 and fc.tensor([1.0]).dtype == fc.float64
        assert fc.randn(2).dtype == fc.float64 and fc.arange(0.0, 1.0, 0.5).dtype == fc.float64
        assert fc.get_default_dtype() == fc.float64
    finally:
        fc.set_default_dtype(fc.float32)
    assert fc.ones(1).dtype == fc.float32
    with pytest.raises(TypeError):
        fc.set_default_dtype(fc.int64)


OUT_CASES = {
    "add": lambda T, o: T.add(T.ones(2, 2), 1, alpha=2, out=o),
    "mul": lambda T, o: T.mul(T.arange(4.0).reshape(2, 2), 3, out=o),
    "matmul": lambda T, o: T.matmul(T.ones(2, 3), T.ones(3, 2), out=o),
    "sum": lambda T, o: T.sum(T.arange(4.0).reshape(2, 2), 0, out=o),
    "mean": lambda T, o: T.mean(T.arange(6.0).reshape(2, 3), 1, out=o),
    "exp": lambda T, o: T.exp(T.zeros(2, 2), out=o),
    "cat": lambda T, o: T.cat([T.ones(1, 2), T.zeros(1, 2)], out=o),
    "stack": lambda T, o: T.stack([T.ones(2), T.zeros(2)], out=o),
    "clamp": lambda T, o: T.clamp(T.arange(4.0).reshape(2, 2), 1, 2, out=o),
    "where": lambda T, o: T.where(T.eye(2) > 0, T.ones(2, 2), T.zeros(2, 2), out=o),
}


def _snap(t):
    return (str(t.dtype), tuple(t.shape), np.array(t.detach().numpy()).tolist())


_CASTING = ("add", "mul", "exp")   # elementwise: cast "same kind"; the others: exact dtype


@needs_torch
@pytest.mark.parametrize("name", list(OUT_CASES))
@pytest.mark.parametrize("out", ["same", "f64", "resize", "int"])
def test_out_matches_torch(name, out):
    if out == "int" and name not in _CASTING:
        pytest.skip("reductions/concatenations have per-function rules for an integer out")
    def run(T):
        o = {"same": T.zeros(2, 2), "f64": T.zeros(2, 2, dtype=T.float64),
             "resize": T.zeros(0), "int": T.zeros(2, 2, dtype=T.int64)}[out]
        v0 = o._version
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = OUT_CASES[name](T, o)
            except RuntimeError as e:
                return ("err", str(e) if name in _CASTING else "")
        return (r is o, o._version > v0, _snap(o))
    assert run(fc) == run(torch)


@needs_torch
def test_out_refuses_autograd_like_torch():
    for T in (fc, torch):
        x = T.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            T.exp(x, out=T.zeros(2))
        with T.no_grad():
            y = T.zeros(2, requires_grad=True)
            T.exp(T.zeros(2), out=y)
        assert y.tolist() == [1.0, 1.0]
    with pytest.warns(UserWarning, match="was resized"):
        fc.add(fc.ones(2), 1, out=fc.zeros(3))


def test_benchmark_timer():
    from ftrans.compat.utils.benchmark import Timer
    x = fc.ones(3)
    t = Timer("x + x", setup="y = 1", globals={"x": x}, label="add", sub_label="small",
              description="3 floats")
    m = t.timeit(50)
    assert m.number_per_run == 50 and len(m.raw_times) == 1 and m.mean > 0
    assert m.median == m.mean and m.iqr == 0.0
    text = repr(m).splitlines()
    assert text[0].startswith("<ftrans.compat.utils.benchmark.Measurement object")
    assert text[1:4] == ["add: small", "3 floats", "setup: y = 1"]
    assert text[5] == "  1 measurement, 50 runs , 1 thread"
    m = t.blocked_autorange(min_run_time=0.02)
    assert len(m.times) >= 1 and sum(m.raw_times) >= 0.02
    lines = repr(m).splitlines()
    assert lines[4].startswith("  Median: ")
    if len(m.times) >= 4:
        assert lines[5].startswith("  IQR:    ")
    assert m.times == [r / m.number_per_run for r in m.raw_times]
    assert min(m.times) <= m.median <= max(m.times)
    with pytest.raises(ValueError):
        Timer(lambda: 0)
