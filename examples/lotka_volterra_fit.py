"""Fit the Lotka-Volterra predator-prey equations to the Hudson's Bay Company lynx and
hare pelt counts, 1900-1920, with gradients by the adjoint method.

The model (Lotka 1925; Volterra 1926), with u the hares (prey) and v the lynxes
(predators), in thousands of pelts:

    du/dt = (alpha - beta v) u,        dv/dt = (-gamma + delta u) v.

The six unknowns (alpha, beta, gamma, delta and the initial state u(1900), v(1900)) are
fitted on a log scale (positivity) by least squares on the log counts, as in Carpenter's
Stan case study (2018), whose data file this is (see examples/data/README.md).  The loss
``sum((log y_obs - log y(t))**2)`` calls ``ftrans.scipy.integrate.odeint``; its gradient,
``ftrans.grad(loss)``, solves the adjoint ODE backwards between the 21 yearly observation
times (Chen et al. 2018), and the minimiser is ``ftrans.scipy.optimize.minimize`` (SciPy's
BFGS, given that gradient).

Run ``python examples/lotka_volterra_fit.py``: it prints the fitted parameters, the fit's
root-mean-square log error, and a check of the adjoint gradient against central
differences at the starting point.  (These are the cells of the ODE notebook.)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing ftrans
    sys.path.insert(0, str(ROOT))

import ftrans  # noqa: E402
import ftrans.numpy as fnp  # noqa: E402
from ftrans.scipy.integrate import odeint  # noqa: E402
from ftrans.scipy.optimize import minimize  # noqa: E402

DATA = ROOT / "examples" / "data" / "hudson-bay-lynx-hare.csv"
NAMES = ("alpha", "beta", "gamma", "delta", "hare_1900", "lynx_1900")
# a starting point from the data's scale: prey doubling in a few years, predators
# halving without prey, populations near the first year's counts
START = np.log(np.array([0.5, 0.025, 0.8, 0.025, 30.0, 4.0]))


def load_data(path=DATA):
    """Years (shape (21,)) and counts (shape (21, 2): hare, lynx; thousands of pelts)."""
    table = np.loadtxt(path, delimiter=",", comments="#", skiprows=3)
    years, lynx, hare = table[:, 0], table[:, 1], table[:, 2]
    return years, np.stack([hare, lynx], axis=1)


def lotka_volterra(y, t, theta):
    """dy/dt for y = (hares, lynxes) and theta = (alpha, beta, gamma, delta)."""
    u, v = y[0], y[1]
    alpha, beta, gamma, delta = theta[0], theta[1], theta[2], theta[3]
    return fnp.stack([(alpha - beta * v) * u, (-gamma + delta * u) * v])


def predict(log_params, t):
    """The model's populations at times ``t`` (years since 1900), shape (len(t), 2)."""
    p = fnp.exp(log_params)
    return odeint(lotka_volterra, p[4:], t, p[:4], rtol=1e-8, atol=1e-8)


def make_loss(years, counts):
    t = years - years[0]
    log_counts = np.log(counts)

    def loss(log_params):
        """Sum of squared errors of the log counts."""
        return fnp.sum((fnp.log(predict(log_params, t)) - log_counts) ** 2)
    return loss


def fit(maxiter=200, start=START, data=None):
    """Minimise the loss with SciPy's BFGS and adjoint gradients; returns the result
    (``x``: fitted log-parameters) and the loss function."""
    years, counts = load_data() if data is None else data
    loss = make_loss(years, counts)
    res = minimize(lambda x: loss(x), fnp.asarray(start), method="BFGS",
                   options={"maxiter": maxiter, "gtol": 1e-6})
    return res, loss


def gradient_check(loss, x, eps=1e-5):
    """Largest relative difference between the adjoint gradient and central differences."""
    g = ftrans.grad(loss)(x)
    fd = np.array([(loss(x + eps * e) - loss(x - eps * e)) / (2 * eps)
                   for e in np.eye(x.shape[0])])
    return float(np.max(np.abs(g - fd)) / np.max(np.abs(fd))), g


def main():
    years, counts = load_data()
    loss = make_loss(years, counts)
    err, g = gradient_check(loss, START)
    print(f"adjoint gradient at the start vs central differences: max rel. diff {err:.1e}")
    t0 = time.perf_counter()
    res, loss = fit()
    elapsed = time.perf_counter() - t0
    p = np.exp(res.x)
    print(f"BFGS: {res.message} ({res.nit} iterations, {res.nfev} evaluations, "
          f"{elapsed:.1f} s)")
    print(f"loss {float(loss(START)):.3f} -> {float(res.fun):.3f}; rms log error "
          f"{np.sqrt(float(res.fun) / counts.size):.3f}")
    for name, value in zip(NAMES, p):
        print(f"  {name:10s} {value:9.4f}")
    period = 2 * np.pi / np.sqrt(p[0] * p[2])
    print(f"period of small oscillations 2 pi / sqrt(alpha gamma) = {period:.1f} years")


if __name__ == "__main__":
    main()
