"""compat.utils.data: datasets, samplers, DataLoader, default_collate and random_split,
checked against PyTorch's rules (and torch.utils.data itself where the result does not
depend on random numbers); Generator state and manual_seed interplay."""
from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import ftrans.compat as fc
from ftrans.compat.utils import data as D

try:
    import torch
    import torch.utils.data as TD
except ImportError:  # pragma: no cover
    torch = TD = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed: differential "
                                                       "tests against it are skipped")


def _np(v):
    if isinstance(v, (list, tuple)):
        return type(v)(_np(x) for x in v) if not hasattr(v, "_fields") else \
            tuple(_np(x) for x in v)
    if isinstance(v, dict):
        return {k: _np(x) for k, x in v.items()}
    if hasattr(v, "detach"):
        return (str(v.dtype)[6:], np.array(v.detach().numpy()))
    return v


def _eq(a, b):
    if isinstance(a, tuple) and len(a) == 2 and isinstance(a[1], np.ndarray):
        return a[0] == b[0] and a[1].shape == b[1].shape and np.array_equal(a[1], b[1])
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_eq(a[k], b[k]) for k in a)
    return a == b


Point = collections.namedtuple("Point", "x y")


def _samples(T):
    return {
        "tensors": [T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])],
        "ints": [1, 2, 3],
        "floats": [1.5, 2.5],
        "bools": [True, False],
        "np_arrays": [np.arange(3, dtype=np.float32), np.ones(3, np.float32)],
        "np_scalars": [np.float64(1.0), np.float64(2.5)],
        "np_int_scalars": [np.int32(1), np.int32(4)],
        "strings": ["a", "b"],
        "tuples": [(T.tensor([1]), 0, "x"), (T.tensor([2]), 1, "y")],
        "lists": [[1, 2.0], [3, 4.0]],
        "dicts": [{"img": np.zeros((2, 2)), "label": 3}, {"img": np.ones((2, 2)), "label": 4}],
        "namedtuples": [Point(1, 2.0), Point(3, 4.0)],
        "nested": [{"a": (1, [2.0, np.float32(3)])}, {"a": (4, [5.0, np.float32(6)])}],
    }


@needs_torch
@pytest.mark.parametrize("kind", list(_samples(fc)))
def test_default_collate_matches_torch(kind):
    ours = D.default_collate(_samples(fc)[kind])
    ref = TD.default_collate(_samples(torch)[kind])
    assert type(ours).__name__ == type(ref).__name__
    assert _eq(_np(ours), _np(ref)), (ours, ref)


def test_default_collate_errors():
    with pytest.raises(TypeError, match="batch must contain tensors"):
        D.default_collate([object(), object()])
    with pytest.raises(RuntimeError, match="equal size"):
        D.default_collate([[1, 2], [3]])
    out = D.default_collate([(fc.tensor([1.0]), 0.5), (fc.tensor([2.0]), 1.5)])
    assert isinstance(out, list) and out[0].shape == (2, 1) and out[1].dtype == fc.float64


def test_tensor_dataset_and_sequential_loader():
    x = fc.arange(10.0).reshape(5, 2)
    y = fc.arange(5)
    ds = D.TensorDataset(x, y)
    assert len(ds) == 5 and ds[2][0].tolist() == [4.0, 5.0] and ds[2][1].item() == 2
    with pytest.raises(AssertionError, match="Size mismatch"):
        D.TensorDataset(x, fc.arange(4))
    dl = D.DataLoader(ds, batch_size=2)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3
    assert batches[0][0].tolist() == [[0.0, 1.0], [2.0, 3.0]] and batches[2][1].tolist() == [4]
    dl = D.DataLoader(ds, batch_size=2, drop_last=True)
    assert len(dl) == 2 and [b[1].tolist() for b in dl] == [[0, 1], [2, 3]]
    dl = D.DataLoader(ds, batch_size=None)
    first = next(iter(dl))
    assert first[0].shape == (2,) and len(dl) == 5


