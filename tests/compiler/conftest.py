"""Shared configuration of the compiler tests.

Numba compile time dominates these tests, so

* the generated modules and numba's machine code go to the session's cache directory
  (``FTRANS_CACHE_DIR``, set for the whole suite in tests/conftest.py);
* each test module stages *few, large* programs (the primitive table's rows in a few
  programs per dtype) rather than one program per case.
"""
import os
import sys


sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "primitives"))
sys.path.insert(0, os.path.dirname(__file__))  # _jit_checks
