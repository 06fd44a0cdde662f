"""NumPy names that ``ftrans.numpy`` does not provide on purpose, each with the reason.

``ftrans.numpy.__getattr__`` (and that of ``ftrans.numpy.linalg``/``fft``) reads this
table, so ``fnp.savetxt`` raises :class:`AttributeError` saying why and what to use;
``tests/numpy/test_numpy_names.py`` checks it against the names NumPy has.  None of
these computes numbers from array values: they read or write files, format text, set
NumPy's global state, inspect types, or handle dates.
"""

_IO = ("reads or writes files/buffers, which has no derivative: call numpy.{name} "
       "outside the transformed function and pass the arrays in")
_PRINT = "formats text, not numbers: call numpy.{name} on the (concrete) result"
_STATE = "queries or sets NumPy's global state or build information: call numpy.{name}"
_TYPES = ("inspects dtypes or types, not array values: call numpy.{name} (tracers have "
          "NumPy's .dtype, .shape and .ndim)")
_DATES = "works on datetime64 values, which have no derivative: call numpy.{name}"

_BY_REASON = {
    _IO: "load save savez savez_compressed loadtxt savetxt genfromtxt fromfile frombuffer "
         "fromregex fromstring from_dlpack",
    _PRINT: "array2string array_repr array_str base_repr binary_repr "
            "format_float_positional format_float_scientific set_printoptions "
            "get_printoptions printoptions",
    _STATE: "seterr geterr seterrcall geterrcall setbufsize getbufsize show_config "
            "show_runtime info get_include test",
    _TYPES: "can_cast common_type isdtype issubdtype min_scalar_type mintypecode "
            "promote_types typename isscalar iterable isfortran may_share_memory "
            "shares_memory",
    _DATES: "busday_count busday_offset is_busday datetime_as_string datetime_data isnat",
}

#: name -> why ftrans.numpy does not provide it (top-level NumPy names; ``test`` also
#: stands for ``numpy.linalg.test`` and ``numpy.fft.test``)
REFUSED = {name: reason.format(name=name)
           for reason, names in _BY_REASON.items() for name in names.split()}
REFUSED.update({
    "asmatrix": "numpy.matrix is deprecated by NumPy itself; use 2-d arrays and @",
    "bmat": "builds a numpy.matrix (deprecated by NumPy); use ftrans.numpy.block",
    "row_stack": "a deprecated alias of vstack (NumPy 2.0); use ftrans.numpy.vstack",
    "einsum_path": ("returns a contraction order, not an array: ftrans.numpy.einsum "
                    "chooses its own order; call numpy.einsum_path on the shapes to inspect"),
    "frompyfunc": ("makes an object-dtype ufunc that calls Python per element, which "
                   "cannot be traced: write the function with ftrans.numpy and use "
                   "ftrans.vmap"),
    "nested_iters": "an iterator over NumPy's memory layout, not a computation",
    "packbits": ("packs booleans into uint8 bit fields, a storage format with no "
                 "derivative: call numpy.packbits on concrete arrays"),
    "unpackbits": ("unpacks uint8 bit fields, a storage format with no derivative: call "
                   "numpy.unpackbits on concrete arrays"),
})


def refusal(module: str, name: str) -> AttributeError | None:
    """The AttributeError for a refused ``module.name``, or None if ``name`` is not refused.

    ``module`` is ``"ftrans.numpy"``, ``"ftrans.numpy.linalg"`` or ``"ftrans.numpy.fft"``;
    the message names NumPy's function (``numpy.linalg.test`` ...).
    """
    if name not in REFUSED:
        return None
    np_name = module.replace("ftrans.numpy", "numpy") + "." + name
    return AttributeError(f"{module} does not provide {name!r} on purpose: {np_name} "
                          + REFUSED[name].replace(f"numpy.{name}", np_name) + ".")
