"""``ftrans.compat.utils.data``: datasets, samplers and ``DataLoader`` (PyTorch's
``torch.utils.data``), over compat Tensors.

A ``DataLoader`` draws indices from a sampler (``SequentialSampler``, or
``RandomSampler`` when ``shuffle=True``), groups them with a ``BatchSampler``
(``batch_size``, ``drop_last``), fetches ``dataset[i]`` for each and merges the samples
with ``collate_fn`` (``default_collate``: PyTorch's rules -- tensors and NumPy arrays are
stacked along a new dimension 0, Python floats become a float64 tensor, ints an int64
tensor, bools a bool tensor, dicts/tuples/lists/namedtuples are collated field by
field, strings are kept as a list).  Shuffling draws from ``generator`` or, when none
is given, seeds a fresh generator from the default one (so ``compat.manual_seed``
makes the order reproducible); the random numbers are NumPy's, not PyTorch's, so the
orders differ from PyTorch's for the same seed.  Loading runs in the calling process
(``num_workers > 0`` is accepted and loads in-process too).
"""
from __future__ import annotations

import bisect
import collections.abc as cabc
import math
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar, cast

import numpy as np

from .. import _factories as F
from .. import _ops as O
from .._tensor import Tensor
from .._factories import Generator

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "Subset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "BatchSampler", "DataLoader", "default_collate",
           "default_convert", "get_worker_info"]

T_co = TypeVar("T_co", covariant=True)


# ------------------------------------------------------------------------------ datasets
class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define ``__getitem__(index)`` (and usually ``__len__``).

    ``a + b`` concatenates two datasets.  Generic in the sample type, as in PyTorch.
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A dataset that is an iterable of samples (subclasses define ``__iter__``)."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        raise TypeError("ChainDataset (the concatenation of iterable datasets) is not "
                        "supported by ftrans.compat; use itertools.chain")


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples ``(t[i] for t in tensors)`` of tensors sharing their first dimension.

    Parameters
    ----------
    *tensors : Tensor
        The tensors, of one size along dimension 0 (``AssertionError`` "Size mismatch
        between tensors" otherwise, as in PyTorch).
    """

    def __init__(self, *tensors: Tensor) -> None:
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), \
            "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class ConcatDataset(Dataset[T_co]):
    """The concatenation of map-style datasets.

    Parameters
    ----------
    datasets : iterable of Dataset
        The datasets, at least one, none an ``IterableDataset`` (``AssertionError``
        otherwise).
    """

    def __init__(self, datasets: Iterable[Dataset[T_co]]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes: list[int] = []
        s = 0
        for d in self.datasets:
            s += len(d)  # type: ignore[arg-type]  # map-style datasets define __len__
            self.cumulative_sizes.append(s)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        di = bisect.bisect_right(self.cumulative_sizes, idx)
        si = idx if di == 0 else idx - self.cumulative_sizes[di - 1]
        return self.datasets[di][si]


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``.

    Parameters
    ----------
    dataset : Dataset
        The whole dataset.
    indices : sequence of int
        The indices of the subset's samples in ``dataset``.
    """

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: Sequence[int]) -> list[T_co]:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(  # type: ignore[attr-defined]
                [self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def _default_gen() -> Generator:
    return F.default_generator


def random_split(dataset: Dataset[T_co], lengths: Sequence[int | float],
                 generator: Generator | None = None) -> list[Subset[T_co]]:
    """Split ``dataset`` into non-overlapping random subsets (``torch.utils.data.random_split``).

    Parameters
    ----------
    dataset : Dataset
        The dataset to split.
    lengths : sequence of int or float
        Integers summing to ``len(dataset)``, or fractions summing to 1: each gets
        ``floor(n * frac)`` samples and the remainder is dealt out one by one,
        round-robin, as in PyTorch (a warning for an empty split).
    generator : Generator, optional
        The permutation is drawn from it (default: the default generator).

    Returns
    -------
    list of Subset
        One per length.

    Raises
    ------
    ValueError
        When the lengths do not add up, or a fraction is not in [0, 1].
    """
    if generator is None:
        generator = _default_gen()
    lengths = list(lengths)
    n = len(dataset)  # type: ignore[arg-type]  # map-style datasets define __len__
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths: list[int] = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(int(math.floor(n * frac)))
        remainder = n - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.", stacklevel=2)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    sizes = [int(length) for length in lengths]
    indices = F.randperm(sum(sizes), generator=generator).tolist()
    out: list[Subset[T_co]] = []
    offset = 0
    for length in sizes:
        out.append(Subset(dataset, indices[offset:offset + length]))
        offset += length
    return out


# ------------------------------------------------------------------------------ samplers
class Sampler(Generic[T_co]):
    """Base class of samplers: an iterable of dataset indices (or of lists of them).

    Parameters
    ----------
    data_source : Dataset, optional
        Ignored (PyTorch's deprecated argument).
    """

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Indices ``0 .. len(data_source) - 1`` in order.

    Parameters
    ----------
    data_source : Dataset
        A dataset with a length.
    """

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Indices in random order.

    A permutation (or, with ``replacement=True``, ``num_samples`` draws with
    replacement).  Without a ``generator`` a fresh one is seeded from the default
    generator on every pass, as in PyTorch.

    Parameters
    ----------
    data_source : Dataset
        A dataset with a length.
    replacement : bool, optional
        Draw with replacement.
    num_samples : int, optional
        Indices per pass; ``len(data_source)`` by default.
    generator : Generator, optional
        The random numbers' source.

    Raises
    ------
    TypeError
        A ``replacement`` that is not a bool.
    ValueError
        A ``num_samples`` that is not a positive int.
    """

    def __init__(self, data_source: Any, replacement: bool = False,
                 num_samples: int | None = None, generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got replacement="
                            f"{self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """Indices per pass: ``num_samples``, or ``len(data_source)`` when not given."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        gen = self.generator
        if gen is None:
            gen = F.Generator()
            gen.manual_seed(int(F.default_generator._rng.integers(0, 2 ** 63 - 1)))
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from F.randint(high=n, size=(32,), generator=gen).tolist()
            yield from F.randint(high=n, size=(self.num_samples % 32,), generator=gen).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from F.randperm(n, generator=gen).tolist()
            yield from F.randperm(n, generator=gen).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in random order.

    Parameters
    ----------
    indices : sequence of int
        The indices.
    generator : Generator, optional
        The random numbers' source.
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in F.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler[list[int]]):
    """Lists of ``batch_size`` indices from ``sampler``.

    Parameters
    ----------
    sampler : Sampler or iterable of int
        The indices.
    batch_size : int
        Indices per batch (a positive int).
    drop_last : bool
        Drop the last batch when it is shorter.

    Raises
    ------
    ValueError
        A ``batch_size`` that is not a positive int, or a ``drop_last`` that is not a
        bool.
    """

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]  # TypeError for one without a length
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size


# ------------------------------------------------------------------------------ collation
_COLLATE_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                "lists; found {}")


