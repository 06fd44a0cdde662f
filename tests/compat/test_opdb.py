"""compat against PyTorch's operator database (``op_db``): see ``tests/compat/opdb.py``.

One test per op_db entry in scope (everything outside ``masked.*``, ``sparse.*``, the
CUDA-only ``jiterator_*`` entries and private aten entries), on a few sample inputs per
dtype (float64, float32, complex128 where torch supports it): values, gradients, and on
the first float64 sample second derivatives, forward-mode AD and ``compat.func.vjp``; then
the error inputs.  An entry listed in ``tests/compat/opdb_known.py`` is expected not
to pass yet (strict xfail with the recorded reason: a listed entry that starts passing
fails, so the list only shrinks).  The summary per namespace is printed at the end of the
run (``tests/conftest.py``).
"""
import pytest

import opdb
from opdb_known import KNOWN

pytestmark = pytest.mark.skipif(opdb.torch is None, reason="PyTorch (with expecttest) is not "
                                "installed: the op_db differential suite is skipped")

_OPS = opdb.ops()


@pytest.mark.parametrize("name", sorted(_OPS))
def test_op_db_entry(name, record_property):
    op = _OPS[name]
    status, detail = opdb.check_op(op)
    record_property("opdb", (opdb.namespace(op), status))
    if name in KNOWN:
        if status in ("pass", "torch-refuses", "excluded"):
            pytest.fail(f"{name} now {status}: remove it from tests/compat/opdb_known.py")
        pytest.xfail(f"{status}: {detail}")
    assert status in ("pass", "torch-refuses", "excluded"), f"{name}: {status}: {detail}"


def test_known_entries_exist():
    """Every entry of the known-failures list names an op_db entry (no stale names)."""
    assert sorted(set(KNOWN) - set(_OPS)) == []
