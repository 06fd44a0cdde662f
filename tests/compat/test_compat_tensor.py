"""``Tensor`` basics: factories, dtypes and promotion, attributes, conversions, printing.

Written from PyTorch's documentation; runs without PyTorch (the differential versions
are in ``test_compat_ops_diff.py``).
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import ftrans.compat as torch
from compat_diff import assert_same, needs_torch


def test_import_as_torch_runs_ordinary_code():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x ** 2).sum()
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    assert isinstance(x, torch.Tensor) and torch.is_tensor(x)


@pytest.mark.parametrize("data, dtype", [
    ([1.0, 2.0], torch.float32), ([1, 2], torch.int64), (True, torch.bool),
    (1j, torch.complex64), ([[1, 2.5]], torch.float32), (np.ones(2), torch.float64),
    (np.ones(2, np.float32), torch.float32), (np.arange(3), torch.int64), (3.0, torch.float32),
])
def test_tensor_infers_dtype_as_torch(data, dtype):
    assert torch.tensor(data).dtype is dtype


def test_default_dtype_is_float32_and_settable():
    assert torch.get_default_dtype() is torch.float32
    assert torch.zeros(2).dtype is torch.float32
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.ones(2).dtype is torch.float64
        assert torch.tensor([1.5]).dtype is torch.float64
        assert torch.tensor(1j).dtype is torch.complex128
    finally:
        torch.set_default_dtype(torch.float32)
    with pytest.raises(TypeError):
        torch.set_default_dtype(torch.int64)


def test_factories():
    assert torch.zeros(2, 3).shape == (2, 3)
    assert torch.zeros((2, 3)).shape == torch.Size([2, 3])
    assert torch.ones(4).tolist() == [1.0] * 4
    assert torch.empty(2, 2).shape == (2, 2)
    assert torch.full((2,), 7).dtype is torch.int64
    assert torch.full((2,), 7.0).tolist() == [7.0, 7.0]
    assert torch.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert torch.arange(5).dtype is torch.int64
    assert torch.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert torch.arange(1.0, 3.0).dtype is torch.float32
    assert torch.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert torch.eye(3).sum().item() == 3.0
    assert torch.eye(2, 3).shape == (2, 3)
    x = torch.randn(3, 4, dtype=torch.float64)
    assert x.dtype is torch.float64 and x.shape == (3, 4)
    r = torch.rand(1000)
    assert 0 <= r.min().item() and r.max().item() < 1
    for f in (torch.zeros_like, torch.ones_like, torch.empty_like, torch.rand_like,
              torch.randn_like):
        assert f(x).shape == x.shape and f(x).dtype is torch.float64
    assert torch.full_like(x, 2.0).sum().item() == 24.0
    assert torch.zeros(2, requires_grad=True).requires_grad
    assert torch.randint(0, 3, (5,)).dtype is torch.int64


def test_manual_seed_reproducible():
    torch.manual_seed(3)
    a = torch.randn(5)
    torch.manual_seed(3)
    b = torch.randn(5)
    assert torch.equal(a, b)


def test_from_numpy_shares_memory_and_tensor_copies():
    a = np.zeros(3)
    t = torch.from_numpy(a)
    a[0] = 5
    assert t[0].item() == 5
    c = torch.tensor(a)
    a[1] = 7
    assert c[1].item() == 0
    assert torch.as_tensor(a).numpy() is a


def test_attributes():
    x = torch.ones(2, 3, 4)
    assert x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert x.dim() == 3 == x.ndim
    assert x.numel() == 24
    assert repr(x.shape) == "torch.Size([2, 3, 4])"
    assert repr(x.device) == "device(type='cpu')"
    assert x.device == torch.device("cpu")
    assert x.dtype.is_floating_point and not x.dtype.is_complex
    assert x.is_floating_point() and not x.is_complex()
    assert x.type() == "torch.FloatTensor"
    assert x.is_contiguous() and not x.transpose(0, 1).is_contiguous()
    assert torch.ones(2, dtype=torch.complex128).is_complex()


def test_conversions():
    x = torch.tensor([[1.5, 2.0], [3.0, 4.0]])
    assert x.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert torch.tensor(2.5).item() == 2.5
    assert float(torch.tensor([3.0])) == 3.0
    assert int(torch.tensor(4)) == 4
    assert isinstance(x.numpy(), np.ndarray)
    assert x.long().dtype is torch.int64 and x.double().dtype is torch.float64
    assert x.to(torch.float64).dtype is torch.float64
    assert x.to(torch.zeros(1, dtype=torch.int32)).dtype is torch.int32
    assert x.to("cpu") is x
    assert x.float() is x
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        x.item()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(x)
    with pytest.raises(RuntimeError, match="detach"):
        torch.ones(2, requires_grad=True).numpy()
    assert np.asarray(x).shape == (2, 2)
    assert [t.tolist() for t in torch.tensor([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]
    assert len(x) == 2


def test_printing_like_torch():
    assert repr(torch.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(torch.tensor([1.3818, 0.077])) == "tensor([1.3818, 0.0770])"
    assert repr(torch.tensor([1.0, 2.0], requires_grad=True)) == \
        "tensor([1., 2.], requires_grad=True)"
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr(torch.tensor(2.5, dtype=torch.float64)) == "tensor(2.5000, dtype=torch.float64)"
    assert repr(torch.arange(3)) == "tensor([0, 1, 2])"
    assert repr(torch.float32) == "torch.float32" and str(torch.int64) == "torch.int64"


@pytest.mark.parametrize("make, expected", [
    (lambda: torch.ones(2, dtype=torch.int64) / 2, torch.float32),
    (lambda: torch.ones(2, dtype=torch.int64) / torch.ones(2, dtype=torch.int64), torch.float32),
    (lambda: torch.ones(2) + torch.tensor(1.0, dtype=torch.float64), torch.float32),
    (lambda: torch.ones(2, dtype=torch.int64) + torch.tensor(1.0, dtype=torch.float64),
     torch.float64),
    (lambda: torch.ones(2) + 1j, torch.complex64),
    (lambda: torch.ones(2, dtype=torch.float64) + 1j, torch.complex128),
    (lambda: torch.ones(2, dtype=torch.int64) * 1.5, torch.float32),
    (lambda: torch.ones(2, dtype=torch.bool) + 1, torch.int64),
    (lambda: torch.ones(2, dtype=torch.float64) * torch.ones(2), torch.float64),
    (lambda: torch.ones(2, dtype=torch.int32) + torch.ones(2, dtype=torch.int64), torch.int64),
    (lambda: torch.ones(2, dtype=torch.int64).sin(), torch.float32),
    (lambda: torch.ones(2, dtype=torch.int32).sum(), torch.int64),
    (lambda: torch.ones(2, dtype=torch.float16) * 2.0, torch.float16),
])
def test_type_promotion_follows_torch(make, expected):
    """Category (bool < int < float < complex) beats priority (dimensioned tensors >
    0-d tensors > Python numbers); Python floats contribute the default dtype."""
    assert make().dtype is expected


def test_promote_types():
    assert torch.promote_types(torch.int64, torch.float32) is torch.float32
    assert torch.promote_types(torch.float32, torch.float64) is torch.float64
    assert torch.promote_types(torch.int32, torch.complex64) is torch.complex64
    assert torch.promote_types(torch.uint8, torch.int8) is torch.int16
    assert torch.result_type(torch.ones(2, dtype=torch.int32), 2.5) is torch.float32


def test_float32_stays_float32_through_backward():
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    y = (x.sin() * 0.3 + x.exp() / 2).sum()
    y.backward()
    assert y.dtype is torch.float32 and x.grad.dtype is torch.float32


def test_hash_and_containers():
    a, b = torch.ones(1), torch.ones(1)
    assert len({a, b}) == 2
    assert (a == b).item()
    assert (a == None) is False  # noqa: E711


def test_deepcopy_and_pickle_of_leaves():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = copy.deepcopy(x)
    assert y is not x and y.requires_grad and torch.equal(x.detach(), y.detach())
    z = pickle.loads(pickle.dumps(x))
    assert z.requires_grad and z.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError):
        copy.deepcopy(x * 2)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present: device='cuda' works")
def test_unsupported_device_is_an_error():
    # PyTorch's CPU builds raise AssertionError("Torch not compiled with CUDA enabled")
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch.zeros(2, device="cuda")


@needs_torch
@pytest.mark.parametrize("expr", [
    "T.tensor([1., 2.])", "T.tensor([[1, 2], [3, 4]])", "T.tensor(3.5)", "T.tensor([True, False])",
    "T.zeros(2, 3)", "T.ones((2,), dtype=T.float64)", "T.arange(6).reshape(2, 3)",
    "T.arange(0., 1., 0.2)", "T.linspace(0, 1, 5)", "T.eye(3, 2)", "T.full((2, 2), 1.5)",
    "T.tensor([1e-6, 1.0])", "T.tensor([[1.5, -2.0]], dtype=T.float64) * 3",
    "T.tensor([1., 2.], requires_grad=True) * 2",
])
def test_factories_and_repr_match_torch(expr):
    assert_same(lambda T: (eval(expr), repr(eval(expr))))


_NP_DATA = [np.float64(1.5), np.float32(1.5), np.complex128(1j), np.int32(3), np.bool_(True),
            [np.float32(1.0), 2.0], [np.float64(1.0), 2.0], [np.int32(1), 2], [np.int32(1), 2.0],
            [1, np.float16(2)], [True, np.int8(3)], [np.complex64(1j), 2.0],
            [np.float64(1.0), 1j], [[1, 2], [np.float64(3), 4]], [np.uint8(3), 4], [1j, 1]]


@needs_torch
@pytest.mark.parametrize("k", range(len(_NP_DATA)))
def test_tensor_dtype_inference_with_numpy_scalars(k):
    from compat_diff import assert_same
    assert_same(lambda T: T.tensor(_NP_DATA[k]).dtype)


@needs_torch
def test_inference_tensor_has_no_version_counter():
    def snippet(T):
        with T.inference_mode():
            t = T.ones(2)
        return t._version
    assert_same(snippet, message="Inference tensors do not track version counter")
