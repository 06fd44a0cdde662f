"""im2col + BLAS (the conv_general_dilated impl) against a direct numba loop, on the
digits-CNN sizes (batch 64, 8x8 images, 3x3 kernels, padding 1).

    OPENBLAS_NUM_THREADS=1 python benchmarks/conv_impl.py

Prints the best CPU time (process time: robust on a shared machine) per call of each
implementation (forward convolution only).
"""
import time
import timeit

import numba
import numpy as np

from ftrans.primitives.conv import conv_general_dilated_p


@numba.njit(cache=True, fastmath=False)
def _direct(x, w, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.zeros((n, o, oh, ow), x.dtype)
    for b in range(n):
        for oc in range(o):
            for i in range(oh):
                for j in range(ow):
                    s = 0.0
                    for ic in range(c):
                        for u in range(kh):
                            ii = i + u - pad
                            if ii < 0 or ii >= h:
                                continue
                            for v in range(kw):
                                jj = j + v - pad
                                if 0 <= jj < wd:
                                    s += x[b, ic, ii, jj] * w[oc, ic, u, v]
                    out[b, oc, i, j] = s
    return out


def main():
    rng = np.random.default_rng(0)
    params = dict(window_strides=(1, 1), padding=((1, 1), (1, 1)), lhs_dilation=(1, 1),
                  rhs_dilation=(1, 1), feature_group_count=1)
    for (c, o, hw) in ((1, 16, 8), (16, 32, 4), (16, 32, 8)):
        x = rng.standard_normal((64, c, hw, hw)).astype(np.float32)
        w = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
        a = conv_general_dilated_p.impl(x, w, **params)
        b = _direct(x, w, 1)
        assert np.allclose(a, b, rtol=1e-4, atol=1e-4)
        t1 = min(timeit.repeat(lambda: conv_general_dilated_p.impl(x, w, **params),
                               number=20, repeat=5, timer=time.process_time)) / 20
        t2 = min(timeit.repeat(lambda: _direct(x, w, 1), number=20, repeat=5,
                               timer=time.process_time)) / 20
        print(f"C={c:2d} O={o:2d} {hw}x{hw}: im2col+BLAS {t1 * 1e6:8.1f} us   "
              f"numba direct {t2 * 1e6:8.1f} us")


if __name__ == "__main__":
    main()
