"""``save``/``load``: PyTorch's zip checkpoint format, without PyTorch.

A checkpoint is a zip archive (entries stored uncompressed) whose entries all sit in one
folder ``<name>/``: ``data.pkl`` (the object, pickled with protocol 2), ``data/<key>``
(the raw little-endian bytes of each storage), ``version`` (``3``), ``byteorder``
(``little``), ``.format_version`` and ``.storage_alignment``.  In ``data.pkl`` a tensor
is ``torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
requires_grad, OrderedDict())`` where ``storage`` is a *persistent id*
``("storage", torch.<Type>Storage, key, location, numel)`` -- the layout PyTorch's
``torch.save`` writes (``torch/serialization.py``), so files move both ways between
``torch.save``/``torch.load`` and ``ftrans.compat.save``/``load``.  Tensors that are views
of one NumPy array are written as views of one storage (offset and strides kept), and
load back sharing memory, as in PyTorch.

``load(..., weights_only=True)`` -- PyTorch 2.6+'s default -- unpickles only an
allow-list (tensors and storages, dtypes, ``torch.Size``, ``torch.device``,
``OrderedDict``, containers and plain values; :func:`add_safe_globals` extends it) and
raises ``pickle.UnpicklingError`` with PyTorch's message for any other global.

A path ending in ``.npz`` uses NumPy's ``.npz`` instead: ``save`` takes a (nested) dict
of tensors (keys joined with ``.``, as state dicts are) and ``load`` returns a flat dict
of tensors.
"""
from __future__ import annotations

import collections
import contextlib
import io
import os
import pickle
import zipfile
from collections.abc import Iterator
from typing import IO, Any, TypeAlias

import numpy as np

from . import _dtype as D
from . import cuda
from ._tensor import Tensor, Size, device as _device, _make

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2
#: What ``save``/``load`` accept as a file (torch's ``FileLike``).
FileLike: TypeAlias = "str | os.PathLike[str] | IO[bytes]"

_STORAGE_OF = {  # storage class name <-> NumPy dtype (PyTorch's typed storages)
    "DoubleStorage": np.float64, "FloatStorage": np.float32, "HalfStorage": np.float16,
    "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_,
    "ComplexFloatStorage": np.complex64, "ComplexDoubleStorage": np.complex128,
}
_STORAGE_NAME = {np.dtype(v): k for k, v in _STORAGE_OF.items()}


# =============================================================================== saving
class _Global:
    """A stand-in for a PyTorch global (``torch._utils._rebuild_tensor_v2``,
    ``torch.FloatStorage`` ...): pickled as ``GLOBAL module name`` without importing
    PyTorch."""

    __slots__ = ("module", "name")

    def __init__(self: Any, module: Any, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self: Any, *args: Any) -> None:  # pickle requires reduce functions to be callable
        raise TypeError(f"{self.module}.{self.name} is a stand-in for pickling only")


_REBUILD_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAM = _Global("torch._utils", "_rebuild_parameter")
_TORCH_SIZE = _Global("torch", "Size")
_TORCH_DEVICE = _Global("torch", "device")


class _StorageRef:
    __slots__ = ("key", "name", "numel")

    def __init__(self: Any, key: Any, name: str, numel: Any) -> None:
        self.key, self.name, self.numel = key, name, numel


def _root(a: Any) -> Any:
    """The NumPy array owning ``a``'s memory (the last ndarray down the ``base`` chain)."""
    r = a
    while isinstance(r.base, np.ndarray):
        r = r.base
    return r