def test_shuffle_generator_reproducible_and_manual_seed():
    ds = D.TensorDataset(fc.arange(20))

    def order(**kw):
        return [i for (b,) in D.DataLoader(ds, batch_size=6, shuffle=True, **kw)
                for i in b.tolist()]
    g = fc.Generator().manual_seed(7)
    a = order(generator=g)
    b = order(generator=fc.Generator().manual_seed(7))
    assert a == b and sorted(a) == list(range(20)) and a != list(range(20))
    assert order(generator=g) != a                      # the generator advanced
    fc.manual_seed(3)
    c = order()
    fc.manual_seed(3)
    assert order() == c                                 # seeded from the default generator
    assert order() != c


def test_generator_state_roundtrip():
    g = fc.Generator()
    g.manual_seed(123)
    assert g.initial_seed() == 123
    st = g.get_state()
    assert st.dtype == fc.uint8 and st.shape == (37,)
    a = fc.randn(4, generator=g)
    g.set_state(st)
    assert fc.randn(4, generator=g).tolist() == a.tolist()
    fc.manual_seed(5)
    s = fc.get_rng_state()
    r1 = fc.rand(3)
    fc.set_rng_state(s)
    assert fc.rand(3).tolist() == r1.tolist()
    assert fc.initial_seed() == 5
    with pytest.raises(TypeError):
        g.set_state([1, 2])
    with pytest.raises(RuntimeError, match="Invalid generator state"):
        g.set_state(fc.zeros(3, dtype=fc.uint8))


