"""``ftrans.scipy.integrate``: differentiable counterparts of ``scipy.integrate``.

Quadrature of samples (``trapezoid``, ``cumulative_trapezoid``, ``simpson``) as
compositions of ``ftrans.numpy``; ODE solutions (``odeint`` with JAX's signature,
``solve_ivp`` with SciPy's) solved by SciPy on the host and differentiated by the adjoint
method (reverse mode) and the sensitivity equations (forward mode).
"""
from ._quadrature import trapezoid, cumulative_trapezoid, simpson
from ._ode import odeint, solve_ivp, OdeResult

__all__ = ["trapezoid", "cumulative_trapezoid", "simpson", "odeint", "solve_ivp", "OdeResult"]