class _Pickler(pickle._Pickler):
    """Protocol-2 pickler writing tensors in PyTorch's form; collects their storages."""

    def __init__(self: Any, file: Any) -> None:
        super().__init__(file, protocol=DEFAULT_PROTOCOL)
        self.storages: dict[str, Any] = {}  # key -> array (C-contiguous, the storage's elements)
        self._by_root: dict[int, Any] = {}      # id(root array) -> (key, root)

    def _storage(self: Any, a: Any) -> Any:
        """(storage ref, offset, stride) for array ``a``, sharing one storage with other
        views of the same C-contiguous NumPy array of the same dtype."""
        item = a.dtype.itemsize
        root = _root(a)
        ok = (root.dtype == a.dtype and root.flags.c_contiguous and a.size > 0
              and all(s >= 0 and s % item == 0 for s in a.strides))
        if ok:
            off = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
            ok = off >= 0 and off % item == 0
        if ok:
            hit = self._by_root.get(id(root))
            if hit is None or hit[1] is not root:
                key = str(len(self.storages))
                self.storages[key] = root
                self._by_root[id(root)] = (key, root)
            else:
                key = hit[0]
            stride = tuple(s // item for s in a.strides)
            return _StorageRef(key, _STORAGE_NAME[a.dtype], root.size), off // item, stride
        c = np.ascontiguousarray(a)
        key = str(len(self.storages))
        self.storages[key] = c
        stride = tuple(s // item for s in c.strides) if c.size else _contig_stride(c.shape)
        return _StorageRef(key, _STORAGE_NAME[c.dtype], c.size), 0, stride

    def persistent_id(self: Any, obj: Any) -> Any:
        if type(obj) is _StorageRef:
            return ("storage", _Global("torch", obj.name), obj.key, "cpu", obj.numel)
        return None

    def reducer_override(self: Any, obj: Any) -> Any:
        if type(obj) is _Global:
            return obj.name           # -> save_global(obj, name)
        if isinstance(obj, Tensor):
            a = obj._data
            if not isinstance(a, np.ndarray):   # CuPy: saved as its host copy
                a = a.get()
            if a.dtype not in _STORAGE_NAME:
                raise TypeError(f"save: tensors of dtype {a.dtype} cannot be saved")
            ref, off, stride = self._storage(a)
            rebuilt: tuple[Any, ...] = (_REBUILD_V2, (ref, off, tuple(a.shape), stride,
                                     bool(obj.requires_grad), collections.OrderedDict()))
            if type(obj).__name__ == "Parameter":
                return (_REBUILD_PARAM, (_Rebuilt(rebuilt), bool(obj.requires_grad),
                                         collections.OrderedDict()))
            return rebuilt
        if isinstance(obj, _Rebuilt):
            return obj.rv
        if type(obj) is D.dtype:   # a bare global: torch.float32
            return obj.name
        if isinstance(obj, Size):
            return (_TORCH_SIZE, (tuple(obj),))
        if isinstance(obj, _device):
            return (_TORCH_DEVICE, (str(obj),))
        return NotImplemented

    def save_global(self: Any, obj: Any, name: str | None = None) -> None:
        if type(obj) is _Global or type(obj) is D.dtype:
            module = obj.module if type(obj) is _Global else "torch"
            self.write(pickle.GLOBAL + f"{module}\n{obj.name}\n".encode("utf-8"))
            self.memoize(obj)
            return
        super().save_global(obj, name)  # type: ignore[misc]  # (pickle._Pickler's)


class _Rebuilt:
    """A nested reduce value (a tensor inside ``_rebuild_parameter``)."""

    __slots__ = ("rv",)

    def __init__(self: Any, rv: Any) -> None:
        self.rv = rv


def _contig_stride(shape: Any) -> Any:
    st, acc = [], 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


def _archive_name(f: Any) -> Any:
    if isinstance(f, (str, os.PathLike)):
        base = os.path.basename(os.fspath(f))
        name = os.path.splitext(base)[0]
        return name or "archive"
    return "archive"


def save(obj: Any, f: FileLike, pickle_module: Any = None,
         pickle_protocol: int = DEFAULT_PROTOCOL, _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Save ``obj`` in PyTorch's zip checkpoint format (``torch.save``).

    A path ending in ``.npz`` writes a NumPy ``.npz`` archive of a (nested) dict of
    tensors instead.

    Parameters
    ----------
    obj : Any
        Tensors, and dicts/lists/tuples/OrderedDicts of them and of plain Python values.
    f : str or os.PathLike or binary file
        A path or a writable binary file object.
    pickle_module : Any, optional
        Only the standard ``pickle`` module (or None) is supported.
    pickle_protocol : int, optional
        The pickle protocol of the ``data.pkl`` record.
    _use_new_zipfile_serialization : bool, optional
        Must be True (the legacy format is not supported).
    _disable_byteorder_record : bool, optional
        Omit the ``byteorder`` record, as PyTorch's flag.

    Raises
    ------
    ValueError
        If ``pickle_module`` is not ``pickle``.
    NotImplementedError
        If the legacy format is asked for.

    Examples
    --------
    >>> import ftrans.compat as torch, io
    >>> buf = io.BytesIO()
    >>> torch.save({"w": torch.ones(2)}, buf)
    >>> torch.load(io.BytesIO(buf.getvalue()))
    {'w': tensor([1., 1.])}
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("save: only the standard pickle module is supported")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("save: the legacy (pre-1.6) format is not supported; use "
                                  "the zip format (the default)")
    if isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".npz"):
        _save_npz(obj, f)
        return
    buf = io.BytesIO()
    p = _Pickler(buf)
    p.dump(obj)
    name = _archive_name(f)
    with contextlib.ExitStack() as stack:
        fh = stack.enter_context(open(f, "wb")) if isinstance(f, (str, os.PathLike)) else f
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as z:
            z.writestr(f"{name}/data.pkl", buf.getvalue())
            z.writestr(f"{name}/.format_version", "1")
            z.writestr(f"{name}/.storage_alignment", "64")
            if not _disable_byteorder_record:
                z.writestr(f"{name}/byteorder", "little")
            for key, arr in p.storages.items():
                z.writestr(f"{name}/data/{key}", _le_bytes(arr))
            z.writestr(f"{name}/version", "3\n")


def _le_bytes(a: Any) -> Any:
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return np.ascontiguousarray(a).tobytes()


def _flatten(obj: Any, prefix: str, out: Any) -> None:
    if isinstance(obj, Tensor):
        out[prefix] = np.asarray(obj.detach()._data)
    elif isinstance(obj, np.ndarray):
        out[prefix] = obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if not isinstance(k, str):
                raise TypeError(f"save(.npz): dict keys must be strings, got {type(k).__name__}")
            _flatten(v, f"{prefix}.{k}" if prefix else k, out)
    else:
        raise TypeError("save(.npz): expected a tensor or a (nested) dict of tensors, got "
                        f"{type(obj).__name__}; use a .pt path for other objects")


def _save_npz(obj: Any, f: Any) -> None:
    flat: dict[str, Any] = {}
    _flatten({"tensor": obj} if isinstance(obj, Tensor) else obj, "", flat)
    np.savez(f, **flat)


# =============================================================================== loading
_SAFE_USER: dict[str, Any] = {}


def add_safe_globals(safe_globals: Any) -> None:
    """Allow these classes/functions (or ``(obj, "module.name")`` pairs) when loading with
    ``weights_only=True`` (``torch.serialization.add_safe_globals``)."""
    for g in safe_globals:
        if isinstance(g, tuple):
            obj, full = g
        else:
            obj, full = g, f"{g.__module__}.{g.__qualname__}"
        _SAFE_USER[full] = obj


def get_safe_globals() -> Any:
    return list(_SAFE_USER.values())


def clear_safe_globals() -> None:
    _SAFE_USER.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: Any) -> Iterator[None]:
    """Context manager: :func:`add_safe_globals` for the duration of the block."""
    saved = dict(_SAFE_USER)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _SAFE_USER.clear()
        _SAFE_USER.update(saved)


def _rebuild_tensor_v2(storage: Any, storage_offset: Any, size: Any, stride: Any,
                       requires_grad: bool = False, backward_hooks: Any = None,
                       metadata: Any = None) -> Any:
    arr = storage
    item = arr.dtype.itemsize
    size, stride = tuple(size), tuple(stride)
    need = storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 \
        if all(n > 0 for n in size) else 0
    if need > arr.size:
        raise RuntimeError(f"load: a tensor of size {list(size)} and stride {list(stride)} at "
                           f"offset {storage_offset} does not fit its storage of {arr.size} "
                           "elements (corrupt checkpoint?)")
    if all(n > 0 for n in size):
        view = np.lib.stride_tricks.as_strided(
            arr[storage_offset:], shape=size, strides=tuple(s * item for s in stride))
        if any(s == 0 and n > 1 for n, s in zip(size, stride)):
            view.flags.writeable = False        # overlapping memory, as an expanded tensor
    else:
        view = np.zeros(size, arr.dtype)
    t = _make(view)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data: Any, requires_grad: Any, backward_hooks: Any, *extra: Any) -> Any:
    try:
        from .nn import Parameter  # deferred: compat.nn is imported after this module
    except ImportError:
        t = data.detach()
        t.requires_grad_(requires_grad)
        return t
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Any, requires_grad: Any, backward_hooks: Any,
                                  state: Any) -> Any:
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    if state and hasattr(p, "__dict__"):
        p.__dict__.update(state)
    return p