def test_random_split():
    ds = D.TensorDataset(fc.arange(10))
    a, b = D.random_split(ds, [7, 3], generator=fc.Generator().manual_seed(0))
    idx = sorted(a.indices + b.indices)
    assert len(a) == 7 and len(b) == 3 and idx == list(range(10))
    a2, _ = D.random_split(ds, [7, 3], generator=fc.Generator().manual_seed(0))
    assert a2.indices == a.indices
    parts = D.random_split(ds, [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [5, 3, 2]
    parts = D.random_split(D.TensorDataset(fc.arange(11)), [0.34, 0.33, 0.33])
    assert [len(p) for p in parts] == [4, 4, 3]            # remainder dealt round-robin
    with pytest.raises(ValueError, match="Sum of input lengths"):
        D.random_split(ds, [5, 4])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        D.random_split(D.TensorDataset(fc.arange(2)), [0.9, 0.1])
    assert a[0][0].item() == ds[a.indices[0]][0].item()


@needs_torch
def test_random_split_lengths_match_torch():
    for n, fr in [(11, [0.34, 0.33, 0.33]), (10, [0.25, 0.75]), (7, [0.1, 0.2, 0.7])]:
        ours = [len(p) for p in D.random_split(D.TensorDataset(fc.arange(n)), fr)]
        ref = [len(p) for p in TD.random_split(TD.TensorDataset(torch.arange(n)), fr)]
        assert ours == ref


def test_samplers_and_batch_sampler():
    assert list(D.SequentialSampler(range(4))) == [0, 1, 2, 3]
    rs = D.RandomSampler(range(5), generator=fc.Generator().manual_seed(1))
    assert sorted(rs) == [0, 1, 2, 3, 4] and len(rs) == 5
    rr = D.RandomSampler(range(5), replacement=True, num_samples=40,
                         generator=fc.Generator().manual_seed(1))
    vals = list(rr)
    assert len(vals) == 40 and set(vals) <= set(range(5)) and len(set(vals)) > 1
    bs = D.BatchSampler(D.SequentialSampler(range(7)), 3, drop_last=False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6]] and len(bs) == 3
    assert len(D.BatchSampler(range(7), 3, drop_last=True)) == 2
    with pytest.raises(ValueError, match="positive integer"):
        D.BatchSampler(range(3), 0, False)
    dl = D.DataLoader(D.TensorDataset(fc.arange(6)), batch_sampler=[[5, 0], [1]])
    assert [b[0].tolist() for b in dl] == [[5, 0], [1]]
    dl = D.DataLoader(D.TensorDataset(fc.arange(6)), sampler=[3, 2, 1], batch_size=2)
    assert [b[0].tolist() for b in dl] == [[3, 2], [1]]
    sub = D.SubsetRandomSampler([10, 20, 30], generator=fc.Generator().manual_seed(0))
    assert sorted(sub) == [10, 20, 30]


def test_loader_errors_as_torch():
    ds = D.TensorDataset(fc.arange(4))
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        D.DataLoader(ds, sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        D.DataLoader(ds, batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="num_workers"):
        D.DataLoader(ds, num_workers=-1)

    class It(D.IterableDataset):
        def __iter__(self):
            return iter(range(5))
    with pytest.raises(ValueError, match="expected unspecified shuffle"):
        D.DataLoader(It(), shuffle=True)
    assert [b.tolist() for b in D.DataLoader(It(), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in D.DataLoader(It(), batch_size=2, drop_last=True)] == \
        [[0, 1], [2, 3]]


def test_custom_dataset_collate_fn_subset_concat():
    class Squares(D.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return {"x": np.array([i, i * i], np.float32), "i": i}
    ds = Squares()
    b = next(iter(D.DataLoader(ds, batch_size=4)))
    assert b["x"].dtype == fc.float32 and b["x"].shape == (4, 2) and b["i"].tolist() == [0, 1, 2, 3]
    dl = D.DataLoader(ds, batch_size=3, collate_fn=lambda items: len(items))
    assert list(dl) == [3, 3]
    sub = D.Subset(ds, [5, 1])
    assert len(sub) == 2 and sub[0]["i"] == 5
    cat = ds + D.Subset(ds, [2])
    assert len(cat) == 7 and cat[6]["i"] == 2 and cat[-1]["i"] == 2


@needs_torch
def test_loader_batches_match_torch_without_shuffle():
    x = np.random.default_rng(0).standard_normal((9, 3))
    y = np.arange(9)
    ours = [(_np(a), _np(b)) for a, b in
            D.DataLoader(D.TensorDataset(fc.tensor(x), fc.tensor(y)), batch_size=4)]
    ref = [(_np(a), _np(b)) for a, b in
           TD.DataLoader(TD.TensorDataset(torch.tensor(x), torch.tensor(y)), batch_size=4)]
    assert _eq(ours, ref)


def test_training_loop_runs():
    """An ordinary script: DataLoader + SGD on a linear model, loss goes down."""
    fc.manual_seed(0)
    X = fc.randn(64, 3)
    w_true = fc.tensor([1.0, -2.0, 0.5])
    Y = X @ w_true
    w = fc.zeros(3, requires_grad=True)
    opt = fc.optim.SGD([w], lr=0.1)
    dl = D.DataLoader(D.TensorDataset(X, Y), batch_size=16, shuffle=True,
                      generator=fc.Generator().manual_seed(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(30):
            for xb, yb in dl:
                opt.zero_grad()
                ((xb @ w - yb) ** 2).mean().backward()
                opt.step()
    np.testing.assert_allclose(w.detach().numpy(), w_true.numpy(), atol=1e-3)


def test_tensor_dataset_batches_equal_generic_collate():
    """The one-gather path for TensorDataset gives the batches default_collate stacks."""
    ds = D.TensorDataset(fc.randn(23, 2, 3), fc.arange(23), fc.rand(23) > 0.5)

    def batches(**kw):
        return list(D.DataLoader(ds, batch_size=5, shuffle=True,
                                 generator=fc.Generator().manual_seed(4), **kw))
    fast = batches()
    slow = batches(collate_fn=lambda items: D.default_collate(items))
    assert len(fast) == len(slow) == 5
    for f, s in zip(fast, slow):
        assert isinstance(f, list) and len(f) == 3
        for a, b in zip(f, s):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert np.array_equal(a.numpy(), b.numpy())
