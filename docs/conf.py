"""Sphinx configuration for the ftrans documentation site.

Build (from the repository root)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

Notebooks are rendered by myst-nb from the outputs committed in ``notebooks/`` (never
executed here); the API pages under ``api/_generated/`` are written at build time from
the packages' ``__all__`` and from the breadth table ``tests/numpy/breadth_table.py``,
so a new public name appears without editing the docs.
"""
from __future__ import annotations

import importlib
import inspect
import shutil
import sys
import typing
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

# --- autodoc / napoleon (NumPy-style docstrings, checked by tools/apicheck.py)
autodoc_typehints = "signature"   # the annotations, in the signature line
autodoc_member_order = "bysource"
# annotations name these aliases (ftrans.typing, compat's torch names): keep the names,
# linked to their documentation, instead of expanding NumPy's ArrayLike union
autodoc_type_aliases = {n: f"ftrans.typing.{n}" for n in (
    "Array", "ArrayLike", "DTypeLike", "PyTree", "Shape", "ShapeLike", "Axis", "Scalar",
    "Fun", "Key")}
autodoc_type_aliases.update({n: f"ftrans.compat.types.{n}" for n in (
    "Number", "TensorOrNumber", "SizeLike", "DeviceLike", "DTypeArg")})
napoleon_google_docstring = False
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


_BY_NAME: dict = {}


def _public_reference(app, env, node, contnode):
    """Resolve a reference that an annotation makes to an ftrans class.

    A class named by its defining private module (``ftrans.compat._tensor.Tensor``)
    links to where it is documented (``ftrans.compat.Tensor``).  A type variable, or a
    class that exists but is documented nowhere (an internal base such as
    ``compat.autograd.graph.OpNode``), is shown as plain text.  A name that does not
    import is left to fail: that is a broken reference."""
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py" or not target.startswith("ftrans."):
        return None
    modname, _, name = target.rpartition(".")
    try:
        mod = importlib.import_module(modname)
    except ImportError:
        return None
    if not hasattr(mod, name):
        # a class bound under another name than its own (torch's return types:
        # ``qr_t = namedtuple("qr", ...)``) exists; any other name is a broken reference
        named = any(inspect.isclass(v) and v.__name__ == name for v in vars(mod).values())
        return contnode if named else None
    obj = getattr(mod, name)
    if isinstance(obj, (typing.TypeVar, typing.ParamSpec)):
        return contnode
    if node.get("reftype") == "class" and not inspect.isclass(obj):
        # a class whose __qualname__ is not the name it is bound to (torch's return-type
        # named tuples: ``_linalg_top.svd_t`` is named "svd", which is the function)
        return contnode
    py = env.get_domain("py")
    by_name = _BY_NAME.get(id(py.objects))
    if by_name is None:             # the documented classes by their last name, once
        by_name = {}
        for documented, entry in py.objects.items():
            if entry.objtype in ("class", "data", "exception"):
                by_name.setdefault(documented.rsplit(".", 1)[-1], []).append(documented)
        _BY_NAME.clear()
        _BY_NAME[id(py.objects)] = by_name
    for documented in by_name.get(name, ()):
        mod, _, attr = documented.rpartition(".")
        try:
            same = getattr(importlib.import_module(mod), attr) is obj
        except (ImportError, AttributeError):
            continue
        if same:
            return py.resolve_xref(env, node.get("refdoc"), app.builder, "class",
                                   documented, node, contnode)
    return contnode if inspect.isclass(obj) else None


def setup(app):
    import _apigen
    app.connect("missing-reference", _public_reference)
    app.connect("builder-inited", _copy_notebooks)
    app.connect("builder-inited", lambda app: _apigen.generate(DOCS / "api" / "_generated"))
