"""compat.save / compat.load: PyTorch's zip checkpoint format, both ways against torch
(where installed), weights_only refusal, .npz, file objects."""
from __future__ import annotations

import collections
import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import ftrans.compat as fc

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed: differential "
                                                       "tests against it are skipped")
DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128"]


def _arr(dt, shape=(3, 4)):
    a = np.arange(int(np.prod(shape))).reshape(shape) - 5
    if dt == "bool":
        return a % 3 == 0
    if dt.startswith("complex"):
        return (a + 0.5j * a[::-1]).astype(dt)
    if dt == "uint8":
        return (a + 5).astype(dt)
    return (a * (0.25 if dt.startswith("float") else 1)).astype(dt)


def _same(a, b):
    """``a`` (torch or compat tensor) equals ``b``: dtype, shape, values, requires_grad."""
    assert str(a.dtype) == str(b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    assert a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_roundtrip_here(tmp_path):
    x = fc.tensor(_arr("float64"))
    obj = collections.OrderedDict(
        w=x, wt=x.t(), row=x[1], col=x[:, 2], i=fc.tensor(_arr("int64")),
        rg=fc.tensor([1.0, 2.0], requires_grad=True), scalar=fc.tensor(3.5),
        empty=fc.zeros(0, 3), nested={"a": [1, 2.5, "s", (None, True)], "t": (x, 3)},
        dt=fc.float16, size=fc.Size([2, 3]), dev=fc.device("cpu"), b=b"xy")
    p = tmp_path / "ck.pt"
    fc.save(obj, p)
    r = fc.load(p)
    assert type(r) is collections.OrderedDict and list(r) == list(obj)
    for k in ("w", "wt", "row", "col", "i", "rg", "scalar", "empty"):
        _same(r[k], obj[k])
    assert r["nested"]["a"] == [1, 2.5, "s", (None, True)] and r["nested"]["t"][1] == 3
    _same(r["nested"]["t"][0], x)
    assert r["dt"] is fc.float16 and r["size"] == fc.Size([2, 3]) and r["b"] == b"xy"
    assert isinstance(r["size"], fc.Size) and r["dev"] == fc.device("cpu")
    # views of one array share one storage: writing through one shows in the others
    with fc.no_grad():
        r["w"][1, 2] = 100.0
    assert r["wt"][2, 1].item() == 100.0 and r["row"][2].item() == 100.0
    assert r["nested"]["t"][0][1, 2].item() == 100.0
    names = zipfile.ZipFile(p).namelist()
    assert names[0] == "ck/data.pkl" and "ck/version" in names and "ck/byteorder" in names


def test_file_objects_and_errors(tmp_path):
    buf = io.BytesIO()
    fc.save([fc.ones(2), {"k": fc.arange(3)}], buf)
    buf.seek(0)
    r = fc.load(buf)
    assert r[0].tolist() == [1.0, 1.0] and r[1]["k"].tolist() == [0, 1, 2]
    with pytest.raises(FileNotFoundError):
        fc.load(tmp_path / "missing.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a zip")
    with pytest.raises(RuntimeError, match="not a PyTorch zip checkpoint"):
        fc.load(tmp_path / "junk.pt")
    buf.seek(0)
    assert fc.load(buf, map_location="cpu")[0].tolist() == [1.0, 1.0]
    buf.seek(0)
    assert fc.load(buf, map_location=fc.device("cpu"))[0].tolist() == [1.0, 1.0]


class Custom:
    def __init__(self):
        self.a = 1


def test_weights_only_refuses_arbitrary_objects(tmp_path):
    p = tmp_path / "c.pt"
    fc.save({"c": Custom(), "t": fc.ones(1)}, p)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as e:
        fc.load(p)
    assert f"Unsupported global: GLOBAL {__name__}.Custom" in str(e.value)
    r = fc.load(p, weights_only=False)
    assert isinstance(r["c"], Custom) and r["c"].a == 1
    with fc.serialization.safe_globals([Custom]):
        assert fc.load(p)["c"].a == 1
    with pytest.raises(pickle.UnpicklingError):
        fc.load(p)
    # a classic pickle exploit is refused before anything runs
    evil = io.BytesIO()
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("a/data.pkl", b"cos\nsystem\n(S'echo hacked'\ntR.")
        z.writestr("a/version", "3\n")
    evil.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="os.system"):
        fc.load(evil)


@needs_torch
@pytest.mark.parametrize("value", [{1, 2}, frozenset([1]), 1 + 2j, b"ab", bytearray(b"x"),
                                   slice(1, 2), range(3)], ids=repr)
def test_weights_only_allow_list_matches_torch(tmp_path, value):
    p = tmp_path / "v.pt"
    torch.save({"v": value}, p)

    def outcome(load):
        try:
            return ("ok", load(p)["v"])
        except pickle.UnpicklingError as e:
            return ("refused", str(e).split("WeightsUnpickler error: ")[1].split(" was")[0])
    assert outcome(fc.load) == outcome(torch.load)


