"""Sphinx configuration for the ftrans documentation site.

Build (from the repository root)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

Notebooks are rendered by myst-nb from the outputs committed in ``notebooks/`` (never
executed here); the API pages under ``api/_generated/`` are written at build time from
the packages' ``__all__`` and from the breadth table ``tests/numpy/breadth_table.py``,
so a new public name appears without editing the docs.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))               # import ftrans from this checkout
sys.path.insert(0, str(DOCS))               # _apigen
sys.path.insert(0, str(ROOT / "tests" / "numpy"))   # breadth_table

import ftrans  # noqa: E402

project = "ftrans"
author = "the ftrans developers"
copyright = "the ftrans developers"
release = version = ftrans.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "myst_nb",
]

# --- sources
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints",
                    "screenshots"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# --- notebooks: rendered from their committed outputs, never executed at build time
nb_execution_mode = "off"
nb_merge_streams = True

# --- autodoc / napoleon (NumPy-style docstrings; Google style in compat/)
autodoc_typehints = "none"        # signatures as written; types live in the docstrings
autodoc_member_order = "bysource"
napoleon_google_docstring = True     # compat/ uses Google style
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True

# --- references: every broken internal reference is an error (with -W); targets outside
# ftrans (numpy, scipy, Python builtins) are not resolvable without intersphinx, which
# stays off (no network in CI), so only those are ignored.
nitpicky = True
nitpick_ignore_regex = [(r"py:.*", r"(?!ftrans\b).*")]
# compat.linalg.LinAlgError is an alias of a class named like torch's (torch._C._LinAlgError)
nitpick_ignore = [("py:class", "ftrans.compat._linalg_base._LinAlgError")]

# --- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"ftrans {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False


def _copy_notebooks(app):
    """Copy ``notebooks/*.ipynb`` under the source tree (Sphinx reads only ``docs/``)."""
    dest = DOCS / "notebooks"
    dest.mkdir(exist_ok=True)
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        target = dest / nb.name
        if not target.exists() or target.read_bytes() != nb.read_bytes():
            shutil.copyfile(nb, target)
    for stale in dest.glob("*.ipynb"):
        if not (ROOT / "notebooks" / stale.name).exists():
            stale.unlink()


def setup(app):
    import _apigen
    app.connect("builder-inited", _copy_notebooks)
    app.connect("builder-inited", lambda app: _apigen.generate(DOCS / "api" / "_generated"))