class _StorageType:
    """``torch.FloatStorage`` ... as found in a checkpoint: only its NumPy dtype matters."""

    def __init__(self: Any, name: str) -> None:
        self.name = name
        dt = _STORAGE_OF.get(name)
        self.dtype = None if dt is None else np.dtype(dt)


def _torch_global(module: Any, name: str) -> Any:
    """Our counterpart of a PyTorch global found in a checkpoint (None if unknown)."""
    if module == "torch._utils":
        return {"_rebuild_tensor_v2": _rebuild_tensor_v2,
                "_rebuild_parameter": _rebuild_parameter,
                "_rebuild_parameter_with_state": _rebuild_parameter_with_state}.get(name)
    if module == "torch":
        if name.endswith("Storage"):
            return _StorageType(name)
        if name == "Size":
            return Size
        if name == "device":
            return _device
        if name in D._NAMES:
            return D._NAMES[name]
    if module == "torch.nn.parameter" and name == "Parameter":
        return _rebuild_parameter_cls
    return None


def _rebuild_parameter_cls(*args: Any, **kwargs: Any) -> Any:
    from .nn import Parameter  # deferred: compat.nn is imported after this module
    return Parameter(*args, **kwargs)


_SAFE_BUILTINS = {  # PyTorch 2.13's default allow-list of non-torch globals
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("builtins", "set"): set, ("builtins", "complex"): complex,
    ("builtins", "bytearray"): bytearray,
    ("_codecs", "encode"): None,     # protocol-2 bytes; resolved below
}