def test_npz(tmp_path):
    sd = {"layer": {"weight": fc.ones(2, 3), "bias": fc.zeros(3)}, "step": fc.tensor(4)}
    p = str(tmp_path / "m.npz")
    fc.save(sd, p)
    r = fc.load(p)
    assert set(r) == {"layer.weight", "layer.bias", "step"}
    assert r["layer.weight"].shape == (2, 3) and r["step"].dtype == fc.int64
    assert set(np.load(p).files) == set(r)
    with pytest.raises(TypeError, match="dict of tensors"):
        fc.save([fc.ones(1)], str(tmp_path / "x.npz"))


@needs_torch
@pytest.mark.parametrize("dt", DTYPES)
def test_torch_save_compat_load(tmp_path, dt):
    base = torch.tensor(_arr(dt))
    obj = {"c": base, "t": base.t(), "s": base[1:, ::2], "e": base[0].expand(2, 4),
           "p": torch.nn.Parameter(torch.ones(2, dtype=torch.float64)),
           "od": collections.OrderedDict(a=base[2], n=1.5), "dt": getattr(torch, dt)}
    p = tmp_path / "t.pt"
    torch.save(obj, p)
    r = fc.load(p)
    for k in ("c", "t", "s", "e", "p"):
        _same(r[k], obj[k])
    _same(r["od"]["a"], obj["od"]["a"])
    assert type(r["od"]) is collections.OrderedDict and r["od"]["n"] == 1.5
    assert r["dt"] is getattr(fc, dt)
    assert tuple(r["t"].stride()) == tuple(obj["t"].stride())
    assert np.shares_memory(r["t"].numpy(), r["c"].numpy())


@needs_torch
@pytest.mark.parametrize("dt", DTYPES)
def test_compat_save_torch_load(tmp_path, dt):
    base = fc.tensor(_arr(dt))
    rg = dt.startswith(("float", "complex"))
    obj = {"c": base, "t": base.t(), "s": base[1:, ::2], "flip": base.flip(0),
           "rg": fc.tensor(_arr(dt), requires_grad=rg),
           "l": [base[0], (base[2], "x")], "dt": getattr(fc, dt), "size": fc.Size([1, 2])}
    p = tmp_path / "c.pt"
    fc.save(obj, p)
    r = torch.load(p)          # weights_only=True: our file holds only allowed globals
    for k in ("c", "t", "s", "flip", "rg"):
        _same(obj[k], r[k])
    _same(obj["l"][0], r["l"][0])
    _same(obj["l"][1][0], r["l"][1][0])
    assert r["dt"] is getattr(torch, dt) and r["size"] == torch.Size([1, 2])
    assert r["t"].data_ptr() == r["c"].data_ptr()          # one storage, as saved
    assert tuple(r["s"].stride()) == tuple(obj["s"].stride())
    r["c"][0, 0] = 1
    assert r["t"][0, 0].item() == 1


@needs_torch
def test_state_dict_roundtrip_with_torch_module(tmp_path):
    """A state dict saved by a real torch module loads here, is modified, saved, and loads
    back into the torch module."""
    m = torch.nn.Linear(3, 2)
    p = tmp_path / "sd.pt"
    torch.save(m.state_dict(), p)
    sd = fc.load(p)
    assert list(sd) == ["weight", "bias"]
    with fc.no_grad():
        sd["weight"].mul_(2)
    fc.save(sd, p)
    sd2 = torch.load(p)
    want = m.weight.detach() * 2
    m.load_state_dict(sd2)
    torch.testing.assert_close(m.weight.detach(), want)
    buf = io.BytesIO()
    torch.save(torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9).state_dict(), buf)
    buf.seek(0)
    osd = fc.load(buf)
    assert osd["param_groups"][0]["lr"] == 0.1 and osd["param_groups"][0]["params"] == [0, 1]


def test_cuda_location_without_cuda(tmp_path):
    if fc.cuda.is_available():
        pytest.skip("a GPU is present")
    p = tmp_path / "c.pt"
    fc.save(fc.ones(1), p)
    with pytest.raises(RuntimeError, match="torch.cuda.is_available\\(\\) is False"):
        fc.load(p, map_location={"cpu": "cuda:0"})
    assert os.path.exists(p)


@needs_torch
def test_optimizer_checkpoint_both_ways(tmp_path):
    """A training checkpoint (parameters + Adam state) written by one library resumes in
    the other with the same trajectory."""
    w0 = np.array([[0.5, -1.0], [2.0, 0.3]])

    def setup(T, w):
        p = T.tensor(w, dtype=T.float64, requires_grad=True)
        return p, T.optim.Adam([p], lr=0.1, amsgrad=True)

    def steps(T, p, opt, n):
        for _ in range(n):
            opt.zero_grad()
            ((p ** 3).sum() + p.sin().sum()).backward()
            opt.step()
        return p.detach().numpy().copy()

    for src, dst in ((fc, torch), (torch, fc)):
        p, opt = setup(src, w0)
        steps(src, p, opt, 3)
        path = tmp_path / f"{src.__name__}.pt"
        src.save({"model": {"w": p.detach()}, "optim": opt.state_dict(), "epoch": 3}, path)
        ck = dst.load(path)
        assert ck["epoch"] == 3
        q, opt2 = setup(dst, ck["model"]["w"].numpy())
        opt2.load_state_dict(ck["optim"])
        np.testing.assert_allclose(steps(dst, q, opt2, 4), steps(src, p, opt, 4), rtol=1e-12)
