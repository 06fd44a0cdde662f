"""The import graph of ``ftrans/``: no import circles, and every import made inside a
function says why it is there.

The graph is built from the sources with ``ast`` (nothing is imported), the way
``tools/structure.py`` counts it: one node per module (a package is its ``__init__``), one
edge per ``import``/``from ... import`` of another ftrans module, at module level or inside
a function.  ``from pkg import name`` points at the submodule ``pkg.name`` when there is one,
else at ``pkg``.  Edges *into* a package's ``__init__`` are left out: a package face hands
names on, and a module may import its own package's namespace.

No module of ``ftrans`` may be in an import circle, and every function-level import of an
ftrans module carries its reason.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Packages whose modules must be in no import circle and whose function-level imports of
# ftrans modules must carry a ``# deferred: <reason>`` comment.  ("ftrans",) checks it all.
CHECKED = ("ftrans",)
#: the most function-level imports of ftrans modules the whole package may keep (each with
#: its reason; imports of optional libraries such as SciPy or CuPy are not counted)
MAX_DEFERRED = 20

_REASON = re.compile(r"#\s*deferred:\s*\S")


def module_files(root: Path, package: str = "ftrans") -> dict:
    """{module name: source path} for every ``.py`` file under ``root/package``."""
    files = {}
    for p in sorted((root / package).rglob("*.py")):
        parts = list(p.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = p
    return files


def _targets(files: dict, mod: str, node) -> set:
    """The ftrans modules that the import statement ``node`` of module ``mod`` names."""
    if isinstance(node, ast.ImportFrom):
        base = mod.split(".")
        if files[mod].name != "__init__.py":
            base = base[:-1]
        if node.level > 1:
            base = base[: len(base) - (node.level - 1)]
        if node.level:
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        names = [target] + [f"{target}.{al.name}" for al in node.names]
    else:
        names = [al.name for al in node.names]
    out = set()
    for t in names:
        while t and t not in files:
            t = t.rpartition(".")[0]
        if t and t != mod:
            out.add(t)
    return out


def imports(files: dict) -> list:
    """``(module, path, line, targets, in_function, has_reason)`` per import statement of an
    ftrans module."""
    out = []
    for mod, path in files.items():
        src = path.read_text(encoding="utf-8")
        lines = src.splitlines()
        tree = ast.parse(src, str(path))

        def walk(node, in_function):
            for ch in ast.iter_child_nodes(node):
                if isinstance(ch, (ast.Import, ast.ImportFrom)):
                    tg = _targets(files, mod, ch)
                    if tg:
                        text = lines[ch.lineno - 1: (ch.end_lineno or ch.lineno)]
                        reason = any(_REASON.search(t) for t in text)
                        out.append((mod, path, ch.lineno, tg, in_function, reason))
                walk(ch, in_function or isinstance(ch, (ast.FunctionDef,
                                                         ast.AsyncFunctionDef)))
        walk(tree, False)
    return out


def edges(files: dict, imps: list) -> dict:
    """{module: modules it imports}, without edges into a package's ``__init__``."""
    g = {m: set() for m in files}
    for mod, _, _, tg, _, _ in imps:
        g[mod] |= {t for t in tg if files[t].name != "__init__.py"}
    return g


def circles(graph: dict) -> list:
    """The import circles: strongly connected components of more than one module, each a
    sorted list (Tarjan's algorithm, iterative)."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return comps


def checked(mod: str, prefixes=CHECKED) -> bool:
    return any(mod == p or mod.startswith(p + ".") for p in prefixes)


def unexplained(imps: list, prefixes=CHECKED) -> list:
    """``path:line`` of every function-level import of an ftrans module, in a checked
    package, without a ``# deferred: <reason>`` comment."""
    return [f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}"
            for mod, path, line, _, in_function, reason in imps
            if in_function and not reason and checked(mod, prefixes)]


def _graph(root=ROOT):
    files = module_files(root)
    imps = imports(files)
    return files, imps, edges(files, imps)


def test_no_import_circle():
    _, _, g = _graph()
    bad = circles(g)
    assert not bad, (
        "import circles (each line: the modules of one circle, counting imports inside "
        "functions too) among modules of ftrans:\n  "
        + "\n  ".join(", ".join(c) for c in bad)
        + "\nmake the imports point one way: move what the lower module needs below it")


def test_function_level_imports_say_why():
    _, imps, _ = _graph()
    bad = unexplained(imps)
    assert not bad, (
        "imports of ftrans modules inside functions without a '# deferred: <reason>' "
        "comment on the import line:\n  " + "\n  ".join(bad)
        + "\nimport at the module's top, or say why it cannot be (an optional dependency, "
        "a module above this one)")


def test_few_function_level_imports():
    _, imps, _ = _graph()
    inside = [f"{path.relative_to(ROOT)}:{line}" for mod, path, line, _, in_function, _ in imps
              if in_function]
    assert len(inside) <= MAX_DEFERRED, (
        f"{len(inside)} imports of ftrans modules inside functions (at most {MAX_DEFERRED}):"
        "\n  " + "\n  ".join(inside))


def _write(root, rel, text):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def test_the_checks_find_a_circle_and_an_unexplained_import(tmp_path):
    _write(tmp_path, "ftrans/__init__.py", "from . import a\n")
    _write(tmp_path, "ftrans/a.py", "from .sub import b\nfrom . import c\n")
    _write(tmp_path, "ftrans/sub/__init__.py", "")
    _write(tmp_path, "ftrans/sub/b.py",
           "def f():\n    from ..a import x\n    from .. import c  # deferred: test\n")
    _write(tmp_path, "ftrans/c.py",
           "import ftrans\n\ndef g():\n"
           "    from ftrans import (\n        a,  # deferred: x\n    )\n")
    files, imps, g = _graph(tmp_path)
    assert set(files) == {"ftrans", "ftrans.a", "ftrans.sub", "ftrans.sub.b", "ftrans.c"}
    assert g["ftrans.a"] == {"ftrans.sub.b", "ftrans.c"}
    assert g["ftrans"] == {"ftrans.a"} and "ftrans" not in g["ftrans.c"]  # edges into __init__
    assert circles(g) == [["ftrans.a", "ftrans.c", "ftrans.sub.b"]]
    assert unexplained(imps, ("ftrans",)) == [f"{tmp_path / 'ftrans/sub/b.py'}:2"]
    assert unexplained(imps, ("ftrans.c",)) == []