_WO_MSG = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In "
    "PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please "
    "check the recommended steps in the following error message.\n\tWeightsUnpickler error: "
    "{err}\n\nCheck the documentation of torch.load to learn more about types accepted by "
    "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


class _Unpickler(pickle.Unpickler):
    def __init__(self: Any, file: Any, zf: Any, prefix: str, weights_only: Any,
                 map_location: Any) -> None:
        super().__init__(file, encoding="utf-8")
        self._zf = zf
        self._prefix = prefix
        self._wo = weights_only
        self._map = map_location
        self._loaded: dict[str, Any] = {}

    def find_class(self: Any, module: Any, name: str) -> Any:
        import _compat_pickle   # protocol 2 names Python 2 modules (__builtin__ ...)
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        g = _torch_global(module, name)
        if g is not None:
            return g
        full = name if module == "builtins" else f"{module}.{name}"
        if f"{module}.{name}" in _SAFE_USER:
            return _SAFE_USER[f"{module}.{name}"]
        if full in _SAFE_USER:
            return _SAFE_USER[full]
        if (module, name) in _SAFE_BUILTINS:
            if (module, name) == ("_codecs", "encode"):
                import codecs
                return codecs.encode
            return _SAFE_BUILTINS[(module, name)]
        if self._wo:
            raise pickle.UnpicklingError(_WO_MSG.format(err=(
                f"Unsupported global: GLOBAL {full} was not an allowed global by default. "
                f"Please use `torch.serialization.add_safe_globals([{name}])` or the "
                f"`torch.serialization.safe_globals([{name}])` context manager to allowlist "
                "this global if you trust this class/function.")))
        if module.startswith("torch"):
            raise pickle.UnpicklingError(f"load: the checkpoint needs {full}, which "
                                         "ftrans.compat does not provide")
        return super().find_class(module, name)

    def persistent_load(self: Any, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"load: unknown persistent id {pid!r}")
        _, stype, key, location, numel = pid
        if not isinstance(stype, _StorageType):
            raise pickle.UnpicklingError(f"load: bad storage type {stype!r}")
        if stype.dtype is None:
            raise TypeError(f"load: {stype.name} (a dtype NumPy has no type for) is not "
                            "supported by ftrans.compat")
        arr = self._loaded.get(key)
        if arr is None:
            raw = self._zf.read(f"{self._prefix}data/{key}")
            arr = np.frombuffer(bytearray(raw), stype.dtype)
            if arr.size != numel:
                arr = arr[:numel]
            self._loaded[key] = arr
        _check_location(location, self._map)
        return arr