def _same_type(x: Any) -> Any:
    """``type(x)``: the container type a collated batch is rebuilt with (typed ``Any``:
    mappings and sequences are rebuilt through their subclasses' constructors)."""
    return type(x)


def _np_ok(a: Any) -> bool:
    return a.dtype.kind not in "SaUO"


def default_convert(data: Any) -> Any:
    """Convert NumPy arrays to tensors (``torch.utils.data.default_convert``).

    The conversion of ``batch_size=None`` loaders.

    Parameters
    ----------
    data : Any
        A sample.

    Returns
    -------
    Any
        ``data`` with its NumPy arrays (not of strings/objects) converted to tensors,
        inside mappings and sequences too; everything else unchanged.
    """
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return F.as_tensor(data) if _np_ok(data) else data
    if isinstance(data, np.generic) and _np_ok(np.asarray(data)):
        return F.as_tensor(np.asarray(data))
    if isinstance(data, cabc.Mapping):
        try:
            return _same_type(data)({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return _same_type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, cabc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return _same_type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch: Sequence[Any]) -> Any:
    """Merge a list of samples into a batch (``torch.utils.data.default_collate``).

    PyTorch's rules (see the module docstring).

    Parameters
    ----------
    batch : sequence
        The samples.

    Returns
    -------
    Any
        The batch: tensors stacked along a new dimension 0, containers collated field by
        field.

    Raises
    ------
    TypeError
        For unsupported element types.
    RuntimeError
        When the sequences of a batch differ in length.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> from ftrans.compat.utils.data import default_collate
    >>> default_collate([(torch.tensor([1.0]), 0), (torch.tensor([2.0]), 1)])
    [tensor([[1.],
            [2.]]), tensor([0, 1])]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return O.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if not _np_ok(elem):
            raise TypeError(_COLLATE_ERR.format(elem.dtype))
        return default_collate([F.as_tensor(b) for b in batch])
    if isinstance(elem, np.generic):
        if not _np_ok(np.asarray(elem)):
            raise TypeError(_COLLATE_ERR.format(elem.dtype))
        return F.as_tensor(np.asarray(batch))
    if isinstance(elem, bool):
        return F.tensor(batch)
    if isinstance(elem, float):
        return F.tensor(batch, dtype=F.D.float64)
    if isinstance(elem, int):
        return F.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, cabc.Mapping):
        try:
            return _same_type(elem)({k: default_collate([d[k] for d in batch]) for k in elem})
        except TypeError:
            return {k: default_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return _same_type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, cabc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        try:
            return _same_type(elem)([default_collate(s) for s in transposed])
        except TypeError:
            return [default_collate(s) for s in transposed]
    raise TypeError(_COLLATE_ERR.format(type(elem)))


def get_worker_info() -> None:
    """The worker's information (``torch.utils.data.get_worker_info``): always None.

    Data loading always runs in the main process here.
    """
    return None


# ------------------------------------------------------------------------------ loader
class DataLoader(Generic[T_co]):
    """Iterate over batches of ``dataset`` (PyTorch's ``torch.utils.data.DataLoader``).

    Parameters
    ----------
    dataset : Dataset
        Map-style or an ``IterableDataset``.
    batch_size : int or None, optional
        Samples per batch (1); None: no batching.
    shuffle : bool, optional
        Shuffle the indices on every pass (False).
    sampler : Sampler or iterable, optional
        The indices (not with ``shuffle``).
    batch_sampler : Sampler or iterable of lists, optional
        The batches of indices (not with ``batch_size``, ``shuffle``, ``sampler``,
        ``drop_last``).
    num_workers : int, optional
        Accepted; loading is in-process whatever the value (non-negative).
    collate_fn : callable, optional
        Merges samples into a batch: ``default_collate``, or ``default_convert`` without
        batching.
    pin_memory : bool, optional
        Ignored.
    drop_last : bool, optional
        Drop the last, shorter batch (False).
    timeout : float, optional
        Accepted (non-negative).
    worker_init_fn : callable, optional
        Accepted.
    multiprocessing_context : Any, optional
        Accepted.
    generator : Generator, optional
        For shuffling.
    prefetch_factor : int, optional
        Accepted.
    persistent_workers : bool, optional
        Accepted.
    pin_memory_device : str, optional
        Accepted.
    in_order : bool, optional
        Accepted (batches always come in order).

    Raises
    ------
    ValueError
        For the combinations PyTorch refuses (``shuffle`` with a ``sampler``,
        ``batch_sampler`` with batch options, ``shuffle``/samplers with an
        ``IterableDataset``), with PyTorch's messages, and negative ``num_workers`` or
        ``timeout``.
    """

    def __init__(self, dataset: Dataset[T_co], batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler: Sampler[Any] | Iterable[Any] | None = None,
                 batch_sampler: Sampler[list[Any]] | Iterable[list[Any]] | None = None,
                 num_workers: int = 0, collate_fn: Callable[[list[T_co]], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context: Any = None, generator: Generator | None = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 "
                             "to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if isinstance(shuffle, bool) and shuffle:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(cast(Any, sampler), batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        # (Any: None only where not used -- an IterableDataset, or no batching)
        self.sampler: Any = sampler
        self.batch_sampler: Any = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation or (
                self._iterable and batch_size is not None) else default_convert
        self.collate_fn: Callable[[Any], Any] = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def _fetch(self, indices: Sequence[Any]) -> Any:
        ds = self.dataset
        if type(ds) is TensorDataset and self.collate_fn is default_collate:
            # the same batch as stacking ds[i] for each i (default_collate), gathered with
            # one indexing operation per tensor
            idx = F.tensor(list(indices), dtype=F.D.int64)
            return [t[idx] for t in ds.tensors]
        getitems = getattr(ds, "__getitems__", None)
        if callable(getitems):
            data = getitems(indices)
        else:
            data = [ds[i] for i in indices]
        return self.collate_fn(data)

    def __iter__(self) -> Iterator[Any]:
        if self._iterable:
            it = iter(self.dataset)
            if self.batch_size is None:
                for s in it:
                    yield self.collate_fn(s)
                return
            while True:
                batch: list[Any] = []
                for s in it:
                    batch.append(s)
                    if len(batch) == self.batch_size:
                        break
                if not batch or (self.drop_last and len(batch) < self.batch_size):
                    return
                yield self.collate_fn(batch)
                if len(batch) < self.batch_size:
                    return
        elif self._auto_collation:
            for indices in self.batch_sampler:
                yield self._fetch(indices)
        else:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)  # type: ignore[arg-type]  # TypeError without __len__
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)
