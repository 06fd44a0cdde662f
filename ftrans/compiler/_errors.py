"""The compiler's warning classes (a module of their own: ``ftrans.compiler`` imports its
code generators lazily, to keep ``import ftrans`` fast)."""

__all__ = ["CacheIntegrityWarning"]


class CacheIntegrityWarning(RuntimeWarning):
    """A damaged entry of the on-disk cache (``$FTRANS_CACHE_DIR``) was discarded and
    regenerated: a generated module whose text is not the text its name hashes, or
    numba machine-code files that failed to load.  The message names the file."""