def _check_location(location: Any, map_location: Any) -> None:
    target = location
    if isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif map_location is not None and not callable(map_location):
        target = str(map_location)
    if str(target).startswith("cuda"):
        if not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but "
                               "torch.cuda.is_available() is False. If you are running on a "
                               "CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the "
                               "CPU.")


def _to_device(obj: Any, map_location: Any) -> Any:
    """Move loaded tensors to a CUDA ``map_location`` (CPU needs nothing)."""
    if map_location is None or callable(map_location) or isinstance(map_location, dict):
        return obj
    if not str(map_location).startswith("cuda"):
        return obj

    def mv(o: Any) -> Any:
        if isinstance(o, Tensor):
            return o.to(str(map_location))
        if isinstance(o, dict):
            return type(o)((k, mv(v)) for k, v in o.items())
        if isinstance(o, (list, tuple)) and not hasattr(o, "_fields"):
            return type(o)(mv(v) for v in o)
        return o
    return mv(obj)


def load(f: FileLike, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool = True, mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Load an object saved by :func:`save` or by ``torch.save`` (``torch.load``).

    The zip format; ``.npz`` paths load a flat dict of tensors.  The legacy pre-1.6
    format is not supported.

    Parameters
    ----------
    f : str or os.PathLike or binary file
        A path or a readable binary file object.
    map_location : Any, optional
        None, ``"cpu"``, a device, a dict of locations or a callable; storages load on
        the CPU, CUDA locations need CUDA.
    pickle_module : Any, optional
        Accepted for torch's signature.
    weights_only : bool, optional
        True (the default, as PyTorch 2.6+): globals outside the allow-list are refused;
        False unpickles anything (only for trusted files).
    mmap : bool, optional
        Accepted for torch's signature.
    **pickle_load_args : Any
        Accepted for torch's signature.

    Returns
    -------
    Any
        The saved object, its tensors as compat tensors.

    Raises
    ------
    pickle.UnpicklingError
        If ``weights_only`` and the file needs a global outside the allow-list.
    FileNotFoundError
        If the path does not exist.
    RuntimeError
        If the file is not a zip checkpoint, or a CUDA location is asked for without
        CUDA.
    """
    if isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".npz"):
        with np.load(f, allow_pickle=False) as z:
            return {k: _make(np.array(z[k])) for k in z.files}
    with contextlib.ExitStack() as stack:
        fh = stack.enter_context(open(f, "rb")) if isinstance(f, (str, os.PathLike)) else f
        if not zipfile.is_zipfile(fh):
            raise RuntimeError("load: not a PyTorch zip checkpoint (the legacy pre-1.6 format "
                               "and TorchScript archives are not supported)")
        fh.seek(0)
        zf = stack.enter_context(zipfile.ZipFile(fh))
        names = zf.namelist()
        pkl = [n for n in names if n.endswith("data.pkl") and n.count("/") == 1]
        if not pkl:
            raise RuntimeError("load: the archive has no <name>/data.pkl record")
        prefix = pkl[0][:-len("data.pkl")]
        if f"{prefix}byteorder" in names and zf.read(f"{prefix}byteorder") != b"little":
            raise RuntimeError("load: big-endian checkpoints are not supported")
        up = _Unpickler(io.BytesIO(zf.read(pkl[0])), zf, prefix, weights_only, map_location)
        obj = up.load()
    return _to_device(obj, map_location)
