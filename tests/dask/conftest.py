"""Shared fixtures for the Dask tests: one in-process LocalCluster per session."""
import pytest

pytest.importorskip("dask.array")


@pytest.fixture(scope="session")
def client():
    """A ``distributed`` client on a LocalCluster with threads (processes=False):
    starts in well under a second and runs every graph of the session."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


class ComputeCounter:
    """Counts graph executions on the local schedulers (``dask.callbacks.Callback``):
    a lazy transform must leave it at 0."""

    def __init__(self):
        self.count = 0

    def __enter__(self):
        import dask
        from dask.callbacks import Callback
        self._cfg = dask.config.set(scheduler="sync")
        self._cfg.__enter__()
        self._cb = Callback(start=self._start)
        self._cb.__enter__()
        return self

    def _start(self, dsk):
        self.count += 1

    def __exit__(self, *exc):
        self._cb.__exit__(*exc)
        self._cfg.__exit__(*exc)
        return False


@pytest.fixture
def computes():
    with ComputeCounter() as c:
        yield c
