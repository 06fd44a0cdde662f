"""The committed list of NumPy's public functions and what ``ftrans.numpy`` does with each.

Every public callable of ``numpy``, ``numpy.linalg`` and ``numpy.fft`` (classes excluded)
is in exactly one of:

* :data:`DIFFERENTIABLE`: provided, with derivatives (each has a ``check_grads`` row in
  the breadth table or in ``fnp_cases``, or is the same function as one that has);
* :data:`NON_DIFFERENTIABLE`: provided, but differentiable by nature in nothing: integer,
  boolean or index results, comparisons, constructors without array inputs, window
  constants (their array inputs still flow where they are data, e.g. ``where``'s condition);
* ``ftrans.numpy._refused.REFUSED``: not provided on purpose, with the reason (files,
  printing, global state, types, dates ...); ``fnp.<name>`` raises the reason.

``test_numpy_names.py`` checks the list against the installed NumPy; a name that a newer
NumPy adds is reported (a warning), not a failure.
"""

DIFFERENTIABLE = set("""
    abs absolute acos acosh add amax amin angle append apply_along_axis apply_over_axes arccos
    arccosh arcsin arcsinh arctan arctan2 arctanh around array array_split asanyarray asarray
    asarray_chkfinite ascontiguousarray asfortranarray asin asinh astype atan atan2 atanh
    atleast_1d atleast_2d atleast_3d average bincount block broadcast_arrays broadcast_to cbrt
    ceil choose clip column_stack compress concat concatenate conj conjugate convolve copy
    copysign copyto corrcoef correlate cos cosh cov cross cumprod cumsum cumulative_prod
    cumulative_sum deg2rad degrees delete diag diagflat diagonal diff divide divmod dot dsplit
    dstack ediff1d einsum exp exp2 expand_dims expm1 extract fabs fill_diagonal fix flip fliplr
    flipud float_power floor floor_divide fmax fmin fmod frexp fromfunction full full_like
    geomspace gradient heaviside histogram histogram2d histogram_bin_edges histogramdd hsplit
    hstack hypot i0 imag inner insert interp kaiser kron ldexp linspace log log10
    log1p log2 logaddexp logaddexp2 logspace matmul matrix_transpose matvec max maximum mean
    median meshgrid min minimum mod modf moveaxis multiply nan_to_num nancumprod nancumsum
    nanmax nanmean nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar
    negative nextafter outer pad partition percentile permute_dims piecewise place poly polyadd
    polyder polydiv polyfit polyint polymul polysub polyval positive pow power prod ptp put
    put_along_axis putmask quantile rad2deg radians ravel real real_if_close reciprocal
    remainder repeat require reshape resize rint roll rollaxis roots rot90 round select
    setdiff1d setxor1d sign sin sinc sinh sort sort_complex spacing split sqrt square squeeze
    stack std subtract sum swapaxes take take_along_axis tan tanh tensordot tile trace transpose
    trapezoid tril trim_zeros triu true_divide trunc union1d unique unique_all unique_counts
    unique_inverse unique_values unstack unwrap vander var vdot vecdot vecmat vsplit vstack
    where linalg.cholesky linalg.cond linalg.cross linalg.det linalg.diagonal linalg.eig
    linalg.eigh linalg.eigvals linalg.eigvalsh linalg.inv linalg.lstsq linalg.matmul
    linalg.matrix_norm linalg.matrix_power linalg.matrix_transpose linalg.multi_dot linalg.norm
    linalg.outer linalg.pinv linalg.qr linalg.slogdet linalg.solve linalg.svd linalg.svdvals
    linalg.tensordot linalg.tensorinv linalg.tensorsolve linalg.trace linalg.vecdot
    linalg.vector_norm fft.fft fft.fft2 fft.fftn fft.fftshift fft.hfft fft.ifft fft.ifft2
    fft.ifftn fft.ifftshift fft.ihfft fft.irfft fft.irfft2 fft.irfftn fft.rfft fft.rfft2
    fft.rfftn
""".split())

NON_DIFFERENTIABLE = {
    # integer / index results
    **dict.fromkeys("argmax argmin argpartition argsort argwhere nanargmax nanargmin nonzero "
                    "flatnonzero searchsorted digitize lexsort count_nonzero ravel_multi_index "
                    "unravel_index indices ix_ diag_indices diag_indices_from mask_indices "
                    "tril_indices tril_indices_from triu_indices triu_indices_from "
                    "linalg.matrix_rank".split(), "integer or index result"),
    # boolean results and predicates
    **dict.fromkeys("all any allclose array_equal array_equiv isclose isin isfinite isinf "
                    "isnan isneginf isposinf signbit iscomplex isreal iscomplexobj isrealobj "
                    "equal not_equal less less_equal greater greater_equal logical_and "
                    "logical_or logical_not logical_xor".split(), "boolean result"),
    # defined where the inputs are equal: any perturbation of a common value changes the
    # result's size, so there is no derivative (fnp passes cotangents to the first
    # array's elements, as jax.numpy does)
    "intersect1d": "the result exists only where values are equal",
    # integer (bitwise, number-theoretic) functions: integer inputs only
    **dict.fromkeys("bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_invert invert "
                    "bitwise_count bitwise_left_shift bitwise_right_shift left_shift "
                    "right_shift gcd lcm".split(), "integer inputs and results"),
    # constructors from shapes and constants; shape queries
    **dict.fromkeys("arange empty empty_like eye identity ones ones_like zeros zeros_like tri "
                    "fromiter fft.fftfreq fft.rfftfreq bartlett blackman hamming hanning "
                    "broadcast_shapes result_type ndim shape size".split(),
                    "no differentiable input (shapes, sizes, dtypes or constants)"),
}
